"""A submission is data: copied and read, never followed or opened unless a file (the autograder).

The grader never trusts the shape of a submission folder. It copies it once
per grading run into its own folder, and every exercise's child sees that
copy, read-only. The copy

- takes regular files only: a symbolic link is never followed (an exercise
  file linked to ``solutions/`` is not an exercise file), and a FIFO, socket
  or device node is never opened;
- is bounded: at most ``MAX_DEPTH`` folders deep, ``MAX_ENTRIES`` entries,
  ``MAX_FILE_BYTES`` a file and ``MAX_TOTAL_BYTES`` in all; what lies beyond
  a bound is left out and said so in ``Copy.left_out``;
- skips caches (``__pycache__``, ``.git``, notebook checkpoints).

    >>> import tempfile
    >>> top = Path(tempfile.mkdtemp())
    >>> _ = (top / "a.py").write_text("x = 1\\n")
    >>> (top / "b.py").symlink_to(top / "a.py")
    >>> copy = copy_submission(top, top / "copy")
    >>> sorted(p.name for p in (top / "copy").iterdir()), copy.left_out
    (['a.py'], ['b.py (a symbolic link)'])
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_DEPTH = 8
MAX_ENTRIES = 2_000
MAX_FILE_BYTES = 16 * 2**20
MAX_TOTAL_BYTES = 64 * 2**20
SKIPPED = {"__pycache__", ".git", ".ipynb_checkpoints"}
KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


class NotAFile(OSError):
    """The path is not a regular file (a link, FIFO, socket, device or folder)."""


def kind(mode: int) -> str:
    """What a file of mode ``mode`` is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    return KINDS.get(stat.S_IFMT(mode), "not a regular file")


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of ``path`` (one more tells a longer file), if a regular file.

    Checked before opening (``lstat``: a FIFO would block, a device could act)
    and after (``fstat`` of what was opened, which ``O_NOFOLLOW`` keeps from
    being a link), so a swap between the two is caught too.
    """
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotAFile(f"{path.name} is {kind(info.st_mode)}, not a regular file")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    handle = os.open(path, flags)
    try:
        opened = os.fstat(handle)
        if not stat.S_ISREG(opened.st_mode) or opened.st_ino != info.st_ino:
            raise NotAFile(f"{path.name} changed while it was read")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(handle, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(handle)


@dataclass
class Copy:
    """What ``copy_submission`` left out, and how much it copied."""

    left_out: list[str] = field(default_factory=list)
    entries: int = 0
    size: int = 0
    skip: tuple[int, int] = (-1, -1)


def copy_submission(source: Path, into: Path) -> Copy:
    """Copy the regular files and folders of ``source`` into the new folder ``into``, bounded."""
    copy = Copy()
    into.mkdir(mode=0o755)
    into.chmod(0o755)
    made = into.stat()
    copy.skip = (made.st_dev, made.st_ino)  # the copy itself, should it lie inside ``source``
    _copy_folder(source, into, "", 0, copy)
    return copy


def _copy_folder(source: Path, into: Path, relative: str, depth: int, copy: Copy) -> None:
    try:
        with os.scandir(source) as listing:
            # Python files first, folders last: a large data folder never crowds out an exercise.
            entries = sorted(
                listing,
                key=lambda e: (e.is_dir(follow_symlinks=False), not e.name.endswith(".py"), e.name),
            )
    except OSError as error:
        copy.left_out.append(f"{relative or '.'} (cannot be listed: {error.strerror})")
        return
    for entry in entries:
        name = f"{relative}{entry.name}"
        if entry.name in SKIPPED:
            continue
        copy.entries += 1
        if copy.entries > MAX_ENTRIES:
            copy.left_out.append(f"{name} and the rest (more than {MAX_ENTRIES} entries)")
            return
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == copy.skip:
            continue
        if stat.S_ISDIR(info.st_mode):
            if depth + 1 >= MAX_DEPTH:
                copy.left_out.append(f"{name}/ (more than {MAX_DEPTH} folders deep)")
                continue
            (into / entry.name).mkdir(mode=0o755)
            _copy_folder(Path(entry.path), into / entry.name, name + "/", depth + 1, copy)
        elif not stat.S_ISREG(info.st_mode):
            copy.left_out.append(f"{name} ({kind(info.st_mode)})")
        elif info.st_size > MAX_FILE_BYTES or copy.size + info.st_size > MAX_TOTAL_BYTES:
            copy.left_out.append(f"{name} (too large: {info.st_size} bytes)")
        else:
            try:
                data = read_regular(Path(entry.path), MAX_FILE_BYTES)
            except OSError as error:
                copy.left_out.append(f"{name} ({error})")
                continue
            copy.size += len(data)
            target = os.open(into / entry.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(target, view) :]
            finally:
                os.close(target)
