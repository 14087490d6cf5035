"""Readable, replayable traces: a game as seed + actions, written to and read from YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

import model
from model import Game, State
from model.errors import SpecError, Where


def describe(game: Game, state: State) -> str:
    """A few lines a person can read: whose turn, the visible piles, each player's zones."""
    d = state.to_dict()
    lines = [f"round {d['round']}, player {d['active']} to act"
             + (" (game over)" if d["terminal"] else "")]
    for name, value in d["zones"].items():
        decl = next(z for z in game.ir.zones if z.name == name)
        if decl.per is None:
            lines.append(f"  {name}: {_zone_text(value)}")
    for p in range(game.players):
        parts = [f"{name} {_zone_text(value[p])}" for name, value in d["zones"].items()
                 if next(z for z in game.ir.zones if z.name == name).per == "player"]
        vars_ = [f"{k}={v[p]}" for k, v in d["vars"].items()
                 if next(x for x in game.ir.vars if x.name == k).per == "player"]
        lines.append(f"  player {p}: " + "; ".join(parts + vars_))
    shared = [f"{k}={v}" for k, v in d["vars"].items()
              if next(x for x in game.ir.vars if x.name == k).per is None]
    if shared:
        lines.append("  " + ", ".join(shared))
    return "\n".join(lines)


def _zone_text(value: Any) -> str:
    if isinstance(value, list):
        if len(value) > 8:
            return f"{len(value)} cards, top {value[-1]}"
        return "[" + " ".join(map(str, value)) + "]" + (" (top last)" if value else "")
    if not value:
        return "-"
    return " ".join(f"{k}x{c}" if c > 1 else str(k) for k, c in value.items())


def write_replay(path: Path, *, spec: str, players: int, seed: int, variants: dict[str, str],
                 actions: list[str] | tuple[str, ...], note: str = "") -> None:
    data = {"spec": spec, "players": players, "seed": seed, "variants": dict(variants),
            "actions": list(actions)}
    if note:
        data["note"] = note
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def read_replay(path: Path) -> dict[str, Any]:
    from model.source import read_yaml

    doc = read_yaml(path)
    data = doc.data
    if not isinstance(data, dict) or not {"spec", "players", "actions"} <= set(data) or not (
            "seed" in data or "shuffles" in data):
        raise SpecError(Where(str(path)), "a replay file has spec, players, actions, and a seed "
                                          "or recorded shuffles")
    return data


def start(game: Game, data: dict[str, Any]) -> tuple[State, Any]:
    """The first state of a replay and the chance to play it with.

    A replay from random play has a seed. A z3 witness instead records its `shuffles`
    (each a pile bottom to top, by kind name) and may start from a `situation`.
    """
    from model.chance import ScriptedChance

    chance = None
    if data.get("shuffles") is not None:
        index = {n: i for i, n in enumerate(game.kind_names)}
        chance = ScriptedChance([[index[str(k)] for k in order] for order in data["shuffles"]])
    if data.get("situation") is not None:
        return game.state_from_dict(data["situation"], "<replay situation>"), chance
    return game.initial_state(data.get("seed", 0), chance), chance


def replay(data: dict[str, Any]) -> tuple[Game, list[State]]:
    """All the states of a replay, from the deal on; raises IllegalAction at a bad step."""
    game = model.load(data["spec"], players=data["players"], variants=data.get("variants") or {})
    state, chance = start(game, data)
    states = [state]
    for text in data["actions"]:
        state = state.apply(game.parse_action(str(text)), chance)
        states.append(state)
    return game, states
