"""Effects as the loader reads them: the statements of `setup`, the round and the actions,
nested no deeper than the limits allow, with each procedure call expanded in place
(a procedure's body is read where it is called, its arguments in place of its
parameters)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import attrs

from . import ir
from .errors import SpecError, Where
from .expr import EFFECTS, FUNCTIONS, binding_name
from .fold import known
from .limits import MAX_CALL_DEPTH, MAX_CALLS, MAX_EFFECT_DEPTH, MAX_LOOP_NESTING, over
from .source import PathKey
from .tricks import TricksReader
from .types import BOOL, INT, KIND, Type, list_of


class EffectsReader(TricksReader):
    """Reads `procedures`, and the effect lists that call them."""

    def procedures(self) -> None:
        """`procedures`: named effect blocks with parameters, expanded where they are called
        (`procedure_call`). Only their names and parameters are read here; a body is
        checked where it is called, with the arguments in place of the parameters."""
        self.procs: dict[str, _Procedure] = {}
        taken = {**self.scope.params, **self.scope.vars, **self.scope.zones,
                 **self.scope.indices, **self.scope.builtins, **self.scope.defs}
        for key, value in self.d.get("procedures", {}).items():
            path = ("procedures", key)
            name, params = self.signature(path, key, "a procedure")
            for i, q in enumerate(params):
                if q in params[:i]:
                    raise self.key_err(path, f"the parameter {q!r} of {name} is named twice")
            if name in EFFECTS or name in FUNCTIONS or name in taken or name in self.procs:
                what = ("an effect" if name in EFFECTS else "a function" if name in FUNCTIONS
                        else "a procedure" if name in self.procs else "a name")
                raise self.key_err(path, f"{name!r} is already {what} of the language or "
                                         "this spec; a procedure needs a name of its own")
            body, bpath = ((value["do"], (*path, "do")) if isinstance(value, dict)
                           else (value, path))
            cite: tuple[str, ...] = ()
            if isinstance(value, dict):
                cite = self.check_cites((*path, "cite"), value.get("cite"))
            self.procs[name] = _Procedure(name, params, body, bpath, cite,
                                          self.doc.key_where(path))
            self.scope.procedures[name] = params
        given = self.trick_procedure()
        if given is not None:  # the language's own: called or not, as the spec needs
            gname, gparams, gbody, gpath = given
            self.procs[gname] = _Procedure(gname, gparams, gbody, gpath, (),
                                           self.doc.key_where(gpath), given=True)
            self.scope.procedures[gname] = gparams
        self.calling: list[str] = []
        self.expanded = 0  # calls expanded so far (MAX_CALLS)

    def call(self, path: PathKey, name: str, args: list[ir.Expr], at: Where,
             cite: tuple[str, ...]) -> tuple[ir.Stmt, ...]:
        """The statements of procedure `name` with `args` in place of its parameters.

        Each statement is the body's, where the body writes it; one without a citation of
        its own takes the call's (else the procedure's). The body sees its parameters and
        the spec's names only, not the caller's locals; its loop variables capture none of
        the caller's locals that an argument reads (`expr.binding_name`).
        """
        proc = self.procs[name]
        if name in self.calling:
            chain = " -> ".join((*self.calling[self.calling.index(name):], name))
            raise SpecError(at, f"a procedure cannot call itself: {chain}")
        if len(self.calling) >= MAX_CALL_DEPTH:
            raise SpecError(at, over("max_call_depth", "the depth of procedure calls "
                                     f"({' -> '.join((*self.calling, name))})",
                                     len(self.calling) + 1))
        self.expanded += 1
        if self.expanded > MAX_CALLS:
            raise SpecError(at, over("max_calls", "the number of procedure calls expanded, each "
                                     "call inside a procedure counted again", self.expanded))
        if proc.given:
            self.check_collect(args, at)
        proc.calls += 1
        self.calling.append(name)
        try:
            body = self.effects(proc.path, proc.body, dict(zip(proc.params, args, strict=True)),
                                inline=True)
        except SpecError as exc:  # said where the body is written; add where it is called
            raise SpecError(exc.where, f"{exc.message} (in procedure {name}, called at "
                                       f"line {at.line}, column {at.column})") from None
        finally:
            self.calling.pop()
        return tuple(s if s.cite else attrs.evolve(s, cite=cite or proc.cite) for s in body)

    def uncalled(self) -> None:
        """A procedure no effect calls is an error: its body would never be checked."""
        for proc in self.procs.values():
            if not proc.calls and not proc.given:
                raise SpecError(proc.where, f"procedure {proc.name} is never called; call it "
                                            "from an effect, or remove it (a body is checked "
                                            "where it is called)")

    def effects(self, path: PathKey, items: list[Any], env: dict[str, ir.Expr], loop: bool = False,
                inline: bool = False) -> tuple[ir.Stmt, ...]:
        """A list of effects, nested `depth` statements (and `loops` loops) deep, procedures
        expanded: both are limited (`max_effect_depth`, `max_loop_nesting`), since a spec's
        statements become nested Python statements (the generated module must compile).
        `inline`: a procedure's body, in place of its call (no deeper than the call)."""
        if not items:
            return ()
        if inline:
            return self._effects(path, items, env)
        self.depth, self.loops = self.depth + 1, self.loops + loop
        try:
            if self.depth > MAX_EFFECT_DEPTH:
                raise self.err((*path, 0), over("max_effect_depth", "the nesting of effects "
                                                "here, procedures expanded", self.depth))
            if self.loops > MAX_LOOP_NESTING:
                raise self.err((*path, 0), over("max_loop_nesting", "the nesting of loops "
                                                "here, procedures expanded", self.loops))
            return self._effects(path, items, env)
        finally:
            self.depth, self.loops = self.depth - 1, self.loops - loop

    def _effects(self, path: PathKey, items: list[Any], env: dict[str, ir.Expr]
                 ) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for i, item in enumerate(items):
            p = (*path, i)
            where = self.doc.where(p)
            if isinstance(item, str) or isinstance(item.get("do"), str):
                cite = () if isinstance(item, str) else self.check_cites(
                    (*p, "cite"), item.get("cite"))
                at = p if isinstance(item, str) else (*p, "do")
                text = item if isinstance(item, str) else item["do"]
                called = self.parser(at).procedure_call(text, env)
                if called is not None:
                    out.extend(self.call(at, *called, cite))
                else:
                    out.append(self.checked(at, self.parser(at).statement(text, env, cite)))
                continue
            cite = self.check_cites((*p, "cite"), item.get("cite"))
            if "if" in item:
                test = self.expr((*p, "if"), item["if"], BOOL, env)
                out.append(ir.If(where, cite, test, self.effects((*p, "then"), item["then"], env),
                                 self.effects((*p, "else"), item.get("else", []), env)))
            elif "for" in item:
                m = re.fullmatch(r"\s*(\S+)\s+in\s+(.+)", item["for"], re.S)
                if not m:
                    raise self.err((*p, "for"), "expected 'name in list', e.g. 'p in players'")
                self.ident((*p, "for"), m.group(1), "a loop's variable")
                it = self.expr((*p, "for"), m.group(2), None, env)
                if it.type.name == "zone":
                    it = ir.Call("kinds", (it,), list_of(KIND))
                if it.type.name != "list":
                    raise self.err((*p, "for"), f"can only loop over a list, found {it.type}")
                var = binding_name(m.group(1), env, rename_shadowing=True)
                inner = {**env, m.group(1): ir.Local(var, it.type.of or Type("any"))}
                out.append(ir.For(where, cite, var, it,
                                  self.effects((*p, "do"), item["do"], inner, loop=True)))
            elif "repeat" in item:
                n = self.expr((*p, "repeat"), item["repeat"], INT, env)
                times = known(n, self.players)
                if isinstance(times, ir.Const):
                    self.bounded((*p, "repeat"), times.value, "max_repeat", "a repeat count")
                out.append(ir.Repeat(where, cite, n, self.effects((*p, "do"), item["do"], env,
                                                                 loop=True)))
            elif "while" in item:
                test = self.expr((*p, "while"), item["while"], BOOL, env)
                self.bounded((*p, "max"), item["max"], "max_while", "a while loop's max", low=1)
                out.append(ir.While(where, cite, test, item["max"],
                                    self.effects((*p, "do"), item["do"], env, loop=True)))
        return tuple(out)

    def checked(self, path: PathKey, stmt: ir.Stmt) -> ir.Stmt:
        """An effect whose counts are known now: none may be negative (nor, for a count of
        items, more than there are). Counts known only in play are checked then."""
        if isinstance(stmt, ir.Do):
            for what, arg in _counts(stmt):
                value = known(arg, self.players)
                if isinstance(value, ir.Const):
                    limit = "max_int" if stmt.fn == "pay" else "max_items"
                    self.bounded(path, value.value, limit, f"the {what} of {stmt.fn}")
        return stmt


@attrs.define
class _Procedure:
    """A procedure as declared: its body is read where it is called."""

    name: str
    params: tuple[str, ...]
    body: list[Any]
    path: PathKey
    cite: tuple[str, ...]
    where: Where
    calls: int = 0
    #: a procedure the language gives (model.tricks), not the spec: never "uncalled"
    given: bool = False



def _counts(stmt: ir.Do) -> list[tuple[str, ir.Expr]]:
    """The arguments of an effect that count items (or money): none may be negative."""
    a, kw = stmt.args, dict(stmt.kwargs)
    table: dict[str, list[tuple[str, Sequence[ir.Expr]]]] = {
        "move": [("count", a[3:4])], "move_top": [("count", a[2:3])],
        "move_all": [("keep", [kw["keep"]] if "keep" in kw else [])],
        "deal": [("count", a[2:3])], "pay": [("amount", a[0:1])]}
    picks = table.get(stmt.fn, [])
    return [(what, x) for what, xs in picks for x in xs]
