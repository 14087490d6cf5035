"""Joint actions (docs/spec-language.md#simultaneous-choice): `simultaneous: true` makes
every seat choose at once, as one step. The loader expands it (model.joint) into one action
of every seat's choices; the tests check the expansion, its limits and errors, the text of
a joint action, the property `observation` seat by seat (and a spec that reads another
seat's hidden hand caught), conservation and legal moves in both back ends on
spec/unveil.yaml, and that the statistics' policies choose each seat's part from its own
view."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import model
from model import SpecError
from properties.cli import main
from properties.compare.policies import Greedy
from properties.concrete.invariants import observation_problems
from properties.concrete.playout import play_and_check
from properties.symbolic.queries.conservation import conservation
from properties.symbolic.queries.legal_move import legal_move

ROOT = Path(__file__).resolve().parent.parent
UNVEIL = ROOT / "spec" / "unveil.yaml"
TEXT = UNVEIL.read_text(encoding="utf-8")
LAY = '''  lay:
    simultaneous: true
    say: "lay {card}"
    params: {card: "hand[chooser]"}
    when: "phase == 'choose' and empty(chosen[chooser])"
'''


def _spec(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """A copy of spec/unveil.yaml with each (old, new) text replaced, and its rulebook."""
    text = TEXT
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "unveil.yaml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "rulebooks").mkdir(exist_ok=True)
    (tmp_path / "rulebooks" / "unveil.en.txt").write_text(
        (ROOT / "spec" / "rulebooks" / "unveil.en.txt").read_text(encoding="utf-8"))
    return path


def _line(text: str, start: str) -> int:
    return next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith(start))


# ------------------------------------------------------------------ the expansion
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_joint_action_is_one_action_with_every_seats_parameters(players: int) -> None:
    decl = model.load(UNVEIL, players=players).ir.actions[0]
    assert decl.name == "lay"
    assert [name for name, _ in decl.params] == [f"card__seat{s}" for s in range(players)]
    assert decl.joint == tuple((s,) for s in range(players))
    assert decl.say == " | ".join(f"lay {{card__seat{s}}}" for s in range(players))
    # each seat's domain is its own hand
    hands = [dom.args[0] for _, dom in decl.params]
    assert [(h.family, h.index.value) for h in hands] == [("hand", s) for s in range(players)]
    # when: the shared phase test once, then each seat's own pile
    parts = decl.when.values
    assert len(parts) == 1 + players
    empties = [p.args[0].index.value for p in parts[1:]]
    assert empties == list(range(players))
    # effects: each seat's move in seat order, each citing and placed where the spec writes it
    moves = [s for s in decl.effects if isinstance(s, model.ir.Do)]
    assert [m.args[0].name for m in moves] == [f"card__seat{s}" for s in range(players)]
    assert [m.args[2].index.value for m in moves] == list(range(players))
    line = _line(TEXT, '      - {do: "move(card, hand[chooser], chosen[chooser])"')
    assert {m.where.line for m in moves} == {line}
    assert {m.cite for m in moves} == {("unveil.en#L3",)}
    assert decl.cite == ("unveil.en#L3", "unveil.en#L4")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_joint_actions_are_the_product_of_each_seats_choices_and_read_back(players: int
                                                                              ) -> None:
    game = model.load(UNVEIL, players=players)
    state = game.initial_state(3)
    legal = state.legal_actions()
    hands = state.to_dict()["zones"]["hand"]
    product = [" | ".join(f"lay {c}" for c in cards)
               for cards in itertools.product(*(list(h) for h in hands))]
    assert sorted(map(str, legal)) == sorted(product)
    for a in legal:
        assert game.parse_action(str(a)) == a
        assert game.parse_action("  " + str(a).replace(" | ", "  |   ")) == a  # spacing
        assert [a.component_text(s) for s in range(players)] == str(a).split(" | ")
    with pytest.raises(model.IllegalAction, match="actions read like: lay"):
        game.parse_action("lay c1")  # one seat's part alone is no action
    with pytest.raises(ValueError, match="not a joint action"):
        model.load("lama", players=3).initial_state(0).legal_actions()[0].component(0)


def test_play_and_its_json_replay_a_joint_game_and_legal_lists_it(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(main, ["play", "unveil", "-p", "3", "--seed", "4", "--json"])
    assert out.exit_code == 0, out.output
    import json
    data = json.loads(out.output)
    game = model.load("unveil", players=3)
    state = game.initial_state(4)
    for step in data["actions"]:
        assert step["action"].count(" | ") == 2
        state = state.apply(game.parse_action(step["action"]))
    assert list(state.scores) == data["scores"] and len(data["actions"]) == 3
    replay = tmp_path / "r.yaml"
    replay.write_text(yaml.safe_dump({"spec": "unveil", "players": 3, "seed": 4,
                                      "actions": [s["action"] for s in data["actions"]]}))
    out = runner.invoke(main, ["replay", str(replay)])
    assert out.exit_code == 0, out.output
    assert data["actions"][-1]["action"] in out.output
    situation = tmp_path / "s.yaml"
    situation.write_text(runner.invoke(main, ["deal", "unveil", "-p", "2"]).output)
    out = runner.invoke(main, ["legal", "unveil", "-p", "2", "--state", str(situation)])
    assert out.exit_code == 0, out.output
    assert len([ln for ln in out.output.splitlines() if ln.startswith("- lay ")]) == 9


# ------------------------------------------------------------------ limits and errors
def test_too_many_joint_actions_is_a_positioned_error_and_exit_2(tmp_path: Path) -> None:
    path = _spec(tmp_path, ('params: {card: "hand[chooser]"}',
                            'params: {card: "hand[chooser]", n: "range(0, 300)"}'),
                 ('say: "lay {card}"', 'say: "lay {card} {n}"'))
    text = path.read_text(encoding="utf-8")
    line = _line(text, "    simultaneous: true")
    with pytest.raises(SpecError, match=r"the joint actions of lay, the product of each "
                       r"seat's choices \(3,600 x 3,600\) with 2 players, may number up to "
                       r"12,960,000, over the limit of 100,000 \(max_joint_actions\)") as err:
        model.load(path, players=2)
    assert f"unveil.yaml:{line}:19:" in str(err.value)
    result = CliRunner().invoke(main, ["check", str(path), "-p", "2", "--no-z3"])
    assert result.exit_code == 2
    assert "max_joint_actions" in result.output and "Traceback" not in result.output


def test_too_many_joint_parameters_is_a_positioned_error(tmp_path: Path) -> None:
    path = _spec(tmp_path, ("players: {min: 2, max: 4,", "players: {min: 2, max: 5,"),
                 ('params: {card: "hand[chooser]"}',
                  'params: {card: "hand[chooser]", a: "[1]", b: "[1]", c: "[1]"}'),
                 ('say: "lay {card}"', 'say: "lay {card} {a} {b} {c}"'))
    with pytest.raises(SpecError, match=r"the parameters of lay, one per seat and parameter "
                       r"with 5 players is 20, over the limit of 16 \(max_joint_params\)"):
        model.load(path, players=5)
    model.load(path, players=4)  # 16: within the limit


def test_sixteen_joint_parameters_compile(tmp_path: Path) -> None:
    """The most parameters a joint action may have: the generated loops still compile."""
    path = _spec(tmp_path, ("players: {min: 2, max: 4,", "players: {min: 2, max: 16,"),
                 ('params: {card: "hand[chooser]"}', 'params: {card: "[1]"}'),
                 ('      - {do: "move(card, hand[chooser], chosen[chooser])", cite: unveil.en#L3}',
                  '      - "points[chooser] += card"'))
    game = model.load(path, players=16)  # compiles the generated module
    assert len(game.ir.actions[0].params) == 16 and "def playout" in game.source


@pytest.mark.parametrize(("edits", "message", "at"), [
    ((("    simultaneous: true\n", ""),),
     "unknown name 'chooser'; chooser is the choosing seat only in an action with "
     "simultaneous: true", '    params: {card: "hand[chooser]"}'),
    ((("    simultaneous: true\n", "    simultaneous: maybe\n"),), "maybe",
     "    simultaneous: maybe"),
    ((('say: "lay {card}"', 'say: "lay | {card}"'),), "cannot hold '|'", "    say:"),
    ((('params: {card: "hand[chooser]"}', 'params: {chooser: "hand[0]"}'),
      ('say: "lay {card}"', 'say: "lay {chooser}"')),
     "chooser names the choosing seat", '    params: {chooser'),
    ((("  points: {type: int, per: player, init: 0}",
       "  points: {type: int, per: player, init: 0}\n  chooser: {type: int, init: 0}"),),
     "chooser is a name this spec declares", "    simultaneous: true"),
    ((("when: \"phase == 'choose' and empty(chosen[chooser])\"",
       "when: \"phase == 'choose' and empty(chosen[chooser + 1])\""),),
     "with chooser = seat 1", "    when:"),
])
def test_a_bad_joint_action_is_a_positioned_error(tmp_path: Path, edits: tuple[tuple[str, str]],
                                                  message: str, at: str) -> None:
    path = _spec(tmp_path, *edits)
    with pytest.raises(SpecError) as err:
        model.load(path, players=2)
    assert message in str(err.value)
    line = _line(path.read_text(encoding="utf-8"), at)
    assert f"unveil.yaml:{line}:" in str(err.value), str(err.value)


# ------------------------------------------------------------------ observation
def test_each_seat_has_the_same_part_in_every_state_that_looks_the_same_to_it() -> None:
    for players in (2, 3, 4):
        game = model.load(UNVEIL, players=players)
        for seed in range(10):
            state = game.initial_state(seed)
            while not state.is_terminal:
                legal = state.legal_actions()
                assert observation_problems(game, state, legal) == []
                state = state.apply(legal[seed % len(legal)])


def test_a_joint_choice_that_reads_another_seats_hidden_hand_is_caught(tmp_path: Path) -> None:
    peek = ("when: \"phase == 'choose' and empty(chosen[chooser])\"",
            "when: \"phase == 'choose' and empty(chosen[chooser]) and (card.rank > 6 or "
            "'c12' in hand[(chooser + 1) % player_count])\"")
    game = model.load(_spec(tmp_path, peek), players=3)
    found = []
    for seed in range(20):
        state = game.initial_state(seed)
        legal = state.legal_actions()
        if legal:
            found += observation_problems(game, state, legal)
    assert found and all(p == "observation" for p, _ in found)
    assert any("part of lay" in m for _, m in found), found[0]
    result = CliRunner().invoke(main, ["check", str(tmp_path / "unveil.yaml"), "-p", "3",
                                       "--no-z3", "--no-cache"])
    assert result.exit_code == 1
    assert "observation       FAILS" in result.output


# ------------------------------------------------------------------ both back ends
@pytest.mark.parametrize("players", [2, 3, 4])
def test_conservation_and_legal_moves_cover_the_joint_action_in_both_back_ends(players: int
                                                                              ) -> None:
    game = model.load(UNVEIL, players=players)
    for seed in range(4):
        findings, fired = play_and_check(game, seed, deep=True)
        assert findings == [] and fired
    assert conservation(game).status == "proved"
    assert legal_move(game).status == "proved"


def test_a_seat_left_without_a_choice_fails_legal_move_in_both_back_ends(tmp_path: Path) -> None:
    stuck = ("when: \"phase == 'choose' and empty(chosen[chooser])\"",
             "when: \"phase == 'choose' and empty(chosen[chooser]) and (chooser == 0 or "
             "count(hand[chooser]) < 3)\"")  # seat 1 cannot lay from a full hand
    game = model.load(_spec(tmp_path, stuck), players=2)
    findings, _ = play_and_check(game, 0)
    assert any(f.property == "legal_move" for f in findings), findings
    assert legal_move(game).status == "witness"


# ------------------------------------------------------------------ the policies' view
def test_greedy_chooses_each_seats_part_from_that_seats_observation_alone() -> None:
    game = model.load(UNVEIL, players=3)
    greedy = Greedy(game)
    look = game.chance(0, -2)
    for seed in range(8):
        state = game.initial_state(seed)
        for seat in range(3):
            other = state.redeal(seat, random.Random(seed))
            picks = []
            for s in (state, other):
                options = s.legal_actions()
                a = greedy.joint_choice([list(z) for z in s.z], list(s.v), 0, options,
                                        random.Random(7), look)
                assert a in options
                picks.append(a.component(seat))
            assert picks[0] == picks[1]  # the same view, the same part
