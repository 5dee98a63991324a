"""PyTorch's own per-operator samples give PyTorch's results in minigrad (lessons 04-05).

Every OpInfo of ``torch.testing._internal.common_methods_invocations.op_db`` that
has a minigrad counterpart runs its first ``LIMIT`` samples per dtype (float64,
float32, int64, bool) and its first ``LIMIT`` error inputs through both libraries
(``opinfo_sweep``: the whole sweep is ``python -m tests.fidelity.opinfo_sweep``),
through the function and through the OpInfo's method (``x.op(...)``) and in-place
(``x.op_(...)``, on a clone, which must be changed in place) variants that
minigrad's Tensor has; ``MISSING_VARIANTS`` lists those it lacks.
Every (operator, dtype, sample) must match PyTorch, values, dtypes, shapes,
gradients, exception type and first line, unless it is listed in ``KNOWN`` with
its reason, which ``docs/api.md`` also names among the rules minigrad keeps. A
listed sample that starts to match fails too: the list only shrinks.

The subset (the first samples of each dtype, on the NumPy backend) keeps the cost
small; it is the same on every run, since the sweep seeds every operator.
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

import minigrad as mg
from fidelity import opinfo_sweep as sweep
from fidelity.known_differences import KNOWN, MISSING_VARIANTS

LIMIT = 2
# The classes that are differences here (everything but a match, a sample that
# cannot be expressed in minigrad, and inputs that both libraries refuse alike).
DIFFERENT = {
    *sweep.DIFFERENCES, "harness_error", "no_samples",
    "err_type", "err_none", "err_message",
}  # fmt: skip


def _keys(op):
    """The report names of ``op``'s function and variants that minigrad has."""
    keys = [sweep.op_key(op)] if sweep.resolve(op) is not None else []
    for variant in sweep.VARIANTS[1:]:
        found = sweep.variant_of(op, variant)
        if found is not None and sweep.has_variant(found[1]):
            keys.append(sweep.variant_key(op, found[1]))
    return keys


ALL_OPS = sweep.all_ops()
OPS = [op for op in ALL_OPS if _keys(op)]


def _results(op):
    with mg.backends.use("numpy"):
        reports = sweep.sweep_all(op, limit=LIMIT)
    return [r for report in reports for r in report.results]


@pytest.mark.parametrize("op", OPS, ids=sweep.op_key)
def test_opinfo_samples_match_torch(op):
    key = sweep.op_key(op)
    found, unexpected, fixed = [], [], []
    for r in _results(op):
        entry = KNOWN.get((r.op, r.dtype, r.index))
        if r.cls in DIFFERENT:
            found.append(r)
            if entry is None or entry[0] != r.cls:
                unexpected.append(f"{r.op} {r.dtype} #{r.index} {r.cls}: {r.detail} [{r.sample}]")
        elif entry is not None:
            fixed.append(f"{r.op} {r.dtype} #{r.index} now {r.cls} (listed as {entry[0]})")
    assert not unexpected, f"{key} differs from torch:\n" + "\n".join(unexpected)
    assert not fixed, f"{key}: listed differences now match; remove them from KNOWN:\n" + (
        "\n".join(fixed)
    )


def test_every_known_difference_is_documented_and_tested():
    api = (Path(__file__).parents[2] / "docs" / "api.md").read_text()
    section = api[api.index("## Where minigrad keeps another rule than PyTorch") :]
    keys = {key for op in OPS for key in _keys(op)}
    for (key, dtype, index), (_, reason, doc) in KNOWN.items():
        assert key in keys, f"{key} is no OpInfo with a minigrad counterpart"
        assert index < LIMIT, f"{key} {dtype} #{index} lies outside the tested samples"
        assert reason and doc in " ".join(section.split()), f"docs/api.md does not say: {doc}"
    counts = collections.Counter(cls for cls, _, _ in KNOWN.values())
    assert sum(counts.values()) == len(KNOWN)


def test_the_list_of_missing_methods_only_shrinks():
    """The OpInfos' methods and in-place methods that minigrad's Tensor lacks are those listed."""
    missing = {name for op in ALL_OPS for name in sweep.missing_variants(op)}
    assert not missing - MISSING_VARIANTS, f"no longer there: {sorted(missing - MISSING_VARIANTS)}"
    assert not MISSING_VARIANTS - missing, (
        f"now there, remove from MISSING_VARIANTS: {sorted(MISSING_VARIANTS - missing)}"
    )


# Samples past the first LIMIT that minigrad once got wrong (issue 22): they match now.
FIXED_LATER = {
    "prod": ("bool", [19, 29]),
    "cat": ("float64", [5]),
    "arange": ("int64", [6, 9, 10, 11, 14, 15, 18, 22]),
    "index_add": ("bool", [3, 5]),
    "searchsorted": ("float64", [128, 129]),
    "linspace": ("int64", [32, 35]),
    "logspace": ("int64", [50, 54]),
    "zeros_like": ("float64", [3, 5]),
    "ones_like": ("float64", [3, 5]),
    "roll": ("errors", [3]),
    "hsplit": ("errors", [2]),
    "vsplit": ("errors", [2]),
    "reshape": ("errors", [7]),
    "linalg.svd": ("float64", [40, 44, 184, 188]),  # wide: PyTorch's signs (MKL's road)
}


@pytest.mark.parametrize("name", sorted(FIXED_LATER))
def test_samples_fixed_past_the_subset_match_torch(name):
    (op,) = [op for op in OPS if sweep.op_key(op) == name]
    dtype, indices = FIXED_LATER[name]
    with mg.backends.use("numpy"):
        errors = dtype == "errors"  # the OpInfo's error inputs
        report = sweep.sweep_op(
            op, dtypes=() if errors else (dtype,), errors=errors, limit=max(indices) + 1
        )
    classes = {r.index: (r.cls, r.detail) for r in report.results}
    matched = "err_match" if errors else "match"
    assert all(classes[i][0] == matched for i in indices), classes


def test_addcdiv_addcmul_compute_in_the_dtype_of_all_three():
    """PyTorch's reference input: a float32 quotient added to float64 is taken in float64."""
    import numpy as np
    import torch

    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((3, 5, 5))
    for name in ("addcdiv", "addcmul"):
        theirs = getattr(torch, name)(
            torch.tensor(a), torch.tensor(b, dtype=torch.float32),
            torch.tensor(c, dtype=torch.float32), value=-3.14,
        )  # fmt: skip
        ours = getattr(mg, name)(
            mg.tensor(a), mg.tensor(b, dtype=mg.float32), mg.tensor(c, dtype=mg.float32),
            value=-3.14,
        )  # fmt: skip
        assert ours.dtype == mg.float64
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_importing_torchs_test_utilities_keeps_the_suites_hypothesis_profile(hypothesis_profile):
    # Importing torch.testing._internal registers and loads torch's hypothesis profiles, one
    # named "dev" as ours (10 examples): this module's import of the OpInfos ran at
    # collection, so every property test of a local run drew 10 examples instead of 50.
    from hypothesis import settings

    assert settings.default is hypothesis_profile, "the OpInfos' import changed the profile"
    name = settings.get_current_profile_name()
    before = settings.get_profile(name)
    with sweep._hypothesis_profile_kept():
        settings.register_profile(name, max_examples=3)  # what torch's import does
        settings.load_profile(name)
        assert settings.default.max_examples == 3
    assert settings.get_current_profile_name() == name
    assert settings.get_profile(name) is before and settings.default is before


def test_a_function_raising_another_first_line_than_torch_is_a_difference():
    """Where both libraries raise the same type, the function's first line must be torch's too
    (as for the method and in-place variants)."""
    import types

    import torch

    def theirs(x):
        raise RuntimeError("torch's message")

    def ours(message):
        def call(x):
            raise RuntimeError(message)

        return call

    op = types.SimpleNamespace(op=theirs, name="a_test_op")
    sample = types.SimpleNamespace(input=torch.zeros(2), args=(), kwargs={})
    classes = [
        sweep.run_sample(op, "function", ours(message), sample, None).cls
        for message in ("torch's message", "another message")
    ]
    assert classes == ["both_raised", "both_raised_other_message"]


def test_reference_samples_whose_generator_marks_an_integer_for_grad_still_run(monkeypatch):
    """addcmul's float64 reference inputs mix in int64 operands, which torch's generator asks
    to require grad and torch refuses: the sweep makes them without and marks the floats."""
    (op,) = [op for op in OPS if sweep.op_key(op) == "addcmul"]
    monkeypatch.setattr(sweep, "REFERENCE", True)
    samples = sweep.samples_of(op, "float64")
    leaves = [t for s in samples for t in sweep._tensors((s.input, s.args, s.kwargs))]
    assert samples and any(not t.is_floating_point() for t in leaves)
    assert all(t.requires_grad == t.is_floating_point() for t in leaves if t.is_leaf)


def test_polygamma_reference_inputs_that_pass_n_by_keyword_are_called():
    """polygamma's OpInfo calls ``lambda x, n, **kwargs``; its reference inputs give ``n=``."""
    import types

    import torch

    (op,) = [op for op in OPS if sweep.op_key(op) == "polygamma.polygamma_n_1"]
    kind, target = sweep.resolve(op)
    sample = types.SimpleNamespace(input=torch.tensor([0.5, 1.5, 40.0]), args=(), kwargs={"n": 1})
    assert sweep.run_sample(op, kind, target, sample, None).cls == "match"
