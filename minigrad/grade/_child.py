"""The child process that runs one exercise of a submission (the autograder).

The grader starts it as a script, in isolated mode (not for people)::

    python -I .../minigrad/grade/_child.py REQUEST_JSON FD

It waits until the grader closes its stdin (by then, as root, the grader has
made it the OOM killer's first choice), reads the request, lowers its own
resource limits for good, builds a module path of the submission's folder and
the minigrad package only, and loads the probes. Only then does a line of the
submission run. For each probe it writes one line to file descriptor ``FD``
(a pipe only the grader reads): the outputs as plain data, or the error the
submission raised. A hang, ``os._exit`` or a crash ends the process, and the
grader scores the checks that never reported as failed.

This file never imports ``minigrad.grade`` (whose checks hold the references):
it loads ``channel.py`` and ``probes/`` by path, beside itself.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
MAX_ERROR_CHARS = 1500


def load_file(name: str, path: Path) -> ModuleType:
    """Import the Python file at ``path`` as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def limit(limits: dict[str, int]) -> None:
    """Lower soft and hard limits together: the submission cannot raise them again."""
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))
    try:
        Path("/proc/self/oom_score_adj").write_text("1000")  # kill me before the grader
    except OSError:
        pass


def module_path(submission: Path, package_link: str) -> list[str]:
    """The submission's folder, a folder holding only ``minigrad``, and the interpreter's own.

    Nothing from the working folder or the course root: ``solutions/`` beside
    the package is not importable.
    """
    interpreter = [p for p in sys.path if p and Path(p).resolve() != Path.cwd().resolve()]
    return [str(submission), package_link, *interpreter]


def send(fd: int, line: bytes) -> None:
    """Write a whole line to the pipe (os.write may write less than asked)."""
    while line:
        line = line[os.write(fd, line) :]


def error_text(error: BaseException, file: Path) -> str:
    """The exception and the submission's own lines it went through (not the grader's)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(file)]
    where = "".join(f"{file.name}, line {f.lineno}: {f.line}\n" for f in frames[-3:])
    text = where + "".join(traceback.format_exception_only(type(error), error)).strip()
    return text if len(text) <= MAX_ERROR_CHARS else "..." + text[-MAX_ERROR_CHARS:]


def load_probe(path: str) -> Any:
    """``"scalars:probe_derivative"`` -> that function of ``probes/scalars.py``."""
    module_name, _, qualname = path.partition(":")
    if not module_name.isidentifier():
        raise ValueError(f"no probe module {module_name!r}")
    found: Any = sys.modules.get(f"grade_probes_{module_name}") or load_file(
        f"grade_probes_{module_name}", HERE / "probes" / f"{module_name}.py"
    )
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def tripwires(names: list[str], folder: Path) -> list[str]:
    """Make minigrad's own ``names`` (functions, methods, classes' constructors) note a call made
    from a file of the submission's folder; the list they append to is returned.

    The grader also reads the source (``source.shortcut``); this catches what
    reading cannot see: a name built at run time, a helper that hands it over.
    """
    tripped: list[str] = []
    inside = str(folder) + os.sep

    def wire(original: Any, name: str) -> Any:
        def tripwire(*args: Any, **kwargs: Any) -> Any:
            if sys._getframe(1).f_code.co_filename.startswith(inside):
                tripped.append(name)
            return original(*args, **kwargs)

        tripwire.__name__ = tripwire.__qualname__ = getattr(original, "__name__", name)
        tripwire.__doc__ = getattr(original, "__doc__", None)
        return tripwire

    wired: dict[int, Any] = {}
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("minigrad") or module_name.startswith("minigrad.grade"):
            continue
        for key, value in list(vars(module).items()):
            targets = []
            if key in names and callable(value):
                targets.append((module, key, value))
            if isinstance(value, type):
                targets += [(value, n, value.__dict__[n]) for n in names if n in value.__dict__]
            for owner, attribute, found in targets:
                if isinstance(found, type):  # a class: its constructor
                    owner, attribute, found = found, "__init__", found.__dict__.get("__init__")
                    if found is None:
                        continue
                if not callable(found) or isinstance(found, (staticmethod, classmethod)):
                    continue
                if id(found) not in wired:
                    wired[id(found)] = wire(found, attribute if attribute != "__init__" else key)
                try:
                    setattr(owner, attribute, wired[id(found)])
                except (AttributeError, TypeError):
                    pass
    return tripped


def main(request_path: str, fd: int) -> None:
    sys.stdin.buffer.read()  # the grader's go: it has finished setting this process up
    request = json.loads(Path(request_path).read_text())
    Path(request_path).unlink()
    limit(request["limits"])
    file = Path(request["file"])
    submission, *libraries = module_path(file.parent, request["package_link"])
    # The probes, and through them minigrad and NumPy, load before the
    # submission's folder is on the path: a file of the student's named like a
    # standard module (secrets.py, random.py) then shadows nothing they use.
    sys.path[:] = libraries
    channel = load_file("grade_channel", HERE / "channel.py")
    probes = [
        (load_probe(item["probe"]), channel.decode(item["args"])) for item in request["probes"]
    ]
    forbidden = request.get("forbidden", [])
    if forbidden:
        importlib.import_module("minigrad")  # every public name exists before it is wired
    tripped = tripwires(forbidden, Path(submission))
    sys.path.insert(0, submission)
    try:
        spec = importlib.util.spec_from_file_location(f"submission_{file.stem}", file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except BaseException as error:
        text = "importing the file failed:\n" + error_text(error, file)
        for index in range(len(probes)):
            send(fd, channel.message(index, error=text))
        return
    for index, (probe, args) in enumerate(probes):
        try:
            line = channel.message(index, output=probe(module, args))
        except BaseException as error:  # SystemExit too: it costs this check only
            line = channel.message(index, error=error_text(error, file))
        if tripped:
            used = ", ".join(sorted(set(tripped)))
            line = channel.message(
                index, error=f"called minigrad's own {used} instead of implementing it"
            )
        send(fd, line)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
