"""Coverage counts what the seeded playouts reached, not only the state machine's runs,
and a round or game end never reached says which option reaches more
(properties/concrete/coverage.py)."""

from __future__ import annotations

from pathlib import Path

import model
from properties.checks.work import run_configuration
from properties.concrete.coverage import MORE, Coverage, gaps

COIN = Path(__file__).parent / "specs" / "coin.yaml"


def test_seeded_playouts_count_their_round_and_game_ends() -> None:
    r = run_configuration(str(COIN), 2, {}, games=20, seed=0, profile=None, examples=None,
                          steps=None, expected=())
    cov = Coverage.from_dict(r["coverage"])
    ir = model.load(COIN, players=2).ir
    # a game of one round: each of the 20 games ends its round and the game
    assert (cov.games, cov.rounds, cov.finished) == (20, 20, 20)
    assert sum(cov.round_ends.values()) == 20 and sum(cov.game_ends.values()) == 20
    assert set(cov.round_ends) <= {c.name for c in ir.round_end}
    assert cov.steps == sum(cov.actions.values()) > 0
    assert not [g for g in gaps(COIN, cov) if g.what in ("round end", "game end")]


def test_an_end_never_reached_names_the_option_that_reaches_more() -> None:
    cov = Coverage(str(COIN), players={2}, traced=False)
    found = {g.what: g.detail for g in gaps(COIN, cov)}
    assert "of 0 rounds ended" in found["round end"] and MORE in found["round end"]
    assert "of 0 games played to their end" in found["game end"]
    assert "--games N" in MORE and "--rulespec-steps N" in MORE
