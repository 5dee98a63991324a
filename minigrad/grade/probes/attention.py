"""Probes for lesson 17: attention tile by tile, the causal mask of a cache, a KV-cache step.

Each probe runs in the child process on the submission and hands back its
outputs as plain data; the references and comparisons live in ``checks``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class TileReader:
    """Scores that can be read a tile of columns at a time only, as a kernel reads them.

    ``s[:, j:j + tile]`` (and ``shape``) work; reading more columns than one
    tile at once raises, so an answer that takes the whole row's max or sum
    before the tiles fails with the reason.
    """

    def __init__(self, s: np.ndarray, tile: int) -> None:
        self._s, self._tile = s, tile
        self.shape = s.shape
        self.ndim = 2
        self.dtype = s.dtype

    def __getitem__(self, index: Any) -> np.ndarray:
        part = self._s[index]
        if np.ndim(part) == 2 and part.shape[1] > self._tile:
            raise ValueError(
                f"read {part.shape[1]} key columns at once; online attention reads at most "
                f"tile={self._tile} at a time (s[:, j:j + tile])"
            )
        return np.array(part)

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise ValueError("online attention reads the scores a tile at a time: s[:, j:j + tile]")


def probe_online_attention(module: Any, args: dict) -> Any:
    s, tile = np.array(args["s"]), int(args["tile"])
    out, lse = module.online_attention(TileReader(s, tile), np.array(args["v"]), tile)
    return {"out": np.asarray(out, dtype=np.float64), "lse": np.asarray(lse, dtype=np.float64)}


def probe_causal_mask(module: Any, args: dict) -> Any:
    mask = np.asarray(module.causal_mask(int(args["length"]), int(args["keys"])))
    if mask.dtype != np.bool_:
        return f"expected a bool array, got dtype {mask.dtype}"
    return mask.astype(np.float64)


def probe_kv_cache_step(module: Any, args: dict) -> Any:
    """Runs the steps one after another, each on the caches the previous step returned."""
    cache_k, cache_v = np.array(args["cache_k"]), np.array(args["cache_v"])
    outs = []
    for q, k, v in zip(args["qs"], args["ks"], args["vs"]):
        out, cache_k, cache_v = module.kv_cache_step(np.array(q), np.array(k), np.array(v),
                                                     cache_k, cache_v)  # fmt: skip
        cache_k, cache_v = np.asarray(cache_k), np.asarray(cache_v)
        outs.append(np.asarray(out, dtype=np.float64))
    return {"outs": np.array(outs), "cache_k": cache_k.astype(np.float64),
            "cache_v": cache_v.astype(np.float64)}  # fmt: skip
