"""The reference model's two forms, compiled from the same IR (model/codegen.py), agree:
the readable one `rulespec show-code` prints (slots named by the spec, each action once,
citations, none of the playout shortcuts) and the one that runs. Over seeded random games
of every spec of spec/ and tests/specs/, at every player count, both offer the same legal
actions, give the same reasons an action is illegal and reach the same states, round ends,
scores and winners, as OpenSpiel tests its Python games against their C++ versions."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import model

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "spec").glob("*.yaml")) + sorted((ROOT / "tests" / "specs").glob("*.yaml"))
GAMES, ACTIONS = 20, 300  # per player count


def counts(spec: Path) -> list[int]:
    ir = model.load(spec, players=_any_count(spec)).ir
    return list(range(ir.min_players, ir.max_players + 1))


def _any_count(spec: Path) -> int:
    for n in range(1, 9):
        try:
            model.load(spec, players=n)
            return n
        except model.SpecError:
            continue
    raise AssertionError(f"{spec} loads at no player count")


def view(state: model.State) -> tuple:
    """Everything a state says, in terms both forms share."""
    return (state.z, state.v, state.is_terminal, state.active_player, state.round,
            state.scores, state.winners if state.is_terminal else None)


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_the_readable_model_plays_the_same_games_as_the_one_that_runs(spec: Path) -> None:
    compared = 0
    for players in counts(spec):
        fast = model.load(spec, players=players)
        readable = fast.readable()
        assert "ZONE_" in readable.source and "effect_in_place_" not in readable.source
        rng = random.Random(f"{spec.stem}-{players}")
        for seed in range(GAMES):
            a, b = fast.initial_state(seed), readable.initial_state(seed)
            for _ in range(ACTIONS):
                assert view(a) == view(b), (players, seed, a.step)
                if a.is_terminal:
                    break
                legal = [(x.index, x.args) for x in a.legal_actions()]
                assert legal == [(x.index, x.args) for x in b.legal_actions()], (players, seed)
                # an action that is not legal here, if one is: refused for the same reason
                other = [fast.action(i, args) for i, args in _every(fast, a)
                         if (i, args) not in legal]
                if other:
                    x = rng.choice(other)
                    assert a.why_illegal(x) == b.why_illegal(readable.action(x.index, x.args))
                i, args = legal[rng.randrange(len(legal))]
                assert a.round_end_reasons(fast.action(i, args)) == \
                    b.round_end_reasons(readable.action(i, args))
                a, b = a.apply(fast.action(i, args)), b.apply(readable.action(i, args))
                compared += 1
    assert compared > 0


def _every(game: model.Game, state: model.State) -> list[tuple[int, tuple]]:
    """Every action of a parameter domain known in advance (a few per action)."""
    out = []
    for i, domains in enumerate(game.param_domains()):
        if not domains:
            out.append((i, ()))
        elif len(domains) == 1 and domains[0][1] is not None:
            out += [(i, (v,)) for v in domains[0][1][:6]]
    return out


def test_the_readable_model_names_its_slots_and_cites_the_rulebook() -> None:
    game = model.load("lama", players=4).readable()
    src = game.source
    for zone in game.ir.zones:
        assert f"ZONE_{zone.name} = {game.layout.zone_base[zone.name]}" in src
    for var in game.ir.vars:
        assert f"VAR_{var.name} = {game.layout.var_base[var.name]}" in src
    # each action once: a guard and a step, with the rulebook lines the action cites
    for i, action in enumerate(game.ir.actions):
        assert src.count(f"def check_{i}(") == src.count(f"def step_{i}(") == 1
        assert f"# action {action.name} ({', '.join(action.cite)})" in src
    assert "def playout(" not in src
    with pytest.raises(model.errors.InternalError, match="no playout loop"):
        game.random_playout(0, lambda n: 0)
