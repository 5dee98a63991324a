"""``mg.linalg``: linear algebra under PyTorch's names (``torch.linalg``), lesson 06.

The functions live in the tensor layer (``minigrad/tensor/ops/norms.py``,
``minigrad/tensor/ops/linalg.py``, ``minigrad/tensor/ops/decompositions.py``,
``minigrad/tensor/ops/inverses.py``,
``minigrad/tensor/ops/factorizations.py``, ``minigrad/tensor/ops/chained_products.py``,
``minigrad/tensor/ops/pseudoinverse.py``, ``minigrad/tensor/ops/linalg_spellings.py``,
``minigrad/tensor/ops/matrix_exponential.py``,
``minigrad/tensor/ops/triangular.py``, ``minigrad/tensor/ops/symmetric_indefinite.py``); this
module only gathers them under the namespace users know, so that ``mg.linalg.norm(x)`` reads as
``torch.linalg.norm(x)`` does.

    >>> import minigrad as mg
    >>> mg.linalg.norm(mg.tensor([3.0, 4.0]))
    tensor(5.)
"""

from minigrad.tensor.ops.chained_products import multi_dot, vecdot
from minigrad.tensor.ops.decompositions import LinAlgError, svd, svdvals
from minigrad.tensor.ops.factorizations import eigh, eigvalsh, qr
from minigrad.tensor.ops.inverses import cholesky, det, inv, matrix_power, slogdet, solve
from minigrad.tensor.ops.linalg import matmul
from minigrad.tensor.ops.linalg_spellings import (
    cross,
    diagonal,
    householder_product,
    tensorinv,
    tensorsolve,
    vander,
)
from minigrad.tensor.ops.matrix_exponential import matrix_exp
from minigrad.tensor.ops.norms import matrix_norm, norm, vector_norm
from minigrad.tensor.ops.pseudoinverse import cond, lstsq, matrix_rank, pinv
from minigrad.tensor.ops.symmetric_indefinite import ldl_factor, ldl_factor_ex, ldl_solve
from minigrad.tensor.ops.triangular import (
    cholesky_ex,
    inv_ex,
    lu_factor,
    lu_factor_ex,
    lu_solve,
    solve_ex,
    solve_triangular,
)
from minigrad.tensor.ops.triangular import linalg_lu as lu

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]
