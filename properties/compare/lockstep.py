"""Two versions of a game played side by side: what a state is as comparable data, what
differs between a state of each version, and `lockstep`, which plays both along one game
from one deal (the same actions, the same chance) until they part — the engine under the
parting searches (`parting`) and the shortening of a parting game (`shorten`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

import model
from model import Game, ModelError, State
from model.chance import ScriptedChance

#: Renames found between the versions: category (zones, kinds, vars, actions) -> old -> new.
Renames = Mapping[str, Mapping[str, str]]
#: How many legal actions besides the one taken a lock-step game tries at each step (where
#: there are more, an even spread that shifts from step to step).
OTHERS = 8
#: Picks one of the legal actions at a step: (step, their action keys, the old version's
#: state) -> an index.
Chooser = Callable[[int, list[tuple], State], int]


@attrs.frozen
class Part:
    """One part of the state (or of the outcome) that differs: its name and both values."""

    name: str
    old: str
    new: str


# ------------------------------------------------------------------ comparing states
class Names:
    """Old names read as new names (zones, variables, kinds, actions), for renamed versions."""

    def __init__(self, renames: Renames | None = None) -> None:
        r = renames or {}
        self.zones = dict(r.get("zones", {}))
        self.vars = dict(r.get("vars", {}))
        self.kinds = dict(r.get("kinds", {}))
        self.actions = dict(r.get("actions", {}))

    def kind(self, name: str) -> str:
        return self.kinds.get(name, name)

    def content(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.content(x) for x in value]
        if isinstance(value, dict):
            return {self.kind(str(k)): v for k, v in value.items()}
        return self.kind(value) if isinstance(value, str) else value


def observe(state: State, names: Names | None = None) -> dict[str, Any]:
    """A state as comparable plain data, in the new version's names: every zone and variable
    slot, whose turn it is, the round, the game's end, the scores and the winners."""
    d = state.to_dict()
    g = state.game
    out: dict[str, Any] = {}
    per = {z.name: z.per for z in g.ir.zones}
    for name, value in d["zones"].items():
        new = names.zones.get(name, name) if names else name
        if per[name] is not None:
            for i, v in enumerate(value):
                out[f"{new}[{i}]"] = names.content(v) if names else v
        else:
            out[new] = names.content(value) if names else value
    vper = {v.name: v.per for v in g.ir.vars}
    for name, value in d["vars"].items():
        new = names.vars.get(name, name) if names else name
        if vper[name] is not None:
            for i, v in enumerate(value):
                out[f"{new}[{i}]"] = v
        else:
            out[new] = value
    for key in ("active", "round", "last_actor", "terminal"):
        out[key] = d[key]
    out["scores"] = list(state.scores)
    out["winners"] = sorted(state.winners)
    return out


#: What every player sees of a state besides its zones: whose turn it is, the round, the
#: game's end, the scores and the winners. A variable is the rules' bookkeeping: a
#: difference in one alone is not yet a difference a player can see.
SEEN = ("active", "round", "terminal", "scores", "winners")


def seen(state: State, names: Names | None = None) -> dict[str, Any]:
    """What some player can see of a state, as `observe` gives it: each zone as its items
    where some player sees them (docs/spec-language.md#visibility), else as how many items
    it holds and the top one where some player sees that; and `SEEN`."""
    full = observe(state, names)
    out: dict[str, Any] = {}
    for key, (whole, top) in _visibility(state.game, names).items():
        value = full[key]
        if whole:
            out[key] = value
        elif isinstance(value, dict):
            out[key] = ("hidden", sum(value.values()), None)
        else:
            out[key] = ("hidden", len(value), value[-1] if top and value else None)
    for key in SEEN:
        out[key] = full[key]
    return out


_VISIBILITY: dict[tuple[int, int], tuple[Game, dict[str, tuple[bool, bool]]]] = {}


def _visibility(game: Game, names: Names | None) -> dict[str, tuple[bool, bool]]:
    """Per zone member (as `observe` names it): whether some player sees its items, and
    whether some player sees its top."""
    key = (id(game), id(names))
    if key not in _VISIBILITY:  # the game is kept with the answer, so the id stays its own
        P = game.players
        table: dict[str, tuple[bool, bool]] = {}
        for z in game.ir.zones:
            new = names.zones.get(z.name, z.name) if names else z.name
            count = game.layout.zone_count[z.name]
            for i in range(count):
                owner = i if z.per == "player" else None
                shown = [z.shows(p, owner) for p in range(P)]
                table[f"{new}[{i}]" if z.per is not None else new] = (
                    any(w for w, _ in shown), any(t for _, t in shown))
        _VISIBILITY[key] = (game, table)
    return _VISIBILITY[key][1]


def visible_differences(so: State, sn: State, names: Names | None) -> tuple[Part, ...]:
    """What a player can see differ between a state of each version (`seen`)."""
    if (names is None and _same_layout(so.game, sn.game) and so.z == sn.z
            and so.is_terminal == sn.is_terminal and so.active_player == sn.active_player
            and so.round == sn.round and so.scores == sn.scores and so.winners == sn.winners):
        return ()
    return differences(seen(so, names), seen(sn, None))


def state_differences(so: State, sn: State, names: Names | None) -> tuple[Part, ...]:
    """What differs between a state of each version (empty if they are alike)."""
    # fast path: with one layout the raw values compare directly
    if (names is None and _same_layout(so.game, sn.game) and so.z == sn.z and so.v == sn.v
            and so.is_terminal == sn.is_terminal and so.scores == sn.scores
            and so.winners == sn.winners):
        return ()
    return differences(observe(so, names), observe(sn, None))


_LAYOUTS: dict[tuple[int, int], tuple[Game, Game, bool]] = {}


def _same_layout(a: Game, b: Game) -> bool:
    """Both versions keep their states alike: the same kinds, zones, variables and names."""
    key = (id(a), id(b))
    if key not in _LAYOUTS:  # the games are kept with the answer, so the ids stay theirs
        ga, gb = a.ir, b.ir
        same = (a.kind_names == b.kind_names and a.layout == b.layout and ga.enums == gb.enums
                and [(z.name, z.order, z.per) for z in ga.zones]
                == [(z.name, z.order, z.per) for z in gb.zones]
                and [(v.name, v.type) for v in ga.vars] == [(v.name, v.type) for v in gb.vars])
        _LAYOUTS[key] = (a, b, same)
    return _LAYOUTS[key][2]


def differences(a: dict[str, Any], b: dict[str, Any]) -> tuple[Part, ...]:
    return tuple(Part(k, _show(a.get(k, "(none)")), _show(b.get(k, "(none)")))
                 for k in list(a) + [k for k in b if k not in a] if a.get(k) != b.get(k))


def _show(value: Any) -> str:
    if isinstance(value, tuple) and len(value) == 3 and value[0] == "hidden":  # `seen`'s
        return f"{value[1]} hidden" + (f", top {value[2]}" if value[2] is not None else "")
    if isinstance(value, list) and len(value) > 10 and all(isinstance(x, str) for x in value):
        return f"{len(value)} items, top {value[-1]}"
    if isinstance(value, dict):
        return " ".join(f"{k}x{c}" if c > 1 else str(k) for k, c in value.items() if c) or "-"
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return "[" + " ".join(value) + "]" if value else "[]"
    return str(value)


def action_key(action: model.Action, names: Names | None) -> tuple:
    """An action as the same move in either version: its (renamed) name and its values."""
    values = tuple(names.content(v) if names else v for v in action.named_args().values())
    name = names.actions.get(action.name, action.name) if names else action.name
    return (name, values)


def legal_by_key(state: State, names: Names | None) -> dict[tuple, model.Action]:
    return {action_key(a, names): a for a in state.legal_actions()}


def _clone(chance: Any) -> Any:
    """A copy at the same point (None, the seeded chance of each step, needs none)."""
    return chance.copy() if isinstance(chance, ScriptedChance) else chance


@attrs.frozen
class Found:
    actions: tuple[str, ...]
    mode: str
    player: int | None
    old_legal: tuple[str, ...] = ()
    new_legal: tuple[str, ...] = ()
    differences: tuple[Part, ...] = ()
    situation: str = ""
    #: where the states first differed in the rules' own record (a variable, a hidden
    #: zone's order): after how many actions, and what differed; None if they did not
    hidden: tuple[int, tuple[str, ...]] | None = None


def first_hidden(so: State, sn: State, names: Names | None, step: int,
                 before: tuple[int, tuple[str, ...]] | None
                 ) -> tuple[int, tuple[str, ...]] | None:
    """`before`, or where the states differ now (after `step` actions) in what no player
    sees; None while they are alike."""
    if before is not None:
        return before
    parts = state_differences(so, sn, names)
    return (step, tuple(p.name for p in parts)) if parts else None


def lockstep(old: Game, new: Game, chance_o: Any, chance_n: Any, choose: Chooser | Sequence[str],
             *, max_actions: int, names: Names | None = None, seed: int = 0,
             every_action: bool = True, rounds: list[int] | None = None,
             low: dict[str, int] | None = None) -> Found | None:
    """Play both versions side by side from one deal until they part where a player can
    see it — other legal actions, or an action whose outcome differs in what some player
    sees (`seen`) — or the game ends, or `max_actions` are played. `choose(step, keys,
    state)` picks the index of one of the legal actions (their `action_key`s, in the old
    version's order), or a list of action texts is followed. The chances are None for
    seeded games (`seed`; each step's shuffles from the seed, alike in both versions) or
    recorded ones. With `every_action`, the
    outcomes of the other legal actions are compared at every step too (up to `OTHERS` of
    them, each on a copy of the chance), not only the one taken. `rounds` collects the
    number of actions of each round played, `low` the fewest items each shared zone held.
    Where the states first differ only in the rules' own record (a variable), play goes on
    and `Found.hidden` says where."""
    from ..concrete.trace import describe

    try:
        so = old.initial_state(seed, chance_o)
    except ModelError:
        return None
    try:
        sn = new.initial_state(seed, chance_n)
    except ModelError as exc:
        return Found((), "deal", None, differences=(Part("the deal", "dealt", f"fails: {exc}"),))
    diff = visible_differences(so, sn, names)
    if diff:
        return Found((), "deal", None, differences=diff, situation=describe(old, so))
    hidden = first_hidden(so, sn, names, 0, None)
    taken: list[str] = []
    round_now = so.round
    for step in range(max_actions if callable(choose) else len(choose)):
        if so.is_terminal:
            return None
        lo, ln = legal_by_key(so, names), legal_by_key(sn, None)
        if set(lo) != set(ln):
            return Found(tuple(taken), "legal", so.active_player,
                         tuple(str(a) for a in lo.values()), tuple(str(a) for a in ln.values()),
                         situation=describe(old, so), hidden=hidden)
        keys = list(lo)
        if not callable(choose):  # a script of actions
            pick = next((k for k, a in lo.items() if str(a) == choose[step]), None)
            if pick is None:
                return None  # the recorded action is not legal here: nothing to show
        else:
            pick = keys[choose(step, keys, so)]
        tried = [pick]
        if every_action:  # the others too: all of them, or an even spread of OTHERS
            others = [k for k in keys if k != pick]
            step_ = max(1, -(-len(others) // OTHERS))
            tried += others[(step % step_)::step_]
        for key in tried:
            found = outcome_differences(old, new, so, sn, lo[key], ln[key], chance_o, chance_n,
                                        names)
            if found is not None:
                return Found((*taken, str(lo[key])), "state", so.active_player,
                             differences=found, situation=describe(old, so), hidden=hidden)
        try:
            so = so.apply(lo[pick], chance_o)
            sn = sn.apply(ln[pick], chance_n)
        except ModelError:
            return None
        taken.append(str(lo[pick]))
        hidden = first_hidden(so, sn, names, len(taken), hidden)
        if rounds is not None:
            if not rounds or so.round != round_now:
                rounds.append(0)
            rounds[-1] += 1
            round_now = so.round
        if low is not None:
            for name, z in _zone_sizes(so):
                low[name] = min(low.get(name, z), z)
    return None


def _zone_sizes(state: State) -> list[tuple[str, int]]:
    """Each shared zone's size, and the smallest of each per-player (or indexed) family."""
    g = state.game
    out = []
    for name, value in state.to_dict()["zones"].items():
        per = next(z for z in g.ir.zones if z.name == name).per
        sizes = [_size(v) for v in value] if per is not None else [_size(value)]
        out.append((name if per is None else f"some {name}", min(sizes, default=0)))
    return out


def _size(value: Any) -> int:
    return len(value) if isinstance(value, list) else sum(value.values())


def outcome_differences(old: Game, new: Game, so: State, sn: State, ao: model.Action,
                        an: model.Action, chance_o: Any, chance_n: Any, names: Names | None
                        ) -> tuple[Part, ...] | None:
    """How one action's outcomes differ where a player can see it (with copies of the
    same chance), or None."""
    try:
        po: State | None = so.apply(ao, _clone(chance_o))
        why_o = ""
    except ModelError as exc:
        po, why_o = None, str(exc)
    try:
        pn: State | None = sn.apply(an, _clone(chance_n))
        why_n = ""
    except ModelError as exc:
        pn, why_n = None, str(exc)
    if po is None and pn is None:
        return None
    if po is None or pn is None:
        return (Part("the rules", f"undefined: {why_o}" if po is None else "defined",
                     f"undefined: {why_n}" if pn is None else "defined"),)
    diff = visible_differences(po, pn, names)
    return diff or None
