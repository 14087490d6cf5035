"""Conservation proved effect by effect, for transitions too large to prove whole.

The conservation query asks whether a whole transition keeps every count. A transition is
a program of effects (`move`, `move_all`, `shuffle`, `deal`, ...) joined by assignments,
`if`s and loops, and only effects change zones. So it suffices that each effect, run on
*any* state whose zones are sound, leaves them sound and keeps every kind's total:

    zones sound  =  every count >= 0, an empty pile's top is its class's first kind, and
                    the known items of each pile (its top, then those remembered below it,
                    as far down as the pile reaches) are items it holds, kind by kind.

A lemma is one effect statement, from a state of fresh variables with sound zones, its
bound names (action parameters, loop variables) fresh too: for all of them, if the effect
is defined, its result has sound zones, the same totals, and puts no item into a zone of
another class. Assignments leave zones alone, an `if` or loop merges states that are each
sound with the same totals, and a well-formed state (`Enc.wf`) has sound zones; so, by
induction over the statements, every transition built from lemma-checked effects keeps
the type invariant's count part. Each lemma is a small formula, where a whole
transition (several draws, each possibly after a reshuffle of many piles) can be beyond
z3 in minutes.

The lemmas needed are those of the effects the symbolic execution actually ran
(`Ctx.sites`), each with the depth of pile it remembered there.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

import z3

from model import ir

from .execute import Exec
from .expressions import Ctx
from .state import Enc, SymState, ZoneRef, fresh_env, lemma_state, sound
from .terms import EQ, NOT, SUM, OutOfTime, Unsupported, limit_units, past_deadline, zterm

Site = tuple[ir.Do, tuple[int, ...], dict[str, Any]]
#: A condition on zones alone, by name: (name, its value on a state)
Kept = tuple[str, Callable[[SymState, Ctx], Any]]
#: What is known of an action's parameters: the facts its guard states of them alone
#: (`parameter_facts`) and the parameters' values in its execution
Given = tuple[tuple[ir.Expr, ...], dict[str, Any]]
GAVE_UP = "z3 gave up (or the time ran out)"


def parameter_facts(a: ir.ActionDecl) -> tuple[ir.Expr, ...]:
    """The parts of an action's guard that read its parameters and nothing of the state
    (`card.letter == pos.letter`): still true at every effect the action runs, whatever
    the effects before it changed."""
    parts = a.when.values if isinstance(a.when, ir.BoolOp) and a.when.op == "and" else (a.when,)
    names = {n for n, _ in a.params}
    return tuple(p for p in parts
                 if ir.free_locals(p) and ir.free_locals(p) <= names
                 and not any(isinstance(x, ir.Var | ir.Zone) for x in ir.walk(p)))


def _facts_at(given: Given | None, env: dict[str, Any]) -> tuple[ir.Expr, ...]:
    """The facts of `given` that hold at a site: those whose names the site binds to the
    parameters' very values (a loop may bind a name of its own)."""
    if given is None:
        return ()
    facts, values = given

    def same(name: str) -> bool:
        v, w = env.get(name), values[name]
        return v is w or (type(v) is int and type(w) is int and v == w)
    return tuple(f for f in facts if all(same(n) for n in ir.free_locals(f)))


def _any_value(enc: Enc, x: Any, name: str, linked: bool) -> list[tuple[Any, Any]]:
    """The values an argument stands for in a lemma, each with what it implies: itself if
    known, or if `linked` (facts on the parameters speak of it); a fresh variable if not;
    each zone in turn for a zone chosen at run time (one small lemma per zone is far
    easier for z3 than one lemma over all of them), its index then that zone's."""
    if isinstance(x, ZoneRef):
        if x.index is None or isinstance(x.index, int):
            return [(x, True)]
        return [(ZoneRef(x.family, j), EQ(x.index, j))
                for j in range(enc.layout.zone_count[x.family])]
    if linked:
        return [(x, True)]
    if isinstance(x, z3.BoolRef):
        return [(z3.Bool(name), True)]
    if isinstance(x, z3.ArithRef):
        return [(z3.Int(name), True)]
    return [(x, True)]


def _shape(enc: Enc, args: tuple, depths: tuple[int, ...]) -> tuple:
    """What a lemma's formula depends on in its zone arguments: each one's family, the
    depth remembered below its top, and which earlier argument is the same zone. The
    lemma state treats the zones of a family alike, so arguments of the same shape give
    the same formula up to renaming (hand[0] to board[3] and hand[4] to board[3])."""
    out: list[Any] = []
    insts: list[int | None] = []
    for a in args:
        if not isinstance(a, ZoneRef) or not isinstance(a.index, int):
            out.append(None)
            insts.append(None)
            continue
        if not 0 <= a.index < enc.layout.zone_count[a.family]:
            out.append(("out of range", a.family, a.index))
            insts.append(None)
            continue
        i = enc.base[a.family] + a.index
        same = insts.index(i) if i in insts else None
        out.append((a.family, depths[i] if i < len(depths) else None, same))
        insts.append(i)
    return tuple(out)


class Lemmas:
    """The effect lemmas of one game, each checked once."""

    def __init__(self, enc: Enc) -> None:
        self.enc = enc
        self._done: dict[tuple, str | None] = {}

    def check(self, sites: Iterable[Site], units_left: Callable[[], int], kept: Kept | None = None,
              given: Given | None = None) -> str | None:
        """None if every site's lemma holds; otherwise which one failed, and how.
        `units_left()` is the z3 resource units each z3 call may spend. With `kept`, the
        lemma is instead that the effect keeps that condition on zones (see `keeps`);
        `given`: facts each lemma may assume of the action's parameters."""
        for stmt, depths, env in sites:
            facts = _facts_at(given, env)
            # statements compare by their text (not their line): a rule written twice
            # needs one lemma
            key = (stmt, depths, kept and kept[0], facts,
                   tuple((k, v if isinstance(v, bool | int) else None) for k, v in env.items()))
            if key not in self._done:
                why = self._check_one(stmt, depths, env, len(self._done), units_left, kept, facts)
                if why is not None and why.endswith(GAVE_UP):
                    return why  # not a finding about the effect: try again next time
                self._done[key] = why
            if self._done[key] is not None:
                return self._done[key]
        return None

    @property
    def count(self) -> int:
        return len(self._done)

    def keeps(self, kept: Kept, sites: Iterable[Site], units_left: Callable[[], int],
              given: Given | None = None) -> bool:
        """Whether every effect of `sites`, from any state with sound zones where the
        condition holds (and the facts `given` of the action's parameters), leads to one
        where it holds. For a condition that reads zones only (no variable), that proves a
        transition of those effects keeps it: the statements between effects leave zones
        alone, and an `if` or loop merges states where it holds. Each lemma is small where
        the whole transition can be beyond z3 (a count over several zone families, through
        draws and reshuffles)."""
        return self.check(sites, units_left, kept, given) is None

    def _check_one(self, stmt: ir.Do, depths: tuple[int, ...], env: dict[str, Any], n: int,
                   units_left: Callable[[], int], kept: Kept | None = None,
                   facts: tuple[ir.Expr, ...] = ()) -> str | None:
        enc = self.enc
        where = f"{stmt.fn} at spec line {stmt.where.line}"
        tag = f"L{n}"
        fresh = fresh_env(env, tag)
        if fresh is None:
            return f"{where}: binds a name that is not a number"
        pre = lemma_state(enc, tag, depths)
        scratch = Exec(enc, Ctx(tag + "a"))
        try:
            options = [_any_value(enc, scratch.ev(a, pre, fresh), f"{tag}.arg{m}", bool(facts))
                       for m, a in enumerate(stmt.args)]
            seen = set()
            for chosen in itertools.product(*options):
                args = tuple(v for v, _ in chosen)
                # the facts on parameters tell zones of a family apart (a card's letter
                # and its position's), so with facts every zone gets its own lemma
                shape = (_shape(enc, args, depths), tuple(
                    (x.family, x.index) if isinstance(x, ZoneRef) else None for x in args)
                    if facts else ())
                if shape in seen:
                    continue
                seen.add(shape)
                why = self._check_args(stmt, pre, fresh, list(args), tag, units_left, kept, facts,
                                       [c for _, c in chosen])
                if why is not None:
                    return f"{where}: {why}"
        except Unsupported as exc:
            return f"{where}: {exc}"
        return None

    def _check_args(self, stmt: ir.Do, pre: SymState, env: dict[str, Any], args: list,
                    tag: str, units_left: Callable[[], int], kept: Kept | None = None,
                    facts: tuple[ir.Expr, ...] = (), chosen: Iterable[Any] = ()) -> str | None:
        enc = self.enc
        ctx = Ctx(tag)
        ex = Exec(enc, ctx)
        known = [ex.truth(ex.ev(f, pre, env)) for f in facts] + list(chosen)
        post = ex.effect(stmt, pre, env, args)
        touched = [i for i in range(enc.n_inst)
                   if post.Z[i] is not pre.Z[i] or post.T[i] is not pre.T[i]
                   or post.S[i] is not pre.S[i]]
        if kept is not None:
            assumed = [sound(enc, pre, touched), kept[1](pre, ctx), *known]
            return self._prove([NOT(kept[1](post, ctx))], assumed, ctx, units_left)
        goals = [NOT(sound(enc, post, [i])) for i in touched]
        for k in range(enc.K):
            zs = [i for i in touched if k in enc.kpos[i]]
            before = SUM([pre.Z[i][enc.kpos[i][k]] for i in zs])
            after = SUM([post.Z[i][enc.kpos[i][k]] for i in zs])
            change = z3.simplify(zterm(after) - zterm(before))
            if not (z3.is_int_value(change) and change.as_long() == 0):
                goals.append(change != 0)
        goals += [ctx.failing("typing"), ctx.failing("bound")]
        return self._prove(goals, [sound(enc, pre, touched), *known], ctx, units_left)

    @staticmethod
    def _prove(goals: list, assumed: list, ctx: Ctx, units_left: Callable[[], int]) -> str | None:
        """None if no goal can hold under the assumptions, else why not."""
        s = z3.Solver()
        for c in (*assumed, ctx.defined("undefined"), *ctx.assume):
            if c is not True:
                s.add(zterm(c))
        # one goal at a time (a zone, a kind's total): far easier for z3 than all at once
        for goal in goals:
            if goal is False:
                continue
            if units_left() <= 1:
                return GAVE_UP
            limit_units(s, units_left())
            r = s.check(zterm(goal))
            if r == z3.unknown and past_deadline():
                raise OutOfTime("a lemma")
            if r != z3.unsat:
                return GAVE_UP if r == z3.unknown else "not proved alone"
        return None
