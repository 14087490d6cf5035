"""Clarifications: run the executable example of a question the rulebooks do answer.

A spec's `clarifications:` entry (docs/spec-language.md#clarifications) states a
question, the answer, the lines it rests on and an example: a situation file, the
readings to play it under, and what the model must do there (the legal actions, the
actions it rejects, and what holds after each of a few actions). `example_problems`
plays the example and lists every expectation the model does not meet, so that a
published answer cannot drift from the rules the model runs. The same comparison
serves the hand-written situation tests (tests/scenarios.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import model
from model import IllegalAction, ModelError, SpecError, State, Where, ir
from model.source import read_yaml


def situation_path(spec_path: Path, example: ir.Example) -> Path:
    """Where an example's situation file lies (its path is relative to the spec)."""
    return spec_path.parent / example.situation


def read_situation(path: Path) -> dict[str, Any]:
    """A situation file's state: the whole file, or its `situation:` mapping."""
    data = read_yaml(path).data
    if isinstance(data, Mapping) and isinstance(data.get("situation"), Mapping):
        data = {"players": data.get("players"), **data["situation"]}
    if not isinstance(data, Mapping) or not isinstance(data.get("players"), int):
        raise SpecError(Where(str(path)), "a situation file is a mapping that names its "
                                          "number of players (players: 3)")
    return dict(data)


def example_problems(spec_path: Path, c: ir.Clarification) -> list[str]:
    """Every way the model, playing `c`'s example, differs from what the example expects."""
    e = c.example
    path = situation_path(spec_path, e)
    data = read_situation(path)
    game = model.load(str(spec_path), players=data["players"], variants=e.variants)
    state = game.state_from_dict(data, str(path))
    label = f"clarification {c.id}"
    problems: list[str] = []
    if e.legal is not None:
        problems += outcome_problems(state, {"legal": list(e.legal)}, f"{label}, situation")
    for text in e.illegal:
        try:
            state.apply(game.parse_action(text))
        except IllegalAction:
            continue
        problems.append(f"{label}: {text!r} was accepted, but the example says it is illegal")
    for i, step in enumerate(e.steps, 1):
        where = f"{label}, step {i} ({step.do})"
        try:
            state = state.apply(game.parse_action(step.do))
        except (IllegalAction, ModelError) as exc:
            problems.append(f"{where}: {exc}")
            break
        problems += outcome_problems(state, step.expect, where)
    return problems


def outcome_problems(state: State, expect: Mapping[str, Any], label: str) -> list[str]:
    """The expected values (keys: active, round, terminal, zones, vars, counts, scores,
    winners, legal) that `state` does not have; zones and variables not named are not
    compared, and `counts` compares only how many items a zone holds."""
    d = state.to_dict()
    out = []
    for key in ("active", "round", "terminal"):
        if key in expect and d[key] != expect[key]:
            out.append(f"{label}: {key} is {d[key]}, expected {expect[key]}")
    for section in ("zones", "vars"):
        for name, value in (expect.get(section) or {}).items():
            if name not in d[section]:
                out.append(f"{label}: no {section[:-1]} {name!r}; known: "
                           f"{', '.join(d[section])}")
            elif d[section][name] != value:
                out.append(f"{label}: {name} is {d[section][name]}, expected {value}")
    for name, value in (expect.get("counts") or {}).items():
        if name not in d["zones"]:
            out.append(f"{label}: no zone {name!r}; known: {', '.join(d['zones'])}")
            continue
        have = d["zones"][name]
        sizes = [_size(z) for z in have] if isinstance(value, list) else _size(have)
        if sizes != value:
            out.append(f"{label}: {name} holds {sizes} items, expected {value}")
    if "scores" in expect and list(state.scores) != list(expect["scores"]):
        out.append(f"{label}: scores are {list(state.scores)}, expected {expect['scores']}")
    if "winners" in expect and list(state.winners) != list(expect["winners"]):
        out.append(f"{label}: winners are {list(state.winners)}, expected {expect['winners']}")
    if "legal" in expect:
        legal = [str(a) for a in state.legal_actions()]
        if legal != list(expect["legal"]):
            out.append(f"{label}: the legal actions are {legal}, expected {expect['legal']}")
    return out


def _size(zone: Any) -> int:
    """Items in a zone as `State.to_dict` writes it (a pile's list, a bag's counts)."""
    return len(zone) if isinstance(zone, list) else sum(zone.values())
