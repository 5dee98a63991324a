"""``python -m minigrad.distributed.run -n N script.py``: start N ranks with mpiexec (lesson 18).

It finds the ``mpiexec`` installed beside this Python (the ``mpich`` wheel
puts one there; it belongs to the MPI library that mpi4py loads), else the
first on ``PATH``, and adds what that MPI needs on this machine:

- Open MPI refuses to start as root and to run more ranks than cores unless
  asked: ``--allow-run-as-root`` (as root) and ``--oversubscribe`` are added;
- MPICH's ``mpiexec`` needs neither.

``--timeout S`` ends the whole job after S seconds (a safety net for tests).
The exit status is mpiexec's: non-zero when any rank failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

INHERITED = ("PMI_", "PMIX_", "MPI_LOCAL", "OMPI_COMM_WORLD", "HYDRA_", "MPIR_CVAR_CH")


def find_mpiexec() -> str:
    """The mpiexec of the MPI library beside this Python, else the first on PATH."""
    here = Path(sys.executable).parent / "mpiexec"
    if here.exists():
        return str(here)
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise SystemExit(
            "no mpiexec found: pip install 'minigrad[distributed]' (or pip install mpi4py mpich)"
        )
    return found


def command(n: int, argv: list[str], mpiexec: str | None = None) -> tuple[list[str], dict]:
    """The mpiexec command line and environment that start ``argv`` on ``n`` ranks."""
    mpiexec = mpiexec or find_mpiexec()
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
    text = (version.stdout + version.stderr).lower()
    # A launcher started from inside an MPI process (a notebook that joined a world
    # of one) must not hand its own process-manager settings to the new job.
    env = {k: v for k, v in os.environ.items() if not k.startswith(INHERITED)}
    env["MINIGRAD_WORLD_SIZE"] = str(n)
    flags = []
    if "open mpi" in text or "open-mpi" in text or "openrte" in text:
        flags.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            flags.append("--allow-run-as-root")
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return [mpiexec, *flags, "-n", str(n), *argv], env


def run(n: int, argv: list[str], timeout: float | None = None,
        **kwargs: Any) -> subprocess.CompletedProcess:  # fmt: skip
    """Run ``argv`` (e.g. ``[sys.executable, "script.py"]``) on ``n`` ranks; returns the process."""
    cmd, env = command(n, argv)
    env.update(kwargs.pop("env", {}) or {})
    return subprocess.run(cmd, env=env, timeout=timeout, **kwargs)


def main(args: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minigrad.distributed.run")
    parser.add_argument("-n", "--nproc", type=int, default=2, help="number of ranks")
    parser.add_argument("--timeout", type=float, default=None, help="end the job after S seconds")
    parser.add_argument("script")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    ns = parser.parse_args(args)
    try:
        done = run(ns.nproc, [sys.executable, ns.script, *ns.script_args], timeout=ns.timeout)
    except subprocess.TimeoutExpired:
        print(f"minigrad.distributed.run: the job ran past {ns.timeout:g} s and was ended",
              file=sys.stderr)  # fmt: skip
        return 124
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
