"""Rows that lean on the spec's invariants, where one of them is not proved inductive. A game
measure that reads nothing an invariant reads is proved without the spec's
invariants: an invariant that is true but not inductive (so not proved) does not leave
the game-cycle row undecided (tests/specs/climb.yaml, a one-round game with the constant
measure 0, written from the docs alone as a held-out game)."""

from __future__ import annotations

from pathlib import Path

import model
from properties.symbolic import queries as Q

SPECS = Path(__file__).parent / "specs"


def _without_strengthening(tmp_path: Path) -> Path:
    """climb.yaml without `skipped_have_passed`, which makes `someone_to_answer` inductive."""
    text = (SPECS / "climb.yaml").read_text()
    start = text.index("  - name: skipped_have_passed")
    end = text.index("  - {name: cards_in_play")
    path = tmp_path / "climb.yaml"
    path.write_text(text[:start] + text[end:])
    (tmp_path / "rulebooks").symlink_to(SPECS / "rulebooks")
    return path


def test_constant_game_measure_is_proved_with_an_unproved_invariant(tmp_path: Path) -> None:
    game = model.load(_without_strengthening(tmp_path), players=3)
    assert Q.invariants(game).status != "proved"  # the premise: not every invariant holds up
    res = Q.game_cycle(game)
    assert res.status == "proved", res.detail
    assert "using no invariant" in res.detail


def test_constant_game_measure_with_every_invariant_proved() -> None:
    game = model.load(SPECS / "climb.yaml", players=3)
    assert Q.invariants(game).status == "proved"
    res = Q.game_cycle(game)
    assert res.status == "proved", res.detail


def test_a_row_without_the_invariants_says_so(tmp_path: Path) -> None:
    """With an invariant not proved inductive, the round measure's counterexample state is
    one z3 found without the spec's invariants: the row says so, as the state may break one
    (a designer would otherwise read it as a fault of the rules)."""
    game = model.load(_without_strengthening(tmp_path), players=3)
    res = Q.round_bound(game)
    assert res.status == "bounded", res.detail
    assert "the spec's invariants were not assumed" in res.detail
