"""The public model API (docs/api.md): values, legality, text forms, plain-data states."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import model
from model import IllegalAction

ROOT = Path(__file__).resolve().parent.parent


def random_states(players: int, seed: int, limit: int = 300):
    game = model.load("lama", players=players)
    rng = random.Random(seed)
    state = game.initial_state(seed)
    for _ in range(limit):
        yield state
        if state.is_terminal:
            return
        actions = state.legal_actions()
        state = state.apply(actions[rng.randrange(len(actions))])


def test_initial_deal_follows_the_rules() -> None:
    game = model.load("lama", players=4)
    d = game.initial_state(3).to_dict()
    assert [sum(h.values()) for h in d["zones"]["hand"]] == [6, 6, 6, 6]
    assert len(d["zones"]["discard"]) == 1
    assert len(d["zones"]["stock"]) == 56 - 24 - 1
    assert d["zones"]["pool"] == {"white": 50, "black": 20}
    assert d["active"] == 0


def test_apply_returns_a_new_state_and_leaves_the_old_one() -> None:
    for state in random_states(3, 1):
        if state.is_terminal:
            break
        before = state.to_dict()
        nxt = state.apply(state.legal_actions()[0])
        assert state.to_dict() == before
        assert nxt is not state


def test_illegal_action_raises_and_changes_nothing() -> None:
    game = model.load("lama", players=2)
    state = game.initial_state(5)
    legal = {str(a) for a in state.legal_actions()}
    candidates = [f"play {k}" for k in game.kind_names[:7]] + ["return white", "keep chips"]
    illegal = [c for c in candidates if c not in legal]
    assert illegal
    before = state.to_dict()
    for text in illegal:
        with pytest.raises(IllegalAction, match="not legal"):
            state.apply(game.parse_action(text))
    assert state.to_dict() == before


def test_parse_action_reads_back_every_str() -> None:
    for players in (2, 5):
        for state in random_states(players, 7):
            for a in state.legal_actions():
                assert state.game.parse_action(str(a)) is a


def test_parse_action_rejects_nonsense() -> None:
    game = model.load("lama", players=2)
    for text in ("play 7", "play", "fly", "return purple"):
        with pytest.raises(IllegalAction, match="cannot read"):
            game.parse_action(text)


def test_to_dict_round_trips_through_state_from_dict() -> None:
    for state in random_states(4, 11):
        d = json.loads(json.dumps(state.to_dict()))
        again = state.game.state_from_dict(d)
        assert again == state
        assert [str(a) for a in again.legal_actions()] == [str(a) for a in state.legal_actions()]


def test_legal_actions_come_in_declaration_order() -> None:
    for state in random_states(2, 3):
        actions = state.legal_actions()
        keys = [(a.index, a.args) for a in actions]
        assert keys == sorted(keys)


def test_same_seed_same_game_in_another_process() -> None:
    """Determinism does not depend on hash randomisation: compare two processes."""
    script = ("import random, model\n"
              "g = model.load('lama', players=4)\n"
              "s = g.initial_state(42); r = random.Random(42); out = []\n"
              "while not s.is_terminal:\n"
              "    a = s.legal_actions(); x = a[r.randrange(len(a))]; out.append(str(x))\n"
              "    s = s.apply(x)\n"
              "print(' | '.join(out), s.scores)\n")
    runs = []
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        runs.append(subprocess.run([sys.executable, "-c", script], capture_output=True,
                                   text=True, env=env, cwd=ROOT, check=True).stdout)
    assert runs[0] == runs[1]
    assert runs[0].count("|") > 5


def test_situation_must_place_every_card_once() -> None:
    game = model.load("lama", players=2)
    with pytest.raises(model.SpecError, match="holds 9 of '1' but the game has 8"):
        game.state_from_dict({"zones": {"stock": "rest", "pool": "rest",
                                        "hand": [{"1": 1}, {}], "discard": ["1"] * 8}})
    with pytest.raises(model.SpecError, match="unknown zone 'deck'"):
        game.state_from_dict({"zones": {"deck": []}})
    with pytest.raises(model.SpecError, match="active must be a seat from 0 to 1"):
        game.state_from_dict({"active": 5, "zones": {"stock": "rest", "pool": "rest"}})


def test_scores_and_winners() -> None:
    final = None
    for state in random_states(3, 2, limit=100_000):
        final = state
    assert final is not None and final.is_terminal
    assert max(final.scores) >= 40
    low = min(final.scores)
    assert list(final.winners) == [p for p, s in enumerate(final.scores) if s == low]
