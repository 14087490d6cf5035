"""The FAQ shortens a stored parting game once, and a long example says why it is long.

A store written before shortening holds a long seeded game; publishing again replaces it
with a shorter one (its shuffles recorded) that still parts the readings at its end, and
records the budget, so the next publication does not shorten it again. The length known
exactly: LAMA's `empty_stock` readings part after 56 - 6P actions at the fewest (see
tests/test_shorten.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from test_diff import assert_parts_at_the_end
from test_shorten import random_parting

import model
from model.schema import SPEC_DIR
from properties.compare.shorten import STEPS
from properties.concrete import trace as tr
from properties.faq import partings
from properties.faq.entries import build
from properties.faq.markdown import LONG, render, why_long

STORE = SPEC_DIR.parent / "docs" / "faq" / "partings"
KEY = "empty_stock=reshuffle"


def _long_seeded_game(players: int) -> tuple[int, list[str]]:
    """A random game (mostly drawing) after which the readings' legal actions differ."""
    old = model.load("lama", players=players)
    new = model.load("lama", players=players, variants={"empty_stock": "reshuffle"})
    seed, found = random_parting(old, new)
    assert found.mode == "legal"
    return seed, list(found.actions)


def test_a_stored_game_is_shortened_once_and_still_parts_the_readings(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    for f in STORE.glob("lama*.yaml"):
        shutil.copy(f, store / f.name)
    data = yaml.safe_load((store / "lama.yaml").read_text(encoding="utf-8"))
    entry = data["readings"][KEY]
    players = entry["statistics"]["players"]
    seed, actions = _long_seeded_game(players)
    shortest = 56 - 6 * players
    assert len(actions) > shortest + 2
    name = entry["replay"]
    (store / name).unlink()
    tr.write_replay(store / name, spec="lama", players=players, seed=seed,
                    variants={"empty_stock": "no_draw"}, actions=actions)
    entry["how"] = "random games"
    entry.pop("shortened", None)
    (store / "lama.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")

    said: list[str] = []
    faq = build("lama", store=store, say=said.append)
    assert any(m.startswith(KEY) and "shortening" in m for m in said)
    stored = yaml.safe_load((store / "lama.yaml").read_text(encoding="utf-8"))["readings"][KEY]
    assert stored["shortened"] == STEPS and stored["how"] == "random games, shortened"
    replay = tr.read_replay(store / name)
    assert "shuffles" in replay and shortest <= len(replay["actions"]) <= shortest + 2
    assert_parts_at_the_end(store / name, "lama", "lama", {"empty_stock": "no_draw"},
                            {"empty_stock": "reshuffle"})
    assert "random games played on both readings in lock-step, then shortened" in render(faq)

    again: list[str] = []
    second = build("lama", store=store, say=again.append)
    assert not any("shortening" in m for m in again)
    assert render(second) == render(faq)


def _steps(rounds: list[int]) -> tuple[partings.Step, ...]:
    """Steps in rounds of the given lengths, the last action of each round ending it."""
    out = []
    for n in rounds:
        out += [partings.Step(0, "draw") for _ in range(n - 1)]
        out.append(partings.Step(0, "quit", ("all_quit, lama.en#L23",)))
    return tuple(out)


def test_an_example_over_the_limit_says_in_which_round_they_part() -> None:
    steps = _steps([50, 70]) + (partings.Step(0, "draw"),) * 10
    p = partings.Parting("r", "parted", "", "hypothesis, shortened", steps=steps)
    assert len(p.steps) == 130 > LONG
    text = why_long(p)
    assert "they part in round 3, after 2 rounds of 50 to 70 actions" in text
    assert "found no shorter game" in text
    unshortened = partings.Parting("r", "parted", "", "random games", steps=steps)
    assert "it was not shortened" in why_long(unshortened)
    one_round = partings.Parting("r", "parted", "", "random games",
                                 steps=(partings.Step(0, "draw"),) * (LONG + 1))
    assert f"within the first round, after {LONG + 1} actions" in why_long(one_round)
    short = partings.Parting("r", "parted", "", "random games", steps=steps[:LONG])
    assert why_long(short) == ""
