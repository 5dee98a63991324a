"""The first process inside an exercise's namespaces: it builds the child's world (the autograder).

The grader starts it through util-linux's ``unshare`` (not for people)::

    unshare --mount --pid --ipc --uts --net --fork --kill-child [--user --map-root-user] \\
        python -I -S .../minigrad/grade/jail.py CONFIG_JSON

so that it is process 1 of a new PID namespace, with a mount table, IPC
objects, a host name and a network (loopback only, and down) of its own. With
the privileges it has there (real root, or root of a user namespace that maps
only the calling user), it

1. mounts an empty tmpfs as the new root and, read-only, binds into it only
   what the interpreter needs: ``/usr``, ``/etc``, the libraries, the
   interpreter's own folders, and the ``minigrad`` package with its grader
   folder reduced to the child's three files (no references, no
   ``solutions/``, no ``.git``, no other submission, no host ``/tmp``);
2. gives the child fresh ``/tmp``, ``/var/tmp``, ``/dev/shm`` and a home, each
   a small tmpfs that vanishes with the namespace, a ``/proc`` that shows only
   this namespace's processes, and the submission's copy, read-only;
3. pivots into that root and starts the child with no way back: as root, under
   a user id that no other exercise or grading run shares; in a user
   namespace, with every capability dropped for good; in both, with
   ``no_new_privs`` and hard resource limits;
4. reaps whatever is re-parented to it, and when the child ends writes how it
   ended to the grader's status pipe and exits. The kernel then kills every
   process left in the namespace; the grader kills this process (and with it
   the namespace) at the deadline.

This file imports nothing from minigrad: it runs before the package is
mounted, and a failure in it is reported on stderr with exit status 125
(``NO_SANDBOX``), which the grader treats as "the sandbox could not engage".
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import platform
import resource
import sys

NO_SANDBOX = 125
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 1, 24, 28, 38
SECURE_BITS = 0x2B  # noroot, and no_setuid_fixup and keep_caps locked off: each locked
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "ppc64le": 203}
# statvfs flags a bind mount must keep when remounted read-only (locked in user namespaces)
ST_FLAGS = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC}
ST_FLAGS.update(
    {getattr(os, "ST_NOATIME", 1024): 0x400, getattr(os, "ST_RELATIME", 4096): 0x200000}
)
DEVICES = ("null", "zero", "full", "random", "urandom")

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]


class JailError(OSError):
    """A step of building the child's world failed: nothing of the submission ran."""


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise JailError(code, f"{what}: {os.strerror(code)}")


def mount(source: str | None, target: str, kind: str | None, flags: int, data: str = "") -> None:
    raw = [None if s is None else s.encode() for s in (source, target, kind, data)]
    _check(libc.mount(raw[0], raw[1], raw[2], flags, raw[3]), f"mount {source or kind} on {target}")


def tmpfs(target: str, size: int, mode: int, flags: int = MS_NOSUID | MS_NODEV) -> None:
    os.makedirs(target, exist_ok=True)
    mount("tmpfs", target, "tmpfs", flags, f"size={size},mode={mode:o}")


def bind(source: str, target: str, writable: bool = False) -> None:
    """Bind ``source`` at ``target`` (made if missing); read-only unless ``writable``."""
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "w").close()
    mount(source, target, None, MS_BIND | MS_REC)
    if not writable:
        kept = 0
        for flag, ms in ST_FLAGS.items():
            if os.statvfs(source).f_flag & flag:
                kept |= ms
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | kept)


def place(path: str, root: str) -> str:
    return os.path.join(root, path.lstrip("/"))


def build(config: dict, root: str) -> None:
    """Steps 1 and 2 of the module's docstring, under ``root`` (not yet the root)."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount propagates to the host
    tmpfs(root, 16 * 2**20, 0o755)
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc"):
        host = "/" + name
        if os.path.islink(host):
            os.symlink(os.readlink(host), place(host, root))
        elif os.path.isdir(host):
            bind(host, place(host, root))
    # The private temporary folders first: a package or interpreter that lives in the
    # host's /tmp is bound on top of them, read-only, and stays visible.
    limits = config["tmpfs"]
    tmpfs(place("/tmp", root), limits["tmp"], 0o1777)
    tmpfs(place("/var/tmp", root), limits["tmp"], 0o1777)
    bound = ["/usr/", "/etc/"]
    for path in config["read_only"]:
        real = os.path.realpath(path)
        if not os.path.exists(real) or real == "/":
            continue
        if not any((real + "/").startswith(folder) for folder in bound):
            bind(real, place(real, root))
            bound.append(real + "/")
        if real != path and not os.path.lexists(place(path, root)):
            os.makedirs(os.path.dirname(place(path, root)), exist_ok=True)
            os.symlink(real, place(path, root))
    # The grader's own folder in the package: only what the child loads (all of it
    # only for the course's own tests, which run the teacher's code here).
    if config["grade_folder"] is not None:
        grade = place(config["grade_folder"], root)
        tmpfs(grade, 2**20, 0o755)
        for name in config["grade_files"]:
            bind(os.path.join(config["grade_folder"], name), os.path.join(grade, name))
        mount(None, grade, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    dev = place("/dev", root)
    os.makedirs(dev)
    for name in DEVICES:
        bind(f"/dev/{name}", os.path.join(dev, name), writable=True)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, os.path.join(dev, name))
    tmpfs(os.path.join(dev, "shm"), limits["shm"], 0o1777, MS_NOSUID | MS_NODEV | MS_NOEXEC)
    os.makedirs(place("/proc", root))
    mount("proc", place("/proc", root), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    work = place(config["work"], root)
    tmpfs(work, limits["home"], 0o755)
    bind(config["submission"], os.path.join(work, "submission"))
    home = os.path.join(work, "home")
    os.makedirs(home, mode=0o700)
    with (
        open(config["request"], "rb") as source,
        open(os.path.join(home, "request.json"), "wb") as copy,
    ):
        copy.write(source.read())
    uid, gid = config["account"] or (os.getuid(), os.getgid())
    for path in (home, os.path.join(home, "request.json")):
        os.chown(path, uid, gid)
    mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def pivot(root: str) -> None:
    """Make ``root`` the root and let go of the old one."""
    os.chdir(root)
    number = PIVOT_ROOT.get(platform.machine())
    if number is None:
        os.chroot(".")  # the child has no capability left to break out of it
    else:
        _check(libc.syscall(number, b".", b"."), "pivot_root")
        _check(libc.umount2(b".", MNT_DETACH), "unmount the old root")
    os.chdir("/")


def drop(config: dict) -> None:
    """The child's last steps before it runs anything of the submission (step 3)."""
    for name, value in config["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    with open("/proc/self/oom_score_adj", "w") as file:
        file.write("1000")  # the OOM killer's first choice, before the grader
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    # No capability can come back, whatever the child executes.
    _check(libc.prctl(PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0), "securebits")
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break
    if config["account"] is not None:
        uid, gid = config["account"]
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    else:
        # Root of a user namespace: keep the user id (the only one mapped), lose its powers.
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
        data = (ctypes.c_uint32 * 6)()
        _check(libc.capset(header, data), "drop capabilities")
    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    if any(int(fields[name], 16) for name in ("CapEff", "CapPrm", "CapBnd", "CapAmb")):
        raise JailError(errno.EPERM, "capabilities survived the drop")
    if config["account"] is not None and os.getuid() == 0:
        raise JailError(errno.EPERM, "still root")


def main(path: str) -> int:
    with open(path) as file:
        config = json.load(file)
    status_fd, channel_fd = config["status_fd"], config["channel_fd"]
    try:
        build(config, config["root"])
        pivot(config["root"])
    except OSError as error:
        print(f"minigrad sandbox: {error}", file=sys.stderr)
        return NO_SANDBOX
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.close(status_fd)
            os.setsid()
            drop(config)
            os.chdir(os.path.join(config["work"], "home"))
            # ready_w closes on exec (os.pipe's ends are not inherited): that EOF says "dropped".
            os.execve(config["argv"][0], config["argv"], config["env"])
        except BaseException as error:  # nothing of the submission has run yet
            print(f"minigrad sandbox: {error}", file=sys.stderr)
            os.write(ready_w, b"x")
        os._exit(NO_SANDBOX)
    os.close(ready_w)
    os.close(channel_fd)  # only the child writes the channel: its end means the child's end
    os.close(0)
    dropped = not os.read(ready_r, 1)  # EOF: closed by the child before it ran anything
    while True:
        try:
            found, code = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if found == pid:
            break
    if os.WIFSIGNALED(code):
        ending = f"signal {os.WTERMSIG(code)}"
    else:
        ending = f"exit {os.waitstatus_to_exitcode(code)}"
        if os.waitstatus_to_exitcode(code) == NO_SANDBOX and not dropped:
            ending = "nosandbox"
    os.write(status_fd, ending.encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
