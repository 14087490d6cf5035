"""z3 proves that two readings never part where only an invariant keeps them alike, and what
decides it is z3's work (resource units), not the clock or the load of the machine.

Kadabra's `show_llama_legality=any_llama` lets any llama be played in a magic show; under the
ruling it must fit the top card, and during a show the top card is always a llama (the
invariant `show_follows_llama`). So the readings never part, but only from reachable
states: the proof needs the invariants. It used to be left "bounded" at five and six players
whenever the first, short search from the deal finished its depths in time (that ended the
whole search), and proved when the machine was slow enough for that search to run out of
time first.
"""

from __future__ import annotations

import pytest

import model
from properties.symbolic.queries import parting


def versions(players: int) -> tuple[model.Game, model.Game]:
    return (model.load("kadabra", players=players),
            model.load("kadabra", players=players,
                       variants={"show_llama_legality": "any_llama"}))


def test_readings_alike_by_an_invariant_are_proved_never_to_part() -> None:
    old, new = versions(2)
    product = parting.parting_search(old, new)
    assert product.status == "proved_same", product.detail
    assert parting.WITH_INVARIANTS in product.detail


@pytest.mark.parametrize("units, proved", [(None, True), (1, False)])
def test_the_proof_is_decided_by_z3_units_after_a_search_that_reached_its_depth(
        monkeypatch: pytest.MonkeyPatch, units: int | None, proved: bool) -> None:
    # five players: the count that was left bounded. The search from the deal is cut to the
    # first action, which it always completes, so the proof must run after it.
    monkeypatch.setattr(parting, "PROOF_UNITS", units or parting.PROOF_UNITS)
    old, new = versions(5)
    product = parting.parting_search(old, new, max_depth=1)
    if proved:
        assert product.status == "proved_same", product.detail
    else:
        # out of units, not out of time: the search from the deal then goes on to its depth
        assert product.status == "bounded" and product.bound == 2, product.detail
        assert product.seconds < 60
