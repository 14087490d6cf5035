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


def test_a_set_up_that_ran_before_the_tracing_is_still_exercised() -> None:
    """A set-up that shuffles nothing runs once per game and is copied after; in `rulespec
    check` that first run is the seeded playouts', before the state machine's tracing, so
    Kadabra's set-up loop was reported never exercised."""
    from properties.concrete.stateful import run_game

    spec = str(Path(__file__).parent.parent / "spec" / "kadabra.yaml")
    game = model.load(spec, players=2)
    game.initial_state(0)  # the set-up has run, untraced, and is kept
    cov = Coverage(spec)
    run_game(game, "ci", examples=2, steps=5, spec=spec, coverage=cov, expected_failures=())
    assert cov.traced
    setup = [g for g in gaps(spec, cov) if g.what == "clause" and "setup" in g.detail]
    assert setup == []
    assert game.after_setup(0) == game.after_setup(0, fresh=True)
