"""Checks for lesson 17: attention tile by tile, the causal mask of a cache, a KV-cache step.

The references (in the teacher's ``minigrad.grade.references``) take the
obvious, slow way: the whole row of scores at once, the mask by a double
loop, each generation step recomputed from the whole sequence.
"""

from __future__ import annotations

import numpy as np

from minigrad.grade.probes.attention import (
    probe_causal_mask,
    probe_kv_cache_step,
    probe_online_attention,
)
from minigrad.grade.spec import Answer, Check, exercise, within


@exercise("17.1", "online_attention", "lesson17_attention.py")
def online_attention_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        # name, L, S, Ev, tile, score scale, masked fraction
        ("tiles that divide the keys: 8 keys in tiles of 4", 3, 8, 2, 4, 1.0, 0.0),
        ("a ragged last tile: 10 keys in tiles of 3", 4, 10, 3, 3, 1.0, 0.0),
        ("one key per tile", 2, 5, 2, 1, 1.0, 0.0),
        ("scores near 1000: exp of a score overflows", 3, 9, 2, 4, 1000.0, 0.0),
        ("masked keys (-inf), a whole first tile masked in row 0", 3, 9, 2, 3, 1.0, 0.3),
    ]
    checks = []
    for name, length, keys, ev, tile, scale, masked in cases:
        s = rng.normal(size=(length, keys)) * scale + (1000.0 if scale > 1 else 0.0)
        if masked:
            s[rng.random(s.shape) < masked] = -np.inf
            s[0, :tile] = -np.inf
            s[np.isinf(s).all(axis=1), -1] = 0.0  # every row sees a key
        v = rng.normal(size=(keys, ev))
        args = {"s": s, "v": v, "tile": tile}
        want = Answer("online_attention", s, v, tile)
        checks.append(Check(name, probe_online_attention, args, want, within(1e-9, 1e-12)))
    return checks


@exercise("17.2", "causal_mask", "lesson17_attention.py")
def causal_mask_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("the whole sequence at once: a triangle", 4, 4),
        ("one new token sees every key", 1, 6),
        ("three new tokens after five cached", 3, 8),
        ("one token, one key", 1, 1),
    ]
    return [
        Check(
            f"{name}: causal_mask({length}, {keys})",
            probe_causal_mask,
            {"length": length, "keys": keys},
            Answer("causal_mask", length, keys),
            within(0, 0),
            # Where length == keys the two alignments agree: PyTorch's top-left
            # triangle (the library's attention.causal_mask) is right there too, so
            # those count only beside a right answer for new tokens after a cache.
            edge=length == keys,
        )
        for name, length, keys in cases
    ]


@exercise("17.3", "kv_cache_step", "lesson17_attention.py")
def kv_cache_step_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("the first token: an empty cache", 0, 1, 4, 3),
        ("one step after 5 cached tokens", 5, 1, 4, 2),
        ("six steps in a row, each on the caches the last one returned", 2, 6, 3, 3),
        ("large scores", 3, 2, 8, 2),
    ]
    checks = []
    for name, cached, steps, e, ev in cases:
        scale = 30.0 if name == "large scores" else 1.0
        cache_k, cache_v = rng.normal(size=(cached, e)) * scale, rng.normal(size=(cached, ev))
        qs, ks = rng.normal(size=(steps, e)) * scale, rng.normal(size=(steps, e)) * scale
        vs = rng.normal(size=(steps, ev))
        args = {"qs": qs, "ks": ks, "vs": vs, "cache_k": cache_k, "cache_v": cache_v}
        want = Answer("kv_cache_steps", qs, ks, vs, cache_k, cache_v)
        checks.append(Check(name, probe_kv_cache_step, args, want, within(1e-9, 1e-12)))
    return checks
