"""Grade a submission folder, one child process per exercise (the autograder).

For each exercise the grader

1. makes the checks (inputs from a seeded generator, references computed here,
   from code the child cannot import),
2. reads the submission's source, bounded and never run (``source``): hints,
   library shortcuts, properties a running submission could fake,
3. starts ``_child.py`` in isolated mode in its own session, in a folder of its
   own holding a copy of the submission, as an unprivileged user with hard
   limits when the grader is root (``sandbox``), with a private pipe,
4. reads the pipe until the child closes it, the time is up or the reply is
   too long, then kills every process the exercise started,
5. compares every output that came back with its reference, here.

A hang, a crash, ``sys.exit``, ``os._exit``, a signal or a damaged working
folder ends only that exercise: the checks that reported keep their points,
the rest score zero. What the child prints is kept (a short tail) to show the
student, never parsed.
"""

from __future__ import annotations

import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from minigrad.grade import sandbox, source
from minigrad.grade.channel import encode, read_messages
from minigrad.grade.report import CheckResult, ExerciseResult, Report
from minigrad.grade.spec import Check, Exercise, probe_path

DEFAULT_TIMEOUT = 30.0
MAX_CHANNEL_BYTES = 8 * 2**20
MAX_COPIED_BYTES = 16 * 2**20
OUTPUT_TAIL_CHARS = 2000
PACKAGE_ROOT = sandbox.COURSE_ROOT
CHILD = Path(__file__).resolve().with_name("_child.py")
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TERM")


def _collect(channel: int, output: int, deadline: float) -> tuple[bytes, bytes, str]:
    """Read the channel and the child's output until both close, the deadline or the cap.

    The channel is kept whole (up to ``MAX_CHANNEL_BYTES``); of the output only
    the tail, so a submission that prints without end fills neither memory nor disk.
    """
    raw, tail = bytearray(), b""
    pending = {channel, output}
    while pending:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return bytes(raw), tail, "timeout"
        ready, _, _ = select.select(list(pending), [], [], remaining)
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                pending.discard(fd)
            elif fd == output:
                tail = (tail + chunk)[-OUTPUT_TAIL_CHARS:]
            else:
                raw += chunk
                if len(raw) > MAX_CHANNEL_BYTES:
                    return bytes(raw), tail, "overflow"
    return bytes(raw), tail, "eof"


def _ending(process: subprocess.Popen, how: str, timeout: float) -> str:
    """Why the checks that never reported failed."""
    if how == "timeout":
        return f"timed out after {timeout:g} s (an endless loop?)"
    if how == "overflow":
        return f"sent more than {MAX_CHANNEL_BYTES // 2**20} MiB of output back; stopped"
    code = process.returncode
    if code is not None and code < 0:
        try:
            return f"the process was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"the process was killed by signal {-code}"
    return f"the process ended early (exit status {code}) before this check reported"


def _copy_submission(folder: Path, into: Path) -> None:
    """The submission's files (links kept as links, caches and large files left out)."""

    def ignored(where: str, names: list[str]) -> set[str]:
        skip = {"__pycache__", ".git", ".ipynb_checkpoints"}
        for name in names:
            path = Path(where, name)
            if not path.is_symlink() and path.is_file() and path.stat().st_size > MAX_COPIED_BYTES:
                skip.add(name)
        return skip

    shutil.copytree(folder, into, symlinks=True, ignore=ignored)


class Run:
    """One grading run: its private folder, its isolation, a job slot per thread."""

    def __init__(self, jobs: int, limits: sandbox.Limits | None = None) -> None:
        self.isolation = sandbox.isolation(jobs, limits)
        self.top = Path(tempfile.mkdtemp(prefix="minigrad-grade-"))
        self.top.chmod(0o711)  # children may pass through, not list
        self.package_link = self.top / "package"
        self.package_link.mkdir(mode=0o755)
        self.package_link.chmod(0o755)
        (self.package_link / "minigrad").symlink_to(sandbox.PACKAGE_DIR)
        self.slots: queue.Queue[int] = queue.Queue()
        for slot in range(jobs):
            self.slots.put(slot)

    def close(self) -> None:
        if not self.isolation.privileged:
            sandbox.sweep()
        sandbox.remove(self.top)

    def account(self, slot: int) -> tuple[int, int] | None:
        return self.isolation.accounts[slot] if self.isolation.privileged else None

    def env(self, exercise: Exercise, home: Path) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key in PASSED_ENV}
        env.update({k: v for k, v in os.environ.items() if k.startswith("MINIGRAD_")})
        env.update(HOME=str(home), TMPDIR=str(home), NUMBA_CACHE_DIR=str(home / ".numba"))
        env.update(exercise.env)
        return env


def run_child(
    exercise: Exercise, file: Path, checks: list[Check], timeout: float, run: Run, slot: int
) -> tuple[dict[int, dict], str, str]:
    """Run the checks' probes on ``file`` in a child; (messages, output tail, ending)."""
    account = run.account(slot)
    home = run.top / f"{exercise.number}-{slot}"
    sandbox.remove(home)
    home.mkdir(mode=0o700)
    _copy_submission(file.parent, home / "submission")
    request = {
        "file": str(home / "submission" / file.name),
        "package_link": str(run.package_link),
        "limits": run.isolation.limits.rlimits(run.isolation.privileged),
        "probes": [{"probe": probe_path(c.probe), "args": encode(c.args)} for c in checks],
    }
    request_path = home / "request.json"
    request_path.write_text(json.dumps(request))
    sandbox.give(home, account)
    read_end, write_end = os.pipe()
    user = {"user": account[0], "group": account[1], "extra_groups": []} if account else {}
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", str(CHILD), str(request_path), str(write_end)],
            cwd=home,
            env=run.env(exercise, home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(write_end,),
            start_new_session=True,
            **user,
        )
    finally:
        os.close(write_end)
    try:
        if account:
            # Set by root, the score also becomes the floor the child cannot go below.
            Path(f"/proc/{process.pid}/oom_score_adj").write_text("1000")
        process.stdin.close()  # the child's go
        deadline = time.monotonic() + timeout
        raw, tail, how = _collect(read_end, process.stdout.fileno(), deadline)
        if how == "eof":
            try:
                process.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                how = "timeout"
    finally:
        _end(process, account)
        os.close(read_end)
        sandbox.remove(home)
    output = tail.decode("utf-8", "replace")
    return read_messages(raw, len(checks)), output, _ending(process, how, timeout)


def _end(process: subprocess.Popen, account: tuple[int, int] | None) -> None:
    """Kill everything the exercise started: its user's processes as root, else its group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    if account:
        sandbox.kill_user(*account)
    process.wait()
    process.stdout.close()


def grade_exercise(
    exercise: Exercise,
    directory: Path,
    timeout: float = DEFAULT_TIMEOUT,
    seed: int = 0,
    run: Run | None = None,
) -> ExerciseResult:
    """Grade one exercise of the submission in ``directory``."""
    if run is None:
        run = Run(1)
        try:
            return grade_exercise(exercise, directory, timeout, seed, run)
        finally:
            run.close()
    file = directory / exercise.file
    rng = np.random.default_rng([seed, zlib.crc32(exercise.number.encode())])
    checks = exercise.make_checks(rng)
    text = source.read(file)
    if not file.is_file():
        messages, tail, ending = {}, "", f"{file} not found"
    else:
        slot = run.slots.get()
        try:
            messages, tail, ending = run_child(exercise, file.resolve(), checks, timeout, run, slot)
        finally:
            run.slots.put(slot)
    shortcut = source.shortcut(text, exercise.name, exercise.shortcuts)
    results = []
    for index, check in enumerate(checks):
        reply = messages.get(index, {"error": ending})
        problem = shortcut or source.faked(text, check.measures, exercise.name)
        if problem is not None:
            pass
        elif "error" in reply:
            problem = reply["error"]
        else:
            try:
                problem = check.compare(check.expected, reply["output"])
            except Exception as error:  # a malformed output must not stop the grader
                problem = f"the output could not be compared: {type(error).__name__}: {error}"
        results.append(CheckResult(check.name, check.points, problem))
    hint = source.hints(text).get(exercise.number) or f"see lesson {exercise.lesson:02d}"
    return ExerciseResult(exercise, results, tail, hint)


def grade(
    directory: str | os.PathLike,
    exercises: list[Exercise],
    timeout: float = DEFAULT_TIMEOUT,
    seed: int = 0,
    jobs: int | None = None,
    limits: sandbox.Limits | None = None,
) -> Report:
    """Grade ``exercises`` of the submission in ``directory``, ``jobs`` children at a time.

    As root each child runs as an unprivileged user with ``limits``; otherwise
    the protections that are off are printed to stderr once.
    """
    folder = Path(directory)
    jobs = jobs or min(4, os.cpu_count() or 1)
    run = Run(jobs, limits)
    for note in run.isolation.notes():
        print(f"minigrad grader: {note}", file=sys.stderr)
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            graded = pool.map(lambda ex: grade_exercise(ex, folder, timeout, seed, run), exercises)
            return Report(list(graded), folder)
    finally:
        run.close()
