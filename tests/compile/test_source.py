"""``fast.source(*args)`` shows the generated program whether or not anything fused (lesson 13)."""

from __future__ import annotations

import minigrad as mg


def test_source_shows_the_program_when_nothing_fused():
    fast = mg.jit(lambda x: (x * 2 + 1).tanh().sum())
    text = fast.source(mg.ones(4))  # small: below the fusion threshold
    assert "def program(arrays, captured):" in text
    assert "# tanh" in text and "# sum" in text
    assert "no group of elementwise operations to fuse" in text


def test_source_shows_the_program_and_the_fused_kernel():
    fast = mg.jit(lambda x, y: (x * y + 1).tanh())
    args = [mg.randn(600, 600), mg.randn(600, 600)]  # big enough to fuse by default
    text = fast.source(*args)
    assert "def program(arrays, captured):" in text and "def kernel" in text
