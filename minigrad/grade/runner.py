"""Grade a submission folder, one child process per exercise (the autograder).

For each exercise the grader

1. makes the checks (inputs from a seeded generator, references computed here),
2. starts ``python -m minigrad.grade._child`` in its own session with a
   private pipe, a fresh working folder and a time limit,
3. reads the pipe until the child closes it or the time is up, then kills the
   child's whole process group,
4. compares every output that came back with its reference, here.

A hang, a crash, ``sys.exit`` or ``os._exit`` ends only that exercise's child:
the checks that reported keep their points, the rest score zero. What the
child prints is kept (a short tail) to show the student, never parsed.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from minigrad.grade.channel import encode, read_messages
from minigrad.grade.report import CheckResult, ExerciseResult, Report
from minigrad.grade.spec import Check, Exercise, exercise_hints, probe_path

DEFAULT_TIMEOUT = 30.0
MAX_CHANNEL_BYTES = 32 * 2**20
OUTPUT_TAIL_CHARS = 2000
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


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


def _kill_group(process: subprocess.Popen) -> None:
    # The child leads its own session, so this reaches anything it started too.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _ending(process: subprocess.Popen, how: str, timeout: float) -> str:
    """Why the checks that never reported failed."""
    if how == "timeout":
        return f"timed out after {timeout:g} s (an endless loop?)"
    if how == "overflow":
        return "sent more than 32 MiB of output back; stopped"
    code = process.returncode
    if code is not None and code < 0:
        return f"the process was killed by {signal.Signals(-code).name}"
    return f"the process ended early (exit status {code}) before this check reported"


def run_child(
    exercise: Exercise, file: Path, checks: list[Check], timeout: float
) -> tuple[dict[int, dict], str, str]:
    """Run the checks' probes on ``file`` in a child; (messages, output tail, ending)."""
    token = secrets.token_hex(16)
    request = {
        "token": token,
        "file": str(file),
        "probes": [{"probe": probe_path(c.probe), "args": encode(c.args)} for c in checks],
    }
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), env.get("PYTHONPATH")]))
    env.update(exercise.env)
    with tempfile.TemporaryDirectory(prefix="minigrad-grade-") as workdir:
        request_path = Path(workdir, "request.json")
        request_path.write_text(json.dumps(request))
        read_end, write_end = os.pipe()
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "minigrad.grade._child", str(request_path), str(write_end)],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(write_end,),
                start_new_session=True,
            )
        finally:
            os.close(write_end)
        try:
            deadline = time.monotonic() + timeout
            raw, tail, how = _collect(read_end, process.stdout.fileno(), deadline)
            if how == "eof":
                try:
                    process.wait(max(deadline - time.monotonic(), 0.1))
                except subprocess.TimeoutExpired:
                    how = "timeout"
        finally:
            _kill_group(process)
            process.wait()
            process.stdout.close()
            os.close(read_end)
    output = tail.decode("utf-8", "replace")
    return read_messages(raw, token, len(checks)), output, _ending(process, how, timeout)


def grade_exercise(
    exercise: Exercise, directory: Path, timeout: float = DEFAULT_TIMEOUT, seed: int = 0
) -> ExerciseResult:
    """Grade one exercise of the submission in ``directory``."""
    file = directory / exercise.file
    rng = np.random.default_rng([seed, zlib.crc32(exercise.number.encode())])
    checks = exercise.make_checks(rng)
    if not file.is_file():
        messages, tail, ending = {}, "", f"{file} not found"
    else:
        messages, tail, ending = run_child(exercise, file.resolve(), checks, timeout)
    results = []
    for index, check in enumerate(checks):
        reply = messages.get(index, {"error": ending})
        if "error" in reply:
            problem = reply["error"]
        else:
            try:
                problem = check.compare(check.expected, reply["output"])
            except Exception as error:  # a malformed output must not stop the grader
                problem = f"the output could not be compared: {type(error).__name__}: {error}"
        results.append(CheckResult(check.name, check.points, problem))
    return ExerciseResult(exercise, results, tail, _hint(exercise, file))


def _hint(exercise: Exercise, file: Path) -> str:
    """The exercise's hint, read (never run) from the graded file's docstring."""
    try:
        hint = exercise_hints(file.read_text()).get(exercise.number, "")
    except (OSError, SyntaxError, ValueError):
        hint = ""
    return hint or f"see lesson {exercise.lesson:02d}"


def grade(
    directory: str | os.PathLike,
    exercises: list[Exercise],
    timeout: float = DEFAULT_TIMEOUT,
    seed: int = 0,
    jobs: int | None = None,
) -> Report:
    """Grade ``exercises`` of the submission in ``directory``, ``jobs`` children at a time."""
    folder = Path(directory)
    jobs = jobs or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        graded = pool.map(lambda ex: grade_exercise(ex, folder, timeout, seed), exercises)
        return Report(list(graded), folder)
