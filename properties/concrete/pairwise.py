"""Pairwise (all-pairs) combinatorial coverage: a small set of rows in which every pair of
values of any two axes appears together at least once.

The thorough profile runs a spec at every player count and with every variant of every
ambiguity; every combination is far too many runs once a spec has a dozen ambiguities
(hundreds of thousands), but most rule interactions involve two choices at a time, and
a covering array of strength 2 meets every such pair in a few dozen rows.

`covering_rows(sizes, required)` works on value indices only, so it knows nothing of
players or variants: axis `i` has values `0 .. sizes[i] - 1`, and value 0 is the
preferred one (an ambiguity's default), which the greedy choice takes whenever another
value would cover nothing new. It is deterministic (no randomness, no dict or set order
that depends on hashing), so a run names the same configurations in every process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Row = tuple[int, ...]
Pair = tuple[int, int, int, int]  # (axis i, value a, axis j, value b) with i < j


def all_pairs(sizes: Sequence[int]) -> set[Pair]:
    """Every pair of values of two different axes."""
    return {(i, a, j, b) for i in range(len(sizes)) for j in range(i + 1, len(sizes))
            for a in range(sizes[i]) for b in range(sizes[j])}


def pairs_of(row: Row) -> set[Pair]:
    """The pairs one row covers."""
    return {(i, row[i], j, row[j]) for i in range(len(row)) for j in range(i + 1, len(row))}


def covering_rows(sizes: Sequence[int], required: Iterable[Row] = ()) -> list[Row]:
    """Rows covering every pair of values of two axes (and every value of every axis).

    The `required` rows come first, as given (duplicates dropped); then rows are added
    greedily until no pair is left. Each new row is the best of several candidates, one
    for each value still in an uncovered pair: the candidate fixes that value, then
    fills the other axes (those with the most values first) with the value that covers
    the most uncovered pairs together with the axes already filled, the lowest value on
    a tie. Every row covers at least one new pair, so the loop ends.
    """
    sizes = list(sizes)
    if any(s < 1 for s in sizes):
        raise ValueError(f"every axis needs at least one value, got sizes {sizes}")
    rows: list[Row] = []
    for r in required:
        row = tuple(r)
        if len(row) != len(sizes) or any(not 0 <= v < s for v, s in zip(row, sizes, strict=True)):
            raise ValueError(f"required row {row} does not fit the axes {sizes}")
        if row not in rows:
            rows.append(row)
    if not rows:
        rows.append(tuple(0 for _ in sizes))  # also the answer when there are no pairs at all
    uncovered = all_pairs(sizes)
    for row in rows:
        uncovered -= pairs_of(row)
    # A lone axis has no pairs; its values must still each appear once.
    if len(sizes) == 1:
        seen = {row[0] for row in rows}
        rows += [(v,) for v in range(sizes[0]) if v not in seen]
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    while uncovered:
        best: tuple[int, Row] | None = None
        for start in sorted({(i, a) for i, a, _, _ in uncovered} | {(j, b) for _, _, j, b in uncovered}):
            row = _fill(sizes, order, start, uncovered)
            gain = len(pairs_of(row) & uncovered)
            if best is None or gain > best[0]:
                best = (gain, row)
        assert best is not None and best[0] > 0
        rows.append(best[1])
        uncovered -= pairs_of(best[1])
    return rows


def _fill(sizes: list[int], order: list[int], start: tuple[int, int], uncovered: set[Pair]) -> Row:
    """A row with `start` fixed and every other axis given its most useful value."""
    fixed: dict[int, int] = {start[0]: start[1]}
    for k in order:
        if k in fixed:
            continue
        scores = []
        for v in range(sizes[k]):
            score = sum(1 for i, a in fixed.items()
                        if ((i, a, k, v) if i < k else (k, v, i, a)) in uncovered)
            scores.append(score)
        fixed[k] = max(range(sizes[k]), key=lambda v: (scores[v], -v))
    return tuple(fixed[k] for k in range(len(sizes)))
