"""Shortening a parting game reaches games of a length known exactly from the rules.

LAMA's `empty_stock` ambiguity: under `reshuffle` the discard pile (all but its top card)
becomes a new stock, so the two readings part when the stock is empty and a player could
draw. Only drawing takes from the stock, which holds 56 - 6P - 1 cards after the deal, and
the discard pile needs a second card to reshuffle; so the shortest game after which the
legal actions differ is those draws and one play: 56 - 6P actions. A random game gets there
by a long way round; the shortened one must be within 2 actions of it, and can never be
shorter.
"""

from __future__ import annotations

import random

import pytest

import model
from model.chance import ScriptedChance, SeededChance
from properties.compare import lockstep as L
from properties.compare import parting as P
from properties.compare import shorten as S
from properties.concrete import trace as tr


def _readings(players: int) -> tuple[model.Game, model.Game]:
    return (model.load("lama", players=players),
            model.load("lama", players=players, variants={"empty_stock": "reshuffle"}))


def random_parting(old: model.Game, new: model.Game) -> tuple[int, L.Found]:
    """The first random game, seed by seed, that parts the readings: mostly drawing (a
    uniform choice seldom empties the stock before the round ends), else any action."""
    for seed in range(200):
        rng = random.Random(seed)

        def choose(_k: int, keys: list[tuple], _s: model.State,
                   rng: random.Random = rng) -> int:
            draws = [i for i, key in enumerate(keys) if key[0] == "draw"]
            return rng.choice(draws) if draws and rng.random() < 0.6 else \
                rng.randrange(len(keys))

        found = L.lockstep(old, new, None, None, choose, max_actions=600, seed=seed)
        if found is not None:
            return seed, found
    raise AssertionError("no random game of 600 actions parts the readings")


@pytest.mark.parametrize("players", [3, 4])
def test_a_random_parting_game_is_shortened_to_within_two_of_the_shortest(players: int) -> None:
    old, new = _readings(players)
    seed, found = random_parting(old, new)
    shortest = 56 - 6 * players
    assert len(found.actions) > shortest + 2, "the random game is already short: no test"
    short = S.shorten(old, new, seed, found)
    assert short is not None and short.steps <= S.STEPS
    assert short.found.mode == "legal"
    assert shortest <= len(short.found.actions) <= shortest + 2


def test_the_shortened_game_replays_from_its_record_and_parts_at_its_end() -> None:
    old, new = _readings(4)
    seed, found = random_parting(old, new)
    short = S.shorten(old, new, seed, found)
    assert short is not None
    chance_o = ScriptedChance([list(x) for x in short.record], fallback=old.chance(seed, -2))
    chance_n = ScriptedChance([list(x) for x in short.record], fallback=new.chance(seed, -2))
    again = L.lockstep(old, new, chance_o, chance_n, [*short.found.actions, "(end)"],
                       max_actions=len(short.found.actions), seed=short.seed)
    assert again is not None and again.actions == short.found.actions
    # and as a replay file: the actions play under the ruling from the recorded shuffles
    data = {"spec": "lama", "players": 4, "seed": short.seed, "variants": {},
            "actions": list(short.found.actions), "shuffles": short.shuffles(old),
            "unrecorded": "seed"}
    game, states = tr.replay(data)
    assert len(states) == len(short.found.actions) + 1
    stock = next(z.name for z in game.ir.zones if z.name == "stock")
    assert states[-1].to_dict()["zones"][stock] == []


def test_find_parting_shortens_what_the_random_games_found_and_says_so() -> None:
    old, new = _readings(4)
    p = P.find_parting(old, new, use_z3=False, games=0, examples=100)
    assert p.parted and p.how.endswith("shortened")
    assert len(p.actions) <= 56 - 24 + 2
    assert any(n.startswith("shortened from ") for n in p.notes)
    assert "shuffles" in p.chance
    # without shortening, the same search reports the long game it found
    q = P.find_parting(old, new, use_z3=False, games=0, examples=100, shorten_steps=0)
    assert q.parted and not q.how.endswith("shortened") and len(q.actions) > len(p.actions)


def test_a_copied_chance_draws_what_the_original_would_and_leaves_it_where_it_was() -> None:
    a = SeededChance(7, 3)
    pile = list(range(20))
    a.shuffle(pile)  # the stream has begun
    b = a.copy()
    x, y = list(range(20)), list(range(20))
    b.shuffle(x)
    a.shuffle(y)
    assert x == y
    scripted = ScriptedChance([[2, 1, 0]], fallback=SeededChance(1, 1))
    twin = scripted.copy()
    p, q = [0, 1, 2], [0, 1, 2]
    twin.shuffle(p)
    assert p == [2, 1, 0] and scripted.outcomes == [[2, 1, 0]]  # the original keeps its record
    scripted.shuffle(q)
    assert q == [2, 1, 0]
