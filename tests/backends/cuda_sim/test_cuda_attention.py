"""The fused attention kernels of the CUDA backend (cuda_attention.py) against PyTorch.

Run in a child process on numba's simulator (see ``conftest.py``): a tile is
4 rows there, so these small shapes still span several query and key tiles.
"""

import os

import numpy as np
import pytest
import torch

import minigrad as mg

F = mg.nn.functional
TF = torch.nn.functional


@pytest.mark.parametrize(
    "shapes, mask, causal, dtype",
    [
        ([(2, 5, 3), (2, 6, 3), (2, 6, 2)], None, False, np.float64),
        ([(1, 2, 7, 3), (1, 2, 6, 3), (1, 2, 6, 2)], None, True, np.float64),
        ([(2, 7, 3), (2, 6, 3), (6, 2)], "bool", False, np.float64),
        ([(2, 7, 3), (2, 6, 3), (2, 6, 2)], "float", False, np.float32),
        ([(2, 1, 3), (2, 1, 3), (2, 1, 2)], None, True, np.float32),
        ([(0, 5, 3), (0, 6, 3), (0, 6, 2)], None, False, np.float64),
    ],
)
def test_cuda_attention_matches_torch(shapes, mask, causal, dtype):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    length, keys = shapes[0][-2], shapes[1][-2]
    m = None
    if mask == "bool":
        m = rng.random((length, keys)) > 0.3
        m[2] = False  # a query that sees no key
    elif mask == "float":
        m = np.where(rng.random((2, 1, keys)) > 0.2, rng.standard_normal((2, 1, keys)), -np.inf)
        m = m.astype(dtype)
    xs = [mg.tensor(a, device="cuda", requires_grad=True) for a in arrays]
    out = F.scaled_dot_product_attention(
        *xs, attn_mask=None if m is None else mg.tensor(m, device="cuda"), is_causal=causal
    )
    assert out.device == "cuda"
    g = rng.standard_normal(out.shape).astype(dtype)
    out.backward(mg.tensor(g, device="cuda"))
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    tout = TF.scaled_dot_product_attention(
        *ts, attn_mask=None if m is None else torch.from_numpy(m), is_causal=causal
    )
    tout.backward(torch.from_numpy(g))
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), **tol)
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.detach().numpy(), t.grad.detach().numpy(), **tol)


def test_cuda_multihead_attention_matches_torch():
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(4, 2, batch_first=True, dtype=torch.float64)
    ours = mg.nn.MultiheadAttention(4, 2, batch_first=True, dtype=mg.float64, device="cuda")
    ours.load_state_dict({k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((2, 5, 4))
    mx = mg.tensor(x, device="cuda", requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    padding = np.zeros((2, 5), bool)
    padding[1, 3:] = True
    out, _ = ours(mx, mx, mx, key_padding_mask=mg.tensor(padding, device="cuda"),
                  need_weights=False)  # fmt: skip
    tout, _ = theirs(tx, tx, tx, key_padding_mask=torch.from_numpy(padding), need_weights=False)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(
    os.environ.get("NUMBA_ENABLE_CUDASIM") != "1", reason="tests numba's simulator, not a GPU"
)
def test_the_simulators_shared_arrays_are_one_per_line_under_contention(monkeypatch):
    """The attention kernels' flake: numba's simulator made a line's shared array on a first
    look-up that missed, and two threads that both missed held different "shared" tiles
    (cuda_kernels installs one look-up-and-store under a lock). A slow ``np.empty`` opens the
    window between look-up and store every time; every thread must still get one array."""
    import threading
    import time

    from numba.cuda.simulator import kernelapi

    import minigrad.backends.cuda_kernels  # noqa: F401  (installs the locked look-up)

    real_empty = np.empty
    monkeypatch.setattr(np, "empty", lambda *a, **k: time.sleep(0.002) or real_empty(*a, **k))
    shared = kernelapi.FakeCUDAShared(0)
    threads, got = 8, []
    barrier = threading.Barrier(threads)

    def thread():
        barrier.wait()
        got.append(shared.array((4, 3), np.float64))

    workers = [threading.Thread(target=thread) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(got) == threads and len({id(a) for a in got}) == 1
    assert got[0].shape == (4, 3) and got[0].dtype == np.float64
