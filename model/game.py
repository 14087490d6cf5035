"""The reference model's public objects: Game, State and Action.

A `Game` is one spec compiled for one player count and one choice of variants. A
`State` is an immutable value: `apply` returns a new state and leaves the old one as
it was; an illegal action raises `IllegalAction`. Legal actions come out in a stable
order: actions in the order the spec declares them, and within an action its
parameters in the order of their domains (kinds in declaration order, players by
seat, lists as written).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from . import codegen, ir
from .chance import Chance, SeededChance, canonical_order
from .errors import IllegalAction, ModelError, SpecError, Where
from .loader import load_ir


@attrs.frozen(slots=True, repr=False)
class Action:
    """One move: the action's name and its argument values (kinds as indices)."""

    game: Game = attrs.field(eq=False, hash=False)
    index: int
    args: tuple[Any, ...]

    @property
    def name(self) -> str:
        return self.game.ir.actions[self.index].name

    def named_args(self) -> dict[str, Any]:
        decl = self.game.ir.actions[self.index]
        return {p: self.game.render(dom.type.of, v)
                for (p, dom), v in zip(decl.params, self.args, strict=True)}

    def __str__(self) -> str:
        decl = self.game.ir.actions[self.index]
        return decl.say.format(**{k: str(v) for k, v in self.named_args().items()})

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"


class Game:
    """A spec compiled for one player count and one set of variants."""

    def __init__(self, game_ir: ir.GameIR) -> None:
        self.ir = game_ir
        self.players = game_ir.players
        self.kind_names = tuple(k.name for k in game_ir.kinds)
        self._kind_index = {n: i for i, n in enumerate(self.kind_names)}
        # shuffles start from the pile sorted by kind name (the same deal whatever the
        # order the spec declares its kinds in)
        piled = {z.holds for z in game_ir.zones if z.order == "pile"}
        self.canonical = canonical_order(
            self.kind_names, [k.item_class if k.item_class in piled else None for k in game_ir.kinds])
        self.ns, self.source, self.filename = codegen.compile_game(game_ir)
        self.layout = codegen.Layout.of(game_ir)
        ns = self.ns
        self._legal = ns["legal"]
        self._checks = [ns[f"check_{i}"] for i in range(len(game_ir.actions))]
        self._effects = [ns[f"effect_{i}"] for i in range(len(game_ir.actions))]
        self._effects_in_place = [ns[f"effect_in_place_{i}"]
                                  for i in range(len(game_ir.actions))]
        self._round_end, self._game_end = ns["round_end"], ns["game_end"]
        self._scoring, self._round_start = ns["scoring"], ns["round_start"]
        self._action_cache: dict[tuple[int, tuple], Action] = {}
        self._templates = [_template(a) for a in game_ir.actions]
        self.invariants: tuple[tuple[str, Any], ...] = ns["INVARIANTS"]
        sizes = {"none": 1, "kind": len(self.kind_names), "player": self.players}
        sizes.update({f"index:{ix.name}": ix.size for ix in game_ir.indices})
        emitter = codegen.Emitter(game_ir)
        for i, a in enumerate(game_ir.actions):
            table = emitter.action_table_type(a)
            if table == "none":
                ns[f"A{i}"] = self.action(i, ())
            elif table is not None:
                ns[f"A{i}"] = tuple(self.action(i, (v,)) for v in range(sizes[table]))
        self._blank = self._blank_zones()

    @property
    def id(self) -> str:
        return self.ir.id

    def __repr__(self) -> str:
        return f"Game({self.ir.id!r}, players={self.players})"

    # ------------------------------------------------------------- actions
    def action(self, index: int, args: tuple) -> Action:
        key = (index, args)
        a = self._action_cache.get(key)
        if a is None:
            a = self._action_cache[key] = Action(self, index, args)
        return a

    def render(self, t: Any, v: Any) -> Any:
        """A runtime value as a person reads it: kinds by name, the rest as they are."""
        if t is not None and t.name == "kind":
            return self.kind_names[v]
        return v

    def parse_action(self, text: str) -> Action:
        """Read an action back from its `str()` form, e.g. 'play 6' or 'draw'."""
        words = " ".join(text.split())
        for i, (regex, names) in enumerate(self._templates):
            m = regex.fullmatch(words)
            if not m:
                continue
            decl = self.ir.actions[i]
            said = dict(zip(names, m.groups(), strict=True))
            try:
                args = tuple(self._parse_value(dom.type.of, said[p]) for p, dom in decl.params)
            except ValueError:
                continue
            return self.action(i, args)
        known = "; ".join(a.say for a in self.ir.actions)
        raise IllegalAction(f"cannot read {text!r} as an action; actions read like: {known}")

    def _parse_value(self, t: Any, text: str) -> Any:
        if t is not None and t.name == "kind":
            if text not in self._kind_index:
                raise ValueError(text)
            return self._kind_index[text]
        if t is not None and t.name == "bool":
            return {"true": True, "false": False}[text.lower()]
        if t is not None and t.name == "str":
            return text
        return int(text)

    # -------------------------------------------------------------- states
    def initial_state(self, seed: int = 0, chance: Chance | None = None) -> State:
        """The state after set-up and the first round's deal."""
        L = self.layout
        Z = [z[:] for z in self._blank]
        V: list[Any] = [0] * L.n_vars
        V[1] = 1
        ch = chance or SeededChance(seed, -1, self.canonical)
        self.ns["init_vars"](Z, V)
        self.ns["setup"](Z, V, ch)
        self._round_start(Z, V, ch)
        return State(self, tuple(Z), tuple(V), False, seed, 0)

    def random_playout(self, seed: int, pick: Callable[[int], int], max_actions: int = 1_000_000,
                       tally: list[int] | None = None) -> tuple[int, State]:
        """Play one game in place, without building a State per action; for benchmarks.

        `pick(n)` chooses an index among n legal actions. Runs the generated `playout`
        loop (the same statements as `legal` and the effects, written into one
        function); returns the number of actions taken and the final state. `tally`
        (a list of len(actions) + len(round-end conditions) zeros) counts each action
        taken and each round-end condition that ended a round.
        """
        start = self.initial_state(seed)
        Z, V = [z[:] for z in start.z], list(start.v)
        n, terminal = self.ns["playout"](Z, V, SeededChance(seed, 0, self.canonical), pick,
                                        max_actions, tally)
        return n, _new_state(self, tuple(Z), tuple(V), terminal, seed, n)

    def _blank_zones(self) -> list[list[int]]:
        """Every item in its class's start zone, before set-up."""
        L = self.layout
        Z: list[list[int]] = [[] if z.order == "pile" else [0] * len(self.kind_names)
                              for z in self.ir.zones for _ in range(L.zone_count[z.name])]
        order = {z.name: z.order for z in self.ir.zones}
        for k, kind in enumerate(self.ir.kinds):
            zi = L.zone_base[kind.start]
            if order[kind.start] == "pile":
                Z[zi].extend([k] * kind.copies)
            else:
                Z[zi][k] += kind.copies
        return Z

    def state_from_dict(self, data: Mapping[str, Any], where: str = "<situation>") -> State:
        from .situation import state_from_dict

        return state_from_dict(self, data, where)

    def total_counts(self, state: State) -> list[int]:
        """How many of each kind lie in all zones together (conservation checks use it)."""
        totals = [0] * len(self.kind_names)
        for zi, z in enumerate(state.z):
            if self._pile_flags[zi]:
                for k in z:
                    totals[k] += 1
            else:
                for k, c in enumerate(z):
                    totals[k] += c
        return totals

    @property
    def _pile_flags(self) -> list[bool]:
        flags = getattr(self, "_pf", None)
        if flags is None:
            L = self.layout
            flags = self._pf = [z.order == "pile" for z in self.ir.zones
                                for _ in range(L.zone_count[z.name])]
        return flags


def _template(a: ir.ActionDecl) -> tuple[re.Pattern[str], list[str]]:
    names: list[str] = []
    out = ""
    for part in re.split(r"(\{[^}]*\})", " ".join(a.say.split())):
        if part.startswith("{"):
            names.append(part[1:-1])
            out += rf"(?P<{part[1:-1]}>\S+)"
        else:
            out += re.escape(part)
    return re.compile(out), names


@attrs.frozen(slots=True, repr=False, eq=False)
class State:
    """An immutable game state. Compare states with `==` (zones, variables, terminal)."""

    game: Game
    z: tuple[list[int], ...]
    v: tuple[Any, ...]
    is_terminal: bool
    seed: int
    step: int
    _legal_cache: list[Action] | None = attrs.field(default=None, alias="_legal_cache")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, State) and self.game is other.game and self.z == other.z
                and self.v == other.v and self.is_terminal == other.is_terminal)

    def __hash__(self) -> int:
        return hash((tuple(tuple(z) for z in self.z), self.v, self.is_terminal))

    def __repr__(self) -> str:
        return f"State({self.game.id}, round {self.round}, active {self.active_player})"

    @property
    def active_player(self) -> int:
        return self.v[0]

    @property
    def round(self) -> int:
        return self.v[1]

    @property
    def scores(self) -> tuple[int, ...]:
        f = self.game.ns["score"]
        return tuple(f(self.z, self.v, p) for p in range(self.game.players))

    @property
    def winners(self) -> tuple[int, ...]:
        if not self.is_terminal:
            return ()
        return self.game.ns["winners"](self.z, self.v)

    def legal_actions(self) -> list[Action]:
        """The legal actions, in the documented stable order (a fresh list each call)."""
        cached = self._legal_cache
        if cached is None:
            cached = [] if self.is_terminal else self.game._legal(self.z, self.v, self.game.action)
            object.__setattr__(self, "_legal_cache", cached)
        return list(cached)

    def why_illegal(self, action: Action) -> str | None:
        """None if `action` is legal here, else the reason in words."""
        g = self.game
        if action.game is not g and action.game.ir != g.ir:
            return "the action belongs to another game"
        if self.is_terminal:
            return "the game is over"
        decl = g.ir.actions[action.index]
        try:
            ok = g._checks[action.index](self.z, self.v, *action.args)
        except ModelError as exc:
            return f"its condition cannot be evaluated here: {exc}"
        if ok == "domain":
            return f"{action} is not among the choices for {decl.name} here"
        if not ok:
            return f"the condition of {decl.name} does not hold (spec line {decl.where.line})"
        return None

    def apply(self, action: Action, chance: Chance | None = None) -> State:
        """The state after `action`; raises IllegalAction (and changes nothing) if illegal."""
        g = self.game
        for known in self._legal_cache or ():
            if known is action:
                break
        else:
            reason = self.why_illegal(action)
            if reason is not None:
                raise IllegalAction(f"{action} is not legal: {reason}")
        ch = chance or SeededChance(self.seed, self.step, g.canonical)
        Z = list(self.z)
        V = list(self.v)
        actor = V[0]
        try:
            g._effects[action.index](Z, V, ch, *action.args)
        except ModelError as exc:
            raise ModelError(f"{action}: {exc}") from None
        V[2] = actor
        terminal = False
        if g._round_end(Z, V):
            Z = [z[:] for z in Z]
            g._scoring(Z, V, ch)
            if g._game_end(Z, V):
                terminal = True
            else:
                V[1] += 1
                g._round_start(Z, V, ch)
        return _new_state(g, tuple(Z), tuple(V), terminal, self.seed, self.step + 1)

    def round_end_reasons(self, action: Action, chance: Chance | None = None) -> tuple[str, ...]:
        """The names of the round-end conditions that `action` makes true here.

        Evaluated after the action's effects and before scoring, as `apply` does; empty
        if the round goes on. Give `chance` the same shuffles `apply` got (a
        `ScriptedChance` of them) when the action's effects shuffle. Raises
        IllegalAction, like `apply`, if the action is not legal here.
        """
        reason = self.why_illegal(action)
        if reason is not None:
            raise IllegalAction(f"{action} is not legal: {reason}")
        g = self.game
        Z, V = list(self.z), list(self.v)
        actor = V[0]
        g._effects[action.index](Z, V, chance or SeededChance(self.seed, self.step, g.canonical),
                              *action.args)
        V[2] = actor
        return tuple(g.ns["round_end_names"](Z, V))

    def game_end_reasons(self) -> tuple[str, ...]:
        """The names of the game-end conditions that hold in this (terminal) state."""
        if not self.is_terminal:
            return ()
        return tuple(n for n, holds in self.game.ns["GAME_END"] if holds(self.z, self.v))

    def to_dict(self) -> dict[str, Any]:
        from .situation import state_to_dict

        return state_to_dict(self)


_set = object.__setattr__


def _new_state(game: Game, z: tuple, v: tuple, terminal: bool, seed: int, step: int) -> State:
    """A State without the cost of the attrs __init__ (apply makes one per action)."""
    s = object.__new__(State)
    _set(s, "game", game)
    _set(s, "z", z)
    _set(s, "v", v)
    _set(s, "is_terminal", terminal)
    _set(s, "seed", seed)
    _set(s, "step", step)
    _set(s, "_legal_cache", None)
    return s


def load(spec: str | Path, *, players: int, variants: Mapping[str, str] | None = None) -> Game:
    """Load a spec (a path, or a game id of `spec/`) for a player count and variants."""
    if not isinstance(players, int) or isinstance(players, bool):
        raise SpecError(Where(str(spec)), f"players must be a whole number, not {players!r}")
    return _cached_game(str(spec), players, tuple(sorted((variants or {}).items())))


_GAMES: dict[tuple, Game] = {}


def _cached_game(spec: str, players: int, variants: tuple) -> Game:
    path = Path(spec)
    stamp = path.stat().st_mtime_ns if path.exists() else 0
    key = (spec, stamp, players, variants)
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = Game(load_ir(spec, players=players, variants=dict(variants)))
    return game
