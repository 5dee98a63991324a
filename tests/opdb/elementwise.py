"""Correctness-database rows: elementwise operations (see ``opdb/__init__.py`` for the format)."""

from __future__ import annotations

CASES: dict = {}
NOT_SMOOTH: set[str] = set()
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
