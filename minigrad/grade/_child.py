"""The child process that runs one exercise of a submission (the autograder).

Usage (the grader starts it; not for people):
``python -m minigrad.grade._child REQUEST_JSON FD``

The request names the submission file, this run's token and the probes to
run with their inputs. For each probe the child writes one line to file
descriptor ``FD`` (a pipe only the grader reads): the outputs as plain data,
or the error the submission raised. ``sys.exit`` inside a submission is an
error like any other; a hang, ``os._exit`` or a crash ends the process, and
the grader scores the checks that never reported as failed.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from minigrad.grade.channel import decode, message

MAX_ERROR_CHARS = 1500


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
    module_name, _, qualname = path.partition(":")
    if not module_name.startswith("minigrad.grade."):
        raise ValueError(f"probes live in minigrad.grade, not {module_name}")
    found: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def load_submission(path: Path) -> Any:
    """Import the submission file as a fresh module (its folder on sys.path)."""
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"submission_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(request_path: str, fd: int) -> None:
    request = json.loads(Path(request_path).read_text())
    Path(request_path).unlink()  # nothing left on disk for the submission to read
    token = request["token"]
    # Probes are loaded before the submission runs a single line.
    probes = [(load_probe(item["probe"]), decode(item["args"])) for item in request["probes"]]
    file = Path(request["file"])
    try:
        module = load_submission(file)
    except BaseException as error:
        text = "importing the file failed:\n" + error_text(error, file)
        for index in range(len(probes)):
            send(fd, message(token, index, error=text))
        return
    for index, (probe, args) in enumerate(probes):
        try:
            line = message(token, index, output=probe(module, args))
        except BaseException as error:  # SystemExit too: it costs this check only
            line = message(token, index, error=error_text(error, file))
        send(fd, line)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
