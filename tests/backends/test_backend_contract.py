"""The backend contract (lessons 10, 11): one scalar source, one protocol, threads, damaged caches.

- every function of ``scalar_functions`` gives NumPy's answer, NaN and inf
  included, run as plain Python and compiled by numba, and compiled keeps
  the dtype (float32 in, float32 out);
- the numpy, numba and cuda backends have every method of ``Backend``,
  with the protocol's parameters;
- two threads computing on large tensors at once get right answers;
- a truncated or empty file in numba's disk cache is reported once and
  rebuilt, never fatal.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from minigrad.backends.contract import Backend
from minigrad.backends.elementwise_ops import SCALAR_FUNCTIONS
from minigrad.backends.kernel_cache import jit_scalar
from minigrad.backends.numpy_backend import MAPS, ZIPS, NumpyBackend

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = NumpyBackend()
EDGES = [-np.inf, -1000.0, -2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, 1000.0, np.inf, np.nan]
BOOL_RESULTS = {"lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_not"}
# exp, log, tanh and friends come from different libraries on each side: a few ulps apart.
TOLERANCE = {np.float32: 2e-6, np.float64: 1e-14}


def edge_operands(arity: int, dtype) -> list[np.ndarray]:
    """Every edge value (and every pair of them) as arrays of ``dtype``."""
    values = np.array(EDGES, dtype)
    if arity == 1:
        return [values]
    x, y = np.meshgrid(values, values, indexing="ij")
    return [x.ravel(), y.ravel()]


def test_the_table_names_every_op_the_backends_accept():
    assert set(SCALAR_FUNCTIONS) == set(MAPS) | set(ZIPS) | {"where"}
    for name, fn in SCALAR_FUNCTIONS.items():
        arity = len(inspect.signature(fn).parameters)
        assert arity == (1 if name in MAPS else 3 if name == "where" else 2), name
        assert fn.__doc__ and ">>>" in fn.__doc__, f"{name}: no doctest of its edge cases"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(set(MAPS) | set(ZIPS)))
def test_plain_python_and_compiled_agree_with_numpy(name, dtype):
    from numba import njit

    fn = SCALAR_FUNCTIONS[name]
    operands = edge_operands(len(inspect.signature(fn).parameters), dtype)
    with np.errstate(all="ignore"):
        expected = (MAPS.get(name) or ZIPS.get(name))(*operands)
        plain = np.array([fn(*args) for args in zip(*operands)], expected.dtype)
    compiled_fn = jit_scalar(fn, njit(error_model="numpy"))  # its helpers compiled too
    compiled = np.array([compiled_fn(*args) for args in zip(*operands)], expected.dtype)
    for result in (plain, compiled):
        np.testing.assert_allclose(result, expected, rtol=TOLERANCE[dtype], atol=0)
    # Compiled, the dtype is kept: float32 arithmetic stays float32 (bool for comparisons).
    (signature,) = compiled_fn.nopython_signatures
    expected_type = "bool" if name in BOOL_RESULTS else np.dtype(dtype).name
    assert str(signature.return_type) == expected_type, f"{name}({dtype.__name__}) -> {signature}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_where_plain_and_compiled_agree_with_numpy(dtype):
    from numba import njit

    x, y = edge_operands(2, dtype)
    c = np.arange(x.size) % 3 == 0
    expected = np.where(c, x, y)
    compiled = njit(SCALAR_FUNCTIONS["where"])
    for fn in (SCALAR_FUNCTIONS["where"], compiled):
        got = np.array([fn(*args) for args in zip(c, x, y)], dtype)
        np.testing.assert_array_equal(got, expected)


# torch.special's Bessel functions and polynomials (scalar_bessel) round each step a * b + c
# once, through an exact float64 product, as PyTorch's compiled fused multiply-add does: in
# float32 one rounding more moves a cancelling polynomial (H_8(0.38) by 2e-4) and J0 by an ulp.
FUSED_AS_PYTORCH = [n for n, fn in SCALAR_FUNCTIONS.items() if fn.__module__.endswith("_bessel")]


def test_float32_stays_float32_in_gpu_code():
    # Compiled to PTX for a GPU (libNVVM only, no GPU needed): a float32 function must
    # contain no float64 instruction (half-speed or worse on most GPUs).
    from numba import cuda, types
    from numba.cuda.cudadrv import nvvm

    if not nvvm.is_available():
        pytest.skip("libNVVM (the CUDA toolkit's compiler) is not installed here")
    # One exception, in CUDA's own library: sinf, cosf and tanf reduce an argument
    # beyond 105615 (Payne-Hanek, in integers) and scale the result by pi/2 with one
    # float64 multiply. Only huge arguments take that path; nothing else may.
    libdevice_slow_path = {"cvt.rn.f64.s64", "mul.f64", "cvt.rn.f32.f64"}
    promoted, calling = [], []
    for name, fn in SCALAR_FUNCTIONS.items():
        arity = len(inspect.signature(fn).parameters)
        if jit_scalar(fn, lambda f: f) is not fn:  # it calls helpers of its module
            # The PTX compiler needs a GPU's driver to type a call to another device
            # function, so these are compiled only where kernels run; the list must not grow.
            calling.append(name)
            continue
        ptx, _ = cuda.compile_ptx(fn, (types.float32,) * arity, device=True, cc=(7, 5))
        f64 = {line.split()[0] for line in ptx.splitlines() if ".f64" in line}
        f64.discard(".reg")
        if name in ("sin", "cos", "tan", "digamma"):  # digamma: pi / tan(pi r), |r| < 1
            f64 -= libdevice_slow_path
        if f64:
            promoted.append((name, sorted(f64)))
    # Known, and not to grow: erfinv computes in float64 on purpose (docs/api.md);
    # FUSED_AS_PYTORCH above.
    assert [name for name, _ in promoted] == ["erfinv", *FUSED_AS_PYTORCH]
    assert calling == ["polygamma"]


@pytest.mark.parametrize("module, cls", [("numpy_backend", "NumpyBackend"),
                                         ("numba_backend", "NumbaBackend"),
                                         ("cuda_backend", "CudaBackend")])  # fmt: skip
def test_every_backend_conforms_to_the_protocol(module, cls):
    backend_class = getattr(__import__(f"minigrad.backends.{module}", fromlist=[cls]), cls)
    for member, declared in vars(Backend).items():
        if member.startswith("_") or not callable(declared):
            continue
        method = getattr(backend_class, member, None)
        assert callable(method), f"{cls} has no {member}()"
        wanted = list(inspect.signature(declared).parameters)
        assert list(inspect.signature(method).parameters) == wanted, f"{cls}.{member}"
    assert isinstance(backend_class.__new__(backend_class), Backend)
    for attribute in ("name", "device"):
        assert isinstance(getattr(backend_class, attribute), str)


def run_child(code: str, cache: Path, **env: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), **env)
    env.pop("MINIGRAD_BACKEND", None)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


# Run with DEVICES (backend names: "numpy", "numba", "cuda") and N (elements) defined first.
THREADS = textwrap.dedent("""
    import threading
    import numpy as np
    import minigrad as mg

    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(N).astype(np.float32) for _ in range(3)]

    def step(name):
        # Forward through the tensor layer, then the backward's fused kernel and a
        # reduction straight on the backend (grad mode is the tensor layer's business).
        device = "cuda" if name == "cuda" else "cpu"
        with mg.backends.use("numpy" if name == "cuda" else name):
            a, b, c = (mg.tensor(x, device=device) for x in arrays)
            y = (a * b + c).tanh()
            backend = mg.backends.for_device(device)
            g = backend.zip("tanh_grad", backend.from_numpy(b.numpy()), backend.from_numpy(y.numpy()))
            top = backend.to_numpy(backend.reduce("max", g, (0,), False))
            return y.sum().item(), top, backend.to_numpy(g)

    results = {}
    for name in DEVICES:
        expected = step(name)
        errors = []

        def worker(i):
            try:
                for _ in range(3):
                    results[name, i] = step(name)
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        for i in range(2):
            total, top, g = results[name, i]
            assert abs(total - expected[0]) <= 1e-3 * abs(expected[0]) and top == expected[1]
            np.testing.assert_array_equal(g, expected[2])
    print("threads ok")
""")


def test_two_threads_on_large_tensors(tmp_path):
    # 4M elements: past every crossover, so the numba kernels run, on every core. In a
    # child: numba's own thread pools abort the whole process on this.
    done = run_child("DEVICES, N = ['numpy', 'numba'], 1 << 22\n" + THREADS, tmp_path / "cache")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "threads ok" in done.stdout


@pytest.mark.cuda
def test_two_threads_on_cuda_tensors(tmp_path):
    # On numba's simulator (which refuses two kernels at once) unless MINIGRAD_TEST_GPU=1.
    simulator = {} if os.environ.get("MINIGRAD_TEST_GPU") == "1" else {"NUMBA_ENABLE_CUDASIM": "1"}
    done = run_child("DEVICES, N = ['cuda'], 300\n" + THREADS, tmp_path / "cache", **simulator)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "threads ok" in done.stdout


FIRST_KERNEL = """
    import numpy as np
    from minigrad.backends.numba_backend import NUMPY_BELOW, NumbaBackend

    backend = NumbaBackend()
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert backend.zip("mul", x, x).tolist() == (x * x).tolist()
    assert backend.reduce("sum", x, (1,), False).tolist() == [3.0, 12.0]
    print("kernels ok")
"""


@pytest.mark.parametrize("damage", ["empty", "truncated"])
def test_a_damaged_kernel_cache_is_rebuilt_and_reported_once(tmp_path, damage):
    cache = tmp_path / "cache"
    first = run_child(FIRST_KERNEL, cache)
    assert first.returncode == 0, first.stderr[-3000:]
    files = [p for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert len(files) >= 4  # an index and a data file per kernel
    for path in files:
        data = path.read_bytes()
        path.write_bytes(b"" if damage == "empty" else data[: len(data) // 2])
    second = run_child(FIRST_KERNEL, cache)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "kernels ok" in second.stdout
    assert second.stderr.count("kernel cache was damaged") == 1, second.stderr[-3000:]
    third = run_child(FIRST_KERNEL, cache)  # rebuilt: loads quietly
    assert third.returncode == 0 and "damaged" not in third.stderr, third.stderr[-3000:]
