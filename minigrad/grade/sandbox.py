"""Where a submission runs: a separate user, resource limits, a folder of its own (the autograder).

The grader's threat model (see README, "What the grader guarantees"): the
submission is hostile and may do anything its user may do. So, when the
grader runs as root (as in CI and on Gradescope), each job slot gets its own
unprivileged user (``minigrad-grade0``, ``minigrad-grade1``, ...; made with
``useradd`` if missing, else a fixed unused uid), and the child of an exercise

- runs as that user, in a fresh folder only it (and root) can reach, holding a
  copy of the submission: it cannot signal, stop, trace or read the grader,
  and cannot write the grader's files or results;
- cannot read ``solutions/``, the repository's history or the references in
  ``minigrad/grade/checks`` (made unreadable to other users, ``protect``);
- has hard limits on address space, processes, open files, file size and CPU
  time, and is the OOM killer's first choice;
- leaves nothing behind: ``kill_user`` kills every process of that user once
  the exercise ends, whatever session or process group it moved to.

Without root, only the limits that do not need it apply; ``Isolation.notes``
says which protections are off.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
COURSE_ROOT = PACKAGE_DIR.parent
# Paths another user must not read: answers, their history, and the references.
PROTECTED = (COURSE_ROOT / "solutions", COURSE_ROOT / ".git", PACKAGE_DIR / "grade" / "checks")
SPARE_UID = 64_000
KILL_ROUNDS = 50
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36


@dataclass
class Limits:
    """Hard resource limits of one exercise's processes."""

    memory: int = 4 * 2**30  # address space per process, bytes
    processes: int = 256  # processes and threads of the user (root only)
    files: int = 256  # open file descriptors per process
    file_size: int = 64 * 2**20  # largest file it may write, bytes
    cpu: int = 60  # CPU seconds per process

    def rlimits(self, privileged: bool) -> dict[str, int]:
        """The ``resource`` names and values the child sets on itself."""
        values = {
            "RLIMIT_AS": self.memory,
            "RLIMIT_NOFILE": self.files,
            "RLIMIT_FSIZE": self.file_size,
            "RLIMIT_CPU": self.cpu,
            "RLIMIT_CORE": 0,
        }
        if privileged:
            # Counted per user: only meaningful when the user is the child's alone.
            values["RLIMIT_NPROC"] = self.processes
        return values


@dataclass
class Isolation:
    """How children run in this grading run: as which users, with which limits."""

    privileged: bool
    accounts: list[tuple[int, int]] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    why: str = "not running as root"

    def notes(self) -> list[str]:
        """The protections that are off, in words (empty as root)."""
        if self.privileged:
            return []
        return [
            f"{self.why}, so these protections are off: the submission runs as your "
            "own user and can signal or stop the grader, read solutions/ and the references, "
            "edit files you can edit, and start processes without limit; run the grader as "
            "root (as CI and Gradescope do) to grade untrusted work"
        ]


def isolation(jobs: int, limits: Limits | None = None) -> Isolation:
    """Prepare this run: users and protected paths as root, a subreaper otherwise."""
    limits = limits or Limits()
    libc = ctypes.CDLL(None, use_errno=True)
    # Every orphan of a child is re-parented to the grader, not to PID 1 (which,
    # in a container, may never reap it): the grader can find it (``sweep``)
    # and reap it once killed, so that no zombie keeps counting against the
    # exercise user's process limit (``kill_user``).
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if os.geteuid() != 0:
        # Same user: at least no debugger of ours can attach.
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        return Isolation(False, [], limits)
    protect()
    accounts = [account(slot) for slot in range(jobs)]
    try:
        started = (
            subprocess.run(
                [sys.executable, "-I", "-c", "import numpy"],
                user=accounts[0][0],
                group=accounts[0][1],
                extra_groups=[],
                cwd="/",
                capture_output=True,
            ).returncode
            == 0
        )
    except OSError:
        started = False
    if not started:
        why = f"running as root, but another user cannot start {sys.executable}"
        return Isolation(False, [], limits, f"{why} (is a folder on its path closed to others?)")
    return Isolation(True, accounts, limits)


def account(slot: int) -> tuple[int, int]:
    """(uid, gid) of job slot ``slot``'s user, made if missing."""
    name = f"minigrad-grade{slot}"
    try:
        entry = pwd.getpwnam(name)
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        pass
    made = subprocess.run(
        ["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
         "--shell", "/usr/sbin/nologin", name],
        capture_output=True,
    )  # fmt: skip
    if made.returncode == 0:
        entry = pwd.getpwnam(name)
        return entry.pw_uid, entry.pw_gid
    uid = SPARE_UID + slot
    while _known_uid(uid):
        uid += 100
    return uid, uid


def _known_uid(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def protect() -> None:
    """Take other users' access to the protected paths, and their write access to the package."""
    for path in PROTECTED:
        try:
            mode = path.lstat().st_mode
            if stat.S_ISDIR(mode) and mode & 0o007:
                path.chmod(stat.S_IMODE(mode) & ~0o007)
        except OSError:
            pass
    for folder, dirs, files in os.walk(PACKAGE_DIR):
        for name in [".", *dirs, *files]:
            path = Path(folder, name)
            try:
                mode = path.lstat().st_mode
                if not stat.S_ISLNK(mode) and mode & 0o002:
                    path.chmod(stat.S_IMODE(mode) & ~0o002)
            except OSError:
                pass


def processes_of(uid: int) -> list[int]:
    """Pids whose real user id is ``uid``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("Uid:"):
                    if int(line.split()[1]) == uid:
                        pids.append(int(entry.name))
                    break
        except (OSError, ValueError):
            pass
    return pids


def kill_user(uid: int, gid: int) -> None:
    """Kill every process of ``uid``: as that user, ``kill(-1, SIGKILL)`` until none is left.

    ``kill(-1)`` reaches every process the caller may signal in one system call,
    so a fork bomb cannot outrun it the way a walk over ``/proc`` can be outrun.
    """
    for _ in range(KILL_ROUNDS):
        for pid in processes_of(uid):  # the dead ones are ours to reap (subreaper)
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        if not processes_of(uid):
            return
        subprocess.run(
            [sys.executable, "-I", "-S", "-c", "import os; os.kill(-1, 9)"],
            user=uid,
            group=gid,
            extra_groups=[],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
        )


def sweep() -> None:
    """Without root: kill the grader's descendants that left its session (escaped children)."""
    me, session = os.getpid(), os.getsid(0)
    for _ in range(KILL_ROUNDS):
        parents = {}
        for entry in Path("/proc").iterdir():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = (int(fields[1]), int(fields[3]))
            except (OSError, ValueError, IndexError):
                pass
        escaped = [
            pid
            for pid, (_, sid) in parents.items()
            if sid != session and _descends(pid, me, parents)
        ]
        if not escaped:
            return
        for pid in escaped:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _descends(pid: int, ancestor: int, parents: dict[int, tuple[int, int]]) -> bool:
    for _ in range(len(parents)):
        pid = parents.get(pid, (0, 0))[0]
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
    return False


def remove(path: Path) -> None:
    """Delete ``path`` whatever it became (a folder, a file, a symlink); never raises."""
    try:
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)
    except OSError:
        pass


def give(path: Path, account: tuple[int, int] | None) -> None:
    """Hand ``path`` and everything in it (links not followed) to ``account``."""
    if account is None:
        return
    for folder, dirs, files in os.walk(path):
        for name in [".", *dirs, *files]:
            os.chown(Path(folder, name), *account, follow_symlinks=False)
