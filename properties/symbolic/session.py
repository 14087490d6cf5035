"""A z3 session: z3's context and every cache built in it (machines, step templates,
numerals, proved lemmas and invariants), so that a search can start from none of them.

z3's answers within a budget of resource units depend on more than the formulas: on the
terms already in the context (their ids order z3's choices) and on what the caches hold
(a lemma or an invariant proved by an earlier query is not paid for again, which leaves
the later search more units). A search run in process after others — a `diff` or `faq`
after other readings, or in a test run after other tests — could then reach a depth, or
find a game, that the same command run alone does not. `fresh()` gives a search a new
context and empty caches, and puts the old ones back after it, so its answer depends on
the spec, the budget and the code only. (`rulespec check` runs its queries in a worker
process per game and player count instead: they share one context and its caches, in
their fixed order.)

A module keeps what it caches in z3's terms in a dict made by `cache()`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import z3
import z3.z3 as z3_module

_CACHES: list[dict[Any, Any]] = []
_DEPTH = [0]  # how many `fresh()` sessions are open, one inside another


def cache() -> dict[Any, Any]:
    """An empty dict that `fresh()` empties for each session and restores after it."""
    d: dict[Any, Any] = {}
    _CACHES.append(d)
    return d


@contextlib.contextmanager
def fresh() -> Iterator[None]:
    """Run the block in a new z3 context with every registered cache empty; a session
    opened inside another is the outer one (the inner search is part of it)."""
    if _DEPTH[0]:
        yield
        return
    saved = [dict(c) for c in _CACHES]
    # z3's Python API builds every term in its module-level main context unless told
    # otherwise; swapping it is the one place that gives all of them a new context
    old_ctx = z3_module._main_ctx
    z3_module._main_ctx = z3.Context()
    for c in _CACHES:
        c.clear()
    _DEPTH[0] += 1
    try:
        yield
    finally:
        _DEPTH[0] -= 1
        for c, before in zip(_CACHES, saved, strict=True):
            c.clear()
            c.update(before)
        z3_module._main_ctx = old_ctx
