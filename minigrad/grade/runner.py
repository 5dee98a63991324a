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
        self, jobs: int, limits: sandbox.Limits | None = None, use_sandbox: bool | str = True
    ) -> None:
        self.isolation = sandbox.isolation(limits, use_sandbox)
        mode = self.isolation.mode
        self.top = Path(tempfile.mkdtemp(prefix="minigrad-grade-"))  # 0700: the grader's alone
        try:
            self.accounts = sandbox.Accounts() if mode in ("root", "account") else None
        except BaseException:
            sandbox.remove(self.top)
            raise
        self.submission: Path | None = None
        self.left_out: list[str] = []
        self.slots: queue.Queue[int] = queue.Queue()
        for slot in range(jobs):
            self.slots.put(slot)
        if mode in ("none", "account"):
            # Children run in the host's file system: orphans come back to the grader, and
            # the module path gets a folder holding only the package (no solutions/).
            sandbox.start_as_subreaper()
            if mode == "account":
                self.top.chmod(0o711)  # an exercise's user may pass through to its folder
            self.package_link = self.top / "package"
            self.package_link.mkdir(mode=0o755)
            self.package_link.chmod(0o755)
            (self.package_link / "minigrad").symlink_to(sandbox.PACKAGE_DIR)
        if self.isolation.sandboxed:
            try:
                self.engage()
            except BaseException:
                self.close()
                raise

    def close(self) -> None:
        if self.isolation.mode == "none":
            sandbox.sweep()  # and reap what the grader adopted as subreaper
        if self.isolation.mode in ("none", "account"):
            sandbox.reap()
            sandbox.stop_as_subreaper()
        sandbox.remove(self.top)

    def copy(self, folder: Path) -> None:
        """The submission's copy every child of this run sees (``submission``)."""
        self.submission = self.top / "submission"
        self.left_out = copy_submission(folder, self.submission).left_out

    def env(self, exercise: Exercise, home: str) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key in PASSED_ENV}
        env.update({k: v for k, v in os.environ.items() if k.startswith("MINIGRAD_")})
        tmp = "/tmp" if self.isolation.mode in ("root", "user") else f"{home}/tmp"
        env.update(HOME=home, TMPDIR=tmp, NUMBA_CACHE_DIR=f"{home}/.numba")
        env.update(PYTHONDONTWRITEBYTECODE="1")
        env.update(exercise.env)
        return env

    def engage(self) -> None:
        """Start one sandboxed child that only reports what it sees: ``SandboxError`` unless
        it runs, is not root, has no capability, and sees neither the grader nor the course."""
        canary = self.top / "canary"
        canary.write_text("the grader's folder")
        canary.chmod(0o600)
        hidden = [str(canary), *map(str, sandbox.PROTECTED)]
        code = (
            "import json, os, sys\n"
            "import numpy\n"
            "status = dict(l.split(':', 1) for l in open('/proc/self/status') if ':' in l)\n"
            "def read(p):\n"
            "    try:\n"
            "        os.listdir(p) if os.path.isdir(p) else open(p).close()\n"
            "        return True\n"
            "    except OSError:\n"
            "        return False\n"
            "seen = [p for p in sys.argv[1:] if read(p)]\n"
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
        argv = [sys.executable, "-I", "-c", code, *hidden]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        with contextlib.ExitStack() as stack:
            stack.callback(lambda: [os.close(fd) for fd in fds])
            account = stack.enter_context(self.accounts.fresh()) if self.accounts else None
            user: dict = {}
            if self.isolation.mode == "account":
                command = argv
                user = {"user": account[0], "group": account[1], "extra_groups": [], "cwd": "/"}
            else:
                command = sandbox.jail_command(
                    self.isolation,
                    folder,
                    empty,
                    argv,
                    env,
                    account,
                    (fds[1], fds[3]),
                    folder / "request.json",
                )
            try:
                done = subprocess.run(
                    command, pass_fds=(fds[1], fds[3]), capture_output=True, text=True,
                    timeout=60, stdin=subprocess.DEVNULL, env=env, **user,
                )  # fmt: skip
            except (OSError, subprocess.TimeoutExpired) as error:
                raise sandbox.SandboxError(
                    f"the grader's sandbox did not start ({error}). {self._what_to_do()}"
                ) from None
        try:
            seen = json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            detail = " ".join((done.stderr or done.stdout).split())[-600:]
            detail = detail or f"exit status {done.returncode}"
            if self.isolation.mode == "account":
                detail = f"another user cannot start {sys.executable}: {detail}"
            raise sandbox.SandboxError(
                f"the grader's sandbox cannot engage here ({detail}). {self._what_to_do()}"
            ) from None
        problems = []
        if seen["caps"]:
            problems.append("the child kept capabilities")
        if self.accounts and seen["uid"] in (0, os.getuid()):
            problems.append("the child runs as root")
        if seen["seen"]:
            problems.append(f"the child sees {', '.join(seen['seen'])}")
        if seen["pids"] > 3 and self.isolation.mode != "account":
            problems.append("the child sees other processes")
        if problems:
            raise sandbox.SandboxError(
                f"the grader's sandbox is not tight here: {'; '.join(problems)}. "
                + self._what_to_do()
            )

    def _what_to_do(self) -> str:
        if self.isolation.mode != "account":
            return sandbox.WHAT_TO_DO
        closed = " ".join(str(p) for p in sandbox.PROTECTED)
        return (
            "This machine allows no namespaces (a container without CAP_SYS_ADMIN?), so the "
            "grader runs each exercise as a made-up user instead; that needs the interpreter's "
            "folders open to other users for search and reading, and the answers closed to "
            f"them (for example, as the teacher who owns them: chmod -R o-rwx {closed}). "
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
    mode = run.isolation.mode
    jailed = mode in ("root", "user")
    if jailed:
        home, submission = f"{sandbox.WORK}/home", f"{sandbox.WORK}/submission"
    else:
        home, submission = str(folder), str(folder / "submission")
        copy_submission(run.submission, folder / "submission")  # this exercise's own copy
        (folder / "tmp").mkdir(mode=0o700)
    request = {
        "file": f"{submission}/{name}",
        "package_link": str(sandbox.PACKAGE_DIR.parent if jailed else run.package_link),
        "limits": {} if jailed else run.isolation.limits.rlimits(),
        "probes": [{"probe": probe_path(c.probe), "args": encode(c.args)} for c in checks],
        "forbidden": list(exercise.shortcuts),
    }
    request_path = folder / "request.json"
    request_path.write_text(json.dumps(request))
    read_end, write_end = os.pipe()
    status_r, status_w = os.pipe()
    argv = [sys.executable, "-I", "-B", str(CHILD), f"{home}/request.json", str(write_end)]
    env = run.env(exercise, home)
    with contextlib.ExitStack() as stack:
        account = stack.enter_context(run.accounts.fresh()) if run.accounts else None
        user: dict = {}
        if jailed:
            command = sandbox.jail_command(
                run.isolation, folder, run.submission, argv, env, account,
                (status_w, write_end), request_path,
            )  # fmt: skip
        else:
            command = argv
            if account is not None:  # the account sandbox: the folder is the user's
                request["limits"] = run.isolation.limits.rlimits(run.isolation.limits.processes)
                request_path.write_text(json.dumps(request))
                sandbox.give(folder, account)
                user = {"user": account[0], "group": account[1], "extra_groups": []}
        try:
            process = subprocess.Popen(
                command,
                cwd=folder,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(write_end, status_w) if jailed else (write_end,),
                start_new_session=True,
                **user,
            )
        finally:
            os.close(write_end)
            os.close(status_w)
        try:
            if account is not None and not jailed:
                # Set by root before the go, the score is also the floor the child cannot lower.
                with contextlib.suppress(OSError):
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
            _end(process)
            if account is not None and not jailed:
                sandbox.kill_as(*account)
                sandbox.remove_files_of(account[0])
            os.close(read_end)
            status = _read_status(status_r) if jailed else None
            if not jailed:
                os.close(status_r)
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
    sandbox: bool | str = True,
) -> Report:
    """Grade ``exercises`` of the submission in ``directory``, ``jobs`` children at a time.

    Every child runs in the sandbox (see ``sandbox``); when it cannot engage,
    ``SandboxError`` says why and what to do, and nothing is graded.
    ``sandbox=False`` runs children as the calling user (trusted work only,
    and said on stderr); "namespaces" or "account" asks for that sandbox only.
    ``seed`` defaults to a fresh one, kept in the report.
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
