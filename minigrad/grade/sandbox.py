"""Where a submission runs: namespaces, a user of its own, limits, and no way out (the autograder).

The grader's threat model (see README, "How it stays fair"): the submission is
hostile and may do anything its user may do. So every exercise runs in a
sandbox of its own, and the grader **fails closed**: when the sandbox cannot
engage, it grades nothing and says what to do (``SandboxError``). Two ways in:

- **as root** (CI, Gradescope, a teacher's machine): the child runs under a
  user id made up for that one exercise (no other exercise or grading run
  shares it, nothing on the machine owns it), in its own mount, PID, IPC, UTS
  and network namespaces (``jail.py`` builds them through util-linux's
  ``unshare``);
- **as a normal user**: the same namespaces inside a user namespace that maps
  only that user, with every capability dropped before the submission runs
  (needs unprivileged user namespaces, on by default in most distributions).

Either way the child sees a read-only view of the interpreter, the libraries
and the package, without ``solutions/``, ``.git``, the grader's references or
any other submission; private ``/tmp``, ``/var/tmp`` and ``/dev/shm`` that end
with it; no process but its own; no network. It has hard limits on memory,
processes, open files, file size and CPU time, and is the OOM killer's first
choice. When it ends, or at the deadline, its namespace ends and the kernel
kills whatever it started.

``sandbox=False`` (the command line's ``--no-sandbox``) runs children as the
calling user with the limits only, for a teacher grading trusted work; it is
never chosen silently, and ``Isolation.notes`` says what it leaves open.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
COURSE_ROOT = PACKAGE_DIR.parent
GRADE_DIR = PACKAGE_DIR / "grade"
JAIL = GRADE_DIR / "jail.py"
# What no child may read: the answers, their history, the references. The namespaces leave
# them out of the child's view; the account sandbox requires them closed to other users.
PROTECTED = (COURSE_ROOT / "solutions", COURSE_ROOT / ".git", GRADE_DIR / "checks")
# What the child loads from the grader's folder: nothing else of it is in its view.
CHILD_FILES = ("_child.py", "channel.py", "probes")
# Where the exercise's own folder appears inside the sandbox.
WORK = "/exercise"
NO_SANDBOX = 125  # jail.py's exit status when a step of building the sandbox failed
UIDS = (1 << 20, (1 << 31) - 2)  # made-up user ids come from here: no distribution uses them
KILL_ROUNDS = 50
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
WHAT_TO_DO = (
    "To grade untrusted work, run the grader as root (as CI and Gradescope do) or as a user "
    "allowed to create user namespaces (on Ubuntu 24.04 and later: sudo sysctl "
    "kernel.apparmor_restrict_unprivileged_userns=0; elsewhere: sudo sysctl "
    "kernel.unprivileged_userns_clone=1), with util-linux's unshare installed. To grade "
    "work you trust (your own), pass --no-sandbox (grade(..., sandbox=False)): it runs "
    "the exercises as you, with resource limits only."
)


class SandboxError(RuntimeError):
    """The sandbox cannot engage here: nothing was graded."""


@dataclass
class Limits:
    """Hard resource limits of one exercise's processes, and the size of its private folders."""

    memory: int = 4 * 2**30  # address space per process, bytes
    processes: int = 256  # processes and threads of the exercise
    files: int = 256  # open file descriptors per process
    file_size: int = 64 * 2**20  # largest file it may write, bytes
    cpu: int = 60  # CPU seconds per process
    tmp: int = 256 * 2**20  # each of /tmp and /var/tmp, bytes
    shm: int = 64 * 2**20  # /dev/shm, bytes
    home: int = 512 * 2**20  # its home (and the numba cache there), bytes

    def rlimits(self, processes: int | None = None) -> dict[str, int]:
        """The ``resource`` names and values the child is given; ``RLIMIT_NPROC`` if known."""
        values = {
            "RLIMIT_AS": self.memory,
            "RLIMIT_NOFILE": self.files,
            "RLIMIT_FSIZE": self.file_size,
            "RLIMIT_CPU": self.cpu,
            "RLIMIT_CORE": 0,
        }
        if processes is not None:
            values["RLIMIT_NPROC"] = processes
        return values


@dataclass
class Isolation:
    """How children run in this grading run."""

    # "root": a made-up user in namespaces; "user": a user namespace; "account": a made-up
    # user without namespaces (root where namespaces are not allowed); "none"
    mode: str
    limits: Limits = field(default_factory=Limits)
    unshare: str = ""

    @property
    def sandboxed(self) -> bool:
        return self.mode != "none"

    def notes(self) -> list[str]:
        """What is left open, in words (empty in namespaces)."""
        if self.mode == "account":
            return [
                "no namespaces here: each exercise runs as a made-up user, without a view of "
                "its own: it can see other processes' names, and files it leaves in /tmp and "
                "/dev/shm are deleted only when it ends"
            ]
        if self.sandboxed:
            return []
        return [
            "--no-sandbox: the exercises run as your own user, with resource limits only. "
            "A submission can read solutions/ and the references, edit files you can edit, "
            "and signal your processes: use this only for work you trust."
        ]


def isolation(limits: Limits | None = None, sandbox: bool | str = True) -> Isolation:
    """How this run's children will run; ``SandboxError`` when the sandbox cannot be used.

    ``sandbox``: True (namespaces where the kernel allows them; as root in a
    container that does not, a made-up user without them), False (none),
    "namespaces" or "account" (that one, or ``SandboxError``).
    """
    limits = limits or Limits()
    if sandbox is False:
        return Isolation("none", limits)
    if sandbox not in (True, "namespaces", "account"):
        raise ValueError(f"sandbox is True, False, 'namespaces' or 'account', not {sandbox!r}")
    if not sys.platform.startswith("linux"):
        raise SandboxError(f"the grader's sandbox needs Linux, not {sys.platform}. {WHAT_TO_DO}")
    root = os.geteuid() == 0
    if sandbox == "account":
        if not root:
            raise SandboxError(f"the account sandbox needs root. {WHAT_TO_DO}")
        return Isolation("account", limits)
    unshare = shutil.which("unshare") or next(
        (p for p in ("/usr/bin/unshare", "/bin/unshare") if os.access(p, os.X_OK)), ""
    )
    if root and sandbox is True and not (unshare and _namespaces_work(unshare)):
        return Isolation("account", limits)
    if not unshare:
        raise SandboxError(
            "util-linux's unshare is not installed (apt-get install util-linux). " + WHAT_TO_DO
        )
    return Isolation("root" if root else "user", limits, unshare)


def _namespaces_work(unshare: str) -> bool:
    """Whether this process may make the namespaces ``jail.py`` needs (not in every container)."""
    try:
        done = subprocess.run(
            [unshare, "--mount", "--pid", "--ipc", "--uts", "--net", "--fork", "true"],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def kill_as(uid: int, gid: int) -> None:
    """Kill every process of ``uid``: as that user, ``kill(-1, SIGKILL)`` until none is left.

    ``kill(-1)`` reaches every process the caller may signal in one system call,
    so a fork bomb cannot outrun it the way a walk over ``/proc`` can be
    outrun. (Without namespaces: with them, the namespace's end does this.)
    """
    for _ in range(KILL_ROUNDS):
        for pid in processes_of(uid):  # the dead ones are the grader's to reap (subreaper)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
        if not processes_of(uid):
            return
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(
                [sys.executable, "-I", "-S", "-c", "import os; os.kill(-1, 9)"],
                user=uid, group=gid, extra_groups=[], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30,
            )  # fmt: skip


def remove_files_of(uid: int, folders: tuple[str, ...] = ("/tmp", "/var/tmp", "/dev/shm")) -> None:
    """Without namespaces: delete what ``uid`` left in the shared temporary folders."""
    for top in folders:
        for folder, dirs, files in os.walk(top, topdown=False):
            for name in files + dirs:
                path = os.path.join(folder, name)
                with contextlib.suppress(OSError):
                    info = os.lstat(path)
                    if info.st_uid != uid:
                        continue
                    if os.path.isdir(path) and not os.path.islink(path):
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        os.unlink(path)


class Accounts:
    """Made-up user ids, one per exercise, each held (a lock file) while in use."""

    def __init__(self) -> None:
        self.folder = _lock_folder()

    @contextlib.contextmanager
    def fresh(self):
        """(uid, gid) no file, process, account or other grading run uses, for the ``with``."""
        for _ in range(100):
            uid = UIDS[0] + secrets.randbelow(UIDS[1] - UIDS[0])
            if _known_uid(uid) or processes_of(uid):
                continue
            path = self.folder / f"uid-{uid}"
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(handle)
                continue
            try:
                yield uid, uid
            finally:
                kill_uid(uid)
                with contextlib.suppress(OSError):
                    path.unlink()
                os.close(handle)
            return
        raise SandboxError("could not find a free user id for the exercise")


def _lock_folder() -> Path:
    """A folder only root can write, for the user id locks (shared by every grading run)."""
    for base in (Path("/run"), Path(tempfile.gettempdir())):
        folder = base / "minigrad-grade-uids"
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            info = folder.lstat()
            if info.st_uid == 0 and not info.st_mode & 0o077 and folder.is_dir():
                return folder
        except OSError:
            continue
    raise SandboxError("no folder for the grader's user id locks (/run or the temp folder)")


def _known_uid(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


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


def kill_uid(uid: int) -> None:
    """As root: kill every process of ``uid`` (none should be left once its namespace ended)."""
    for _ in range(KILL_ROUNDS):
        pids = processes_of(uid)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def jail_command(
    isolation: Isolation,
    folder: Path,
    submission: Path,
    argv: list[str],
    env: dict[str, str],
    account: tuple[int, int] | None,
    fds: tuple[int, int],
    request: Path,
    read_only: tuple[str, ...] = (),
    whole_grader: bool = False,
) -> list[str]:
    """The command that runs ``argv`` in a new sandbox; its configuration goes in ``folder``.

    ``read_only``: more folders the child sees (read-only); ``whole_grader``: the
    package's grader folder is not reduced to the child's files. Both only for
    the course's own tests, which run the teacher's code in the sandbox.
    """
    interpreter = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    interpreter.add(str(Path(sys.executable).parent))
    interpreter.add(str(Path(sys.executable).resolve().parent.parent))
    processes = isolation.limits.processes
    if account is None:  # counted per real user, who has processes of their own
        processes += len(processes_of(os.getuid()))
    config = {
        "root": str(folder / "root"),
        "read_only": [*sorted(interpreter), str(PACKAGE_DIR), *read_only],
        "grade_folder": None if whole_grader else str(GRADE_DIR),
        "grade_files": list(CHILD_FILES),
        "work": WORK,
        "submission": str(submission),
        "request": str(request),
        "account": list(account) if account else None,
        "rlimits": isolation.limits.rlimits(processes),
        "tmpfs": {
            "tmp": isolation.limits.tmp,
            "shm": isolation.limits.shm,
            "home": isolation.limits.home,
        },
        "argv": argv,
        "env": env,
        "status_fd": fds[0],
        "channel_fd": fds[1],
    }
    (folder / "root").mkdir(mode=0o700)
    path = folder / "jail.json"
    path.write_text(json.dumps(config))
    namespaces = ["--mount", "--pid", "--ipc", "--uts", "--net", "--fork", "--kill-child"]
    if account is None:
        namespaces += ["--user", "--map-root-user"]
    return [isolation.unshare, *namespaces, sys.executable, "-I", "-S", str(JAIL), str(path)]


def start_as_subreaper() -> None:
    """Without namespaces: orphans of a child come back to the grader (``sweep``, ``reap``)."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)  # no debugger of the same user attaches


def stop_as_subreaper() -> None:
    """Back to an ordinary process (the grader may live on in a notebook's kernel)."""
    _prctl(PR_SET_CHILD_SUBREAPER, 0)
    _prctl(PR_SET_DUMPABLE, 1)


def _prctl(option: int, value: int) -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def reap() -> None:
    """Collect every child of the grader that has ended (none stays a zombie)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def sweep() -> None:
    """Without a sandbox: kill the grader's descendants that left its session, and reap them."""
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
        reap()
        if not escaped:
            return
        for pid in escaped:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _descends(pid: int, ancestor: int, parents: dict[int, tuple[int, int]]) -> bool:
    for _ in range(len(parents)):
        pid = parents.get(pid, (0, 0))[0]
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
    return False


def give(path: Path, account: tuple[int, int]) -> None:
    """Hand ``path``, a folder the grader made, and everything in it to ``account``."""
    for folder, dirs, files in os.walk(path):
        for name in [".", *dirs, *files]:
            os.chown(os.path.join(folder, name), *account, follow_symlinks=False)


def remove(path: Path) -> None:
    """Delete ``path`` whatever it became (a folder, a file, a symlink); never raises."""
    try:
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)
    except OSError:
        pass
