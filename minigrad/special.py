"""``mg.special``: special functions under PyTorch's names (``torch.special``), lessons 04-05.

The functions live in the tensor layer (``minigrad/tensor/ops/bessel.py``: the Bessel
functions, Airy's Ai and the orthogonal polynomials; ``minigrad/tensor/ops/special_functions.py``:
I0 and I1, the normal distribution, erfcx, entr, xlog1py, zeta and the incomplete gamma
functions); this module only gathers them under the namespace users know, so that
``mg.special.bessel_j0(x)`` reads as ``torch.special.bessel_j0(x)`` does.
``multigammaln`` is ``mvlgamma``, ``gammainc`` and ``gammaincc`` are ``igamma`` and ``igammac``;
``psi`` is ``digamma``, ``gammaln`` is ``lgamma``, ``expit`` is ``sigmoid``, and ``erf``,
``expm1``, ``logsumexp``, ``softmax``, ... are ``mg``'s functions of the same names.

    >>> import minigrad as mg
    >>> mg.special.modified_bessel_i0(mg.tensor([0.0])), mg.special.i0e(mg.tensor([0.0]))
    (tensor([1.]), tensor([1.]))
"""

from minigrad.tensor import (  # torch.special's names for functions mg has at its top level
    digamma,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    log1p,
    logit,
    logsumexp,
    polygamma,
    round,
    sinc,
    xlogy,
)
from minigrad.tensor import digamma as psi
from minigrad.tensor import lgamma as gammaln
from minigrad.tensor import sigmoid as expit
from minigrad.tensor.ops.bessel import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
    spherical_bessel_j0,
)
from minigrad.tensor.ops.special_functions import (
    entr,
    erfcx,
    i0,
    i0e,
    i1,
    i1e,
    log_ndtr,
    ndtr,
    ndtri,
    xlog1py,
    zeta,
)
from minigrad.tensor.ops.special_functions import igamma as gammainc
from minigrad.tensor.ops.special_functions import igammac as gammaincc
from minigrad.tensor.ops.special_functions import mvlgamma as multigammaln
from minigrad.tensor.torch_names import log_softmax, softmax

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "entr",
    "erfcx",
    "gammainc",
    "gammaincc",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log_ndtr",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "spherical_bessel_j0",
    "xlog1py",
    "zeta",
]
__all__ += [  # mg's own functions under torch.special's names
    "digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p",
    "log_softmax", "logit", "logsumexp", "polygamma", "psi", "round", "sinc", "softmax", "xlogy",
]  # fmt: skip
