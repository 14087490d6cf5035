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
import threading
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any

import attrs

from . import codegen, ir, joint, situation
from .chance import Chance, SeededChance, canonical_order
from .errors import IllegalAction, InternalError, ModelError, SpecError, Where
from .fold import fold
from .loader import load_ir
from .observe import Observation, Observer, Shuffler
from .places import Places
from .source import Located


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

    @property
    def is_joint(self) -> bool:
        """A joint action (`simultaneous: true`): every seat chose a part of it at once."""
        return bool(self.game.ir.actions[self.index].joint)

    def component(self, seat: int) -> tuple[Any, ...]:
        """What seat `seat` chose in a joint action: its arguments (kinds as indices), in
        the order of the spec's `params`. ValueError for an action that is not joint."""
        decl = self.game.ir.actions[self.index]
        if not decl.joint:
            raise ValueError(f"{self} is not a joint action: the player to act chose it alone")
        return joint.component(decl, self.args, seat)

    def component_text(self, seat: int) -> str:
        """Seat `seat`'s part of a joint action's text (`lay c7`), as its `say` reads."""
        decl = self.game.ir.actions[self.index]
        self.component(seat)  # a joint action, and a seat it has
        named = self.named_args()
        mine = (decl.params[i][0] for i in decl.joint[seat])
        return decl.say.split(joint.SEPARATOR)[seat].format(**{p: str(named[p]) for p in mine})

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"


class Game:
    """A spec compiled for one player count and one set of variants."""

    def __init__(self, game_ir: ir.GameIR, readable: bool = False) -> None:
        """`readable`: run the form of the module a designer reads (`rulespec show-code`;
        slots named, no playout loop), to test it against the form that runs."""
        self.ir = game_ir
        self.is_readable = readable
        self.readable_form: Game | None = None
        self.players = game_ir.players
        self.kind_names = tuple(k.name for k in game_ir.kinds)
        self._kind_index = {n: i for i, n in enumerate(self.kind_names)}
        # shuffles start from the pile sorted by kind name (the same deal whatever the
        # order the spec declares its kinds in)
        piled = {z.holds for z in game_ir.zones if z.order == "pile"}
        self.canonical = canonical_order(
            self.kind_names, [k.item_class if k.item_class in piled else None for k in game_ir.kinds])
        self.ns, self.source, self.filename = codegen.compile_game(game_ir, readable)
        self.layout = codegen.Layout.of(game_ir)
        ns = self.ns
        self._legal = ns["legal"]
        self._checks = [ns[f"check_{i}"] for i in range(len(game_ir.actions))]
        # step_<i>(Z, V, ch, args): action i's effects (copy on write), the last actor set,
        # and whether the round ends; _shuffles[i]: whether they need the chance (else
        # apply makes none); _effects[i](Z, V, ch, *args): the same, arguments spread
        self._steps = [ns[f"step_{i}"] for i in range(len(game_ir.actions))]
        self._effects = [_spread(step) for step in self._steps]
        emitter = codegen.Emitter(game_ir)
        self._shuffles = ["shuffle" in emitter.effect_names(a.effects) for a in game_ir.actions]
        self._setup_shuffles = "shuffle" in emitter.effect_names(game_ir.setup)
        # what `apply` looks up per action, in one tuple: (step_<i>, needs the chance)
        self._plans = tuple(zip(self._steps, self._shuffles, strict=True))
        self._make = self.action  # bound once: legal_actions passes it on every call
        self._after_setup: tuple[list[list[int]], list[Any]] | None = None
        # the readable form has no in-place copies: its steps change Z and V in place too
        self._effects_in_place = self._effects if readable else [
            ns[f"effect_in_place_{i}"] for i in range(len(game_ir.actions))]
        self._round_end, self._game_end = ns["round_end"], ns["game_end"]
        self._scoring, self._round_start = ns["scoring"], ns["round_start"]
        self._round_over = ns["round_over"]
        self._action_cache: dict[tuple[int, tuple[Any, ...]], Action] = {}
        self._templates = [_template(a) for a in game_ir.actions]
        self.invariants: tuple[tuple[str, Any], ...] = ns["INVARIANTS"]
        sizes = {"none": 1, "kind": len(self.kind_names), "player": self.players}
        sizes.update({f"index:{ix.name}": ix.size for ix in game_ir.indices})
        for i, a in enumerate(game_ir.actions):
            table = emitter.action_table_type(a)
            if table == "none":
                ns[f"A{i}"] = self.action(i, ())
            elif table is not None:
                ns[f"A{i}"] = tuple(self.action(i, (v,)) for v in range(sizes[table]))
        self._blank = self._blank_zones()
        self.places = Places(game_ir)
        self._domains: list[list[tuple[str, tuple[Any, ...] | None]]] | None = None
        self._observers: dict[int, Observer] = {}

    def readable(self) -> Game:
        """This game compiled in the form a designer reads (`rulespec show-code`): zones and
        variables named by the spec, each action once, its rulebook lines cited, none of
        the playout shortcuts. It plays the same games (tests/test_readable_model.py)."""
        if self.readable_form is None:
            self.readable_form = self if self.is_readable else Game(self.ir, readable=True)
        return self.readable_form

    def observer(self, player: int) -> Observer:
        """Seat `player`'s view of this game (`model.observe`): what its zones show them."""
        seen = self._observers.get(player)
        if seen is None:
            if not isinstance(player, int) or isinstance(player, bool) \
                    or not 0 <= player < self.players:
                raise SpecError(Where(self.ir.file), f"no seat {player!r}: seats are 0 to "
                                                     f"{self.players - 1}")
            seen = self._observers[player] = Observer(self.ir, self.layout, player)
        return seen

    @property
    def id(self) -> str:
        return self.ir.id

    def __repr__(self) -> str:
        return f"Game({self.ir.id!r}, players={self.players})"

    # ------------------------------------------------------------- actions
    def action(self, index: int, args: tuple[Any, ...]) -> Action:
        key = (index, args)
        a = self._action_cache.get(key)
        if a is None:
            a = self._action_cache[key] = Action(self, index, args)
        return a

    def render(self, t: Any, v: Any) -> Any:
        """A runtime value as a person reads it: kinds by name, members of an index set
        by their `names` (when the spec gives them), the rest as they are."""
        if t is not None and t.name == "kind":
            return self.kind_names[v]
        if t is not None and t.name == "index":
            names = self._index_names(t.ref)
            if names and isinstance(v, int) and 0 <= v < len(names):
                return names[v]
        return v

    def _index_names(self, index_set: str | None) -> tuple[str, ...]:
        for ix in self.ir.indices:
            if ix.name == index_set:
                return ix.names
        return ()

    def parse_action(self, text: str) -> Action:
        """Read an action back from its `str()` form, e.g. 'play 6' or 'draw'.

        Raises IllegalAction for text that names no action, or a value that no state
        could offer for a parameter (a kind of the wrong class, a seat or position out of
        range, a number outside the parameter's list).
        """
        if not isinstance(text, str):
            raise IllegalAction(f"an action is text, not {type(text).__name__}")
        words = " ".join(text.split())[:500]
        problem = ""
        for i, (regex, names) in enumerate(self._templates):
            m = regex.fullmatch(words)
            if not m:
                continue
            decl = self.ir.actions[i]
            said = dict(zip(names, m.groups(), strict=True))
            args = []
            for j, (p, dom) in enumerate(decl.params):
                what, allowed = self.param_domains()[i][j]
                try:
                    value = self._parse_value(dom.type.of, said[p])
                except (ValueError, KeyError):
                    value = None
                if value is None or (allowed is not None and value not in allowed):
                    shown = [str(self.render(dom.type.of, x)) for x in allowed or ()]
                    problem = (f"; {said[p]!r} is not {what}" + (
                        f" ({', '.join(shown[:20])}{', ...' if len(shown) > 20 else ''})"
                        if shown else ""))
                    break
                args.append(value)
            else:
                return self.action(i, tuple(args))
        known = "; ".join(a.say for a in self.ir.actions)
        raise IllegalAction(f"cannot read {words!r} as an action{problem}; actions read like: "
                            f"{known}")

    def _parse_value(self, t: Any, text: str) -> Any:
        if t is not None and t.name == "kind":
            if text not in self._kind_index:
                raise ValueError(text)
            return self._kind_index[text]
        if t is not None and t.name == "bool":
            return {"true": True, "false": False}[text.lower()]
        if t is not None and t.name == "str":
            return text
        if t is not None and t.name == "index" and self._index_names(t.ref):
            return self._index_names(t.ref).index(text)
        if not re.fullmatch(r"-?[0-9]{1,18}", text):
            raise ValueError(text)
        return int(text)

    def param_domains(self) -> list[list[tuple[str, tuple[Any, ...] | None]]]:
        """Per action, per parameter: what it is (in words) and every value any state could
        offer for it (None when only the state can say)."""
        if self._domains is None:
            self._domains = [[self._static_domain(dom) for _, dom in a.params]
                             for a in self.ir.actions]
        return self._domains

    def _static_domain(self, dom: ir.Expr) -> tuple[str, tuple[Any, ...] | None]:
        g = self.ir
        classes = {"cards": "a card", "tokens": "a token"}

        def of_class(holds: str) -> tuple[str, tuple[Any, ...]]:
            return (classes.get(holds, "a kind"),
                    tuple(k for k, kind in enumerate(g.kinds) if kind.item_class == holds))

        d = fold(dom)
        if isinstance(d, ir.ListLit) and all(isinstance(x, ir.Const) for x in d.items):
            return "one of the choices", tuple(x.value for x in d.items if isinstance(x, ir.Const))
        if isinstance(d, ir.Call) and d.fn == "kinds" and isinstance(d.args[0], ir.Zone):
            zone = next(z for z in g.zones if z.name == d.args[0].family)
            return of_class(zone.holds)
        if isinstance(d, ir.Builtin) and d.name in ("cards", "tokens"):
            return of_class(d.name)
        t = dom.type.of
        if t is None:
            return "a value", None
        if t.name == "kind":
            return "a kind", tuple(range(len(g.kinds)))
        if t.name == "player":
            return "a seat", tuple(range(self.players))
        if t.name == "index":
            size = next((ix.size for ix in g.indices if ix.name == t.ref), 0)
            return f"a {t.ref}", tuple(range(size))
        if t.name == "bool":
            return "true or false", (False, True)
        if t.name == "str" and t.ref in g.enums:
            return "one of the choices", tuple(g.enums[t.ref])
        return "a value", None

    # -------------------------------------------------------------- states
    def initial_state(self, seed: int = 0, chance: Chance | None = None) -> State:
        """The state after set-up and the first round's deal."""
        ch = chance or self.chance(seed, -1)
        Z, V = self._set_up(ch)
        self._round_start(Z, V, ch)
        state = _new(State)
        state._game, state._z, state._v, state._terminal = self, Z, V, False
        state._seed, state._step, state._legal = seed, 0, None
        return state

    def _set_up(self, chance: Chance, fresh: bool = False) -> tuple[list[list[int]], list[Any]]:
        """Fresh zones and variables after the spec's `setup`, drawing from `chance`.

        A set-up that shuffles nothing is the same for every seed: it runs once and
        later calls copy its result (unless `fresh`: run it again, keeping nothing)."""
        done = None if fresh else self._after_setup
        if done is None:
            Z = [z[:] for z in self._blank]
            V: list[Any] = [0] * self.layout.n_vars
            V[1] = 1
            self.ns["init_vars"](Z, V)
            self.ns["setup"](Z, V, chance)
            if self._setup_shuffles or fresh:
                return Z, V
            done = self._after_setup = (list(map(list.copy, Z)), V[:])
        return list(map(list.copy, done[0])), done[1][:]

    def random_playout(self, seed: int, pick: Callable[[int], int], max_actions: int = 1_000_000,
                       tally: list[int] | None = None) -> tuple[int, State]:
        """Play one game in place, without building a State per action; for benchmarks.

        `pick(n)` chooses an index among n legal actions. Runs the generated `playout`
        loop (the same statements as `legal` and the effects, written into one
        function); returns the number of actions taken and the final state. `tally`
        (a list of len(actions) + len(round-end conditions) zeros) counts each action
        taken and each round-end condition that ended a round.
        """
        if self.is_readable:
            raise InternalError("the readable form of the model has no playout loop")
        start = self.initial_state(seed)
        Z, V = [z[:] for z in start._z], start._v[:]
        n, terminal = self.ns["playout"](Z, V, self.chance(seed, 0), pick,
                                        max_actions, tally)
        return n, State(self, Z, V, terminal, seed, n)

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

    def chance(self, seed: int, step: int) -> SeededChance:
        """The chance of step `step` of the game seeded `seed` (-1: the set-up and first
        deal), with this game's canonical order of kinds: every seeded shuffle goes
        through here, so `apply`, `outcome` and the playouts draw the same."""
        return SeededChance(seed, step, self.canonical)

    def after_setup(self, seed: int = 0, *, fresh: bool = False
                    ) -> tuple[list[list[int]], list[Any]]:
        """The zones and variables after the spec's `setup`, before the first deal.
        `fresh`: run the set-up again even where its result is kept from an earlier call
        (a set-up that shuffles nothing runs once), as coverage tracing needs to see it."""
        return self._set_up(self.chance(seed, -1), fresh)

    def state_from_dict(self, data: Mapping[str, Any], where: str = "<situation>", *,
                        checked: bool = True) -> State:
        """A state from the situation format (docs/api.md).

        Raises SpecError for a malformed situation, and, unless `checked` is False, for
        one the rules cannot reach: a spec invariant that fails (named, with its spec
        line), a round-end condition that holds between turns, a game declared over that
        no game-end condition ends. `checked=False` loads such a state on purpose.
        """
        return self._from_plain(data, situation.locator(None, where), where, checked)

    def read_state(self, path: str | Path, *, checked: bool = True) -> State:
        """A state from a situation file (YAML or JSON, at most
        `model.situation.MAX_INPUT_BYTES`); errors name its line and column."""
        return self.state_from_document(situation.read_document(path), checked=checked)

    def state_from_document(self, doc: Located, at: tuple[Any, ...] = (), *, checked: bool = True
                            ) -> State:
        """A state from the situation at `at` inside a document read with
        `model.source.read_yaml` (a replay file's `situation`, say)."""
        data: Any = doc.data
        for key in at:
            data = data[key]
        return self._from_plain(data, situation.locator(doc, doc.file, at), doc.file, checked)

    def _from_plain(self, data: Any, where: situation.Locate, file: str, checked: bool) -> State:
        p = situation.parse(data, self.ir, self.layout, self.after_setup, where)
        if checked:
            self._require_consistent(p, file)
        return State(self, p.z, p.v, p.terminal, p.seed, p.step)

    def _require_consistent(self, p: situation.Parsed, file: str) -> None:
        ns = self.ns
        found = situation.problems(p.z, p.v, p.terminal, self.invariants, ns["ROUND_END"],
                                   ns["GAME_END"])
        if not found:
            return
        names = [n for n, _ in self.invariants]
        lines = []
        for problem in found:
            if problem.kind == "invariant":
                i = names.index(problem.name)
                lines.append(f"the spec's invariant {problem.name} {problem.reason} "
                             f"({self.places.invariant(i)}: {self.places.invariant_text(i)})")
            else:
                lines.append(problem.reason)
        more = f" (and {len(lines) - 1} more: {'; '.join(lines[1:])})" if len(lines) > 1 else ""
        raise SpecError(Where(file), f"not a situation the rules can reach: {lines[0]}{more}; "
                                     "load it unchecked (--unchecked, checked=False) to explore "
                                     "it anyway")

    def _failed_part(self, state: State, action: Action) -> str:
        """The conjunct of an action's `when:` that is false (or cannot be evaluated) in
        `state`, as written, with its place in the spec; empty if every conjunct holds."""
        i = action.index
        fns = self.ns[f"GUARD_PARTS_{i}"]
        parts = self.places.guard_parts(i, len(fns))
        for j, fn in enumerate(fns):
            part = parts[j] if len(parts) == len(fns) else parts[0]
            try:
                ok = fn(state.z, state.v, *action.args)
            except ModelError as exc:
                return f"`{part.text}` cannot be evaluated here ({exc}) ({part.where})"
            if not ok:
                return f"`{part.text}` is false ({part.where})"
        return ""

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

    def misplaced(self, state: State) -> list[str]:
        """Each item lying in a zone of the other class ("card 3 in chips[0]"): a spec that
        moves a card among tokens breaks conservation without losing a count."""
        L, out = self.layout, []
        for z in self.ir.zones:
            for j in range(L.zone_count[z.name]):
                content = state.z[L.zone_base[z.name] + j]
                kinds = content if z.order == "pile" else [k for k, c in enumerate(content) if c]
                where = z.name if z.per is None else f"{z.name}[{j}]"
                out += [f"{self.ir.kinds[k].item_class[:-1]} {self.kind_names[k]} in {where}"
                        for k in kinds if self.ir.kinds[k].item_class != z.holds]
        return out

    @property
    def _pile_flags(self) -> list[bool]:
        flags = getattr(self, "_pf", None)
        if flags is None:
            L = self.layout
            flags = self._pf = [z.order == "pile" for z in self.ir.zones
                                for _ in range(L.zone_count[z.name])]
        return flags


def _spread(step: Callable[..., bool]) -> Callable[..., bool]:
    def effect(Z: list[Any], V: list[Any], ch: Chance, *args: Any) -> bool:
        return step(Z, V, ch, args)
    return effect


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


class State:
    """An immutable game state. Compare states with `==` (zones, variables, terminal).

    A plain class with slots rather than an attrs class: `apply` makes one per action,
    and a frozen attrs class sets each field through `object.__setattr__`, which costs
    four times as much. The fields are private; the public names are read-only
    properties, so `state.z = ...` raises AttributeError as a frozen class does. The
    zones and variables are kept in lists that nothing changes once the state is made
    (`apply` copies them, and copies a zone before changing it); `z` and `v` give them
    as tuples.
    """

    __slots__ = ("_game", "_legal", "_seed", "_step", "_terminal", "_v", "_z")

    def __init__(self, game: Game, z: Sequence[list[int]], v: Sequence[Any],
                 is_terminal: bool, seed: int, step: int) -> None:
        self._game = game
        self._z = list(z)
        self._v = list(v)
        self._terminal = is_terminal
        self._seed = seed
        self._step = step
        self._legal: list[Action] | None = None  # the legal actions, once asked for

    game = property(attrgetter("_game"), doc="The Game this state belongs to.")
    @property
    def z(self) -> tuple[list[int], ...]:
        """The zones (`codegen.Layout`): a bag is a list of counts per kind, a pile a list
        of kinds, bottom first. Read them; do not change them."""
        return tuple(self._z)

    @property
    def v(self) -> tuple[Any, ...]:
        """The variables (`codegen.Layout`)."""
        return tuple(self._v)

    is_terminal = property(attrgetter("_terminal"), doc="The game is over.")
    seed = property(attrgetter("_seed"), doc="The game's seed (the chance state).")
    step = property(attrgetter("_step"), doc="Actions taken so far (the chance state).")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, State) and self._game is other._game and self._z == other._z
                and self._v == other._v and self._terminal == other._terminal)

    def __hash__(self) -> int:
        return hash((tuple(map(tuple, self._z)), tuple(self._v), self._terminal))

    def __repr__(self) -> str:
        return f"State({self._game.id}, round {self.round}, active {self.active_player})"

    @property
    def active_player(self) -> int:
        seat: int = self._v[0]
        return seat

    @property
    def round(self) -> int:
        number: int = self._v[1]
        return number

    @property
    def scores(self) -> tuple[int, ...]:
        f = self._game.ns["score"]
        return tuple(f(self._z, self._v, p) for p in range(self._game.players))

    @property
    def winners(self) -> tuple[int, ...]:
        if not self._terminal:
            return ()
        seats: tuple[int, ...] = self._game.ns["winners"](self._z, self._v)
        return seats

    def legal_actions(self) -> list[Action]:
        """The legal actions, in the documented stable order (a fresh list each call)."""
        legal = self._legal
        if legal is None:
            g = self._game
            legal = self._legal = [] if self._terminal else g._legal(self._z, self._v, g._make)
        return legal[:]

    def why_illegal(self, action: Action) -> str | None:
        """None if `action` is legal here, else the reason in words."""
        g = self._game
        if action.game is not g and action.game.ir != g.ir:
            return "the action belongs to another game"
        if self._terminal:
            return "the game is over"
        decl = g.ir.actions[action.index]
        try:
            ok = g._checks[action.index](self._z, self._v, *action.args)
        except ModelError as exc:
            part = g._failed_part(self, action)
            return (f"the condition of {decl.name} does not hold: {part}" if part
                    else f"its condition cannot be evaluated here: {exc}")
        if ok == "domain":
            return f"{action} is not among the choices for {decl.name} here"
        if not ok:
            part = g._failed_part(self, action) or f"`{g.places.guard_text(action.index)}` is " \
                f"false ({g.places.guard(action.index)})"
            return f"the condition of {decl.name} does not hold: {part}"
        return None

    def _require_legal(self, action: Action) -> None:
        for known in self._legal or ():  # the usual case: one of the actions just listed
            if known is action:
                return
        reason = self.why_illegal(action)
        if reason is not None:
            raise IllegalAction(f"{action} is not legal: {reason}")

    def _step_zones(self, action: Action, chance: Chance | None
                    ) -> tuple[list[list[int]], list[Any], Chance | None, bool]:
        """The zones and variables after `action`'s effects (zones it changes are copies),
        the chance used (None while nothing needed it) and whether the round ends."""
        g = self._game
        i = action.index
        if chance is None and g._shuffles[i]:
            chance = g.chance(self._seed, self._step)
        Z, V = self._z[:], self._v[:]
        try:
            ended = g._steps[i](Z, V, chance, action.args)
        except ModelError as exc:
            raise ModelError(f"{action}: {exc}") from None
        return Z, V, chance, ended

    def apply(self, action: Action, chance: Chance | None = None) -> State:
        """The state after `action`; raises IllegalAction (and changes nothing) if illegal."""
        for known in self._legal or ():  # written out: this runs once per action played
            if known is action:
                break
        else:
            self._require_legal(action)
        g = self._game
        step, shuffles = g._plans[action.index]
        if shuffles and chance is None:
            chance = g.chance(self._seed, self._step)
        Z, V = self._z[:], self._v[:]
        try:
            ended = step(Z, V, chance, action.args)
        except ModelError as exc:
            raise ModelError(f"{action}: {exc}") from None
        terminal = False
        if ended:
            if chance is None:
                chance = g.chance(self._seed, self._step)
            Z = list(map(list.copy, Z))  # scoring and the deal change zones in place
            terminal = g._round_over(Z, V, chance)
        nxt = _new(State)  # State(...) without the call: Z and V are this step's own
        nxt._game, nxt._z, nxt._v, nxt._terminal = g, Z, V, terminal
        nxt._seed, nxt._step, nxt._legal = self._seed, self._step + 1, None
        return nxt

    def outcome(self, action: Action, chance: Chance | None = None) -> Outcome:
        """What `action` does here, round end included: the next state (equal to what
        `apply` returns, from the same chance) and, if the action ends the round, why, the
        state after the round's scoring and before the next deal, and the round's scores.

        Slower than `apply` (it copies the round's end); use it to watch a game, not to
        play many.
        """
        self._require_legal(action)
        g = self._game
        Z, V, ch, ended = self._step_zones(action, chance)
        seed, step = self._seed, self._step + 1
        if not ended:
            return Outcome(State(g, Z, V, False, seed, step))
        if ch is None:
            ch = g.chance(self._seed, self._step)
        reasons = tuple(g.ns["round_end_names"](Z, V))
        score = g.ns["score"]
        before = [score(Z, V, p) for p in range(g.players)]
        Z = [z[:] for z in Z]
        g._scoring(Z, V, ch)
        scores = tuple(score(Z, V, p) - before[p] for p in range(g.players))
        over = bool(g._game_end(Z, V))
        end = State(g, [z[:] for z in Z], V, over, seed, step)
        end._legal = []
        if over:
            return Outcome(State(g, Z, V, True, seed, step), reasons, end, scores)
        V[1] += 1
        g._round_start(Z, V, ch)
        return Outcome(State(g, Z, V, False, seed, step), reasons, end, scores)

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
        Z, V, _, _ = self._step_zones(action, chance)
        return tuple(self._game.ns["round_end_names"](Z, V))

    def game_end_reasons(self) -> tuple[str, ...]:
        """The names of the game-end conditions that hold in this (terminal) state."""
        if not self._terminal:
            return ()
        return tuple(n for n, holds in self._game.ns["GAME_END"] if holds(self._z, self._v))

    def observation(self, player: int) -> Observation:
        """What seat `player` sees here (docs/api.md#observations): the zones the spec
        shows them, the number of items in the others (and a pile's top where it is
        shown), every variable. A plain value: compare it with `==`, hash it."""
        return self._game.observer(player).observe(self._z, self._v, self._terminal)

    def redeal(self, player: int, rng: Shuffler) -> State:
        """A state with the same observation for `player` and the same chance state: the
        items `player` cannot see shuffled by `rng` among the places they cannot see."""
        g = self._game
        return State(g, g.observer(player).redeal(self._z, rng), self._v, self._terminal,
                     self._seed, self._step)

    def to_dict(self) -> dict[str, Any]:
        """The situation format (docs/api.md), chance state included: a state read back
        with `Game.state_from_dict` continues exactly as this one."""
        g = self._game
        return situation.to_plain(g.ir, g.layout, self._z, self._v, self._terminal, self._seed,
                                  self._step)


@attrs.frozen(slots=True)
class Outcome:
    """What one action did (`State.outcome`).

    `state` is the next state. When the action ended the round, `reasons` names the
    round-end conditions that held, `round_end` is the state after the round's scoring
    and before the next deal (a snapshot to read: nobody acts in it, so it offers no
    legal actions), and `round_scores` is what that scoring added to each player's score.
    """

    state: State
    reasons: tuple[str, ...] = ()
    round_end: State | None = None
    round_scores: tuple[int, ...] | None = None

    @property
    def round_ended(self) -> bool:
        return self.round_end is not None


#: The State constructor under the name other modules import (`policies`).
_new_state = State
_new = object.__new__


def load(spec: str | Path, *, players: int, variants: Mapping[str, str] | None = None) -> Game:
    """Load a spec (a path, or a game id of `spec/`) for a player count and variants."""
    if not isinstance(players, int) or isinstance(players, bool):
        raise SpecError(Where(str(spec)), f"players must be a whole number, not {players!r}")
    return _cached_game(str(spec), players, tuple(sorted((variants or {}).items())))


_GAMES: dict[tuple[Any, ...], Game] = {}
#: One compilation at a time: CPython 3.11's `ast.parse` is not safe in two threads at
#: once ("AST constructor recursion depth mismatch"), and `check` loads games in threads.
_COMPILING = threading.RLock()  # re-entrant: a load inside a load does not wait on itself


def _cached_game(spec: str, players: int, variants: tuple[Any, ...]) -> Game:
    path = Path(spec)
    stamp = path.stat().st_mtime_ns if path.exists() else 0
    key = (spec, stamp, players, variants)
    game = _GAMES.get(key)
    if game is None:
        with _COMPILING:
            game = _GAMES.get(key)
            if game is None:
                game = _GAMES[key] = Game(load_ir(spec, players=players,
                                                  variants=dict(variants)))
    return game
