"""Readable, replayable traces: a game as its deal + actions, written to and read from YAML.

A replay file names the spec, the player count, the variants and the actions (as
`str(action)` writes them). The deal comes from `seed`, or, when the file has a
`shuffles` list (the Hypothesis state machine records one), from those recorded
shuffle outcomes, so the same cards come up in every process. `chance: by-name` draws every
shuffle from the seed on the pile sorted by kind name (`model.chance.NamedChance`), so the
file plays alike under two versions of a game (`rulespec diff` writes such files); with
`shuffles` too, the recorded outcomes come first and the seed serves any shuffle they cannot.
`checked_replay` plays a file back step by step with every generic property checked after every action;
`rulespec replay FILE` prints that as a numbered trace.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import yaml

import model
from model import Game, State
from model.chance import Chance, NamedChance, ScriptedChance
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
                 actions: list[str] | tuple[str, ...], note: str = "",
                 shuffles: list[list[str]] | None = None, prop: str = "",
                 situation: dict[str, Any] | None = None, chance: str | None = None) -> None:
    """Write a replay file: the game, the deal (a seed, or the recorded shuffles), actions.

    `shuffles` lists every shuffle's outcome in the order the game asked for them (the
    deal first), each as kind names bottom first; when present, replaying uses them
    instead of the seed. `prop` names the property the replay shows failing. A z3 witness
    may start from a `situation` (a state as `Game.state_from_dict` reads it) instead.
    `chance="by-name"` shuffles from the seed by kind name (see the module docstring).
    """
    data: dict[str, Any] = {"spec": spec, "players": players, "seed": seed,
                            "variants": dict(variants)}
    if chance is not None:
        data["chance"] = chance
    if prop:
        data["property"] = prop
    if note:
        data["note"] = note
    data["actions"] = list(actions)
    if shuffles is not None:
        data["shuffles"] = [list(s) for s in shuffles]
    if situation is not None:
        data["situation"] = situation
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None,
                          width=100)
    path.write_text(text, encoding="utf-8")


def read_replay(path: Path) -> dict[str, Any]:
    from model.source import read_yaml

    doc = read_yaml(path)
    data = doc.data
    if not isinstance(data, dict) or not {"spec", "players", "actions"} <= set(data) or not (
            "seed" in data or "shuffles" in data):
        raise SpecError(Where(str(path)), "a replay file has spec, players, actions, and a seed "
                                          "or recorded shuffles")
    shuffles = data.get("shuffles")
    if shuffles is not None and not (isinstance(shuffles, list)
                                     and all(isinstance(s, list) for s in shuffles)):
        raise SpecError(doc.where(("shuffles",)), "shuffles is a list of piles (lists of kind "
                                                  "names, bottom first)")
    if data.get("chance") not in (None, "by-name"):
        raise SpecError(doc.where(("chance",)), "chance is by-name (shuffles drawn from the seed "
                                                "on piles sorted by kind name), or left out")
    data["_file"] = str(path)
    return data


def chance_of(game: Game, data: dict[str, Any]) -> Chance | None:
    """The recorded shuffles of a replay as a ScriptedChance, a NamedChance for `chance:
    by-name`, or None for a seed-only replay."""
    named = (NamedChance(int(data.get("seed", 0)), game.kind_names)
             if data.get("chance") == "by-name" else None)
    shuffles = data.get("shuffles")
    if shuffles is None and named is not None:
        return named
    if shuffles is None:
        return None
    index = {n: i for i, n in enumerate(game.kind_names)}
    out = []
    for s in shuffles:
        pile = []
        for name in s:
            if str(name) not in index:
                raise SpecError(Where(str(data.get("_file", "<replay>"))),
                                f"the shuffles name {name!r}, which is not a kind of "
                                f"{game.id}; kinds: {', '.join(game.kind_names)}")
            pile.append(index[str(name)])
        out.append(pile)
    return ScriptedChance(out, fallback=named)


def start(game: Game, data: dict[str, Any]) -> tuple[State, Chance | None]:
    """The first state of a replay and the chance to play it with.

    A replay from random play has a seed, or the shuffles Hypothesis drew. A z3 witness
    records its `shuffles` too and may start from a `situation` instead of a deal.
    """
    chance = chance_of(game, data)
    if data.get("situation") is not None:
        return game.state_from_dict(data["situation"], "<replay situation>"), chance
    return game.initial_state(data.get("seed", 0), chance=chance), chance


def replay(data: dict[str, Any]) -> tuple[Game, list[State]]:
    """All the states of a replay, from the deal on; raises IllegalAction at a bad step."""
    game = model.load(data["spec"], players=data["players"], variants=data.get("variants") or {})
    state, chance = start(game, data)
    states = [state]
    for text in data["actions"]:
        state = state.apply(game.parse_action(str(text)), chance=chance)
        states.append(state)
    return game, states


# ------------------------------------------------------------ checked replays
@attrs.frozen
class Step:
    """One replayed action: who took it, what it cited, what it ended, what failed after it."""

    number: int
    player: int
    round: int
    action: str
    cites: tuple[str, ...]  # the action's citations, then those of the clauses that fired
    ended: tuple[str, ...]  # round-end conditions that fired (with citations)
    game_over: tuple[str, ...]  # game-end conditions that fired (with citations)
    state: State
    problems: tuple[tuple[str, str], ...]


def checked_replay(data: dict[str, Any]) -> tuple[Game, State, list[tuple[str, str]],
                                                 Iterator[Step]]:
    """Replay step by step, checking every generic property after every action.

    Returns the game, the state after the deal, the problems found in it, and an
    iterator of the steps. A step the rules cannot carry out (a ModelError) is reported
    as a `rules_defined` problem of that step, and the replay stops there; an action
    that is not legal raises IllegalAction.
    """
    from .coverage import LineTracer, clauses, executed, line_map
    from .invariants import RoundMeasure, snapshot, state_problems

    game = model.load(data["spec"], players=data["players"], variants=data.get("variants") or {})
    tracer = LineTracer(game)
    with tracer:
        state, chance = start(game, data)
    tracer.take()
    rounds = RoundMeasure(game)
    first = state_problems(game, state) + rounds.start(state)
    table = clauses(game.ir)
    lines = line_map(game)
    conds = {c.name: c.cite for c in game.ir.round_end + game.ir.game_end}

    def steps() -> Iterator[Step]:
        nonlocal state
        for i, text in enumerate(data["actions"], 1):
            action = game.parse_action(str(text))
            decl = game.ir.actions[action.index]
            before = snapshot(state)
            problems: list[tuple[str, str]] = []
            chance_state = _snapshot(chance)
            try:
                with tracer:
                    nxt = state.apply(action, chance=chance)
            except model.ModelError as exc:
                yield Step(i, state.active_player, state.round, str(action), decl.cite, (), (),
                           state, (("rules_defined", str(exc)),))
                return
            hit = executed({lines[n] for n in tracer.take() if n in lines}, table)
            cites = list(decl.cite)
            section = f"action {decl.name}"
            for key in sorted(hit, key=_key_order):
                c = table[key]
                if (c.section != section or not c.own_cite or key.endswith(" else")
                        or f"{key} then" in table or f"{key} else" in table):
                    continue  # an `if` cites its clause when its then-branch fires
                cites.extend(x for x in c.cite if x not in cites)
            ended: tuple[str, ...] = ()
            if nxt.round != state.round or nxt.is_terminal:
                again = _snapshot(chance_state)
                ended = tuple(f"{n} [{', '.join(conds[n])}]"
                              for n in state.round_end_reasons(action, again))
            over = tuple(f"{n} [{', '.join(conds[n])}]" for n in nxt.game_end_reasons())
            if snapshot(state) != before:
                problems.append(("value_semantics", f"apply({action}) changed the state it "
                                                    "was applied to"))
            problems += rounds.step(state, action, nxt)
            problems += state_problems(game, nxt)
            yield Step(i, state.active_player, state.round, str(action), tuple(cites), ended,
                       over, nxt, tuple(problems))
            state = nxt

    return game, state, first, steps()


def _snapshot(chance: Any) -> Any:
    """An independent copy of a chance at its current point (None for the default)."""
    if chance is None:
        return None
    if isinstance(chance, NamedChance):
        return chance.clone()
    return ScriptedChance(list(chance.outcomes), fallback=_snapshot(chance.fallback))


def _key_order(key: str) -> tuple[int, int, str]:
    pos, _, branch = key.partition(" ")
    line, _, col = pos.partition(":")
    return (int(line), int(col), branch)


def step_line(step: Step) -> str:
    """One numbered trace line: player, action and the citations of what fired."""
    text = f"{step.number:3d}. p{step.player}: {step.action}"
    if step.cites:
        text += f"  [{', '.join(step.cites)}]"
    return text


def step_notes(step: Step) -> list[str]:
    """The lines under a trace line: a round or game that ended, a property that failed."""
    out = []
    if step.ended:
        out.append(f"     round {step.round} ends: {'; '.join(step.ended)}")
    if step.game_over:
        out.append(f"     the game ends: {'; '.join(step.game_over)}")
    for prop, message in step.problems:
        out.append(f"     {prop} FAILS here: {message}")
    return out


def deal_text(game: Game, data: dict[str, Any], state: State) -> list[str]:
    """The header of a trace: the game, variants, and the situation after the deal."""
    variants = ", ".join(f"{k}={v}" for k, v in game.ir.chosen.items()) or "none"
    how = (f"{len(data['shuffles'])} recorded shuffles" if data.get("shuffles") is not None
           else f"seed {data.get('seed', 0)}"
           + (", piles shuffled by kind name" if data.get("chance") == "by-name" else ""))
    if data.get("situation") is not None:
        how += ", from a recorded situation"
    return [f"{game.ir.title}, {game.players} players ({how}); variants: {variants}",
            "the deal:"] + ["  " + line for line in describe(game, state).splitlines()]


def failure_text(data: dict[str, Any], replay_path: str | Path | None = None) -> str:
    """A failure as a person reads it: what failed, the deal, then one action a line.

    The trace is produced by replaying `data` with every property checked, so what it
    shows is what `rulespec replay` will show.
    """
    head = f"{data.get('property') or 'a property'} fails: {data.get('note', '')}"
    lines = [head]
    try:
        game, state, problems, steps = checked_replay(data)
        lines += deal_text(game, data, state)
        lines += [f"     {p} FAILS after the deal: {m}" for p, m in problems]
        lines.append("actions (with the rulebook lines of the clauses that fired):"
                     if data["actions"] else "no actions: the deal itself fails")
        for step in steps:
            lines.append(step_line(step))
            lines += step_notes(step)
    except model.RulespecError as exc:
        lines.append(f"(the trace does not replay: {exc})")
    if replay_path is not None:
        lines.append(f"replay it step by step: rulespec replay {replay_path}")
    return "\n".join(lines)
