"""The breadth-first search for where two versions part finds the shortest game from its deal.

Checked against an exhaustive walk of every game of fewer actions from the same deal: none
of them parts the versions, so nothing shorter exists there.
"""

from __future__ import annotations

import model
from properties.compare import lockstep as L
from properties.compare import parting as P


def _parts_within(old: model.State, new: model.State, depth: int) -> bool:
    """Whether the versions part here or at one of the next `depth` actions (their legal
    actions before it, its outcome), in any game."""
    lo, ln = L.legal_by_key(old, None), L.legal_by_key(new, None)
    if set(lo) != set(ln):
        return True
    if depth == 0 or old.is_terminal:
        return False
    for key, a in lo.items():
        if L.outcome_differences(old.game, new.game, old, new, a, ln[key], None, None, None):
            return True
        if _parts_within(old.apply(a), new.apply(ln[key]), depth - 1):
            return True
    return False


def test_the_breadth_first_parting_is_the_shortest_from_its_deal() -> None:
    ruling = model.load("kadabra", players=4)
    reading = model.load("kadabra", players=4, variants={"double_card_scoring": "separate"})
    best, explored = P.breadth_first(ruling, reading, deals=1)
    assert best is not None and explored > 0
    seed, found = best
    n = len(found.actions)
    assert n >= 2, "too short to tell a search from luck"
    # the game it reports parts them, from the deal of its seed ...
    replayed = L.lockstep(ruling, reading, None, None, list(found.actions), max_actions=n,
                          seed=seed)
    assert replayed is not None and replayed.actions == found.actions
    # ... and no game of fewer actions from that deal does
    assert found.mode == "state"  # action n leads to different states
    assert not _parts_within(ruling.initial_state(seed), reading.initial_state(seed), n - 1)


def test_versions_that_never_part_exhaust_the_budget_and_say_so() -> None:
    game = model.load("lama", players=2)
    best, explored = P.breadth_first(game, model.load("lama", players=2), states=300, deals=2)
    assert best is None and explored == 300


def test_find_parting_reports_the_breadth_first_game() -> None:
    ruling = model.load("kadabra", players=4)
    reading = model.load("kadabra", players=4, variants={"double_card_scoring": "separate"})
    p = P.find_parting(ruling, reading, use_z3=False, games=20, examples=0)
    assert p.parted and p.how in ("breadth-first search", "random games")
    best, _ = P.breadth_first(ruling, reading)
    assert best is not None and len(p.actions) <= len(best[1].actions)
