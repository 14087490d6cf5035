"""The plain-data state format: a situation a person can write down in YAML or JSON.

    players: 3            # must match the loaded game
    round: 1
    active: 0             # seat of the player to act (seats count from 0)
    last_actor: 2
    terminal: false
    zones:
      stock: rest         # "rest": every card (or token) not placed elsewhere
      discard: ["6"]      # a pile, bottom first (the last is the top)
      hand:               # one entry per seat for a per-player zone
        - {joker: 1, "3": 2}   # a bag: kind -> count
        - {}
        - {"1": 1}
      pool: rest
      chips: [{}, {}, {}]
    vars:
      quit: [false, false, false]

Zones and variables left out take their initial value (an empty zone; a variable's
`init`). Every card and token of the game must be placed exactly once; `rest` fills a
zone with whatever is left of its class (cards or tokens), in declaration order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import SpecError, Where

if TYPE_CHECKING:
    from .game import Game, State


def state_to_dict(state: State) -> dict[str, Any]:
    g = state.game
    L = g.layout
    names = g.kind_names
    zones: dict[str, Any] = {}
    for z in g.ir.zones:
        base, n = L.zone_base[z.name], L.zone_count[z.name]
        values = []
        for i in range(base, base + n):
            content = state.z[i]
            if z.order == "pile":
                values.append([names[k] for k in content])
            else:
                values.append({names[k]: c for k, c in enumerate(content) if c})
        zones[z.name] = values[0] if z.per is None else values
    vars_: dict[str, Any] = {}
    for v in g.ir.vars:
        base, n = L.var_base[v.name], L.var_count[v.name]
        values = list(state.v[base:base + n])
        vars_[v.name] = values[0] if v.per is None else values
    return {"game": g.id, "players": g.players, "round": state.round,
            "active": state.active_player, "last_actor": state.v[2],
            "terminal": state.is_terminal, "zones": zones, "vars": vars_}


def state_from_dict(game: Game, data: Mapping[str, Any], where: str) -> State:
    from .game import State

    def fail(message: str) -> SpecError:
        return SpecError(Where(where), message)

    if not isinstance(data, Mapping):
        raise fail("a situation is a mapping with players, active, zones and vars")
    known = {"game", "players", "round", "active", "last_actor", "terminal", "zones", "vars",
             "seed", "note"}
    extra = sorted(set(data) - known)
    if extra:
        raise fail(f"unknown key(s) {', '.join(extra)}; expected some of {', '.join(sorted(known))}")
    g, L, P = game, game.layout, game.players
    if data.get("game", g.id) != g.id:
        raise fail(f"this situation is for {data['game']}, not {g.id}")
    if data.get("players", P) != P:
        raise fail(f"this situation has {data['players']} players; load the game with --players "
                   f"{data['players']}")
    total = [k.copies for k in g.ir.kinds]
    placed = [0] * len(total)
    Z: list[list[int] | None] = [None] * L.n_zones
    rest: dict[str, str] = {}
    zones = data.get("zones", {}) or {}
    for name in zones:
        if name not in L.zone_base:
            raise fail(f"unknown zone {name!r}; zones: {', '.join(L.zone_base)}")
    for z in g.ir.zones:
        base, n = L.zone_base[z.name], L.zone_count[z.name]
        value = zones.get(z.name)
        if value == "rest":
            if z.per is not None:
                raise fail(f"zone {z.name}: only a shared zone can be 'rest'")
            if z.holds in rest.values():
                raise fail(f"zone {z.name}: only one zone of {z.holds} can be 'rest'")
            rest[z.name] = z.holds
            continue
        entries = [value] if z.per is None else (value if value is not None else [None] * n)
        if z.per is not None and (not isinstance(entries, list) or len(entries) != n):
            raise fail(f"zone {z.name} is one per {z.per}: give a list of {n} entries")
        for j, entry in enumerate(entries):
            Z[base + j] = _zone_content(g, z, entry, placed, fail, f"{z.name}[{j}]"
                                        if z.per else z.name)
    for name in rest:
        z = next(x for x in g.ir.zones if x.name == name)
        base = L.zone_base[name]
        left = [max(t - p, 0) if g.ir.kinds[k].item_class == z.holds else 0
                for k, (t, p) in enumerate(zip(total, placed, strict=True))]
        if z.order == "pile":
            Z[base] = [k for k, c in enumerate(left) for _ in range(c)]
        else:
            Z[base] = left
        for k, c in enumerate(left):
            placed[k] += c
    for k, (t, p) in enumerate(zip(total, placed, strict=True)):
        if t != p:
            raise fail(f"the situation holds {p} of {g.kind_names[k]!r} but the game has {t}; "
                       "every card and token must be placed once (use 'rest' for a leftover zone)")
    V: list[Any] = [0] * L.n_vars
    V[1] = 1
    g.ns["init_vars"]([z for z in Z], V)
    V[0] = _player(data.get("active", 0), P, fail, "active")
    V[1] = data.get("round", 1)
    V[2] = _player(data.get("last_actor", 0), P, fail, "last_actor")
    vars_ = data.get("vars", {}) or {}
    decls = {v.name: v for v in g.ir.vars}
    for name, value in vars_.items():
        if name not in decls:
            raise fail(f"unknown variable {name!r}; variables: {', '.join(decls) or 'none'}")
        v = decls[name]
        base, n = L.var_base[name], L.var_count[name]
        values = [value] if v.per is None else value
        if not isinstance(values, list) or len(values) != n:
            raise fail(f"variable {name} is one per {v.per}: give a list of {n} values")
        for j, x in enumerate(values):
            V[base + j] = _typed(v.type, x, P, fail, name, g)
    return State(g, tuple(Z), tuple(V), bool(data.get("terminal", False)),
                 int(data.get("seed", 0)), 0)


def _zone_content(g: Game, z: Any, entry: Any, placed: list[int], fail, label: str) -> list[int]:
    index = {n: i for i, n in enumerate(g.kind_names)}

    def kind(name: Any) -> int:
        key = str(name)
        if key not in index:
            raise fail(f"zone {label}: unknown kind {name!r}; kinds: {', '.join(g.kind_names)}")
        k = index[key]
        if g.ir.kinds[k].item_class != z.holds:
            raise fail(f"zone {label} holds {z.holds}; {key!r} is not one of them")
        return k

    if z.order == "pile":
        if entry is None:
            return []
        if not isinstance(entry, list):
            raise fail(f"zone {label} is a pile: give a list of kinds, bottom first")
        out = [kind(x) for x in entry]
        for k in out:
            placed[k] += 1
        return out
    bag = [0] * len(g.kind_names)
    if entry is None:
        return bag
    if not isinstance(entry, Mapping):
        raise fail(f"zone {label} is a bag: give a mapping of kind to count")
    for name, count in entry.items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise fail(f"zone {label}: the count of {name!r} must be a whole number >= 0")
        k = kind(name)
        bag[k] += count
        placed[k] += count
    return bag


def _player(value: Any, players: int, fail, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise fail(f"{name} must be a seat from 0 to {players - 1}, found {value!r}")
    return value


def _typed(t: Any, value: Any, players: int, fail, name: str, g: Game) -> Any:
    if t.name == "bool":
        if not isinstance(value, bool):
            raise fail(f"variable {name} is true or false, found {value!r}")
        return value
    if t.name == "player":
        return _player(value, players, fail, name)
    if t.name == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise fail(f"variable {name} is a whole number, found {value!r}")
        return value
    allowed = g.ir.enums.get(t.ref, ())
    if value not in allowed:
        raise fail(f"variable {name} is one of {', '.join(allowed)}, found {value!r}")
    return value
