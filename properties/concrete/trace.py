"""Readable, replayable traces: a game as its deal + actions, written to and read from YAML.

A replay file names the spec, the player count, the variants and the actions (as
`str(action)` writes them). The deal comes from `seed`, or, when the file has a
`shuffles` list (the Hypothesis state machine records one), from those recorded
shuffle outcomes, so the same cards come up in every process. `checked_replay` plays a
file back step by step with every generic property checked after every action;
`rulespec replay FILE` prints that as a numbered trace.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import yaml

import model
from model import Game, Outcome, State
from model.chance import ScriptedChance
from model.errors import SpecError, Where
from model.limits import short
from model.safe_write import make_folder, write_text
from model.situation import member_names, read_document, show_value


def seen(state: State, viewer: int | None = None) -> dict[str, Any]:
    """The state in the situation format's shape: all of it (`viewer` None), or what seat
    `viewer` sees (`State.observation`), a hidden zone as `{"hidden": n}`."""
    return state.to_dict() if viewer is None else state.observation(viewer).to_dict()


def describe(game: Game, state: State, viewer: int | None = None) -> str:
    """A few lines a person can read: whose turn, the shared zones, each index set's
    zones and variables by member, each player's zones and variables; with `viewer`, as
    that seat sees them (a hidden zone as its count)."""
    d = seen(state, viewer)
    g = game.ir
    per = {z.name: z.per for z in g.zones} | {v.name: v.per for v in g.vars}
    lines = [f"round {d['round']}, player {d['active']} to act"
             + (" (game over)" if d["terminal"] else "")
             + ("" if viewer is None else f", as player {viewer} sees it")]
    for name, value in d["zones"].items():
        if per[name] is None:
            lines.append(f"  {name}: {_zone_text(value)}")
    for ix in g.indices:
        names = member_names(g, ix.name)
        for section, text in (("zones", _zone_text), ("vars", str)):
            for name, value in d[section].items():
                if per[name] == ix.name:
                    lines.append(f"  {name}: " + ", ".join(
                        f"{m} {text(x)}" for m, x in zip(names, value, strict=True)))
    for p in range(game.players):
        parts = [f"{name} {_zone_text(value[p])}" for name, value in d["zones"].items()
                 if per[name] == "player"]
        vars_ = [f"{k}={v[p]}" for k, v in d["vars"].items() if per[k] == "player"]
        lines.append(f"  player {p}: " + "; ".join(parts + vars_))
    shared = [f"{k}={v}" for k, v in d["vars"].items() if per[k] is None]
    if shared:
        lines.append("  " + ", ".join(shared))
    return "\n".join(lines)


def _zone_text(value: Any, hint: bool = True) -> str:
    if isinstance(value, dict) and "hidden" in value:  # an observation's hidden zone
        return f"{value['hidden']} hidden" + (f", top {value['top']}" if "top" in value else "")
    if isinstance(value, list):
        if len(value) > 8:
            return f"{len(value)} cards, top {value[-1]}"
        return "[" + " ".join(map(str, value)) + "]" + (" (top last)" if value and hint else "")
    if not value:
        return "-"
    return " ".join(f"{k}x{c}" if c > 1 else str(k) for k, c in value.items())


def changes(game: Game, before: State, after: State, viewer: int | None = None) -> list[str]:
    """What differs between two states, one item per zone or variable that changed: a
    per-player or per-index family member by member (`hand[2]`, `board[A2]`); with
    `viewer`, what that seat sees change (a hidden zone by its count)."""
    old, new = seen(before, viewer), seen(after, viewer)
    g = game.ir
    per = {z.name: z.per for z in g.zones} | {v.name: v.per for v in g.vars}
    out = []
    for section, text in (("zones", lambda v: _zone_text(v, False)), ("vars", str)):
        for name, a in old[section].items():
            b = new[section][name]
            if a == b:
                continue
            if per[name] is None:
                out.append(f"{name} {text(a)} -> {text(b)}")
                continue
            for m, x, y in zip(member_names(g, per[name]), a, b, strict=True):
                if x != y:
                    out.append(f"{name}[{m}] {text(x)} -> {text(y)}")
    for key in ("active", "round", "terminal"):
        if old[key] != new[key]:
            out.append(f"{key} {old[key]} -> {new[key]}")
    return out


def outcome_text(game: Game, before: State, out: Outcome, viewer: int | None = None) -> str:
    """What one action does, as `rulespec legal` shows it: the changes it makes (as seat
    `viewer` sees them, if given) and, when it ends the round, why, what the scoring
    changes, the round's scores and what follows."""
    if out.round_end is None:
        return "; ".join(changes(game, before, out.state, viewer)) or "no change"
    text = "; ".join(changes(game, before, out.round_end, viewer)) or "no change"
    text += (f" | round {before.round} ends ({', '.join(out.reasons)}); the round scores "
             f"{list(out.round_scores or ())}, totals {list(out.round_end.scores)}")
    if out.state.is_terminal:
        return text + (f"; the game ends ({', '.join(out.state.game_end_reasons())}), winners "
                       f"{list(out.state.winners)}")
    return text + (f"; then round {out.state.round} is dealt, player {out.state.active_player} "
                   "to act")


def round_end_lines(before: State, out: Outcome, indent: str = "      ") -> list[str]:
    """The lines `play` and `replay` print under an action that ended the round."""
    if out.round_end is None:
        return []
    lines = [f"{indent}round {before.round} ends ({', '.join(out.reasons)}): the round scores "
             f"{list(out.round_scores or ())}, totals {list(out.round_end.scores)}"]
    if out.state.is_terminal:
        lines.append(f"{indent}the game ends ({', '.join(out.state.game_end_reasons())}): "
                     f"winners {list(out.state.winners)}")
    return lines


def spec_reference(spec: str | Path) -> str:
    """How a replay file names its spec so it replays from any folder: the game id for a
    spec of the project's spec/ folder, else the spec file's absolute path."""
    from model.schema import SPEC_DIR

    try:
        path = model.resolve_spec_path(spec)
    except SpecError:
        return str(spec)
    resolved = path.resolve()
    if resolved.parent == SPEC_DIR.resolve() and resolved.suffix == ".yaml":
        return resolved.stem
    return str(resolved)


def write_replay(path: Path, *, spec: str, players: int, seed: int, variants: dict[str, str],
                 actions: list[str] | tuple[str, ...], note: str = "",
                 shuffles: list[list[str]] | None = None, prop: str = "",
                 situation: dict[str, Any] | None = None, unrecorded: bool = False,
                 output_folder: bool = True) -> Path:
    """Write a replay file: the game, the deal (a seed, or the recorded shuffles), actions.

    `shuffles` lists every shuffle's outcome in the order the game asked for them (the
    deal first), each as kind names bottom first; when present, replaying uses them
    instead of the seed. `prop` names the property the replay shows failing. A z3 witness
    may start from a `situation` (a state as `Game.state_from_dict` reads it) instead.
    The spec is named by `spec_reference`. An existing file with other contents is never
    overwritten: the replay goes to `<name>-2.yaml` (or the next free number) instead;
    nothing is written through a symbolic link (`model.safe_write`), nor into a link in
    place of the file's folder when that is an `output_folder` (one the command makes, as
    `replays/`, rather than the folder of a file the user named). Returns the path
    written; a file that cannot be written is a SpecError naming it.
    """
    data: dict[str, Any] = {"spec": spec_reference(spec), "players": players, "seed": seed,
                            "variants": dict(variants)}
    if prop:
        data["property"] = prop
    if note:
        data["note"] = note
    data["actions"] = list(actions)
    if shuffles is not None:
        data["shuffles"] = [list(s) for s in shuffles]
        if unrecorded:  # shuffles the record cannot serve come from the seed
            data["unrecorded"] = "seed"
    if situation is not None:
        data["situation"] = situation
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None,
                          width=100)
    target = free_path(path, text)
    try:
        if output_folder:
            make_folder(target.parent)
        return write_text(target, text)
    except OSError as exc:
        raise SpecError(Where(str(exc.filename or target)),
                        f"cannot write here: {exc.strerror or exc}") from None


def free_path(path: Path, text: str) -> Path:
    """`path`, or if a file with other contents is there, `<stem>-<n><suffix>` for the
    first n from 2 that is free (or holds exactly `text` already)."""
    candidate, n = path, 1
    while candidate.exists():
        try:
            if candidate.read_text(encoding="utf-8") == text:
                return candidate
        except (OSError, UnicodeDecodeError):
            pass
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


#: The keys of a replay file, and what each holds.
REPLAY_KEYS = {
    "spec": "the spec: a game id of spec/ or a path to a spec file",
    "players": "the player count",
    "seed": "the seed of the deal",
    "variants": "a mapping of ambiguity id to variant name",
    "actions": "a list of actions as `rulespec play` prints them",
    "shuffles": "a list of piles (lists of kind names, bottom first)",
    "unrecorded": "seed: a shuffle the recorded ones cannot serve is drawn from the seed",
    "situation": "a situation (docs/api.md) to start from instead of the deal",
    "property": "the property the replay shows failing",
    "note": "a note",
}
#: The most actions a replay file may hold.
MAX_REPLAY_ACTIONS = 100_000


def read_replay(path: Path) -> dict[str, Any]:
    """A replay file, checked key by key; errors name the file, line and column."""
    doc = read_document(path)
    data = doc.data

    def fail(keys: tuple, message: str) -> SpecError:
        return SpecError(doc.where(keys), message)

    if not isinstance(data, dict):
        raise fail((), "a replay file is a mapping with spec, players, actions, and a seed or "
                       "recorded shuffles")
    unknown = [k for k in data if k not in REPLAY_KEYS]
    if unknown:  # at the first of them, as written
        raise SpecError(doc.key_where((unknown[0],)), f"unknown key(s) "
                        f"{', '.join(map(str, unknown))}; a replay file has "
                        f"{', '.join(REPLAY_KEYS)}")
    missing = [k for k in ("spec", "players", "actions") if k not in data]
    if missing or not ("seed" in data or "shuffles" in data):
        raise fail((), "a replay file has spec, players, actions, and a seed or recorded "
                       "shuffles" + (f"; missing: {', '.join(missing)}" if missing else ""))
    if not isinstance(data["spec"], str) or not data["spec"]:
        raise fail(("spec",), f"spec is {REPLAY_KEYS['spec']}")
    if not _names_a_spec(data["spec"]):  # a file that is not a spec is never read
        raise fail(("spec",), f"spec names {short(data['spec'])}, which is not a spec: "
                              f"{REPLAY_KEYS['spec']} (.yaml or .yml), or PATH@REV")
    for key in ("players", "seed"):
        if key in data and (not isinstance(data[key], int) or isinstance(data[key], bool)
                            or not -2**63 < data[key] < 2**63):
            raise fail((key,), f"{key} is a whole number, found {show_value(data[key])}")
    variants = data.get("variants") or {}
    if not isinstance(variants, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in variants.items()):
        raise fail(("variants",), "variants is a mapping of ambiguity id to variant name "
                                  "(both text)")
    data["variants"] = variants
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise fail(("actions",), "actions is a list of actions as text (play 3, draw, ...)")
    if len(actions) > MAX_REPLAY_ACTIONS:
        raise fail(("actions",), f"a replay holds at most {MAX_REPLAY_ACTIONS:,} actions")
    shuffles = data.get("shuffles")
    if shuffles is not None and not (isinstance(shuffles, list) and all(
            isinstance(s, list) and all(isinstance(x, str | int) and not isinstance(x, bool)
                                        for x in s) for s in shuffles)):
        raise fail(("shuffles",), "shuffles is a list of piles (lists of kind names, bottom "
                                  "first)")
    if data.get("unrecorded", "seed") != "seed":
        raise fail(("unrecorded",), f"unrecorded is {REPLAY_KEYS['unrecorded']}")
    if data.get("situation") is not None and not isinstance(data["situation"], dict):
        raise fail(("situation",), f"situation is {REPLAY_KEYS['situation']}")
    for key in ("note", "property"):
        if key in data and not isinstance(data[key], str):
            raise fail((key,), f"{key} is text")
    data["spec"] = _spec_of_replay(data["spec"], Path(path))
    data["_file"] = str(path)
    data["_doc"] = doc
    return data


def _names_a_spec(spec: str) -> bool:
    """Whether a replay's `spec` has the form of a spec: a .yaml or .yml path (or PATH@REV
    of one), or a game id of spec/ (or GAME@REV)."""
    from model.schema import SPEC_DIR

    path = spec.rpartition("@")[0] if "@" in spec and not Path(spec).exists() else spec
    if Path(path).suffix in (".yaml", ".yml"):
        return True
    return (bool(path) and Path(path).name == path and path not in (".", "..")
            and (SPEC_DIR / f"{path}.yaml").is_file())


def check_replay_spec(data: dict[str, Any], spec_file: str | Path) -> None:
    """Refuse a replay whose spec (read from `spec_file`) does not load as a spec, without
    a word of what the file holds: a replay may name any file, and only a spec the user
    asked for has its errors shown (`rulespec check SPEC` shows them)."""
    from model.loader import any_player_count

    try:
        model.load_ir(spec_file, players=any_player_count(spec_file))
    except SpecError:
        doc = data.get("_doc")
        where = doc.where(("spec",)) if doc is not None else Where(str(data.get("_file")))
        raise SpecError(where, f"spec names {short(str(data['spec']))}, which is not a spec: "
                               f"it does not load as one (rulespec check {data['spec']} says "
                               "why)") from None


def _spec_of_replay(spec: str, replay_file: Path) -> str:
    """A relative spec path that is not there from here may be relative to the replay."""
    p = Path(spec)
    if p.is_absolute() or p.exists() or p.suffix not in (".yaml", ".yml"):
        return spec
    beside = replay_file.parent / p
    return str(beside) if beside.exists() else spec


def chance_of(game: Game, data: dict[str, Any]) -> ScriptedChance | None:
    """The recorded shuffles of a replay as a ScriptedChance, or None for a seed-only replay.
    With `unrecorded: seed`, a shuffle the record cannot serve (none left, or other cards)
    is drawn from the seed: a game that two versions play alike until they shuffle
    differently replays under both (`rulespec diff` writes such files)."""
    shuffles = data.get("shuffles")
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
    fallback = game.chance(int(data.get("seed", 0)), -2) if data.get("unrecorded") else None
    return ScriptedChance(out, fallback=fallback)


def load_game(data: dict[str, Any]) -> Game:
    return model.load(data["spec"], players=data["players"], variants=data.get("variants") or {})


def start(game: Game, data: dict[str, Any], checked: bool = True
          ) -> tuple[State, ScriptedChance | None]:
    """The first state of a replay and the chance to play it with.

    A replay from random play has a seed, or the shuffles Hypothesis drew. A z3 witness
    records its `shuffles` too and may start from a `situation` instead of a deal, read
    as `Game.state_from_dict` reads one (`checked=False` loads an impossible one).
    """
    chance = chance_of(game, data)
    if data.get("situation") is not None:
        file = str(data.get("_file", "<replay>"))
        doc = data.get("_doc")
        if doc is not None:
            return game.state_from_document(doc, ("situation",), checked=checked), chance
        return game.state_from_dict(data["situation"], file, checked=checked), chance
    return game.initial_state(data.get("seed", 0), chance=chance), chance


def replay(data: dict[str, Any], checked: bool = True) -> tuple[Game, list[State]]:
    """All the states of a replay, from the deal on; raises IllegalAction at a bad step."""
    game = load_game(data)
    state, chance = start(game, data, checked)
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
    round_scores: tuple[int, ...] | None = None  # what the round's scoring added, if it ended
    totals: tuple[int, ...] | None = None  # the scores at the round's end


def checked_replay(data: dict[str, Any], checked: bool = True
                   ) -> tuple[Game, State, list[tuple[str, str]], Iterator[Step]]:
    """Replay step by step, checking every generic property after every action.

    Returns the game, the state after the deal, the problems found in it, and an
    iterator of the steps. A step the rules cannot carry out (a ModelError) is reported
    as a `rules_defined` problem of that step, and the replay stops there; an action
    that is not legal raises IllegalAction. A replay that starts from a situation loads
    it as `Game.state_from_dict` does (`checked=False`: even an impossible one).
    """
    from .coverage import LineTracer, clauses, executed, line_map
    from .invariants import RoundMeasure, snapshot, state_problems

    game = load_game(data)
    tracer = LineTracer(game)
    with tracer:
        state, chance = start(game, data, checked)
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
            try:
                with tracer:
                    out = state.outcome(action, chance=chance)
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
            nxt = out.state
            ended = tuple(f"{n} [{', '.join(conds[n])}]" for n in out.reasons)
            over = tuple(f"{n} [{', '.join(conds[n])}]" for n in nxt.game_end_reasons())
            if snapshot(state) != before:
                problems.append(("value_semantics", f"apply({action}) changed the state it "
                                                    "was applied to"))
            problems += rounds.step(state, action, nxt)
            problems += state_problems(game, nxt)
            yield Step(i, state.active_player, state.round, str(action), tuple(cites), ended,
                       over, nxt, tuple(problems), out.round_scores,
                       out.round_end.scores if out.round_end is not None else None)
            state = nxt

    return game, state, first, steps()


def _key_order(key: str) -> tuple[int, int, str]:
    pos, _, branch = key.partition(" ")
    line, _, col = pos.partition(":")
    return (int(line), int(col), branch)


def step_line(step: Step) -> str:
    """One numbered trace line: player, action and the citations of what fired."""
    text = f"{step.number:3d}. {actor(step.state.game, step.player, step.action)}: {step.action}"
    if step.cites:
        text += f"  [{', '.join(step.cites)}]"
    return text


def actor(game: Game, player: int, action: str) -> str:
    """Who took an action, as a trace line names them: `p<seat>`, or `everyone` for a
    joint action (every seat chose a part of it at once)."""
    return "everyone" if game.parse_action(action).is_joint else f"p{player}"


def step_notes(step: Step) -> list[str]:
    """The lines under a trace line: a round or game that ended, a property that failed."""
    out = []
    if step.ended:
        out.append(f"     round {step.round} ends: {'; '.join(step.ended)}")
        out.append(f"     the round scores {list(step.round_scores or ())}, totals "
                   f"{list(step.totals or ())}")
    if step.game_over:
        out.append(f"     the game ends: {'; '.join(step.game_over)}")
    for prop, message in step.problems:
        out.append(f"     {prop} FAILS here: {message}")
    return out


def deal_text(game: Game, data: dict[str, Any], state: State,
              viewer: int | None = None) -> list[str]:
    """The header of a trace: the game, variants, and the situation after the deal (as
    seat `viewer` sees it, if given)."""
    variants = ", ".join(f"{k}={v}" for k, v in game.ir.chosen.items()) or "none"
    how = (f"{len(data['shuffles'])} recorded shuffles" if data.get("shuffles") is not None
           else f"seed {data.get('seed', 0)}")
    if data.get("situation") is not None:
        how += ", from a recorded situation"
    return [f"{game.ir.title}, {game.players} players ({how}); variants: {variants}",
            "the deal:"] + ["  " + line for line in describe(game, state, viewer).splitlines()]


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
