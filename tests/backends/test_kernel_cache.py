"""Caches never break a run (issue 24): where compiled kernels are kept, and what happens
when that place cannot be used.

Each test runs a fresh interpreter (numba's cache is decided when a kernel is
first compiled) with its own cache folder, so nothing here touches another
test's cache or the package.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from minigrad.backends import kernel_cache

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "minigrad"

# Elementwise kernels (flat and strided) and a reduction, all generated.
KERNELS = """
    import numpy as np
    from minigrad.backends import kernel_cache
    from minigrad.backends.numba_backend import NUMPY_BELOW, NumbaBackend

    backend = NumbaBackend()
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert backend.zip("mul", x, x).tolist() == (x * x).tolist()
    assert backend.zip("add", x, x.T[:1].T).tolist() == (x + x[:, :1]).tolist()
    assert backend.reduce("sum", x, (1,), False).tolist() == [3.0, 12.0]
    print("kernels ok")
    for kernel in (kernel_cache.elementwise_kernel("mul", layout="aa"),
                   kernel_cache.elementwise_kernel("add"), kernel_cache.reduce_kernel("sum")):
        print("cache", getattr(kernel._cache, "_cache_path", "in memory"))
"""


def child(code: str, **env: str) -> subprocess.Popen:
    """A fresh interpreter running ``code`` with only the cache variables given in ``env``."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NUMBA_CACHE_DIR", "MINIGRAD_CACHE_DIR", "MINIGRAD_BACKEND")}  # fmt: skip
    environment.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=environment,
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def finish(process: subprocess.Popen) -> tuple[str, str]:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, out[-3000:] + err[-3000:]
    assert "kernels ok" in out
    return out, err


def cache_paths(out: str) -> list[Path]:
    return [Path(line.split(" ", 1)[1]) for line in out.splitlines() if line.startswith("cache ")]


def test_kernels_are_cached_in_the_users_cache_folder_never_in_the_package(tmp_path):
    out, err = finish(child(KERNELS, XDG_CACHE_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path)))
    assert "cannot be used" not in err, err[-3000:]
    for path in cache_paths(out):
        assert (tmp_path / "xdg" / "minigrad") in path.parents, path
        assert PACKAGE not in path.parents, path
    assert list((tmp_path / "xdg" / "minigrad" / "kernels").glob("mul_*.py"))  # by hash
    assert len(list((tmp_path / "xdg" / "minigrad").rglob("*.nbi"))) >= 3  # loaded next time


def test_the_cache_folder_follows_the_variables(monkeypatch, tmp_path):
    monkeypatch.delenv("MINIGRAD_CACHE_DIR", raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert kernel_cache.cache_folder() == tmp_path / "xdg" / "minigrad"
    platformdirs = pytest.importorskip("platformdirs")  # the convention we follow
    assert kernel_cache.user_cache_folder() == Path(platformdirs.user_cache_dir("minigrad"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert kernel_cache.cache_folder() == tmp_path / "numba" / "minigrad"
    monkeypatch.setenv("MINIGRAD_CACHE_DIR", str(tmp_path / "mine"))
    assert kernel_cache.cache_folder() == tmp_path / "mine"
    assert kernel_cache.source_folder() == tmp_path / "mine" / "kernels"


@pytest.mark.parametrize("place", ["a file", "no such folder under /proc"])
def test_an_unusable_cache_folder_warns_once_and_compiles_in_memory(tmp_path, place):
    if place == "a file":
        folder = tmp_path / "cache"
        folder.write_text("not a folder")
    else:
        folder = Path("/proc/minigrad-cache-test")  # /proc takes no new folders, even from root
    out, err = finish(child(KERNELS, MINIGRAD_CACHE_DIR=str(folder)))
    assert err.count("cannot be used") == 1, err[-3000:]
    assert "compiling kernels in memory" in err
    assert cache_paths(out) == [Path("in memory")] * 3


FULL_DISK = """
    import errno
    from numba.core import caching

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    caching.IndexDataCacheFile.save = no_space  # every save of compiled code fails
"""


def test_a_disk_that_fills_up_while_saving_warns_once_and_runs_from_memory(tmp_path):
    _, err = finish(child(FULL_DISK + KERNELS, MINIGRAD_CACHE_DIR=str(tmp_path / "cache")))
    assert err.count("cannot be used") == 1, err[-3000:]
    assert "No space left on device" in err


def test_two_processes_compiling_the_same_kernels_at_once_both_succeed(tmp_path):
    start = tmp_path / "go"
    barrier = f"""
        import pathlib, time
        while not pathlib.Path({str(start)!r}).exists():
            time.sleep(0.005)
    """
    cache = str(tmp_path / "cache")
    code = textwrap.dedent(barrier) + textwrap.dedent(KERNELS)
    processes = [child(code, MINIGRAD_CACHE_DIR=cache) for _ in range(2)]
    time.sleep(1.0)  # both interpreters up and waiting
    start.write_text("")
    for process in processes:
        _, err = finish(process)
        assert "cannot be used" not in err and "damaged" not in err, err[-3000:]
    _, err = finish(child(KERNELS, MINIGRAD_CACHE_DIR=cache))  # what they left loads
    assert "damaged" not in err, err[-3000:]
