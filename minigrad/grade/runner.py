"""Grade a submission folder, one child process per exercise (the autograder).

For each exercise the grader

1. makes the checks (inputs from a seeded generator, references computed here,
   from code the child cannot import),
2. reads the submission's source, bounded and never run (``source``): hints,
   library shortcuts, properties a running submission could fake,
3. starts ``_child.py`` in its own sandbox (``sandbox``, ``jail``): namespaces
   of its own, a user id of its own as root, hard limits, a read-only view of
   the interpreter, the package and the submission's copy (``submission``),
   with a private pipe,
4. reads the pipe until the child closes it, the time is up or the reply is
   too long, then kills every process the exercise started,
5. compares every output that came back with its reference, here.

A hang, a crash, ``sys.exit``, ``os._exit``, a signal or a damaged working
folder ends only that exercise: the checks that reported keep their points,
the rest score zero. What the child prints is kept (a short tail) to show the
student, never parsed.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import secrets
import select
import signal
import stat
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
from minigrad.grade.submission import copy_submission, kind

DEFAULT_TIMEOUT = 30.0
MAX_CHANNEL_BYTES = 8 * 2**20
OUTPUT_TAIL_CHARS = 2000
PACKAGE_ROOT = sandbox.COURSE_ROOT
CHILD = Path(__file__).resolve().with_name("_child.py")
PASSED_ENV = ("PATH", "LANG", "LC_ALL")
# ANSI escape sequences (CSI, OSC and single-character ones) a child could print.
CONTROL_SEQUENCE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")


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


def _ending(process: subprocess.Popen, how: str, timeout: float, status: str | None) -> str:
    """Why the checks that never reported failed (``status``: the sandbox's word on the child)."""
    if how == "timeout":
        return f"timed out after {timeout:g} s (an endless loop?)"
    if how == "overflow":
        return f"sent more than {MAX_CHANNEL_BYTES // 2**20} MiB of output back; stopped"
    code = process.returncode
    if status == "nosandbox" or (status is None and code == sandbox.NO_SANDBOX):
        return "the sandbox could not start this exercise (see the output): nothing of it ran"
    if status is not None:
        what, _, number = status.partition(" ")
        code = -int(number) if what == "signal" else int(number)
    if code is not None and code < 0:
        try:
            return f"the process was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"the process was killed by signal {-code}"
    return f"the process ended early (exit status {code}) before this check reported"


class Run:
    """One grading run: its private folder, its sandbox, the submission's copy, its job slots."""

    def __init__(
        self, jobs: int, limits: sandbox.Limits | None = None, use_sandbox: bool = True
    ) -> None:
        self.isolation = sandbox.isolation(limits, use_sandbox)
        self.top = Path(tempfile.mkdtemp(prefix="minigrad-grade-"))  # 0700: the grader's alone
        self.accounts = sandbox.Accounts() if self.isolation.mode == "root" else None
        self.submission: Path | None = None
        self.left_out: list[str] = []
        self.slots: queue.Queue[int] = queue.Queue()
        for slot in range(jobs):
            self.slots.put(slot)
        if self.isolation.sandboxed:
            try:
                self.engage()
            except BaseException:
                self.close()
                raise
        else:
            sandbox.start_as_subreaper()
            # A folder holding only the package: the child's module path gets no solutions/.
            self.package_link = self.top / "package"
            self.package_link.mkdir(mode=0o755)
            (self.package_link / "minigrad").symlink_to(sandbox.PACKAGE_DIR)

    def close(self) -> None:
        if not self.isolation.sandboxed:
            sandbox.sweep()
        sandbox.reap()
        sandbox.remove(self.top)

    def copy(self, folder: Path) -> None:
        """The submission's copy every child of this run sees (``submission``)."""
        self.submission = self.top / "submission"
        self.left_out = copy_submission(folder, self.submission).left_out

    def env(self, exercise: Exercise, home: str) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key in PASSED_ENV}
        env.update({k: v for k, v in os.environ.items() if k.startswith("MINIGRAD_")})
        tmp = "/tmp" if self.isolation.sandboxed else home
        env.update(HOME=home, TMPDIR=tmp, NUMBA_CACHE_DIR=f"{home}/.numba")
        env.update(PYTHONDONTWRITEBYTECODE="1")
        env.update(exercise.env)
        return env

    def engage(self) -> None:
        """Start one sandboxed child that only reports what it sees: ``SandboxError`` unless
        it runs, is not root, has no capability, and sees neither the grader nor the course."""
        canary = self.top / "canary"
        canary.write_text("the grader's folder")
        hidden = [
            str(canary),
            str(sandbox.COURSE_ROOT / "solutions"),
            str(sandbox.GRADE_DIR / "spec.py"),
        ]
        code = (
            "import json, os, sys\n"
            "import numpy\n"
            "status = dict(l.split(':', 1) for l in open('/proc/self/status') if ':' in l)\n"
            "seen = [p for p in sys.argv[1:] if os.path.exists(p)]\n"
            "print(json.dumps({'uid': os.getuid(), 'caps': int(status['CapEff'], 16),\n"
            "                  'pids': len([p for p in os.listdir('/proc') if p.isdigit()]),\n"
            "                  'seen': seen, 'parent': os.getppid()}))\n"
        )
        empty = self.top / "engage"
        empty.mkdir(mode=0o755)
        folder = self.top / "engage-run"
        folder.mkdir(mode=0o700)
        (folder / "request.json").write_text("{}")
        fds = [*os.pipe(), *os.pipe()]  # status read, write; channel read, write
        with contextlib.ExitStack() as stack:
            stack.callback(lambda: [os.close(fd) for fd in fds])
            account = stack.enter_context(self.accounts.fresh()) if self.accounts else None
            command = sandbox.jail_command(
                self.isolation, folder, empty, [sys.executable, "-I", "-c", code, *hidden],
                {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, account,
                (fds[1], fds[3]), folder / "request.json",
            )  # fmt: skip
            try:
                done = subprocess.run(
                    command, pass_fds=(fds[1], fds[3]), capture_output=True, text=True,
                    timeout=60, stdin=subprocess.DEVNULL,
                )  # fmt: skip
            except (OSError, subprocess.TimeoutExpired) as error:
                raise sandbox.SandboxError(
                    f"the grader's sandbox did not start ({error}). {sandbox.WHAT_TO_DO}"
                ) from None
        try:
            seen = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            detail = " ".join((done.stderr or done.stdout).split())[-600:]
            raise sandbox.SandboxError(
                "the grader's sandbox cannot engage here "
                f"({detail or f'exit status {done.returncode}'}). {sandbox.WHAT_TO_DO}"
            ) from None
        problems = []
        if seen["caps"]:
            problems.append("the child kept capabilities")
        if self.accounts and seen["uid"] in (0, os.getuid()):
            problems.append("the child runs as root")
        if seen["seen"]:
            problems.append(f"the child sees {', '.join(seen['seen'])}")
        if seen["pids"] > 3:
            problems.append("the child sees other processes")
        if problems:
            raise sandbox.SandboxError(
                f"the grader's sandbox is not tight here: {'; '.join(problems)}. "
                + sandbox.WHAT_TO_DO
            )


def run_child(
    exercise: Exercise, name: str, checks: list[Check], timeout: float, run: Run, slot: int
) -> tuple[dict[int, dict], str, str]:
    """Run the checks' probes on the submission's file ``name`` in a child.

    Returns (messages, output tail, how the unreported checks failed).
    """
    folder = run.top / f"{exercise.number}-{slot}"
    sandbox.remove(folder)
    folder.mkdir(mode=0o700)
    sandboxed = run.isolation.sandboxed
    home = f"{sandbox.WORK}/home" if sandboxed else str(folder)
    request = {
        "file": f"{sandbox.WORK}/submission/{name}" if sandboxed else str(run.submission / name),
        "package_link": str(sandbox.PACKAGE_DIR.parent if sandboxed else run.package_link),
        "limits": {} if sandboxed else run.isolation.limits.rlimits(),
        "probes": [{"probe": probe_path(c.probe), "args": encode(c.args)} for c in checks],
        "forbidden": list(exercise.shortcuts),
    }
    request_path = folder / "request.json"
    request_path.write_text(json.dumps(request))
    read_end, write_end = os.pipe()
    status_r, status_w = os.pipe()
    argv = [sys.executable, "-I", "-B", str(CHILD), f"{home}/request.json", str(write_end)]
    with contextlib.ExitStack() as stack:
        account = stack.enter_context(run.accounts.fresh()) if run.accounts else None
        if sandboxed:
            command = sandbox.jail_command(
                run.isolation, folder, run.submission, argv, run.env(exercise, home), account,
                (status_w, write_end), request_path,
            )  # fmt: skip
        else:
            command = argv
        try:
            process = subprocess.Popen(
                command,
                cwd=folder,
                env=run.env(exercise, home),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(write_end, status_w) if sandboxed else (write_end,),
                start_new_session=True,
            )
        finally:
            os.close(write_end)
            os.close(status_w)
        try:
            process.stdin.close()  # the child's go
            deadline = time.monotonic() + timeout
            raw, tail, how = _collect(read_end, process.stdout.fileno(), deadline)
            if how == "eof":
                try:
                    process.wait(max(deadline - time.monotonic(), 0.1))
                except subprocess.TimeoutExpired:
                    how = "timeout"
        finally:
            _end(process)
            os.close(read_end)
            status = _read_status(status_r) if sandboxed else None
            sandbox.remove(folder)
    output = _printable(tail.decode("utf-8", "replace"))
    return read_messages(raw, len(checks)), output, _ending(process, how, timeout, status)


def _read_status(status_r: int) -> str | None:
    """What process 1 of the sandbox said of the child's end (None: it said nothing)."""
    try:
        os.set_blocking(status_r, False)
        return os.read(status_r, 64).decode("ascii", "replace") or None
    except OSError:
        return None
    finally:
        os.close(status_r)


def _printable(text: str) -> str:
    """The child's output without terminal control sequences (colours, cursor moves, titles)."""
    text = CONTROL_SEQUENCE.sub("", text)
    return "".join(
        c if c.isprintable() or c in "\n\t" else "\N{REPLACEMENT CHARACTER}" for c in text
    )


def _end(process: subprocess.Popen) -> None:
    """Kill everything the exercise started: its sandbox (and so its namespace), or its group."""
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        process.kill()
    process.wait()
    process.stdout.close()


def _not_gradable(path: Path) -> str | None:
    """Why the exercise file at ``path`` cannot be graded (None: it is a regular file)."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return f"{path} not found"
    except OSError as error:
        return f"{path} cannot be read: {error.strerror}"
    if not stat.S_ISREG(mode):
        return f"{path.name} is {kind(mode)}, not a regular file: only regular files are graded"
    return None


def fresh_seed() -> int:
    """A seed no one can know before the run (the default: feedback cannot be replayed)."""
    return secrets.randbits(32)


def grade_exercise(
    exercise: Exercise,
    directory: Path,
    timeout: float = DEFAULT_TIMEOUT,
    seed: int | None = None,
    run: Run | None = None,
) -> ExerciseResult:
    """Grade one exercise of the submission in ``directory`` (a fresh seed unless given)."""
    if run is None:
        run = Run(1)
        try:
            run.copy(directory)
            return grade_exercise(exercise, directory, timeout, seed, run)
        finally:
            run.close()
    seed = fresh_seed() if seed is None else seed
    rng = np.random.default_rng([seed, zlib.crc32(exercise.number.encode())])
    checks = exercise.make_checks(rng)
    refused = _not_gradable(directory / exercise.file) or _not_gradable(
        run.submission / exercise.file
    )
    if refused is not None:
        text = source.Source("", None)
        messages, tail, ending = {}, "", refused
    else:
        text = source.read_submission(run.submission, exercise.file)
        slot = run.slots.get()
        try:
            messages, tail, ending = run_child(exercise, exercise.file, checks, timeout, run, slot)
        finally:
            run.slots.put(slot)
    shortcut = None if refused else source.shortcut(text, exercise.name, exercise.shortcuts)
    results = []
    for index, check in enumerate(checks):
        reply = messages.get(index, {"error": ending})
        problem = None if refused else source.faked(text, check.measures, exercise.name)
        problem = shortcut or problem
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
    seed: int | None = None,
    jobs: int | None = None,
    limits: sandbox.Limits | None = None,
    sandbox: bool = True,
) -> Report:
    """Grade ``exercises`` of the submission in ``directory``, ``jobs`` children at a time.

    Every child runs in the sandbox (see ``sandbox``); when it cannot engage,
    ``SandboxError`` says why and what to do, and nothing is graded.
    ``sandbox=False`` runs children as the calling user (trusted work only,
    and said on stderr). ``seed`` defaults to a fresh one, kept in the report.
    """
    folder = Path(directory)
    jobs = jobs or min(4, os.cpu_count() or 1)
    seed = fresh_seed() if seed is None else seed
    run = Run(jobs, limits, sandbox)
    for note in run.isolation.notes():
        print(f"minigrad grader: {note}", file=sys.stderr)
    try:
        run.copy(folder)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            graded = pool.map(lambda ex: grade_exercise(ex, folder, timeout, seed, run), exercises)
            report = Report(list(graded), folder)
        report.seed = seed
        report.left_out = list(run.left_out)
        return report
    finally:
        run.close()
