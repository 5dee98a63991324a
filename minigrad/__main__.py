"""``python -m minigrad doctor``: what works on this machine, and what to do about the rest.

It imports nothing heavy until asked, compiles no kernel, and never fails:
every missing piece is a line saying what it costs and how to add it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys

OK, MISSING, NOTE = "ok", "missing", "note"


def _version(module: str) -> str | None:
    if importlib.util.find_spec(module) is None:
        return None
    try:
        return getattr(importlib.import_module(module), "__version__", "installed")
    except Exception as error:  # a broken install is a finding, not a crash
        return f"broken ({type(error).__name__}: {error})"


def _gpu_driver() -> str | None:
    """The GPU nvidia-smi reports, without importing numba.cuda."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else None


def _graphviz() -> tuple[str, str]:
    if shutil.which("dot"):
        return OK, "Graphviz `dot` found: mg.draw renders SVG"
    if importlib.util.find_spec("pygraphviz") is not None:
        return OK, "no `dot` program, but pygraphviz's bundled Graphviz renders mg.draw"
    return MISSING, (
        "no Graphviz: mg.draw shows DOT text. Fix: `sudo apt-get install graphviz` "
        "(or `pip install pygraphviz`)"
    )


def findings() -> list[tuple[str, str, str]]:
    """(status, what, detail) for every piece the course uses."""
    rows = [(OK, "python", f"{platform.python_version()} ({sys.executable})")]
    for module, why, fix in [
        ("numpy", "arrays (required)", "pip install numpy"),
        ("numba", "the parallel CPU backend", "pip install numba"),
        ("graphviz", "mg.draw (required)", "pip install graphviz"),
        ("matplotlib", "plots in the lessons", "pip install -e '.[lessons]'"),
        ("jupyterlab", "opening the lessons", "bash setup.sh course"),
        ("torch", "the test oracle (tests only)", "see README: CPU-only PyTorch"),
    ]:
        version = _version(module)
        if version is None:
            rows.append((MISSING, module, f"needed for {why}. Fix: {fix}"))
        else:
            rows.append((OK, module, f"{version} ({why})"))
    cuda_pkg = importlib.util.find_spec("numba_cuda") is not None
    gpu = _gpu_driver()
    simulator = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    if not cuda_pkg:
        fix = "the GPU backend (lesson 11). Fix: pip install -e '.[cuda]'"
        rows.append((MISSING, "numba-cuda", fix))
    else:
        rows.append((OK, "numba-cuda", "installed"))
    if gpu:
        rows.append((OK, "gpu", f"{gpu}: x.to('cuda') runs on it"))
    else:
        hint = "is on" if simulator else "works: set NUMBA_ENABLE_CUDASIM=1 (slow, small sizes)"
        status = OK if simulator and cuda_pkg else NOTE
        rows.append((status, "gpu", f"no NVIDIA GPU found; the CUDA simulator {hint}"))
    status, detail = _graphviz()
    rows.append((status, "graphviz rendering", detail))
    return rows


def doctor() -> int:
    """Print the findings; the exit status is 0 whatever they say."""
    rows = findings()
    width = max(len(what) for _, what, _ in rows)
    print("minigrad doctor\n")
    for status, what, detail in rows:
        mark = {OK: "[ok]  ", MISSING: "[miss]", NOTE: "[note]"}[status]
        print(f"{mark} {what.ljust(width)}  {detail}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["doctor"]:
        return doctor()
    print("usage: python -m minigrad doctor", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
