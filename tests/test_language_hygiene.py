"""Loop variables never capture or overwrite another local.

Defs (and procedures) are expanded with their arguments in place of their parameters,
so an argument can read a local of the caller that the def's own loop binds again; and a
`for:` loop of the effects, or a `first(...)` the code generator writes as a Python `for`
statement, would overwrite a local of the same name. Each case here gave wrong answers
before: the def compared the loop's own variable with itself, and the statements after an
inner loop read the inner loop's last value.
"""

from __future__ import annotations

import random
from pathlib import Path

from test_language_procedures import lama_with

import model
from model import ir

DRAW_WHEN = "when: \"phase == 'play' and can_draw and in_round > 1\""
SCORING = """    - for: p in players
      cite: [lama.en#L27, lama.en#L30, lama.nl#L22]
      do:
"""


def same_play(a: model.Game, b: model.Game, games: int = 12) -> None:
    """`a` and `b` offer the same actions and reach the same states in random games."""
    for seed in range(games):
        rnd = random.Random(seed)
        x, y = a.initial_state(seed), b.initial_state(seed)
        for _ in range(400):
            assert x.to_dict() == y.to_dict()
            if x.is_terminal:
                break
            acts = [str(t) for t in x.legal_actions()]
            assert acts == [str(t) for t in y.legal_actions()]
            pick = rnd.choice(acts)
            x, y = x.apply(a.parse_action(pick)), y.apply(b.parse_action(pick))


def test_a_def_argument_is_not_captured_by_the_defs_own_loop(tmp_path: Path) -> None:
    # others(q) for each seat q: the other seats, player_count - 1 of them each
    path = lama_with(
        tmp_path, ("defs:\n", "defs:\n  others(p): count(q for q in players if q != p)\n"),
        (DRAW_WHEN, "when: \"phase == 'play' and can_draw and in_round > 1 and "
                    "sum(others(q) for q in players) == player_count * (player_count - 1)\""))
    game = model.load(path, players=3)
    plain = model.load("lama", players=3)
    for seed in range(5):
        assert ([str(a) for a in game.initial_state(seed).legal_actions()]
                == [str(a) for a in plain.initial_state(seed).legal_actions()])
    gens = [g for a in game.ir.actions for n in ir.walk(a.when) if isinstance(n, ir.Comp)
            for g in n.gens]
    assert "q__1" in {g.var for g in gens}  # the def's loop variable, renamed


def test_a_def_with_crossed_arguments_keeps_them_apart(tmp_path: Path) -> None:
    # before(a, b): seat a comes before seat b, found by a loop over p; called with p
    path = lama_with(
        tmp_path, ("defs:\n", "defs:\n  before(a, b): any(p == a for p in players if p < b)\n"),
        (DRAW_WHEN, "when: \"phase == 'play' and can_draw and in_round > 1 and "
                    "count(p for p in players for q in players if before(q, p)) == "
                    "player_count * (player_count - 1) // 2\""))
    same_play(model.load(path, players=4), model.load("lama", players=4), games=4)


def test_an_inner_for_loop_does_not_overwrite_the_outer_one(tmp_path: Path) -> None:
    # the inner loop's p is another variable: the payment after it is the outer p's
    path = lama_with(tmp_path, (SCORING, SCORING + "        - for: p in players\n"
                                          "          do: [\"starter = p\"]\n"))
    game = model.load(path, players=3)
    assert "l_p__1" in game.source
    same_play(game, model.load("lama", players=3))


def test_a_first_written_as_a_loop_does_not_overwrite_a_local(tmp_path: Path) -> None:
    # `first(p for p in ...)` inside `for p in players`: the comprehension's own p
    path = lama_with(tmp_path, (SCORING, SCORING + "        - \"starter = first((p for p in "
                                          "players if p > 0), 0)\"\n"))
    same_play(model.load(path, players=3), model.load("lama", players=3))


def test_the_specs_loops_keep_their_names() -> None:
    """Only a clash renames: the shipped specs compile with the names they write."""
    for game in ("lama", "kadabra", "lambada", "slambo"):
        assert "__1" not in model.load(game, players=3).source, game
