"""The pairwise covering array of the thorough profile: every pair covered, deterministic, small.

The pairs a result must cover are counted here independently of properties/concrete/pairwise.py
(with itertools), so a generator that skips a pair fails these tests.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import model
from properties.concrete.pairwise import covering_rows
from properties.concrete.stateful import PROFILES, configurations

SPECS = sorted((Path(__file__).parent.parent / "spec").glob("*.yaml"))


def _missing_pairs(sizes: list[int], rows: list[tuple[int, ...]]) -> list[tuple[int, int, int, int]]:
    met = {(i, r[i], j, r[j]) for r in rows for i, j in itertools.combinations(range(len(sizes)), 2)}
    return [(i, a, j, b) for i, j in itertools.combinations(range(len(sizes)), 2)
            for a in range(sizes[i]) for b in range(sizes[j]) if (i, a, j, b) not in met]


@st.composite
def axes_and_required(draw):
    sizes = draw(st.lists(st.integers(1, 5), min_size=0, max_size=7))
    row = st.tuples(*[st.integers(0, s - 1) for s in sizes])
    required = draw(st.lists(row, max_size=4))
    return sizes, required


@settings(max_examples=150, deadline=None)
@given(axes_and_required())
def test_every_pair_and_every_value_is_covered(case):
    sizes, required = case
    rows = covering_rows(sizes, required)
    assert _missing_pairs(sizes, rows) == []
    for i, s in enumerate(sizes):
        assert {r[i] for r in rows} == set(range(s)), f"axis {i} misses a value"
    assert all(len(r) == len(sizes) and all(0 <= v < s for v, s in zip(r, sizes, strict=True))
               for r in rows)
    assert len(rows) == len(set(rows)), "a row twice"
    # the required rows come first, in their order
    assert rows[:len(dict.fromkeys(required))] == list(dict.fromkeys(required))
    assert len(rows) <= max(math.prod(sizes), len(dict.fromkeys(required)))


@settings(max_examples=50, deadline=None)
@given(axes_and_required())
def test_covering_rows_are_deterministic(case):
    sizes, required = case
    assert covering_rows(sizes, required) == covering_rows(list(sizes), list(required))


def test_known_small_cases():
    # three two-valued axes: four rows are enough (and necessary)
    assert len(covering_rows([2, 2, 2])) == 4
    # four three-valued axes: the 9-row orthogonal array is found
    assert len(covering_rows([3, 3, 3, 3])) == 9
    assert covering_rows([3]) == [(0,), (1,), (2,)]
    assert covering_rows([]) == [()]
    with pytest.raises(ValueError, match="at least one value"):
        covering_rows([2, 0])
    with pytest.raises(ValueError, match="does not fit"):
        covering_rows([2, 2], [(0, 2)])


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_thorough_profile_covers_every_pair_of_choices(spec):
    g = model.load_ir(spec, players=_min_players(spec))
    configs = configurations(g, PROFILES["thorough"])
    assert PROFILES["thorough"].variants == "pairwise"
    counts = list(range(g.min_players, g.max_players + 1))
    defaults = {a.id: a.default for a in g.ambiguities}
    # the default variants at every player count, first
    assert [(c.players, c.variants) for c in configs[:len(counts)]] == [(n, ()) for n in counts]
    chosen = [{"players": c.players, **defaults, **dict(c.variants)} for c in configs]
    axes = {"players": counts} | {a.id: [v.name for v in a.variants] for a in g.ambiguities}
    for (x, xs), (y, ys) in itertools.combinations(axes.items(), 2):
        met = {(c[x], c[y]) for c in chosen}
        missing = [(u, w) for u in xs for w in ys if (u, w) not in met]
        assert not missing, f"{x} x {y}: {missing} never run together"
    assert len(configs) == len(set(configs))
    product = len(counts) * math.prod(len(a.variants) for a in g.ambiguities)
    # no covering array is smaller than the product of the two largest axes; this one
    # stays within twice that (plus the rows of default variants)
    biggest = sorted(len(v) for v in axes.values())[-2:]
    assert biggest[0] * biggest[1] <= len(configs) <= 2 * biggest[0] * biggest[1] + len(counts)
    if product > 10_000:
        assert len(configs) * 1000 < product


def test_all_is_still_every_combination():
    spec = min(SPECS, key=lambda p: math.prod(len(a.variants) for a in
                                              model.load_ir(p, players=_min_players(p)).ambiguities))
    g = model.load_ir(spec, players=_min_players(spec))
    configs = configurations(g, PROFILES["thorough"], variants="all")
    combos = math.prod(len(a.variants) for a in g.ambiguities)
    assert len(configs) == combos * (g.max_players - g.min_players + 1)
    assert len(configs) == len(set(configs))
    with pytest.raises(ValueError, match="choose one of"):
        configurations(g, PROFILES["ci"], variants="every")


def _min_players(spec: Path) -> int:
    from model.loader import any_player_count as _any_player_count

    return _any_player_count(spec)
