"""The plain-data state format: a situation a person can write down in YAML or JSON.

    players: 3            # must match the loaded game
    round: 1
    active: 0             # seat of the player to act (seats count from 0)
    last_actor: 2
    terminal: false
    seed: 0               # the chance state: shuffles from here on come from seed and step
    step: 0
    zones:
      stock: {top: ["6"], rest: true}   # a pile: these on top, every card not placed below
      discard: ["6"]      # a pile, bottom first (the last is the top)
      hand:               # one entry per seat for a per-player zone
        - {joker: 1, "3": 2}   # a bag: kind -> count
        - rest                 # one entry may hold the rest of its class
        - {"1": 1}
      chips: [{}, {}, {}]
    vars:
      quit: [false, false, false]

A zone (or one seat's entry) left out holds what the spec's set-up puts there, less what
the situation places elsewhere; a variable left out has its value after set-up. `rest`
(or a pile's `{top: [...], rest: true}`) takes every card or token of its class that is
placed nowhere else, in declaration order; one zone per class may say it. Every card and
token must end up placed exactly once.

This module works on plain data only (the spec's IR, the state layout, lists and
dicts); `model.game` builds `State` objects from what it returns. It also reads
situation and replay files with the limits every untrusted input gets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import attrs

from . import ir
from .codegen import Layout
from .errors import SpecError, Where
from .source import Located, read_yaml

#: The largest situation or replay file read, in bytes (a bigger one is refused).
MAX_INPUT_BYTES = 1_000_000
#: The largest magnitude of a number in a situation (round, variable values).
MAX_NUMBER = 10**9
#: Seeds and steps are whole numbers from 0 below these.
MAX_SEED = 2**63
MAX_STEP = 2**32

class Locate(Protocol):
    """Where the value at a path of a situation is, or (`key`) the key naming it."""

    def __call__(self, path: tuple[Any, ...], key: bool = False) -> Where: ...


class Fail(Protocol):
    """The error about the value at a path of a situation, or (`key`) the key naming it."""

    def __call__(self, path: tuple[Any, ...], message: str, key: bool = False) -> SpecError: ...


KNOWN_KEYS = ("game", "players", "round", "active", "last_actor", "terminal", "seed", "step",
              "zones", "vars", "note")


def read_document(path: str | Path, limit: int = MAX_INPUT_BYTES) -> Located:
    """A situation or replay file, read safely: at most `limit` bytes, UTF-8, no NUL byte.

    Raises SpecError with the file (and, for a bad byte, its line and column) instead of
    reading an endless stream or passing binary data to the YAML parser.
    """
    file = str(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        raise SpecError(Where(file), f"cannot read the file: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise SpecError(Where(file), f"the file is larger than the limit of {limit:,} bytes")
    nul = raw.find(b"\0")
    if nul >= 0:
        raise SpecError(_byte_where(file, raw, nul), "the file holds a NUL byte; a situation or "
                                                     "replay file is UTF-8 text (YAML or JSON)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(_byte_where(file, raw, exc.start),
                        f"the file is not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None
    return read_yaml(file, text)


def _byte_where(file: str, raw: bytes, offset: int) -> Where:
    line = raw.count(b"\n", 0, offset) + 1
    start = raw.rfind(b"\n", 0, offset) + 1
    return Where(file, line, len(raw[start:offset].decode("utf-8", "replace")) + 1)


def locator(doc: Located | None, file: str, prefix: tuple[Any, ...] = ()) -> Locate:
    """Where a path inside a situation is: its line and column when read from a file."""
    if doc is None:
        return lambda path, key=False: Where(file)
    return lambda path, key=False: (doc.key_where if key else doc.where)((*prefix, *path))


# ------------------------------------------------------------------ writing
def to_plain(g: ir.GameIR, layout: Layout, z: Sequence[list[int]], v: Sequence[Any],
             terminal: bool, seed: int, step: int) -> dict[str, Any]:
    """The situation format of a state (what `State.to_dict` returns)."""
    names = [k.name for k in g.kinds]
    zones = by_declaration(g.zones, layout.zone_base, layout.zone_count, z,
                           lambda decl, content: plain_zone(names, decl, content))
    vars_ = by_declaration(g.vars, layout.var_base, layout.var_count, v, lambda _d, x: x)
    return {"game": g.id, "players": g.players, "round": v[1], "active": v[0],
            "last_actor": v[2], "terminal": terminal, "seed": seed, "step": step,
            "zones": zones, "vars": vars_}


def plain_zone(names: Sequence[str], decl: ir.ZoneDecl, content: Sequence[int]) -> Any:
    """A zone's slot as the situation format has it: a pile's kinds bottom first, or a
    bag's kind -> count."""
    if decl.order == "pile":
        return [names[k] for k in content]
    return {names[k]: c for k, c in enumerate(content) if c}


def by_declaration(decls: Sequence[ir.ZoneDecl] | Sequence[ir.VarDecl], base: Mapping[str, int],
                   count: Mapping[str, int], slots: Sequence[Any],
                   plain: Callable[[Any, Any], Any]) -> dict[str, Any]:
    """Each declaration's slots (`base`, `count`: where they are) made plain: one value for
    a shared zone or variable, a list of one per member for a family."""
    out: dict[str, Any] = {}
    for decl in decls:
        start = base[decl.name]
        values = [plain(decl, slots[i]) for i in range(start, start + count[decl.name])]
        out[decl.name] = values[0] if decl.per is None else values
    return out


def member_names(g: ir.GameIR, per: str | None) -> tuple[str, ...]:
    """How the members of a family are called in messages: seats by number, an index
    set's members by their `names` (else by number)."""
    if per is None:
        return ("",)
    if per == "player":
        return tuple(str(p) for p in range(g.players))
    ix = next(x for x in g.indices if x.name == per)
    names = getattr(ix, "names", ()) or ()
    return tuple(names) if names else tuple(str(i) for i in range(ix.size))


# ------------------------------------------------------------------ reading
@attrs.frozen
class Parsed:
    """A situation read into the state layout (zone lists and variables), not yet checked
    against the spec's invariants."""

    z: list[list[int]]
    v: list[Any]
    terminal: bool
    seed: int
    step: int


_REST = object()  # an entry that takes the rest of its class
_SETUP = object()  # an entry left out: what the set-up put there


def parse(data: Any, g: ir.GameIR, layout: Layout,
          after_setup: Callable[[int], tuple[list[list[int]], list[Any]]],
          where: Locate) -> Parsed:
    """Read a situation: check every key, type and count, fill in what is left out.

    `after_setup(seed)` gives the zones and variables after the spec's set-up; zones and
    variables the situation leaves out take their contents from there.
    """

    def fail(path: tuple[Any, ...], message: str, key: bool = False) -> SpecError:
        """An error at the value at `path`, or (`key`) at the key naming it."""
        return SpecError(where(path, key), message)

    if not isinstance(data, Mapping):
        raise fail((), "a situation is a mapping with players, active, zones and vars")
    extra = [k for k in data if k not in KNOWN_KEYS]
    if extra:
        raise fail((extra[0],), f"unknown key {show_value(extra[0])}; expected some of "
                                f"{', '.join(KNOWN_KEYS)}", key=True)
    P = g.players
    if "game" in data and data["game"] != g.id:
        raise fail(("game",), f"this situation is for {show_value(data['game'])}, not {g.id}")
    if "players" in data:
        n = _whole(data["players"], fail, ("players",), "players", 1, MAX_NUMBER)
        if n != P:
            raise fail(("players",), f"this situation has {n} players; load the game with "
                                     f"--players {n}")
    if "note" in data and not isinstance(data["note"], str):
        raise fail(("note",), "note is text")
    seed = _whole(data.get("seed", 0), fail, ("seed",), "seed", -MAX_SEED + 1, MAX_SEED - 1)
    step = _whole(data.get("step", 0), fail, ("step",), "step", 0, MAX_STEP - 1)
    terminal = data.get("terminal", False)
    if not isinstance(terminal, bool):
        raise fail(("terminal",), f"terminal is true or false, found {show_value(terminal)}")
    zones = _mapping(data, "zones", fail)
    vars_ = _mapping(data, "vars", fail)

    start_z, start_v = after_setup(seed)
    Z = _zones(g, layout, zones, start_z, fail)
    V = list(start_v)
    V[0] = _seat(data.get("active", start_v[0]), P, fail, ("active",), "active")
    V[1] = _whole(data.get("round", 1), fail, ("round",), "round", 1, MAX_NUMBER)
    V[2] = _seat(data.get("last_actor", start_v[2]), P, fail, ("last_actor",), "last_actor")
    decls = {d.name: d for d in g.vars}
    for name, value in vars_.items():
        path = ("vars", name)
        if name not in decls:
            raise fail(path, f"unknown variable {show_value(name)}; variables: "
                             f"{', '.join(decls) or 'none'}", key=True)
        decl = decls[name]
        base, n = layout.var_base[name], layout.var_count[name]
        values = [value] if decl.per is None else _members(g, decl.per, value, n, fail, path,
                                                           f"variable {name}")
        for j, x in enumerate(values):
            if x is None and decl.per is not None:
                continue  # a member left out keeps its value after set-up
            at = path if decl.per is None else (*path, j)
            V[base + j] = _typed(g, decl.type, x, fail, at, name)
    return Parsed(Z, V, terminal, seed, step)


def show_value(value: Any) -> str:
    """A value as an error message quotes it: short, and safe for huge numbers."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value) if isinstance(value, str | int | float | bool | type(None)) \
        else f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _mapping(data: Mapping[str, Any], key: str, fail: Fail) -> Mapping[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise fail((key,), f"{key} is a mapping of name to value, found {type(value).__name__}")
    return value


def _whole(value: Any, fail: Fail, path: tuple[Any, ...], name: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise fail(path, f"{name} is a whole number, found {show_value(value)}")
    if not lo <= value <= hi:
        raise fail(path, f"{name} must be from {lo} to {hi}, found {show_value(value)}")
    return value


def _seat(value: Any, players: int, fail: Fail, path: tuple[Any, ...], name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise fail(path, f"{name} must be a seat from 0 to {players - 1}, found {show_value(value)}")
    return value


def _typed(g: ir.GameIR, t: Any, value: Any, fail: Fail, path: tuple[Any, ...], name: str) -> Any:
    if t.name == "bool":
        if not isinstance(value, bool):
            raise fail(path, f"variable {name} is true or false, found {show_value(value)}")
        return value
    if t.name == "player":
        return _seat(value, g.players, fail, path, f"variable {name}")
    if t.name == "int":
        return _whole(value, fail, path, f"variable {name}", -MAX_NUMBER, MAX_NUMBER)
    allowed = g.enums.get(t.ref, ())
    if not isinstance(value, str) or value not in allowed:
        raise fail(path, f"variable {name} is one of {', '.join(allowed)}, found {show_value(value)}")
    return value


def _members(g: ir.GameIR, per: str, value: Any, n: int, fail: Fail, path: tuple[Any, ...],
             what: str) -> list[Any]:
    """The per-member entries of a family: a list in member order, or (for an index set
    with names) a mapping of member name to entry."""
    names = member_names(g, per)
    if isinstance(value, Mapping) and per != "player":
        unknown = [k for k in value if k not in names]
        if unknown:
            raise fail((*path, unknown[0]), f"{what}: {show_value(str(unknown[0]))} is not a "
                                            f"{per}; members: {', '.join(names)}", key=True)
        return [value.get(name) for name in names]
    if not isinstance(value, list) or len(value) != n:
        raise fail(path, f"{what} is one per {per}: give a list of {n} entries "
                         f"({', '.join(names)})")
    return value


def _zones(g: ir.GameIR, layout: Layout, zones: Mapping[str, Any], start: list[list[int]], fail: Fail
           ) -> list[list[int]]:
    kinds = g.kinds
    index = {k.name: i for i, k in enumerate(kinds)}
    total = [k.copies for k in kinds]
    placed = [0] * len(kinds)
    Z: list[Any] = [None] * layout.n_zones
    decl_of: list[ir.ZoneDecl] = [d for d in g.zones for _ in range(layout.zone_count[d.name])]
    label: list[tuple[str, tuple[Any, ...]]] = []
    for d in g.zones:
        names = member_names(g, d.per)
        for j in range(layout.zone_count[d.name]):
            path = ("zones", d.name) if d.per is None else ("zones", d.name, j)
            label.append((d.name if d.per is None else f"{d.name}[{names[j]}]", path))
    for name in zones:
        if name not in layout.zone_base:
            raise fail(("zones", name), f"unknown zone {show_value(name)}; zones: "
                                        f"{', '.join(layout.zone_base)}", key=True)
    rest_of: dict[str, int] = {}  # item class -> the zone slot that takes the rest
    tops: dict[int, list[int]] = {}
    for d in g.zones:
        base, n = layout.zone_base[d.name], layout.zone_count[d.name]
        if d.name not in zones:
            entries: list[Any] = [_SETUP] * n
        elif d.per is None:
            entries = [zones[d.name]]
        else:
            value = zones[d.name]
            if value == "rest":
                raise fail(("zones", d.name), f"zone {d.name} is one per {d.per}: give one "
                                              "entry each; one of them may be rest")
            entries = _members(g, d.per, value, n, fail, ("zones", d.name), f"zone {d.name}")
        for j, entry in enumerate(entries):
            slot = base + j
            text, path = label[slot]
            if entry is None:
                entry = _SETUP
            if entry is _SETUP:
                Z[slot] = _SETUP
                continue
            top: list[Any] | None = None
            if entry == "rest":
                top = []
            elif isinstance(entry, Mapping) and d.order == "pile":
                top = _pile_with_rest(entry, fail, path, text)
                if top is None:
                    entry = entry["top"]
            if top is not None:
                if d.holds in rest_of:
                    other = label[rest_of[d.holds]][0]
                    raise fail(path, f"zone {text}: only one zone of {d.holds} can take the "
                                     f"rest; {other} already does")
                rest_of[d.holds] = slot
                tops[slot] = _items(top, d, index, kinds, fail, path, text, placed)
                continue
            Z[slot] = _content(entry, d, index, kinds, fail, path, text, placed)
    # Zones left out: what the set-up put there, as far as it is still unplaced.
    for slot, content in enumerate(Z):
        if content is not _SETUP:
            continue
        d = decl_of[slot]
        source = start[slot]
        if d.order == "pile":
            keep = []
            for k in source:
                if placed[k] < total[k]:
                    keep.append(k)
                    placed[k] += 1
            Z[slot] = keep
        else:
            bag = [0] * len(kinds)
            for k, c in enumerate(source):
                take = min(c, total[k] - placed[k]) if c else 0
                if take > 0:
                    bag[k] = take
                    placed[k] += take
            Z[slot] = bag
    for holds, slot in rest_of.items():
        d = decl_of[slot]
        left = [max(total[k] - placed[k], 0) if kinds[k].item_class == holds else 0
                for k in range(len(kinds))]
        for k, c in enumerate(left):
            placed[k] += c
        if d.order == "pile":
            Z[slot] = [k for k, c in enumerate(left) for _ in range(c)] + tops[slot]
        else:
            bag = left
            for k in tops[slot]:
                bag[k] += 1
            Z[slot] = bag
    for k, (t, p) in enumerate(zip(total, placed, strict=True)):
        if p > t:
            raise fail(("zones",), f"the situation holds {p} of {kinds[k].name!r} but the game "
                                   f"has {t}")
        if p < t:
            raise fail(("zones",), f"{t - p} of {kinds[k].name!r} (of {t}) are placed nowhere; "
                                   f"say where: list them, or let one zone of {kinds[k].item_class} "
                                   "take the rest ('rest', or a pile's {top: [...], rest: true})")
    return Z


def _pile_with_rest(entry: Mapping[str, Any], fail: Fail, path: tuple[Any, ...],
                    text: str) -> list[Any] | None:
    """`{top: [...], rest: true}`: the top cards of a pile (bottom first), the rest below.
    Returns the top list when `rest` is true, None for `rest: false` (just the list)."""
    keys = set(entry)
    if not keys <= {"top", "rest"} or "top" not in keys:
        raise fail(path, f"zone {text} is a pile: give a list of kinds (bottom first), 'rest', "
                         "or {top: [...], rest: true}")
    rest = entry.get("rest", False)
    if not isinstance(rest, bool):
        raise fail(path, f"zone {text}: rest is true or false, found {show_value(rest)}")
    if not isinstance(entry["top"], list):
        raise fail(path, f"zone {text}: top is a list of kinds, bottom first")
    return list(entry["top"]) if rest else None


def _kind(name: Any, d: ir.ZoneDecl, index: Mapping[str, int], kinds: Sequence[ir.Kind],
          fail: Fail, path: tuple[Any, ...], text: str) -> int:
    key = str(name) if isinstance(name, str) or (
        isinstance(name, int) and not isinstance(name, bool) and name.bit_length() <= 64) else None
    if key is None or key not in index:
        raise fail(path, f"zone {text}: unknown kind {show_value(name)}; kinds: "
                         f"{', '.join(k.name for k in kinds)}"[:300])
    k = index[key]
    if kinds[k].item_class != d.holds:
        raise fail(path, f"zone {text} holds {d.holds}; {key!r} is not one of them")
    return k


def _items(items: list[Any], d: ir.ZoneDecl, index: Mapping[str, int], kinds: Sequence[ir.Kind],
           fail: Fail, path: tuple[Any, ...], text: str, placed: list[int]) -> list[int]:
    out = [_kind(x, d, index, kinds, fail, path, text) for x in items]
    for k in out:
        placed[k] += 1
    return out


def _content(entry: Any, d: ir.ZoneDecl, index: Mapping[str, int], kinds: Sequence[ir.Kind],
             fail: Fail, path: tuple[Any, ...], text: str, placed: list[int]) -> list[int]:
    if d.order == "pile":
        if not isinstance(entry, list):
            raise fail(path, f"zone {text} is a pile: give a list of kinds (bottom first), "
                             "'rest', or {top: [...], rest: true}")
        return _items(entry, d, index, kinds, fail, path, text, placed)
    if not isinstance(entry, Mapping):
        raise fail(path, f"zone {text} is a bag: give a mapping of kind to count, or 'rest'")
    bag = [0] * len(kinds)
    for name, count in entry.items():
        k = _kind(name, d, index, kinds, fail, path, text)
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_NUMBER:
            raise fail(path, f"zone {text}: the count of {show_value(name)} must be a whole number "
                             f"from 0 to {MAX_NUMBER}")
        bag[k] += count
        placed[k] += count
    return bag


# ------------------------------------------------------------- consistency
@attrs.frozen
class Problem:
    """Why a well-typed state cannot happen: `kind` is invariant (a spec invariant fails or
    cannot be evaluated), round_end (a round-end condition holds between turns) or
    terminal (the game is said to be over, but no game-end condition holds)."""

    kind: str
    name: str
    reason: str


def problems(z: Sequence[list[int]], v: Sequence[Any], terminal: bool,
             invariants: Sequence[tuple[str, Callable[..., Any]]],
             round_end: Sequence[tuple[str, Callable[..., Any]]],
             game_end: Sequence[tuple[str, Callable[..., Any]]]) -> list[Problem]:
    """Everything that makes a well-typed state impossible (empty if nothing does)."""
    from .errors import ModelError

    out = []

    def holds(fn: Callable[..., Any]) -> bool | str:
        try:
            return bool(fn(z, v))
        except ModelError as exc:
            return f"cannot be evaluated: {exc}"

    for name, fn in invariants:
        ok = holds(fn)
        if ok is not True:
            out.append(Problem("invariant", name, "fails" if ok is False else str(ok)))
    if terminal:
        if game_end and not any(holds(fn) is True for _, fn in game_end):
            out.append(Problem("terminal", "terminal", "the situation says the game is over, but "
                               "no game-end condition holds (" + ", ".join(n for n, _ in game_end)
                               + ")"))
    else:
        for name, fn in round_end:
            if holds(fn) is True:
                out.append(Problem("round_end", name, f"the round-end condition {name} holds, but "
                                   "a round that ends is scored and the next one dealt at once"))
    return out
