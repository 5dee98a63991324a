"""``mg.linalg``: linear algebra under PyTorch's names (``torch.linalg``), lesson 06.

The functions live in the tensor layer (``minigrad/tensor/ops/norms.py``,
``minigrad/tensor/ops/linalg.py``, ``minigrad/tensor/ops/decompositions.py``,
``minigrad/tensor/ops/inverses.py``,
``minigrad/tensor/ops/factorizations.py``, ``minigrad/tensor/ops/chained_products.py``); this
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
from minigrad.tensor.ops.norms import matrix_norm, norm, vector_norm

__all__ = [
    "LinAlgError",
    "cholesky",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "multi_dot",
    "norm",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "vecdot",
    "vector_norm",
]
