"""The CUDA backend (lesson 11): its tests run in a child process on numba's simulator.

numba reads ``NUMBA_ENABLE_CUDASIM`` when it is first imported, and this
process has imported numba already (the CPU backend's tests), so the CUDA
tests in ``tests/backends/cuda_sim`` run in a fresh interpreter with the variable set.
On a machine with a GPU, ``MINIGRAD_TEST_GPU=1`` runs the same tests on it.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad as mg

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.cuda
def test_cuda_suite():
    env = dict(os.environ, MINIGRAD_CUDA_TESTS="1")
    if os.environ.get("MINIGRAD_TEST_GPU") != "1":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/backends/cuda_sim"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and " failed" not in done.stdout


def test_cuda_without_a_gpu_says_what_to_do():
    if mg.backends.available()["cuda"] or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        assert mg.ones(2, device="cuda").sum().item() == 2.0
    else:
        with pytest.raises(RuntimeError, match="No CUDA GPUs are available\nminigrad's 'cuda'"):
            mg.ones(2, device="cuda")


def _bench(*args: str, simulator: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return subprocess.run(
        [sys.executable, "benchmarks/gpu_bench.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_gpu_benchmark_without_a_gpu_exits_cleanly():
    # Where there is a GPU the simulator stands in for "no GPU": both must decline politely.
    gpu = mg.backends.available()["cuda"]
    done = _bench(simulator=gpu)
    assert done.returncode == 0, done.stderr
    expected = "the simulator is not a GPU" if gpu else "no CUDA GPU here"
    assert expected in done.stdout


@pytest.mark.cuda
def test_gpu_benchmark_runs_on_the_simulator():
    done = _bench("--quick", "--repeat", "1", simulator=True)
    assert done.returncode == 0, done.stdout + done.stderr
    for section in (
        "1. matmul",
        "2. elementwise",
        "3. W2 MLP train step",
        "cpu / cuda:",
        "4. fused attention",
        "5. jit",
    ):
        assert section in done.stdout
