"""The generated code's shortcuts (model/codegen.py, model/emit_*.py) against the plain
reading of the spec.

Kind tables (`Emitter.kind_table`) answer `legal` and `any(... for k in kinds(bag))` by a
look-up per root kind, and each step inlines the round-end test; the plain, per-action
`check_<i>` functions and the `ROUND_END` conditions use none of the legal-move shortcuts.
Over seeded games of every spec, the legal actions must be exactly the candidates whose
check holds, in the documented order, and a step must say the round ends exactly when a
round-end condition holds.
"""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path

import pytest

import model
from model import ModelError

SPEC = Path(__file__).resolve().parent.parent / "spec"
SPECS = sorted(p.stem for p in SPEC.glob("*.yaml"))


def candidates(game: model.Game) -> list[model.Action] | None:
    """Every action any state could offer, in the documented order (None if a parameter's
    values depend on the state)."""
    out = []
    for i, domains in enumerate(game.param_domains()):
        values = [allowed for _, allowed in domains]
        if any(v is None for v in values):
            return None
        out += [game.action(i, tuple(args)) for args in itertools.product(*values)]
    return out


@pytest.mark.parametrize("spec", SPECS)
def test_legal_actions_are_the_candidates_whose_check_holds(spec: str) -> None:
    game = model.load(spec, players=3)
    every = candidates(game)
    if every is None:
        pytest.skip(f"{spec}: a parameter's values depend on the state")
    rng = random.Random(spec)
    compared = 0
    for seed in range(200):  # 400 states, from as many games as it takes (short ones too)
        if compared == 400:
            break
        state = game.initial_state(seed)
        for _ in range(400):
            if state.is_terminal or compared == 400:
                break
            legal = state.legal_actions()
            assert legal == [a for a in every if state.why_illegal(a) is None], (seed, state)
            compared += 1
            action = legal[rng.randrange(len(legal))]
            z, v = list(state.z), list(state.v)
            ended = game._steps[action.index](z, v, None if not game._shuffles[action.index]
                                              else game.chance(seed, state.step), action.args)
            assert bool(ended) == bool(game.ns["round_end_names"](z, v)), (seed, action)
            state = state.apply(action)
    assert compared == 400


def test_lama_has_a_kind_table_and_it_lists_the_plays_on_each_top_card() -> None:
    """lama.en#L15-L16: on a card, play the same value or one higher; a 1 on a llama."""
    game = model.load("lama", players=2)
    tables = [v for k, v in game.ns.items() if k.startswith("KIND_TABLE_")]
    assert tables, "the play condition should be answered by a kind table"
    rank = game.ns["KA_rank"]
    names = game.kind_names
    for table in tables:
        assert table[-1] is None  # the entry for a top that cannot be read
        for top in range(len(names)):
            if names[top] in ("white", "black"):
                continue
            plays = {names[k] for k in table[top]}
            expected = {n for k, n in enumerate(names) if rank[k] and (
                rank[k] in (rank[top], rank[top] + 1) or (rank[k] == 1 and rank[top] == 7))}
            assert plays == expected, names[top]


def test_an_empty_discard_pile_reaches_the_plain_code_not_a_table() -> None:
    """With nothing on the discard pile the play condition cannot be evaluated: the legal
    moves raise ModelError as the plain loop does (no table entry hides it), and a lone
    player's round-end test raises it too, as `top()` of an empty pile does."""
    game = model.load("lama", players=2)
    state = game.state_from_dict({"active": 0, "zones": {
        "stock": "rest", "discard": [], "hand": [{"3": 1}, {"4": 1}]}}, checked=False)
    with pytest.raises(ModelError, match="empty pile"):
        state.legal_actions()
    lone = game.state_from_dict({"active": 0, "vars": {"quit": [False, True]}, "zones": {
        "stock": "rest", "discard": [], "hand": [{"3": 1}, {}],
        "out": [{}, {"4": 1}]}}, checked=False)
    with pytest.raises(ModelError, match="empty pile"):
        game.ns["round_end"](list(lone.z), list(lone.v))


def test_round_end_conditions_share_a_part_only_where_it_is_always_computed(tmp_path: Path
                                                                             ) -> None:
    """`Emitter.any_condition` keeps a part that an earlier round-end condition always
    evaluates in a name that later conditions read; a part evaluated only sometimes (after
    `and`) or twice in its condition is not named there. With the names, the round-end test
    must still agree with the conditions one by one, in every state."""
    coin = Path(__file__).resolve().parent / "specs" / "coin.yaml"
    text = coin.read_text(encoding="utf-8")
    old = "    - {name: stopped, when: stopped}\n"
    assert text.count(old) == 1
    spec = tmp_path / "coin.yaml"
    shutil.copytree(coin.parent / "rulebooks", tmp_path / "rulebooks")
    spec.write_text(text.replace(old, (
        '    - {name: sometimes, when: "stopped and count(deck) == 0"}\n'
        '    - {name: twice, when: "count(up) + count(up) == 4"}\n'
        '    - {name: once, when: "count(deck) * 2 == 6"}\n'
        '    - {name: later, when: "count(up) == 3 or (count(deck) == 1 and stopped)"}\n'
        '    - {name: stopped, when: "stopped and count(up) > 0"}\n')), encoding="utf-8")
    game = model.load(spec, players=2)
    round_end = game.source.split("def round_end(Z, V):")[1].split("\n\n")[0]
    assert round_end.count(":=") == 2, round_end  # count(deck) in `once`, count(up) in `later`
    start = game.initial_state(0)
    conditions = game.ns["ROUND_END"]
    for in_deck in range(4):
        for stopped in (False, True):
            z, v = [list(x) for x in start.z], list(start.v)
            cards = sorted(z[0] + [k for k, n in enumerate(z[1]) for _ in range(n)])
            z[0], z[1] = cards[:in_deck], [0] * len(z[1])
            for k in cards[in_deck:]:
                z[1][k] += 1
            v[game.layout.var_base["stopped"]] = stopped
            expected = any(holds(z, v) for _, holds in conditions)
            assert bool(game.ns["round_end"](z, v)) == expected, (in_deck, stopped)
            for i, step in enumerate(game._steps):  # each step's inlined test, after its effects
                z2, v2 = [x[:] for x in z], v[:]
                ended = step(z2, v2, None, ())
                assert bool(ended) == any(holds(z2, v2) for _, holds in conditions), (i, in_deck)


@pytest.mark.parametrize("sides", [(0, 1, 2), (0, 1, 1)])
def test_a_sum_of_distinct_attributes_counts_each_value_once(tmp_path: Path,
                                                             sides: tuple[int, ...]) -> None:
    """`sum(distinct(k.attr for k in kinds(bag)))` sums without a set only where no two
    kinds of the class share a value (`Emitter.distinct_anyway`); where two do, the value
    counts once."""
    coin = Path(__file__).resolve().parent / "specs" / "coin.yaml"
    text = coin.read_text(encoding="utf-8")
    shutil.copytree(coin.parent / "rulebooks", tmp_path / "rulebooks")
    for was, (name, side) in enumerate(zip(("heads", "tails", "edge"), sides, strict=True)):
        old = f"{{name: {name}, side: {was}, copies: 1}}"
        assert text.count(old) == 1, old
        text = text.replace(old, f"{{name: {name}, side: {side}, copies: 1}}")
    old = "  expr: \"count(up, 'edge') + (count(up, 'heads') if p == 0 else count(up, 'tails'))\""
    assert text.count(old) == 1
    text = text.replace(old, '  expr: "sum(distinct(k.side for k in kinds(up)))"')
    (tmp_path / "coin.yaml").write_text(text, encoding="utf-8")
    game = model.load(tmp_path / "coin.yaml", players=2)
    assert ("{*" in game.source.split("def score(")[1].split("\n\n")[0]) == (len(set(sides)) < 3)
    z, v = [list(x) for x in game.initial_state(0).z], list(game.initial_state(0).v)
    up = game.layout.zone_base["up"]
    for held in itertools.product((0, 1), repeat=3):
        z[up][:3] = held
        expected = sum({side for side, n in zip(sides, held, strict=True) if n})
        assert game.ns["score"](z, v, 0) == expected, held
