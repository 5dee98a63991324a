"""The table of elementwise operations is the only place that lists them, and the one
generator the only place that writes kernels (issue 24).

Every backend derives what it knows of an elementwise op (the NumPy maps and
zips, the numba backend's policy, the CUDA functions, the fusion's scalar
bodies and float32 fast paths) from ``elementwise_ops.OPS``. A hand-written
list of op names anywhere else in the kernel layers would drift from it: the
test below finds any.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from minigrad.backends import elementwise_ops
from minigrad.backends.elementwise_ops import BOOL_OPS, OPS, REDUCTIONS
from minigrad.backends.kernel_cache import kernel_source, reduce_source

PACKAGE = Path(__file__).resolve().parents[2] / "minigrad"
# The modules that build, pick or run kernels: where knowledge of the ops could hide.
KERNEL_LAYERS = sorted(
    [*PACKAGE.joinpath("backends").glob("*.py")]
    + [PACKAGE / "compile" / name for name in ("codegen.py", "fusion.py", "run.py")]
)


def op_lists(path: Path) -> list[str]:
    """Every literal collection (list, tuple, set, dict keys) in ``path`` that names an op."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        names = [i.value for i in items if isinstance(i, ast.Constant) and i.value in OPS]
        if names:
            found.append(f"{path.name}:{node.lineno}: {names}")
    return found


def test_no_kernel_module_lists_elementwise_ops_but_the_table():
    table = Path(elementwise_ops.__file__).resolve()
    found = [hit for path in KERNEL_LAYERS if path.resolve() != table for hit in op_lists(path)]
    assert not found, "elementwise ops listed outside elementwise_ops.py:\n" + "\n".join(found)


# Pieces of a generated kernel's text: only the generator may write them.
KERNEL_TEXT = ("@njit", "@_njit", "cuda.jit", "def kernel(", "prange(")


def kernel_text(path: Path) -> list[str]:
    """The string literals of ``path`` (docstrings aside) that write a kernel's source."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        f"{path.name}:{node.lineno}: {node.value[:50]!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings and any(piece in node.value for piece in KERNEL_TEXT)
    ]  # fmt: skip


def test_only_the_generator_writes_kernel_source():
    generator = PACKAGE / "backends" / "kernel_cache.py"
    found = [hit for path in KERNEL_LAYERS if path != generator for hit in kernel_text(path)]
    assert not found, "kernel source written outside kernel_cache.py:\n" + "\n".join(found)
    assert kernel_text(generator)  # (the scan sees the generator's own templates)


def test_the_scan_finds_a_hand_written_list(tmp_path):
    # The old numpy_backend.MAPS and numba_backend.FUSED, in miniature.
    module = tmp_path / "maps.py"
    module.write_text(
        "import numpy as np\n"
        'MAPS = {"exp": np.exp, "log": np.log}\n'
        'FUSED = frozenset({"tanh_grad", "sigmoid_grad"})\n'
        'REDUCES = {"sum": np.sum}\n'
    )
    assert op_lists(module) == [
        "maps.py:2: ['exp', 'log']",
        "maps.py:3: ['tanh_grad', 'sigmoid_grad']",
    ]


@pytest.mark.parametrize("name", sorted(OPS))
def test_each_line_is_consistent(name):
    row = OPS[name]
    assert row.arity in (1, 2, 3), name
    assert row.policy in ("numpy", "elementwise", "fused", "composite"), name
    if row.float32 is not None:
        assert row.float32.__code__.co_argcount == row.arity, name
    # The derived bool set agrees with what NumPy's spelling gives on float input.
    if row.arity < 3:
        with np.errstate(all="ignore"):
            out = np.asarray(row.numpy(*[np.full(2, 0.5, np.float32)] * row.arity))
        assert (out.dtype == np.bool_) == (name in BOOL_OPS), name


def njit_loops(path: Path) -> list[str]:
    """The functions of ``path`` compiled by ``njit`` (decorated) that loop: kernels."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.FunctionDef):
            continue
        jitted = any("njit" in ast.unparse(d) for d in node.decorator_list)
        loops = any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(node))
        if jitted and loops:
            found.append(f"{path.name}:{node.lineno}: {node.name}")
    return found


def test_every_numba_cpu_kernel_is_generated():
    # Maps, zips, where and the reductions are written as text by kernel_cache. The
    # contractions are the lessons' own hand-written code and apply no function of
    # the table: lesson 10's matmul (naive and tiled) and lesson 17's fused attention. (The
    # selections that give PyTorch's topk/kthvalue positions among ties are generated too:
    # numba_selection compiles selection_steps' plain source.)
    allowed = {"numba_matmul.py", "numba_attention.py"}
    found = [
        hit
        for path in KERNEL_LAYERS
        if path.parent.name == "backends" and path.name not in allowed
        for hit in njit_loops(path)
    ]
    assert not found, "hand-written numba kernels outside the generator:\n" + "\n".join(found)


def test_the_loop_scan_finds_a_hand_written_kernel(tmp_path):
    # The old numba_kernels.reduce_range, in miniature.
    module = tmp_path / "kernels.py"
    module.write_text(
        "from numba import njit\n\n"
        "@njit(nogil=True)\n"
        "def reduce_range(start, stop, x, out):\n"
        "    for i in range(start, stop):\n"
        "        out[0] += x[i]\n"
    )
    assert njit_loops(module) == ["kernels.py:4: reduce_range"]


def cuda_kernels(path: Path) -> list[str]:
    """The CUDA kernels written out in ``path``: functions decorated with ``cuda.jit``, or
    passed to it (or to ``cuda_kernels._jit``), that are not device functions."""
    tree = ast.parse(path.read_text(), filename=str(path))
    jitted = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            called = ast.unparse(node.func)
            if called == "_jit" or ("cuda.jit" in called and "device=True" not in called):
                jitted.add(node.args[0].id)
    found = []
    for outer in ast.walk(tree):
        if not isinstance(outer, (ast.Module, ast.FunctionDef)):
            continue
        for node in outer.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            kernel = any("cuda.jit" in d and "device=True" not in d for d in decorators)
            if kernel or (node.name in jitted and isinstance(outer, ast.FunctionDef)):
                where = f"{outer.name}." if isinstance(outer, ast.FunctionDef) else ""
                found.append(f"{path.name}:{node.lineno}: {where}{node.name}")
    return found


def test_every_cuda_kernel_but_the_contractions_is_generated():
    # map, zip, where, the reductions and the data movement (fill, gather,
    # scatter-add) are written as text by kernel_cache. The contractions stay
    # written out: lesson 11's tiled matmul (shared-memory tiles, no function of
    # the table) and lesson 17's fused attention. Not yet moved: the bfloat16
    # word conversions of lesson 15 (cuda_low_precision.py, one statement each).
    allowed = {
        ("cuda_kernels.py", "matmul_kernel.kernel"),
        ("cuda_attention.py", "*"),
        ("cuda_low_precision.py", "*"),
    }
    found = [
        hit
        for path in KERNEL_LAYERS
        if path.parent.name == "backends" and path.name != "kernel_cache.py"
        for hit in cuda_kernels(path)
        if not {(path.name, "*"), (path.name, hit.rsplit(" ", 1)[-1])} & allowed
    ]
    assert not found, "hand-written CUDA kernels outside the generator:\n" + "\n".join(found)


def test_the_cuda_scan_finds_a_hand_written_kernel(tmp_path):
    # The old cuda_kernels.reduce_kernel and fill_kernel, in miniature.
    module = tmp_path / "gpu.py"
    module.write_text(
        "from numba import cuda\n\n"
        "def reduce_kernel(op):\n"
        "    combine = cuda.jit(device=True)(op)\n\n"
        "    def kernel(out, x):\n"
        "        for i in range(x.size):\n"
        "            out[0] = combine(out[0], x[i])\n\n"
        "    return _jit(kernel)\n\n"
        "@cuda.jit\n"
        "def fill(out, value):\n"
        "    out[cuda.grid(1)] = value\n\n"
        "@cuda.jit(device=True)\n"
        "def helper(x):\n"
        "    return x\n"
    )
    assert cuda_kernels(module) == ["gpu.py:13: fill", "gpu.py:6: reduce_kernel.kernel"]


@pytest.mark.parametrize("op", sorted(OPS))
def test_flat_kernels_do_no_index_arithmetic(op):
    # Operands that run along memory (or are one number) need no strides, no
    # division, no multi-index: the loop is out[k] = f(x[k], ...) (a block at a
    # time where the op has a quick form).
    source = kernel_source(op)
    flat = [part for part in source.split("@JIT\n")[1:] if part.startswith("def flat_")]
    assert len(flat) == 2 ** OPS[op].arity - 1
    for function in flat:
        assert ("range(last - first)" if OPS[op].quick else "range(stop - start)") in function
        for arithmetic in ("//", "_strides", "_step", "index", "uint64"):
            assert arithmetic not in function, (op, arithmetic)


@pytest.mark.parametrize("reduction", sorted(REDUCTIONS))
def test_reductions_fold_with_a_function_of_the_table(reduction):
    combine, identity = REDUCTIONS[reduction]
    function = OPS[combine].scalar
    assert function(identity, 2.5) == 2.5  # the identity starts a fold
    assert f"from {function.__module__} import {function.__name__}\n" in reduce_source(reduction)
