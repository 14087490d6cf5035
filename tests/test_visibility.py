"""Visibility: a zone's `sees:` and a pile's `top:`, what a seat observes, and the
property that the player to act has the same legal actions in states that look alike.

The language part: the keys are read with positioned errors and a spec that does not
use them means what it meant (everyone sees everything). The state part: an observation
hides what the seat cannot see, keeps the rest, and a redeal changes only what is hidden.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import model
from model import SpecError

ROOT = Path(__file__).resolve().parent.parent
LAMA = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
STOCK = "  stock: {order: pile, holds: cards, sees: nobody, cite: lama.en#L11}"
HAND = "  hand: {order: bag, holds: cards, per: player, sees: owner, cite: lama.en#L11}"


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the shipped LAMA spec with one zone line replaced."""
    text = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith(old))
    path = tmp_path / "lama.yaml"
    path.write_text(text.replace(line, new), encoding="utf-8")
    return path


def _error(path: Path) -> SpecError:
    with pytest.raises(SpecError) as info:
        model.load(path, players=3)
    return info.value


@pytest.mark.parametrize(("old", "new", "message", "at"), [
    ("  stock:", "  stock: {order: pile, holds: cards, sees: secret}",
     "zones/stock/sees: expected one of everyone, owner, nobody, found 'secret'", "sees:"),
    ("  stock:", "  stock: {order: pile, holds: cards, sees: owner}",
     "sees: owner needs a zone with per: player", "sees:"),
    ("  stock:", "  stock: {order: pile, holds: cards, sees: nobody, top: sometimes}",
     "expected one of everyone, owner, nobody, found 'sometimes'", "top:"),
    ("  stock:", "  stock: {order: pile, holds: cards, top: everyone}",
     "top: everyone shows the top to no more players than sees: everyone", "top:"),
    ("  stock:", "  stock: {order: pile, holds: cards, sees: nobody, top: owner}",
     "top: owner needs a zone with per: player", "top:"),
    ("  hand:", "  hand: {order: bag, holds: cards, per: player, sees: owner, top: everyone}",
     "top: is for a pile; a bag has no top", "top:"),
    ("  hand:", "  hand: {order: bag, holds: cards, per: player, sees: owner, top: owner}",
     "a bag has no top", "top:"),
])
def test_a_bad_visibility_is_a_positioned_error(tmp_path: Path, old: str, new: str,
                                                message: str, at: str) -> None:
    path = _variant(tmp_path, old, new)
    err = _error(path)
    assert message in str(err)
    lines = path.read_text(encoding="utf-8").splitlines()
    row = next(i for i, x in enumerate(lines, 1) if x == new)
    # the error points at the value of the key at fault
    assert (err.where.line, err.where.column) == (row, new.index(at) + len(at) + 2), err.where


def test_the_default_is_everyone_and_a_spec_without_the_keys_compiles_as_before(
        tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text(LAMA.replace(", sees: owner", "").replace(", sees: nobody", ""),
                     encoding="utf-8")
    g = model.load(plain, players=3)
    assert {z.sees for z in g.ir.zones} == {"everyone"} and {z.top for z in g.ir.zones} == {None}
    s = g.initial_state(5)
    assert s.observation(1).to_dict()["zones"] == s.to_dict()["zones"]
    assert s.redeal(1, random.Random(0)) == s
    assert g.source == model.load(ROOT / "spec" / "lama.yaml", players=3).source


def _hidden_lama(tmp_path: Path) -> model.Game:
    text = LAMA.replace("  stock: {order: pile, holds: cards, cite: lama.en#L11}", STOCK) \
        .replace("  hand: {order: bag, holds: cards, per: player, cite: lama.en#L11}", HAND)
    path = tmp_path / "hidden.yaml"
    path.write_text(text, encoding="utf-8")
    return model.load(path, players=3)


def test_an_observation_shows_own_zones_and_counts_the_hidden_ones() -> None:
    g = model.load("lama", players=3)
    if {z.name: z.sees for z in g.ir.zones}.get("hand") != "owner":
        pytest.skip("the shipped spec does not hide hands")
    s = g.initial_state(11)
    d, o = s.to_dict(), s.observation(1).to_dict()
    assert o["zones"]["hand"][1] == d["zones"]["hand"][1]
    assert o["zones"]["hand"][0] == {"hidden": sum(d["zones"]["hand"][0].values())}
    assert o["zones"]["stock"] == {"hidden": len(d["zones"]["stock"])}
    assert o["zones"]["discard"] == d["zones"]["discard"]
    assert o["vars"] == d["vars"] and o["active"] == d["active"] and o["as"] == 1
    assert "seed" not in o and "step" not in o
    data, stock = s.observation(1), g.layout.zone_base["stock"]
    assert isinstance(data, model.Observation) and data.player == 1
    assert data.zones[stock] == model.Hidden(len(d["zones"]["stock"]), None)
    assert data.vars == s.v and data.terminal is False


def test_a_redeal_keeps_the_observation_and_moves_only_hidden_items(tmp_path: Path) -> None:
    g = _hidden_lama(tmp_path)
    s = g.initial_state(3)
    seen = s.observation(0)
    assert hash(seen) == hash(s.observation(0)) and seen == s.observation(0)
    other = s.redeal(0, random.Random(1))
    assert other != s, "the hidden hands and stock should have been dealt anew"
    assert other.observation(0) == seen
    assert other.observation(1) != s.observation(1), "seat 1 sees its own hand change"
    assert g.total_counts(other) == g.total_counts(s)
    d, e = s.to_dict()["zones"], other.to_dict()["zones"]
    assert e["hand"][0] == d["hand"][0] and e["discard"] == d["discard"]
    assert [sum(h.values()) for h in e["hand"]] == [sum(h.values()) for h in d["hand"]]
    assert len(e["stock"]) == len(d["stock"])


def test_a_seen_top_stays_on_top_and_shows(tmp_path: Path) -> None:
    path = _variant(tmp_path, "  stock:",
                    "  stock: {order: pile, holds: cards, sees: nobody, top: everyone}")
    g = model.load(path, players=3)
    s = g.initial_state(2)
    top = s.to_dict()["zones"]["stock"][-1]
    assert s.observation(2).to_dict()["zones"]["stock"] == {
        "hidden": len(s.to_dict()["zones"]["stock"]), "top": top}
    for seed in range(5):
        other = s.redeal(2, random.Random(seed))
        assert other.to_dict()["zones"]["stock"][-1] == top
        assert other.observation(2) == s.observation(2)


def test_no_seat_outside_the_table() -> None:
    s = model.load("lama", players=3).initial_state(0)
    with pytest.raises(SpecError, match="no seat 3"):
        s.observation(3)


# ----------------------------------------------------------------- --as P
def _run(*args: str) -> tuple[int, str]:
    from click.testing import CliRunner

    from properties.cli import main

    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_play_as_a_seat_shows_its_own_hand_and_counts_the_others() -> None:
    code, full = _run("play", "lama", "-p", "3", "--seed", "2", "--max-actions", "4")
    code_as, seen = _run("play", "lama", "-p", "3", "--seed", "2", "--max-actions", "4",
                         "--as", "1")
    assert code == code_as == 0, seen
    assert "as player 1 sees it" in seen and "stock: 37 hidden" in seen
    own = next(x for x in full.splitlines() if x.startswith("  player 1:"))
    assert own in seen.splitlines()  # seat 1's own hand, as the full trace shows it
    other = next(x for x in full.splitlines() if x.startswith("  player 0:"))
    assert other not in seen and "  player 0: hand 6 hidden;" in seen
    # the same game: the same actions, one a line
    actions = [x.split(": ", 1)[1] for x in full.splitlines() if ". r1 p" in x]
    assert actions == [x.split(": ", 1)[1] for x in seen.splitlines() if ". r1 p" in x]


def test_play_as_json_gives_the_observation_and_a_bad_seat_is_a_usage_error() -> None:
    import json

    code, out = _run("play", "lama", "-p", "3", "--max-actions", "2", "--json", "--as", "0")
    data = json.loads(out)
    assert code == 0 and data["as"] == 0 and data["final"]["as"] == 0
    assert data["final"]["zones"]["hand"][1] == {"hidden": data["final"]["zones"]["hand"][1]
                                                ["hidden"]}
    assert "seed" not in data["final"]
    code, out = _run("play", "lama", "-p", "3", "--as", "3")
    assert code == 2 and "no seat 3: the seats are 0 to 2" in out


def test_legal_and_replay_as_a_seat(tmp_path: Path) -> None:
    situation = tmp_path / "s.yaml"
    code, out = _run("deal", "lama", "-p", "3", "--seed", "4")
    situation.write_text(out, encoding="utf-8")
    code, out = _run("legal", "lama", "-p", "3", "--state", str(situation), "--as", "2")
    assert code == 0 and "as player 2 sees it" in out
    assert "- draw: stock 37 hidden -> 36 hidden; hand[0] 6 hidden -> 7 hidden" in out
    witness = sorted((ROOT / "spec" / "witnesses").glob("lama-*.yaml"))[0]
    code, out = _run("replay", str(witness), "--as", "0")
    assert "as player 0 sees it" in out and " hidden" in out, out
    code, out = _run("replay", str(witness), "--as", "9")
    assert code == 2 and "no seat 9" in out


def _states(game: model.Game, games: int = 6, length: int = 60) -> list[model.State]:
    """States of a few random games, the actor with a choice in each."""
    out = []
    for seed in range(games):
        rng, s = random.Random(seed), game.initial_state(seed)
        for _ in range(length):
            if s.is_terminal:
                break
            options = s.legal_actions()
            if len(options) > 1:
                out.append(s)
            s = s.apply(options[rng.randrange(len(options))])
    return out


def test_a_redeal_depends_on_the_observation_alone() -> None:
    g = model.load("kadabra", players=4)
    for s in _states(g, 3, 30):
        p = s.active_player
        other = s.redeal(p, random.Random(99))
        assert other.observation(p) == s.observation(p)
        assert s.redeal(p, random.Random(7)) == other.redeal(p, random.Random(7))


def test_the_greedy_choice_is_the_same_in_states_that_look_the_same(tmp_path: Path) -> None:
    from properties.compare.policies import Greedy

    # a score that a drawn llama raises at once: the top of the face-down stock matters
    path = tmp_path / "lama.yaml"
    path.write_text(LAMA.replace("  expr: points(p)\n", "  expr: \"points(p) + count(hand[p], "
                                 "'llama')\"\n"), encoding="utf-8")
    g = model.load(path, players=3)
    greedy = Greedy(g)
    cheat = Greedy(g)
    cheat.observers = [type("Open", (), {"blind": False})()] * g.players  # sees everything
    differs = 0
    for s in _states(g):
        p = s.active_player
        other = s.redeal(p, random.Random(s.step))
        options = s.legal_actions()
        assert other.legal_actions() == options

        def choice(who: Greedy, state: model.State,
                   options: list[model.Action] = options) -> model.Action:
            return who.choose([z[:] for z in state.z], list(state.v), options,
                              lambda n: 0, random.Random(1), g.chance(0, -2))

        assert choice(greedy, s) == choice(greedy, other), (s.to_dict(), options)
        differs += choice(cheat, s) != choice(cheat, other)
    # the check can fail: choosing with the real hands and stock does tell them apart
    assert differs > 0


# ----------------------------------------------------------------- the property
MUTANT = ROOT / "tests" / "mutants" / "lama_draw_peeks.yaml"


@pytest.mark.parametrize("spec", ["lama", "kadabra", "lambada", "slambo"])
def test_the_shipped_specs_choose_from_what_the_chooser_sees(spec: str) -> None:
    from properties.concrete.playout import play_games

    for n in sorted({2, model.load_ir(spec, players=2).max_players}):
        batch = play_games(model.load(spec, players=n), 0, 8)
        assert "observation" not in batch.findings, batch.findings["observation"].message


def test_a_guard_that_reads_a_hidden_card_fails_the_observation_property() -> None:
    from properties.concrete.playout import play_games

    batch = play_games(model.load(MUTANT, players=3), 0, 10)
    found = batch.findings.get("observation")
    assert found is not None, "the mutant's draw reads the face-down stock: it must fail"
    assert "player " in found.message and "legal actions depend on what they cannot see" \
        in found.message and "stock" in found.message and "draw" in found.message, found.message
    assert set(batch.findings) == {"observation"}, batch.findings  # nothing else is broken


@pytest.mark.parametrize("players", [2, 6])
def test_the_state_machine_finds_it_and_replay_reproduces_it(players: int,
                                                             tmp_path: Path) -> None:
    from properties.concrete import trace as tr
    from properties.concrete.stateful import Config, run_config

    outcome = run_config(MUTANT, Config(players=players), "ci", checks=["observation"])
    found = outcome["observation"]
    assert found.status == "fails", found.message
    assert found.trace is not None and len(found.trace.actions) <= 10, found.trace
    data = found.replay
    path = tmp_path / "peek.yaml"
    tr.write_replay(path, spec=data["spec"], players=data["players"], seed=0,
                    variants=data["variants"], actions=data["actions"], note=found.message,
                    shuffles=data["shuffles"], prop="observation")
    code, out = _run("replay", str(path), "--quiet")
    assert code == 1 and "reproduced: observation fails" in out, out
    assert "legal actions depend on what they cannot see" in out
