"""Where a reading of an ambiguity parts from the ruling, searched concretely.

The spec's `example:` situation when it names one; otherwise random games under the
ruling are searched for the first state in which the other reading allows different
actions, or an action leads to a different state. The state is given as a seed and the
actions from the deal, so `rulespec play` (or `rulespec legal`) reproduces it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import attrs
import yaml

import model
from model import Game, ModelError, SpecError, State, ir


@attrs.frozen
class Divergence:
    """Where a reading parts from the ruling: the path there and what differs."""

    variant: str
    seed: int | None
    actions: tuple[str, ...]
    situation: str | None
    ruling_legal: tuple[str, ...]
    variant_legal: tuple[str, ...]
    detail: str
    players: int | None = None  # when the example is a situation file with its own count


def find_divergence(spec: str, players: int, amb: ir.Ambiguity, variant: str, *,
                    games: int = 40, max_steps: int = 400) -> Divergence | None:
    """The first state of random games (under the ruling) where `variant` acts differently."""
    base = model.load(spec, players=players)
    try:
        other = model.load(spec, players=players, variants={amb.id: variant})
    except SpecError:
        return None
    if base.ir.kinds != other.ir.kinds:
        diffs = [f"{a.name}: {a.copies} -> {b.copies}" for a, b in
                 zip(base.ir.kinds, other.ir.kinds, strict=True) if a.copies != b.copies]
        changed = [a.name for a, b in zip(base.ir.kinds, other.ir.kinds, strict=True)
                   if a.attrs != b.attrs]
        detail = "; ".join(diffs + ([f"attributes of {', '.join(changed)}"] if changed else []))
        return Divergence(variant, None, (), None, (), (), f"different components: {detail}")
    for seed in range(games):
        rng = random.Random(seed)
        state = base.initial_state(seed)
        trace: list[str] = []
        twin = _twin(other, state)
        if twin is None:
            continue
        if twin.to_dict() != other.initial_state(seed).to_dict():
            return Divergence(variant, seed, (), None, (), (),
                              "the deal itself differs (the set-up rules differ)")
        for _ in range(max_steps):
            if state.is_terminal:
                break
            found = _compare(state, twin, variant, seed, trace)
            if found is not None:
                return found
            actions = state.legal_actions()
            action = actions[rng.randrange(len(actions))]
            trace.append(str(action))
            try:
                state = state.apply(action)
            except ModelError:
                break
            twin = _twin(other, state)
            if twin is None:
                break
    return None


def _twin(other: Game, state: State) -> State | None:
    """The same situation in the game with the other reading."""
    try:
        # the same position under the other reading, even where that reading would not
        # reach it (its round would be over already, say): that is where readings part
        return other.state_from_dict(state.to_dict(), checked=False)
    except SpecError:
        return None


def _compare(state: State, twin: State, variant: str, seed: int, trace: list[str]
             ) -> Divergence | None:
    mine = tuple(str(a) for a in state.legal_actions())
    theirs = tuple(str(a) for a in twin.legal_actions())
    if mine != theirs:
        return Divergence(variant, seed, tuple(trace), None, mine, theirs,
                          "different legal actions")
    base_state = state.game.state_from_dict(state.to_dict())  # same chance as the twin
    for text in mine:
        try:
            a = base_state.apply(base_state.game.parse_action(text)).to_dict()
            b = twin.apply(twin.game.parse_action(text)).to_dict()
        except ModelError:
            continue
        diff = _state_difference(a, b)
        if diff:
            return Divergence(variant, seed, tuple(trace), None, mine, theirs,
                              f"after {text}: {diff}")
    return None


def _state_difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    out = []
    for key in ("active", "round", "terminal"):
        if a[key] != b[key]:
            out.append(f"{key} {a[key]} under the ruling, {b[key]} under this reading")
    for section in ("zones", "vars"):
        for name, value in a[section].items():
            if value != b[section][name]:
                out.append(f"{name} {_short(value)} under the ruling, "
                           f"{_short(b[section][name])} under this reading")
    return "; ".join(out[:3])


def _short(value: Any) -> str:
    if isinstance(value, list) and len(value) > 8:
        return f"[{len(value)} items]"
    return str(value)


def example_divergence(spec_path: Path, amb: ir.Ambiguity, variant: str
                       ) -> Divergence | None:
    """The spec's own example situation, under the ruling and under `variant`."""
    assert amb.example is not None
    path = (spec_path.parent / amb.example).resolve()
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and "situation" in data:
        data = data["situation"]
    players = data["players"]
    base = model.load(str(spec_path), players=players)
    other = model.load(str(spec_path), players=players, variants={amb.id: variant})
    s1 = base.state_from_dict(data, str(path))
    s2 = other.state_from_dict(data, str(path), checked=False)  # the ruling's situation
    found = _compare(s1, s2, variant, 0, [])
    if found is None:
        return None
    return attrs.evolve(found, seed=None, situation=str(path), players=players)
