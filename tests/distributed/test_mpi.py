"""minigrad.distributed under ``mpiexec -n 2`` (lesson 18): collectives, DDP, ZeRO, failures.

Each test starts a small job with the launcher (``python -m minigrad.distributed.run``'s
``run``) and a deadline, so a hang fails the test instead of stalling the suite.
"""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from minigrad.distributed import run

WORKERS = str(Path(__file__).with_name("workers.py"))
DEADLINE = 120


def job(scenario, *args, n=2):
    started = time.perf_counter()
    done = run.run(n, [sys.executable, WORKERS, scenario, *args], timeout=DEADLINE,
                   capture_output=True, text=True)  # fmt: skip
    return done, time.perf_counter() - started


def assert_ok(done, scenario, n=2):
    assert done.returncode == 0, done.stdout + done.stderr
    for rank in range(n):
        assert f"ok {scenario} rank {rank}" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("scenario", ["collectives", "ddp", "zero", "mismatch"])
def test_two_ranks(scenario):
    done, _ = job(scenario)
    assert_ok(done, scenario)


def test_ddp_on_three_ranks_equals_one_process_too():
    done, _ = job("ddp", n=3)
    assert_ok(done, "ddp", n=3)


def test_a_failing_rank_ends_every_rank_with_its_error():
    done, seconds = job("fail")
    assert done.returncode != 0
    assert "boom on rank 1" in done.stderr
    assert "went on past" not in done.stdout + done.stderr
    assert seconds < DEADLINE / 2  # ended by the abort, not by a timeout


def test_a_rank_that_never_joins_a_collective_times_out_and_ends_the_job():
    done, seconds = job("straggler")
    assert done.returncode != 0
    assert "all_reduce" in done.stderr and "timed out after 3 s" in done.stderr, done.stderr
    assert seconds < DEADLINE / 2


def test_a_checkpoint_of_two_ranks_resumes_on_one(tmp_path):
    path = str(tmp_path / "ckpt.npz")
    done, _ = job("checkpoint_save", path)
    assert_ok(done, "checkpoint_save")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".partial")] == []
    done, _ = job("checkpoint_load", path, n=1)
    assert_ok(done, "checkpoint_load", n=1)


def test_the_launcher_runs_a_script(tmp_path):
    script = tmp_path / "hello.py"
    script.write_text(
        "import os\n"
        "import minigrad.distributed as dist\n"
        "dist.init_process_group('mpi')\n"
        # One write per line: print's text and its newline are two writes, which the
        # ranks' outputs can interleave ('rank 0 of 2rank 1 of 2').
        "os.write(1, f'rank {dist.get_rank()} of {dist.get_world_size()}\\n'.encode())\n"
        "dist.destroy_process_group()\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "minigrad.distributed.run", "-n", "2", "--timeout", "100",
         str(script)],
        capture_output=True, text=True, timeout=DEADLINE,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(line for line in done.stdout.splitlines() if line.startswith("rank")) == [
        "rank 0 of 2", "rank 1 of 2"]  # fmt: skip
