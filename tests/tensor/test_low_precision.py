"""float16 and bfloat16 (lesson 15): PyTorch's promotion, casts and creation, float32
accumulation, and the errors for a dtype minigrad lacks or for bfloat16 without ml_dtypes."""

import itertools
import sys

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import backends
from minigrad.backends import low_precision
from minigrad.tensor import dtypes

NAMES = ["float16", "bfloat16", "float32", "float64", "int32", "int64", "bool"]
LOW = ["float16", "bfloat16"]


def ours(name, shape=(2,)):
    return mg.zeros(shape, dtype=name) if name != "bool" else mg.zeros(shape) > 0


def theirs(name, shape=(2,)):
    return torch.zeros(shape, dtype=getattr(torch, name))


def torch_name(dtype):
    return str(dtype).removeprefix("torch.")


def test_the_dtypes_are_numpys_and_ml_dtypes():
    import ml_dtypes

    assert mg.float16 == np.dtype(np.float16)
    assert mg.bfloat16 == np.dtype(ml_dtypes.bfloat16)
    assert dtypes.is_floating(mg.bfloat16) and dtypes.kind(mg.bfloat16) == "f"
    assert mg.bfloat16.kind == "V"  # why dtypes.kind exists: NumPy does not count it a float


@pytest.mark.parametrize("a, b", list(itertools.product(NAMES, NAMES)))
def test_tensor_with_tensor_promotes_as_torch_result_type(a, b):
    want = torch_name(torch.result_type(theirs(a), theirs(b)))
    assert (ours(a) * ours(b)).dtype.name == want
    assert dtypes.result_dtype([ours(a).dtype, ours(b).dtype], []).name == want
    # A 0-d tensor promotes as a number does, unless it is of a higher kind.
    for shapes in [((2,), ()), ((), (2,)), ((), ())]:
        x, y = ours(a, shapes[0]), ours(b, shapes[1])
        want = torch_name(torch.result_type(theirs(a, shapes[0]), theirs(b, shapes[1])))
        assert (x * y).dtype.name == want, shapes


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", [True, 3, 2.5])
def test_a_python_number_does_not_promote_a_tensor_within_its_kind(name, scalar):
    want = torch_name(torch.result_type(theirs(name), scalar))
    got = dtypes.result_dtype([ours(name).dtype], [scalar]).name
    assert got == want
    assert (ours(name) * scalar).dtype.name == want
    want = torch_name(torch.result_type(theirs(name, ()), scalar))
    assert (ours(name, ()) * scalar).dtype.name == want


@pytest.mark.parametrize("name", LOW)
def test_casts_and_creation_in_each_low_dtype(name):
    dtype = getattr(mg, name)
    x = mg.tensor([1.0, 1.0 + 2.0**-9, 3.0])
    assert x.half().dtype == mg.float16 and x.bfloat16().dtype == mg.bfloat16
    assert x.to(name).dtype == x.to(dtype).dtype == dtype
    assert x.to("half" if name == "float16" else name).dtype == dtype
    t = torch.tensor([1.0, 1.0 + 2.0**-9, 3.0]).to(getattr(torch, name))
    np.testing.assert_array_equal(x.to(dtype).float().numpy(), t.float().numpy())  # rounding
    for made in (
        mg.tensor([1.5, 2.0], dtype=dtype),
        mg.zeros(2, dtype=dtype),
        mg.ones(2, 3, dtype=name),
        mg.randn(4, dtype=dtype),
        mg.rand(4, dtype=dtype),
        mg.full((2,), 0.1, dtype=dtype),
        mg.arange(3, dtype=dtype),
        mg.zeros_like(mg.ones(2), dtype=dtype),
    ):
        assert made.dtype == dtype
    assert mg.ones(2, dtype=dtype).numpy().dtype == dtype
    assert mg.from_numpy(np.ones(2, dtype)).dtype == dtype
    assert mg.tensor(np.ones(2, dtype)).dtype == dtype  # NumPy data keeps its dtype
    assert repr(mg.ones(2, dtype=dtype)).endswith(f"dtype={name})")


@pytest.mark.parametrize("name", LOW)
def test_modules_cast_their_floating_parameters_and_buffers(name):
    bn = mg.nn.BatchNorm1d(3)
    bn = bn.half() if name == "float16" else bn.bfloat16()
    assert bn.weight.dtype == bn.running_mean.dtype == getattr(mg, name)
    assert bn.num_batches_tracked.dtype == mg.int64


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("name", LOW)
def test_sums_and_products_accumulate_in_float32(name, backend):
    # 4096 ones: a float16 running sum stops at 2048 (2048 + 1 rounds back to 2048),
    # a bfloat16 one at 256. PyTorch's kernels accumulate in float32.
    torch_dtype = getattr(torch, name)
    with backends.use(backend):
        ones = mg.ones(4096, dtype=name)
        assert float(ones.sum()) == float(torch.ones(4096, dtype=torch_dtype).sum()) == 4096
        assert float(ones.cumsum(0)[-1]) == 4096
        assert float(ones.mean()) == 1.0
        a, b = mg.ones(1, 4096, dtype=name), mg.ones(4096, 1, dtype=name)
        product = a @ b
        assert product.dtype.name == name and float(product) == 4096
        w = mg.ones(1, 4096, 1, 1, dtype=name)
        assert float(mg.nn.functional.conv2d(mg.ones(1, 4096, 1, 1, dtype=name), w)) == 4096


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("name", LOW)
def test_numbers_and_0d_constants_meet_16_bit_tensors_as_in_pytorch(name, backend):
    # PyTorch's multiply and divide take a constant in second place in float32: a float16
    # tensor times 65536 (beyond float16's range) is finite. Its other kernels, and these
    # with a 0-d tensor in first place, round the constant to 16 bits first (inf here);
    # a number divided by a tensor is the tensor's reciprocal, rounded, times the number.
    # (minigrad rounds first for a 0-d 16-bit tensor too: not checked here.)
    torch_dtype = getattr(torch, name)
    values = [0.5, -3.0, 1.0, 60000.0, float("nan"), float("inf"), -0.0, 2.0**-10]
    numbers = [65536.0, 70000, 1.00390625, 1e-8, -65520.0, 3, 2.0**-9]
    ops = [lambda a, b: a * b, lambda a, b: b * a, lambda a, b: a / b, lambda a, b: b / a,
           lambda a, b: a + b, lambda a, b: b - a, lambda a, b: a < b, lambda a, b: a == b]  # fmt: skip
    with backends.use(backend):
        x, t = mg.tensor(values, dtype=name), torch.tensor(values, dtype=torch_dtype)
        for number in numbers:
            constants = [(number, number), (mg.tensor(float(number)), torch.tensor(float(number)))]
            for (constant, reference), op in itertools.product(constants, ops):
                got, want = op(x, constant), op(t, reference)
                assert got.dtype.name == torch_name(want.dtype), (number, got, want)
                np.testing.assert_array_equal(
                    got.numpy().astype(np.float64), want.double().numpy(), err_msg=str(number)
                )
    # Gradients keep the leaves' dtypes, and the constant joins them in float32 as well.
    for reference, scale in [(torch.tensor(65536.0), mg.tensor(65536.0)), (1e-8, 1e-8)]:
        x = mg.tensor([0.5, 2.0**-14], dtype=name, requires_grad=True)
        t = torch.tensor([0.5, 2.0**-14], dtype=torch_dtype, requires_grad=True)
        (x * scale / scale).sum().backward()
        (t * reference / reference).sum().backward()
        assert x.grad.dtype.name == name
        np.testing.assert_array_equal(x.grad.numpy().astype(np.float64), t.grad.double().numpy())
    # A 0-d tensor that needs a gradient is cast like any input: its gradient is float32.
    w, s = mg.tensor([0.5], requires_grad=True), mg.tensor(3.0, requires_grad=True)
    (w.to(name) * s).sum().backward()
    assert s.grad.dtype == mg.float32 and w.grad.dtype == mg.float32


@pytest.mark.parametrize("name", LOW)
def test_gradients_arrive_in_the_leafs_dtype(name):
    x = mg.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=name, requires_grad=True)
    y = mg.tensor([[1.0, 0.0], [0.5, 1.5]], dtype=name, requires_grad=True)
    loss = mg.maximum(x, y).sum() + mg.nn.functional.softmax(x @ y, dim=1).var() + x.norm()
    loss.backward()
    assert x.grad.dtype == y.grad.dtype == getattr(mg, name)
    # A float32 leaf used in float16 arithmetic gets a float32 gradient (the cast's rule).
    w = mg.ones(2, requires_grad=True)
    (w.to(name) * 3).sum().backward()
    assert w.grad.dtype == mg.float32 and w.grad.tolist() == [3.0, 3.0]


def test_an_unknown_dtype_lists_the_supported_ones():
    for bad in ("float8", "complex64", np.uint8, "int16"):
        with pytest.raises(TypeError) as error:
            mg.zeros(2, dtype=bad)
        message = str(error.value)
        assert all(n in message for n in NAMES), message
    with pytest.raises(TypeError, match="bfloat16"):
        mg.ones(2).to("quarter")


def test_bfloat16_without_ml_dtypes_says_how_to_install_it(monkeypatch):
    # As if ml_dtypes were not installed: importing it fails (None in sys.modules).
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    monkeypatch.delattr(dtypes, "bfloat16", raising=False)  # forget the loaded dtype
    for use in (
        lambda: mg.bfloat16,
        lambda: mg.ones(2).to("bfloat16"),
        lambda: mg.ones(2).bfloat16(),
        lambda: mg.zeros(2, dtype="bfloat16"),
    ):
        with pytest.raises(ModuleNotFoundError, match=r"pip install ml_dtypes"):
            use()
    assert (mg.ones(2).half() + 1).dtype == mg.float16  # float16 needs NumPy only
    assert [d.name for d in dtypes.supported()] == [n for n in NAMES if n != "bfloat16"]


def test_bfloat16_rounding_on_the_bits_is_ml_dtypes_rounding():
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32)
    specials = np.array([0x3F808000, 0x3F818000, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x80000000,
                         0x7FC00000, 0x7F800001, 0x00008000, 0x00018000], np.uint32)  # fmt: skip
    bits = np.concatenate([bits, specials])
    ours = np.array([low_precision.bfloat16_bits(int(b)) for b in bits], np.uint16)
    with np.errstate(invalid="ignore"):
        want = bits.view(np.float32).astype(mg.bfloat16).view(np.uint16)
    nan = np.isnan(bits.view(np.float32))
    np.testing.assert_array_equal(ours[~nan], want[~nan])
    assert np.isnan(ours[nan].view(mg.bfloat16).astype(np.float32)).all()
    widened = np.array([low_precision.bfloat16_value(int(b)) for b in ours], np.uint32)
    np.testing.assert_array_equal(
        widened.view(np.float32), ours.view(mg.bfloat16).astype(np.float32)
    )


@pytest.mark.parametrize("name", LOW)
def test_jit_and_vmap_keep_the_low_dtype(name):
    def f(x, w):
        return (mg.nn.functional.gelu(x @ w) * 2 + 1).tanh().sum() + mg.nn.functional.softmax(
            x, 1
        ).var()

    x, w = mg.randn(8, 8).to(name), mg.randn(8, 8).to(name)
    program = str(mg.make_graph(f)(x, w))
    assert f"{name}[8,8] = gelu" in program, program
    eager, compiled = f(x, w), mg.jit(f)(x, w)
    assert compiled.dtype == eager.dtype == getattr(mg, name)
    assert abs(float(compiled) - float(eager)) <= 2 * float(dtypes.finfo(eager.dtype).eps) * abs(
        float(eager)
    )
    grads = mg.jit(mg.grad(f))(x, w)
    assert grads.dtype == getattr(mg, name)
    rows = mg.vmap(lambda r: (r * 2).exp().sum())(x)
    assert rows.dtype == getattr(mg, name) and rows.shape == (8,)
