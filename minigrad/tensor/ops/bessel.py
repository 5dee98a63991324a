"""torch.special's Bessel functions, Airy's Ai and orthogonal polynomials (lessons 04-05).

Twenty-four registry rows, each a scalar body (``minigrad/backends/scalar_bessel.py``)
that follows PyTorch's own steps in the input's precision:

- Bessel functions of the first and second kind ``bessel_j0``, ``bessel_j1``,
  ``bessel_y0``, ``bessel_y1``; modified ones ``modified_bessel_i0``/``i1``/``k0``/``k1``
  and ``scaled_modified_bessel_k0``/``k1`` (exp(x) K(x)); ``spherical_bessel_j0``
  (sin(x)/x) and ``airy_ai``;
- the polynomials of x and a degree n: Chebyshev's four kinds T, U, V, W, the same
  shifted to [0, 1], Hermite's two (physicists' H, probabilists' He), Laguerre's L
  and Legendre's P. n is truncated to a whole number; for n < 0 the polynomial is 0.
  x and n may be tensors or one of them a number, and broadcast together.

PyTorch gives none of these a derivative: their results do not require grad, so
``backward`` through one raises PyTorch's "does not require grad" error. Integer and
bool inputs become float32, as in PyTorch; float16 and bfloat16 are refused with
PyTorch's NotImplementedError.

    >>> import minigrad as mg
    >>> mg.special.bessel_j0(mg.tensor([0.0, 1.0]))
    tensor([1.    , 0.7652])
    >>> mg.special.chebyshev_polynomial_t(mg.tensor([0.5, 1.0]), 3)
    tensor([-1.,  1.])
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import _map, _zip, operands, parser_error, tensor_arguments
from minigrad.tensor.record import apply

FUNCTIONS = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
             "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
             "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
             "airy_ai")  # fmt: skip
POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p")  # fmt: skip
# The rows: no derivative (PyTorch defines none), so their results never require grad.
ROWS = {name: _map(name, None) for name in FUNCTIONS}
ROWS.update({name: _zip(name, (None, None)) for name in POLYNOMIALS})
_KERNEL_DTYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16"}


def _refuse_16_bits(name: str, x: Tensor) -> None:
    """PyTorch's NotImplementedError: its kernels of these take float32 and float64 only."""
    label = _KERNEL_DTYPE_NAMES.get(str(x.dtype))
    if label is not None:
        device = "cpu" if str(x.device).startswith("cpu") else "cuda"
        raise NotImplementedError(
            f"\"{name}_{device}\" not implemented for '{label}'\n"
            f"special.{name}: compute in float32, e.g. x.float()"
        )


def _function(name: str, input: Any, argument: str = "input") -> Tensor:
    tensor_arguments(f"special_{name}", input, names=(argument,))
    x = input if dtypes.is_floating(input.dtype) else input.to(dtypes.DEFAULT_FLOAT)
    _refuse_16_bits(name, x)
    return apply(ROWS[name], (x,))


def _polynomial(name: str, x: Any, n: Any) -> Tensor:
    if not isinstance(x, Tensor) and not isinstance(n, Tensor):
        raise parser_error(
            f"special_{name}",
            (x, n),
            "(Tensor x, Tensor n, *, Tensor out = None)",
            "(Number x, Tensor n, *, Tensor out = None)",
            "(Tensor x, Number n, *, Tensor out = None)",
        )
    x, n = operands(name, x, n, floating=True)
    _refuse_16_bits(name, x)
    return apply(ROWS[name], (x, n))


def bessel_j0(input: Any) -> Tensor:
    """The Bessel function of the first kind of order 0, J0 (NaN at +-inf).

    >>> import minigrad as mg
    >>> mg.special.bessel_j0(mg.tensor([0.0, 2.404825557695773, float("inf")]))
    tensor([ 1.,  0., nan])
    """
    return _function("bessel_j0", input)


def bessel_j1(input: Any) -> Tensor:
    """The Bessel function of the first kind of order 1, J1 (odd; NaN at +-inf).

    >>> import minigrad as mg
    >>> mg.special.bessel_j1(mg.tensor([0.0, 1.0, -1.0]))
    tensor([ 0.    ,  0.4401, -0.4401])
    """
    return _function("bessel_j1", input)


def bessel_y0(input: Any) -> Tensor:
    """The Bessel function of the second kind of order 0, Y0: -inf at 0, NaN below.

    >>> import minigrad as mg
    >>> mg.special.bessel_y0(mg.tensor([0.0, 1.0, -1.0]))
    tensor([   -inf,  0.0883,     nan])
    """
    return _function("bessel_y0", input)


def bessel_y1(input: Any) -> Tensor:
    """The Bessel function of the second kind of order 1, Y1: -inf at 0, NaN below.

    >>> import minigrad as mg
    >>> mg.special.bessel_y1(mg.tensor([0.0, 1.0, -1.0]))
    tensor([   -inf, -0.7812,     nan])
    """
    return _function("bessel_y1", input)


def modified_bessel_i0(input: Any) -> Tensor:
    """The modified Bessel function of the first kind of order 0, I0 (even; inf where it
    overflows).

    >>> import minigrad as mg
    >>> mg.special.modified_bessel_i0(mg.tensor([0.0, 1.0, -1.0]))
    tensor([1.    , 1.2661, 1.2661])
    """
    return _function("modified_bessel_i0", input)


def modified_bessel_i1(input: Any) -> Tensor:
    """The modified Bessel function of the first kind of order 1, I1 (odd).

    >>> import minigrad as mg
    >>> mg.special.modified_bessel_i1(mg.tensor([0.0, 1.0, -1.0]))
    tensor([ 0.    ,  0.5652, -0.5652])
    """
    return _function("modified_bessel_i1", input)


def modified_bessel_k0(input: Any) -> Tensor:
    """The modified Bessel function of the second kind of order 0, K0: inf at 0, NaN below.

    >>> import minigrad as mg
    >>> mg.special.modified_bessel_k0(mg.tensor([0.0, 1.0, -1.0]))
    tensor([   inf, 0.4210,    nan])
    """
    return _function("modified_bessel_k0", input)


def modified_bessel_k1(input: Any) -> Tensor:
    """The modified Bessel function of the second kind of order 1, K1: inf at 0, NaN below.

    >>> import minigrad as mg
    >>> mg.special.modified_bessel_k1(mg.tensor([0.0, 1.0, -1.0]))
    tensor([   inf, 0.6019,    nan])
    """
    return _function("modified_bessel_k1", input)


def scaled_modified_bessel_k0(x: Any) -> Tensor:
    """exp(x) K0(x), which stays finite where K0 underflows: inf at 0, NaN below.

    >>> import minigrad as mg
    >>> mg.special.scaled_modified_bessel_k0(mg.tensor([1.0, 1000.0]))
    tensor([1.1445, 0.0396])
    """
    return _function("scaled_modified_bessel_k0", x, "x")


def scaled_modified_bessel_k1(x: Any) -> Tensor:
    """exp(x) K1(x), which stays finite where K1 underflows: inf at 0, NaN below.

    >>> import minigrad as mg
    >>> mg.special.scaled_modified_bessel_k1(mg.tensor([1.0, 1000.0]))
    tensor([1.6362, 0.0397])
    """
    return _function("scaled_modified_bessel_k1", x, "x")


def spherical_bessel_j0(x: Any) -> Tensor:
    """The spherical Bessel function of the first kind of order 0, sin(x)/x (1 at 0, 0 at
    +-inf).

    >>> import minigrad as mg
    >>> mg.special.spherical_bessel_j0(mg.tensor([0.0, 2.0, float("inf")]))
    tensor([1.    , 0.4546, 0.    ])
    """
    return _function("spherical_bessel_j0", x, "x")


def airy_ai(x: Any) -> Tensor:
    """Airy's function Ai, the solution of y'' = x y that decays for large x (0 past 103.892,
    NaN at +-inf).

    >>> import minigrad as mg
    >>> mg.special.airy_ai(mg.tensor([0.0, -3.0, 200.0]))
    tensor([ 0.355 , -0.3788,  0.    ])
    """
    return _function("airy_ai", x, "x")


def chebyshev_polynomial_t(x: Any, n: Any) -> Tensor:
    """Chebyshev's polynomial of the first kind, T_n(x) = cos(n acos x) on [-1, 1].

    >>> import minigrad as mg
    >>> mg.special.chebyshev_polynomial_t(mg.tensor([0.5, 2.0]), mg.tensor([3, -1]))
    tensor([-1.,  0.])
    """
    return _polynomial("chebyshev_polynomial_t", x, n)


def chebyshev_polynomial_u(x: Any, n: Any) -> Tensor:
    """Chebyshev's polynomial of the second kind, U_n(x) = sin((n + 1) t) / sin t, x = cos t.

    >>> import minigrad as mg
    >>> mg.special.chebyshev_polynomial_u(mg.tensor([0.5, -1.0]), 3)
    tensor([-1., -4.])
    """
    return _polynomial("chebyshev_polynomial_u", x, n)


def chebyshev_polynomial_v(x: Any, n: Any) -> Tensor:
    """Chebyshev's polynomial of the third kind, V_n(x) = cos((n + 1/2) t) / cos(t/2).

    >>> import minigrad as mg
    >>> mg.special.chebyshev_polynomial_v(mg.tensor([0.5, -1.0]), 3)
    tensor([-1., -7.])
    """
    return _polynomial("chebyshev_polynomial_v", x, n)


def chebyshev_polynomial_w(x: Any, n: Any) -> Tensor:
    """Chebyshev's polynomial of the fourth kind, W_n(x) = sin((n + 1/2) t) / sin(t/2).

    >>> import minigrad as mg
    >>> mg.special.chebyshev_polynomial_w(mg.tensor([0.5, 1.0]), 3)
    tensor([-1.,  7.])
    """
    return _polynomial("chebyshev_polynomial_w", x, n)


def shifted_chebyshev_polynomial_t(x: Any, n: Any) -> Tensor:
    """T_n(2x - 1), Chebyshev's first kind moved to [0, 1].

    >>> import minigrad as mg
    >>> mg.special.shifted_chebyshev_polynomial_t(mg.tensor([0.75, 0.0]), 3)
    tensor([-1., -1.])
    """
    return _polynomial("shifted_chebyshev_polynomial_t", x, n)


def shifted_chebyshev_polynomial_u(x: Any, n: Any) -> Tensor:
    """U_n(2x - 1), Chebyshev's second kind moved to [0, 1].

    >>> import minigrad as mg
    >>> mg.special.shifted_chebyshev_polynomial_u(mg.tensor([0.75, 0.0]), 3)
    tensor([-1., -4.])
    """
    return _polynomial("shifted_chebyshev_polynomial_u", x, n)


def shifted_chebyshev_polynomial_v(x: Any, n: Any) -> Tensor:
    """V_n(2x - 1), Chebyshev's third kind moved to [0, 1].

    >>> import minigrad as mg
    >>> mg.special.shifted_chebyshev_polynomial_v(mg.tensor([0.75, 0.0]), 3)
    tensor([-1., -7.])
    """
    return _polynomial("shifted_chebyshev_polynomial_v", x, n)


def shifted_chebyshev_polynomial_w(x: Any, n: Any) -> Tensor:
    """W_n(2x - 1), Chebyshev's fourth kind moved to [0, 1].

    >>> import minigrad as mg
    >>> mg.special.shifted_chebyshev_polynomial_w(mg.tensor([0.75, 1.0]), 3)
    tensor([-1.,  7.])
    """
    return _polynomial("shifted_chebyshev_polynomial_w", x, n)


def hermite_polynomial_h(x: Any, n: Any) -> Tensor:
    """The physicists' Hermite polynomial H_n(x) (NaN past degree 128 in float32, 512 in
    float64, as PyTorch's).

    >>> import minigrad as mg
    >>> mg.special.hermite_polynomial_h(mg.tensor([0.5, 1.0]), 3)
    tensor([-5., -4.])
    """
    return _polynomial("hermite_polynomial_h", x, n)


def hermite_polynomial_he(x: Any, n: Any) -> Tensor:
    """The probabilists' Hermite polynomial He_n(x) (NaN past degree 128 in float32, 512 in
    float64, as PyTorch's).

    >>> import minigrad as mg
    >>> mg.special.hermite_polynomial_he(mg.tensor([0.5, 1.0]), 3)
    tensor([-1.375, -2.   ])
    """
    return _polynomial("hermite_polynomial_he", x, n)


def laguerre_polynomial_l(x: Any, n: Any) -> Tensor:
    """Laguerre's polynomial L_n(x) (1 at x = 0).

    >>> import minigrad as mg
    >>> mg.special.laguerre_polynomial_l(mg.tensor([0.5, 0.0]), 2)
    tensor([0.125, 1.   ])
    """
    return _polynomial("laguerre_polynomial_l", x, n)


def legendre_polynomial_p(x: Any, n: Any) -> Tensor:
    """Legendre's polynomial P_n(x) (+-1 at x = +-1).

    >>> import minigrad as mg
    >>> mg.special.legendre_polynomial_p(mg.tensor([0.5, -1.0]), 3)
    tensor([-0.4375, -1.    ])
    """
    return _polynomial("legendre_polynomial_p", x, n)
