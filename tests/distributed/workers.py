"""What each rank runs in tests/distributed/test_mpi.py: ``python workers.py SCENARIO [ARGS]``.

Every scenario checks its own results on every rank and prints ``ok SCENARIO``
at the end; a failed check raises, which (through ``init_process_group``'s
hook) ends the whole job with the error.
"""

import sys

import numpy as np

import minigrad as mg
import minigrad.distributed as dist
from minigrad.distributed.nn import functional as F

TOL = {"rtol": 1e-6, "atol": 1e-9}


def data(seed=0, n=12):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 5))
    y = np.tanh(x @ rng.standard_normal((5, 2)))
    return mg.tensor(x), mg.tensor(y)


def model():
    return mg.nn.MLP(5, [7, 6], 2, activation="tanh", dtype=mg.float64)


def my_slice(n):
    size, rank = dist.get_world_size(), dist.get_rank()
    per = n // size
    return slice(rank * per, (rank + 1) * per)


def loss_fn(m, x, y):
    return ((m(x) - y) ** 2).mean()


def collectives():
    rank, n = dist.get_rank(), dist.get_world_size()
    x = mg.tensor([1.0, 2.0]) * (rank + 1)
    dist.all_reduce(x)
    np.testing.assert_allclose(x.detach().numpy(), np.array([1.0, 2.0]) * n * (n + 1) / 2)
    parts = [mg.zeros(2, dtype=mg.float64) for _ in range(n)]
    dist.all_gather(parts, mg.tensor([rank, 10.0 * rank], dtype=mg.float64))
    for r, p in enumerate(parts):
        np.testing.assert_allclose(p.detach().numpy(), [r, 10.0 * r])
    out = mg.zeros(3, dtype=mg.float64)
    dist.reduce_scatter(out, [mg.full((3,), float(rank + j), dtype=mg.float64) for j in range(n)])
    np.testing.assert_allclose(out.detach().numpy(), sum(r + rank for r in range(n)))
    b = mg.tensor([float(rank)] * 3)
    dist.broadcast(b, src=n - 1)
    np.testing.assert_allclose(b.detach().numpy(), n - 1)
    # differentiable forms: gradients run the transposed collective across ranks
    w = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    total = F.all_reduce(w * (rank + 1))
    (total * total).sum().backward()  # each rank sends 2 total back: summed over n ranks
    s = n * (n + 1) / 2
    np.testing.assert_allclose(w.grad.numpy(), 2 * n * s * np.array([1.0, 2.0]) * (rank + 1))
    w.grad = None
    gathered = F.all_gather(w * (rank + 1))
    sum((g * (i + 1)).sum() for i, g in enumerate(gathered)).backward()
    np.testing.assert_allclose(w.grad.numpy(), [n * (rank + 1) ** 2] * 2)
    w.grad = None
    got = F.broadcast(w * (rank + 1), src=0)
    (got * (rank + 1)).sum().backward()  # the transpose sends everything to rank 0
    expected = s if rank == 0 else 0.0
    np.testing.assert_allclose(w.grad.numpy(), [expected] * 2)
    # forward mode: jvp is the collective on the tangents
    _, tangent = mg.jvp(lambda v: F.all_reduce(v), (w.detach(),), (mg.ones(2, dtype=mg.float64),))
    np.testing.assert_allclose(tangent.detach().numpy(), [n, n])
    # the ring all-reduce over point-to-point sends equals MPI's
    g = dist.group_world()
    a = np.arange(11.0) * (rank + 1)
    ring = g.ring_all_reduce(a.copy())
    np.testing.assert_allclose(ring, g.all_reduce(a))
    assert g.bytes_sent <= 2 * (n - 1) / n * a.nbytes + 2 * n * 8


def ddp():
    x, y = data()
    ref = model()  # the same model in one process on the whole batch
    m = model()
    ddp = dist.DistributedDataParallel(m, bucket_cap_mb=1e-4)  # ~100 bytes: several buckets
    assert len(ddp.bucket_sizes) > 2
    ref.load_state_dict(m.state_dict())  # rank 0's initial weights, broadcast by DDP
    opt, ref_opt = mg.optim.SGD(ddp.parameters(), lr=0.1), mg.optim.SGD(ref.parameters(), lr=0.1)
    mine = my_slice(len(x))
    for _ in range(3):
        opt.zero_grad()
        loss_fn(ddp, x[mine], y[mine]).backward()
        opt.step()
        ref_opt.zero_grad()
        loss_fn(ref, x, y).backward()
        ref_opt.step()
    for p, q in zip(m.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), **TOL)
    # no_sync: two micro-batches, the first without communication, equal one process's
    half = len(x) // 2
    ref_x = [x[:half], x[half:]]
    ref_y = [y[:half], y[half:]]
    opt.zero_grad()
    ref_opt.zero_grad()
    for k in range(2):
        xs, ys = ref_x[k], ref_y[k]
        part = slice(mine.start // 2, mine.stop // 2)
        if k == 0:
            with ddp.no_sync():
                loss_fn(ddp, xs[part], ys[part]).backward()
        else:
            loss_fn(ddp, xs[part], ys[part]).backward()
        loss_fn(ref, xs, ys).backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), **TOL)
    assert ddp.timeline and ddp.wait_seconds >= 0


def zero():
    x, y = data(1)
    ref, m = model(), model()
    zero = dist.ZeroRedundancyOptimizer(m.parameters(), mg.optim.Adam, lr=0.01)
    ref.load_state_dict(m.state_dict())
    ref_opt = mg.optim.Adam(ref.parameters(), lr=0.01)
    mine = my_slice(len(x))
    for _ in range(3):
        zero.zero_grad()
        loss_fn(m, x[mine], y[mine]).backward()
        zero.step()
        ref_opt.zero_grad()
        loss_fn(ref, x, y).backward()
        ref_opt.step()
    for p, q in zip(m.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), **TOL)
    full = sum(v.detach().numpy().nbytes for s in ref_opt.state.values() for v in s.values()
               if isinstance(v, mg.Tensor))  # fmt: skip
    assert zero.state_bytes() <= 0.6 * full, (zero.state_bytes(), full)


def fail():
    if dist.get_rank() == 1:
        raise ValueError("boom on rank 1")
    x = mg.tensor([1.0])
    dist.all_reduce(x)  # rank 0 would wait for ever: the abort must end it
    raise AssertionError("rank 0 went on past a collective that rank 1 never joined")


def straggler():
    if dist.get_rank() == 1:
        sys.exit(0)  # leaves without joining the collective below
    dist.group_world().timeout = 3.0
    dist.all_reduce(mg.tensor([1.0]))
    raise AssertionError("rank 0 went on past a collective that rank 1 never joined")


def mismatch():
    x = mg.zeros(3 + dist.get_rank())
    try:
        dist.all_reduce(x)
    except RuntimeError as error:
        print(f"rank {dist.get_rank()}: {error}")
        assert "rank 0: float32 (3,)" in str(error) and "rank 1: float32 (4,)" in str(error)
    else:
        raise AssertionError("no error for shapes that differ across ranks")


def checkpoint_save(path):
    x, y = data(2)
    m = model()
    zero = dist.ZeroRedundancyOptimizer(m.parameters(), mg.optim.Adam, lr=0.01)
    mine = my_slice(len(x))
    for _ in range(2):
        zero.zero_grad()
        loss_fn(m, x[mine], y[mine]).backward()
        zero.step()
    state = {f"model.{k}": v for k, v in m.state_dict().items()}
    state |= {f"optim.{k}": v for k, v in zero.consolidated_state().items()}
    state["optim.step"] = mg.tensor(zero.optim.state[zero.shard]["step"])
    dist.save_checkpoint(state, path)
    zero.zero_grad()
    loss_fn(m, x[mine], y[mine]).backward()
    zero.step()
    dist.save_checkpoint(m.state_dict(), path + ".after")


def checkpoint_load(path):
    x, y = data(2)
    state = dist.load_checkpoint(path)
    m = model()
    m.load_state_dict({k[6:]: v for k, v in state.items() if k.startswith("model.")})
    zero = dist.ZeroRedundancyOptimizer(m.parameters(), mg.optim.Adam, lr=0.01)
    zero.load_consolidated_state(
        {k[6:]: v for k, v in state.items() if k.startswith("optim.") and k != "optim.step"},
        step=int(state["optim.step"].item()),
    )
    mine = my_slice(len(x))
    zero.zero_grad()
    loss_fn(m, x[mine], y[mine]).backward()
    zero.step()
    after = dist.load_checkpoint(path + ".after")
    for k, v in m.state_dict().items():
        np.testing.assert_allclose(v.detach().numpy(), after[k].detach().numpy(), **TOL)


if __name__ == "__main__":
    dist.init_process_group(backend="mpi", timeout=float(60))
    scenario, args = sys.argv[1], sys.argv[2:]
    globals()[scenario](*args)
    print(f"ok {scenario} rank {dist.get_rank()}", flush=True)
    dist.destroy_process_group()
