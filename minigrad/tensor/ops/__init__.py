"""The op catalog: every tensor operation, one module per family (lessons 04-12).

The core of the tensor layer (``minigrad/tensor/``: dtypes, mode, the
primitive registry, what a tensor is, ``apply``, the reverse pass, the
``Tensor`` class, custom functions, factories) is what a student reads in
order. The operations it spells live here, grouped by family. Each family's
first module holds its registry rows; the others are compositions of rows:

- elementwise: ``elementwise`` (arithmetic, comparisons, exp, tanh, where),
  ``logic`` (truth tests);
- math: ``math`` (the math library, rounding, atan2, clamp), ``arithmetic``
  (fmod, lerp, hypot, ...);
- activations: ``activations`` (gelu, silu, softplus, elu, ...);
- movement: ``movement`` (reshape, transpose, indexing by slices, concatenate),
  ``broadcasting`` (broadcast_to and sum_to), ``rearrange`` (flip, roll, split,
  stack), ``layout`` (t, select, tensor_split, diff, ...);
- indexing: ``indexing`` (gather, scatter_add), ``scattering`` (scatter,
  index_put, masked_select);
- reductions: ``reductions`` (sum, max, mean, var, ...), ``statistics``
  (median, cummax, var_mean, ...), ``search`` (nonzero, unique, bincount);
- scans: ``scans`` (prod, cumsum, cumprod);
- softmax: ``softmax``;
- linalg: ``linalg`` (matmul), ``matrix_products`` (mm, bmm, dot, kron, ...);
- contractions: ``contractions`` (einsum, tensordot, diagonal);
- norms, sorting, padding, pooling, convolution: one module each;
- in-place: ``inplace`` (``x += y``, ``add_``, ``x[i] = v``);
- collectives (lesson 18): ``collectives`` (all_reduce, all_gather, reduce_scatter,
  all_to_all, broadcast, reduce: rows over a vmap axis or processes),
  ``named_axes`` (JAX's psum, pmean, all_gather, ... over ``vmap(axis_name=)``).

Every module here imports the core and other families, never ``tensor.py``:
operations make tensors of their inputs' class (see ``base.py``).
"""
