"""The typed intermediate representation (IR) every back end reads.

The loader turns a YAML spec into these frozen attrs objects; the concrete back end
(`codegen`) compiles them to Python, and the symbolic back end translates the same
objects to z3. Nothing here knows about any particular game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import attrs

from .errors import Where
from .types import Type

# ---------------------------------------------------------------- expressions


@attrs.frozen
class Expr:
    """Base of expression nodes; every node knows its static type."""

    if TYPE_CHECKING:
        # Every node class declares `type` as a field of its own: a field of the base would
        # come before the node's own fields.
        @property
        def type(self) -> Type: ...


@attrs.frozen
class Const(Expr):
    value: Any
    type: Type


@attrs.frozen
class Var(Expr):
    """A spec variable (or builtin variable), `index` picks one of a family."""

    name: str
    index: Expr | None
    type: Type


@attrs.frozen
class Builtin(Expr):
    """A read-only name the runtime provides: players, player_count, cards, tokens, an index set."""

    name: str
    type: Type


@attrs.frozen
class Local(Expr):
    """A bound name: an action parameter or a comprehension variable."""

    name: str
    type: Type


@attrs.frozen
class Zone(Expr):
    family: str
    index: Expr | None
    type: Type


@attrs.frozen
class Attr(Expr):
    """An attribute of a kind (card.rank) or of an index (position.letter)."""

    obj: Expr
    attr: str
    type: Type


@attrs.frozen
class Unary(Expr):
    op: str  # "not" or "-"
    operand: Expr
    type: Type


@attrs.frozen
class Bin(Expr):
    op: str  # + - * // %
    left: Expr
    right: Expr
    type: Type


@attrs.frozen
class Cmp(Expr):
    op: str  # == != < <= > >= in notin
    left: Expr
    right: Expr
    type: Type


@attrs.frozen
class BoolOp(Expr):
    op: str  # and / or
    values: tuple[Expr, ...]
    type: Type


@attrs.frozen
class Cond(Expr):
    test: Expr
    body: Expr
    orelse: Expr
    type: Type


@attrs.frozen
class Call(Expr):
    """A whitelisted function; `attr` names the attribute argument of lowest/highest/worth."""

    fn: str
    args: tuple[Expr, ...]
    type: Type
    attr: str | None = None


@attrs.frozen
class Gen:
    var: str
    iter: Expr
    conds: tuple[Expr, ...]


@attrs.frozen
class Comp(Expr):
    """A comprehension reduced by `fn` (list, any, all, sum, min, max, first, count, distinct)."""

    fn: str
    elt: Expr
    gens: tuple[Gen, ...]
    type: Type
    default: Expr | None = None


@attrs.frozen
class ListLit(Expr):
    items: tuple[Expr, ...]
    type: Type


# ----------------------------------------------------------------- statements


@attrs.frozen
class Stmt:
    where: Where = attrs.field(eq=False)
    cite: tuple[str, ...]


@attrs.frozen
class Assign(Stmt):
    target: Var
    op: str  # = += -=
    value: Expr


@attrs.frozen
class Do(Stmt):
    """An effect function: move, move_top, move_all, gather, shuffle, deal, pay, exchange."""

    fn: str
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    result: Var | None = None  # pay's shortfall, when written `x += pay(...)`
    result_op: str = "="


#: The argument of an effect that counts items (or, for pay, money), by position: a
#: negative one is undefined, in both back ends.
COUNT_ARG = {"move": 3, "move_top": 2, "deal": 2, "pay": 0}


@attrs.frozen
class If(Stmt):
    test: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@attrs.frozen
class For(Stmt):
    var: str
    iter: Expr
    body: tuple[Stmt, ...]


@attrs.frozen
class Repeat(Stmt):
    count: Expr
    body: tuple[Stmt, ...]


@attrs.frozen
class While(Stmt):
    test: Expr
    limit: int
    body: tuple[Stmt, ...]


# ------------------------------------------------------------------ the game
class FrozenDict(dict[Any, Any]):
    """A dict that cannot be changed once made: the IR's mappings (a kind's attributes, the
    chosen variants, the params), so that the IR is immutable all the way down. It is
    still a dict for reading, `dict(x)` and JSON; a copy to change is `dict(x)`."""

    __slots__ = ()

    def _refuse(self, *_: Any, **__: Any) -> Any:
        raise TypeError("the IR cannot be changed: copy it with dict(...) first")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))


def _frozen(d: Any) -> FrozenDict:
    return d if isinstance(d, FrozenDict) else FrozenDict(d)




@attrs.frozen
class Kind:
    """One kind of item (a card kind or a token kind) with its attributes and copies."""

    name: str
    item_class: str  # "cards" or "tokens"
    copies: int
    attrs: dict[str, Any] = attrs.field(hash=False, converter=_frozen)
    start: str  # zone family (shared) where all copies lie before set-up


#: Who may see a zone's contents (`sees:`), or a pile's top item (`top:`).
VISIBILITY = ("everyone", "owner", "nobody")


@attrs.frozen
class ZoneDecl:
    """A zone family: its order, what it holds, whose it is, and who sees it.

    `sees` is who sees the items: everyone, the owner (the seat of a per-player zone)
    or nobody; anyone else sees only how many there are. `top` (piles only) is who sees
    the top item when `sees` hides the rest; None: the top is seen as the rest is.
    """

    name: str
    order: str  # "pile" or "bag"
    per: str | None  # None (shared), "player", or an index set
    holds: str  # "cards" or "tokens"
    sees: str = "everyone"
    top: str | None = None

    def shows(self, viewer: int, owner: int | None) -> tuple[bool, bool]:
        """Whether seat `viewer` sees the items of the member owned by `owner` (a seat,
        or None for a shared or per-index zone), and whether it sees the top item."""
        def seen(who: str) -> bool:
            return who == "everyone" or (who == "owner" and owner == viewer)
        whole = seen(self.sees)
        return whole, whole or (self.top is not None and seen(self.top))


@attrs.frozen
class IndexSet:
    name: str
    size: int
    attrs: dict[str, tuple[Any, ...]] = attrs.field(hash=False, converter=_frozen)
    names: tuple[str, ...] = ()  # how actions and output call the members (else by number)


@attrs.frozen
class VarDecl:
    name: str
    type: Type
    per: str | None
    init: Expr


@attrs.frozen
class Param:
    name: str
    name_type: Type
    generator: Expr | None  # domain of the parameter


@attrs.frozen
class ActionDecl:
    name: str
    say: str
    params: tuple[tuple[str, Expr], ...]  # (name, domain) in order
    when: Expr
    effects: tuple[Stmt, ...]
    cite: tuple[str, ...]
    where: Where = attrs.field(eq=False)
    #: a joint action (`simultaneous: true`, model.joint): per seat, the indices in `params`
    #: of what that seat chooses; empty for an action the player to act takes alone
    joint: tuple[tuple[int, ...], ...] = ()


@attrs.frozen
class Condition:
    name: str
    expr: Expr
    cite: tuple[str, ...]


#: What two readings can differ in at a step where they part (docs/spec-language.md).
OBSERVABLES = ("components", "setup", "legal", "active", "state", "scores", "winners",
               "round_end", "game_end")


@attrs.frozen
class Variant:
    name: str
    sets: dict[str, Any] = attrs.field(hash=False, converter=_frozen)
    reading: str
    #: the rationale's claim: what may differ from the ruling where the readings part
    #: (None: no claim; empty: they never part)
    differs_in: tuple[str, ...] | None = None
    #: the rationale's claim: a condition that holds in every state where they part
    parts_only_when: Expr | None = None


@attrs.frozen
class Ambiguity:
    id: str
    kind: str  # ambiguity / gap / conflict / assumption / option
    question: str
    cite: tuple[str, ...]
    variants: tuple[Variant, ...]
    default: str
    rationale: str
    example: str | None = None  # a situation file (relative to the spec) where readings differ


@attrs.frozen
class ExampleStep:
    """One action of an example and what must hold after it (keys as in `Outcome` docs)."""

    do: str
    expect: dict[str, Any] = attrs.field(hash=False, factory=FrozenDict, converter=_frozen)


@attrs.frozen
class Example:
    """A situation file and what the model must do there."""

    situation: str  # path relative to the spec file
    variants: dict[str, str] = attrs.field(hash=False, factory=FrozenDict, converter=_frozen)
    legal: tuple[str, ...] | None = None
    illegal: tuple[str, ...] = ()
    steps: tuple[ExampleStep, ...] = ()


@attrs.frozen
class Clarification:
    """A question the rulebooks do answer, with the answer and an executable example."""

    id: str
    question: str
    answer: str
    cite: tuple[str, ...]
    example: Example


@attrs.frozen
class Expectation:
    property: str
    result: str  # "fail" (strict) or "may_fail" (found by some runs only)
    reason: str
    players: tuple[int, ...]
    variants: dict[str, str] = attrs.field(hash=False, converter=_frozen)
    clause: str = ""  # for property "coverage": the action, condition or "line N" meant
    witness: str | None = None  # a replay file showing the failure


@attrs.frozen
class GameIR:
    """A whole game at one player count and one choice of variants."""

    id: str
    title: str
    file: str
    players: int
    min_players: int
    max_players: int
    sources: tuple[str, ...]
    params: dict[str, Any] = attrs.field(hash=False, converter=_frozen)
    chosen: dict[str, str] = attrs.field(hash=False, converter=_frozen)  # ambiguity id -> variant
    ambiguities: tuple[Ambiguity, ...]
    kinds: tuple[Kind, ...]
    kind_attrs: dict[str, Type] = attrs.field(hash=False, converter=_frozen)
    enums: dict[str, tuple[str, ...]] = attrs.field(hash=False, converter=_frozen)
    zones: tuple[ZoneDecl, ...]
    indices: tuple[IndexSet, ...]
    vars: tuple[VarDecl, ...]
    setup: tuple[Stmt, ...]
    round_start: tuple[Stmt, ...]
    actions: tuple[ActionDecl, ...]
    round_end: tuple[Condition, ...]
    scoring: tuple[Stmt, ...]
    measure: Expr | None
    game_end: tuple[Condition, ...]
    winners: Expr
    game_measure: Expr | None
    score: Expr  # per player: the Local "p" is bound
    invariants: tuple[Condition, ...]
    expectations: tuple[Expectation, ...]
    # "lower" or "higher": which way each player wants `score` to go; None if unstated
    score_better: str | None = None
    # what the greedy policy compares mid-round: "score" as it stands, or "scoring" (the
    # score the round's scoring would give were the round to end there)
    score_provisional: str = "score"
    clarifications: tuple[Clarification, ...] = ()


def children(e: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of an expression node."""
    match e:
        case Var(index=i) | Zone(index=i):
            return (i,) if i is not None else ()
        case Attr(obj=o):
            return (o,)
        case Unary(operand=x):
            return (x,)
        case Bin(left=a, right=b) | Cmp(left=a, right=b):
            return (a, b)
        case BoolOp(values=vs):
            return vs
        case Cond(test=t, body=a, orelse=b):
            return (t, a, b)
        case Call(args=args):
            return args
        case ListLit(items=items):
            return items
        case Comp(elt=elt, gens=gens, default=d):
            out: list[Expr] = [elt]
            for g in gens:
                out.append(g.iter)
                out.extend(g.conds)
            if d is not None:
                out.append(d)
            return tuple(out)
    return ()


def map_children(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    """`e` rebuilt with `f` applied to each of its direct sub-expressions (`children`); `e`
    itself where `f` changes none. The one rebuild every pass over expressions uses."""
    match e:
        case Var(index=i) | Zone(index=i) if i is not None:
            return _evolved(e, index=(i, f(i)))
        case Attr(obj=o):
            return _evolved(e, obj=(o, f(o)))
        case Unary(operand=x):
            return _evolved(e, operand=(x, f(x)))
        case Bin(left=a, right=b) | Cmp(left=a, right=b):
            return _evolved(e, left=(a, f(a)), right=(b, f(b)))
        case BoolOp(values=vs):
            return _evolved(e, values=(vs, tuple(map(f, vs))))
        case Cond(test=t, body=a, orelse=b):
            return _evolved(e, test=(t, f(t)), body=(a, f(a)), orelse=(b, f(b)))
        case Call(args=args):
            return _evolved(e, args=(args, tuple(map(f, args))))
        case ListLit(items=items):
            return _evolved(e, items=(items, tuple(map(f, items))))
        case Comp(elt=elt, gens=gens, default=d):
            new_gens = tuple(Gen(g.var, f(g.iter), tuple(map(f, g.conds))) for g in gens)
            return _evolved(e, elt=(elt, f(elt)), gens=(gens, new_gens),
                            default=(d, None if d is None else f(d)))
    return e


def _evolved(e: Expr, **fields: tuple[Any, Any]) -> Expr:
    """`e` with each field given as (old, new) set to new, or `e` if every new is old."""
    if all(old is new or old == new for old, new in fields.values()):
        return e
    return attrs.evolve(e, **{name: new for name, (_, new) in fields.items()})


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of an expression, parents before children."""
    yield e
    for c in children(e):
        yield from walk(c)


def uses_locals(e: Expr, names: set[str] | frozenset[str]) -> bool:
    return any(isinstance(n, Local) and n.name in names for n in walk(e))


def free_locals(e: Expr) -> set[str]:
    """Names of locals an expression reads but does not bind itself."""
    if isinstance(e, Local):
        return {e.name}
    if isinstance(e, Comp):
        out: set[str] = set()
        bound: set[str] = set()
        for g in e.gens:
            out |= free_locals(g.iter) - bound
            bound.add(g.var)
            for c in g.conds:
                out |= free_locals(c) - bound
        out |= free_locals(e.elt) - bound
        if e.default is not None:
            out |= free_locals(e.default)
        return out
    out = set()
    for c in children(e):
        out |= free_locals(c)
    return out


def expectations_for(g: GameIR, prop: str) -> Iterator[Expectation]:
    """Every entry the spec has for property `prop` at g's player count and variants, in
    the spec's order."""
    for e in g.expectations:
        if e.property != prop:
            continue
        if e.players and g.players not in e.players:
            continue
        if any(g.chosen.get(k) != v for k, v in e.variants.items()):
            continue
        yield e


def expectation_for(g: GameIR, prop: str) -> Expectation | None:
    """What the spec expects of property `prop` at g's player count and variants (its
    first entry that applies)."""
    return next(expectations_for(g, prop), None)
