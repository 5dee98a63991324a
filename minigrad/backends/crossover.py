"""Every size at which compiled code starts to pay, with the measurement that set it (lesson 10).

A compiled kernel has a fixed cost before it touches a number (numba checks
its arguments, threads wake up), and a new fused kernel costs a compilation.
Below some size NumPy's call is simply cheaper. Each threshold below is a
number of elements, measured on the 2-core development machine by the
benchmark named beside it (``benchmarks/README.md`` keeps the tables). Code
that decides "kernel or NumPy" reads these names, nowhere else.

    >>> NUMPY_BELOW["elementwise"] > NUMPY_BELOW["fused"] > NUMPY_BELOW["composite"]
    True
"""

from __future__ import annotations

# -- eager kernels of the numba backend: below these, NumPy runs the op --------------------
# benchmarks/crossover.py: a memory-bound zip (mul, add) beats NumPy from ~1M elements.
ELEMENTWISE = 2**20
# benchmarks/crossover.py ("tanh_grad"): a fused derivative reads memory once where NumPy
# reads it three times, and wins from ~256K.
FUSED = 2**18
# benchmarks/crossover.py ("gelu"): NumPy spells gelu, silu and their slopes in four to
# eight passes (erf: a Python call per element); one kernel pass wins from ~1K.
COMPOSITE = 2**10
# benchmarks/crossover.py ("sum"): a sum along memory wins from ~4M.
REDUCE = 2**22

# By the policy of the table of elementwise operations (elementwise_ops.py), and "reduce".
NUMPY_BELOW = {"elementwise": ELEMENTWISE, "fused": FUSED, "composite": COMPOSITE, "reduce": REDUCE}

# -- generated kernels (the fusion pass of lesson 13) ----------------------------------------
# Not measured as a crossover: a fused group costs a compilation (a second or more,
# benchmarks/w10_jit_compile.py prints it) and saves memory passes, which pay only on big
# arrays; 64K elements is a judgement on those two numbers, not a measured crossing.
FUSE_FROM = 2**16
