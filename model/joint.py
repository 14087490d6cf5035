"""Joint actions (docs/spec-language.md#simultaneous-choice): an action with
`simultaneous: true`, in which every player chooses at once, as one step.

The IR is compiled for one player count, so the loader expands a joint action into one
ordinary action: each seat's copy of the spec's `params`, `when` and `effects` is read with
the reserved name `chooser` standing for that seat (an expression, as a procedure's
argument is) and each parameter renamed to `<param>__seat<i>` (no spec name holds `__`,
and a loop variable renamed so it captures nothing is `<name>__<n>`, so the names clash
with none). The action's parameters are every seat's, seat 0's first; its condition the
conjunction of the seats' conditions (a conjunct two seats share, such as the phase,
written once); its effects each seat's in seat order, all run after every choice is
made. Every statement keeps the place and citation the spec gives it. So the back ends
see a plain action with several parameters; `ir.ActionDecl.joint` says which parameters
each seat chose, for what reads a joint action by seat (the property `observation`, the
statistics' policies, `Action.component`).

Each seat's choices read only its own parameters, so the joint legal actions are the
product of the seats' choices; `MAX_JOINT_ACTIONS` bounds that product (statically, from
the spec) and `MAX_JOINT_PARAMS` the parameters of the expanded action.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

from . import ir, work
from .errors import SpecError
from .limits import MAX_JOINT_ACTIONS, MAX_JOINT_PARAMS, over
from .reader import SpecReader
from .source import PathKey
from .types import BOOL, PLAYER

#: The reserved name of the choosing seat inside a joint action.
CHOOSER = "chooser"
#: Between the seats' texts in a joint action's text (`lay c3 | lay c7 | lay c1`).
SEPARATOR = " | "


def seat_param(name: str, seat: int) -> str:
    """The expanded action's name for seat `seat`'s parameter `name`."""
    return f"{name}__seat{seat}"


def component(decl: ir.ActionDecl, args: tuple[Any, ...], seat: int) -> tuple[Any, ...]:
    """What seat `seat` chose in a joint action with arguments `args`."""
    return tuple(args[i] for i in decl.joint[seat])


class JointReader(SpecReader):
    """Reads an action with `simultaneous: true` as one action of every seat's choices."""

    #: the loader's reading of an action's parameters (into `env`, each under `rename`)
    action_params: Callable[..., list[tuple[str, ir.Expr]]]
    check_say: Callable[..., None]
    effects: Callable[..., tuple[ir.Stmt, ...]]

    def joint_action(self, name: str, a: dict[str, Any], cite: tuple[str, ...]
                     ) -> ir.ActionDecl:
        path: PathKey = ("actions", name)
        self.chooser_free(path, a)
        if "|" in a["say"]:
            raise self.err((*path, "say"), "the say of a simultaneous action cannot hold '|': "
                                           "it separates the seats' choices in the action's text")
        count = len(a.get("params", {})) * self.players
        if count > MAX_JOINT_PARAMS:
            raise self.err((*path, "params"), over(
                "max_joint_params", f"the parameters of {name}, one per seat and parameter with "
                f"{self.players} players", count))
        self.check_say((*path, "say"), a["say"], name, dict.fromkeys(a.get("params", {})))
        params: list[tuple[str, ir.Expr]] = []
        seats: list[tuple[int, ...]] = []
        whens: list[ir.Expr] = []
        effects: list[ir.Stmt] = []
        says: list[str] = []
        for seat in range(self.players):
            env: dict[str, ir.Expr] = {CHOOSER: ir.Const(seat, PLAYER)}
            try:
                mine = self.action_params(path, a, env, lambda p, s=seat: seat_param(p, s))
                whens.append(self.expr((*path, "when"), a["when"], BOOL, env))
                effects += self.effects((*path, "effects"), a["effects"], env)
            except SpecError as exc:  # the same text for every seat: say which one failed
                raise SpecError(exc.where, f"{exc.message} (in simultaneous action {name}, "
                                           f"with chooser = seat {seat})") from None
            seats.append(tuple(range(len(params), len(params) + len(mine))))
            params += mine
            says.append(_renamed(a["say"], seat))
        return ir.ActionDecl(name, SEPARATOR.join(says), tuple(params), _conjunction(whens),
                             tuple(effects), cite, self.doc.where(path), joint=tuple(seats))

    def chooser_free(self, path: PathKey, a: dict[str, Any]) -> None:
        """`chooser` is the language's inside a joint action: no name of the spec's."""
        s = self.scope
        if CHOOSER in {*s.params, *s.vars, *s.zones, *s.indices, *s.defs, *s.procedures}:
            raise self.err((*path, "simultaneous"), f"{CHOOSER} is a name this spec declares; in "
                           "a simultaneous action it names the choosing seat: rename the spec's")
        if CHOOSER in a.get("params", {}):
            raise self.key_err((*path, "params", CHOOSER), f"{CHOOSER} names the choosing seat "
                               "of a simultaneous action; a parameter needs a name of its own")

    def check_joint(self, g: ir.GameIR) -> None:
        """The joint legal actions of each joint action, the product of every seat's
        choices bounded from the spec (`work.Bounds.length` of each domain: a zone's
        kinds, the seats, a list's elements), within `MAX_JOINT_ACTIONS`."""
        bounds = work.Bounds(g)
        for a in g.actions:
            if not a.joint:
                continue
            product, per_seat = 1, []
            for seat in a.joint:
                n = 1
                for i in seat:
                    n *= bounds.length(a.params[i][1])
                per_seat.append(n)
                product *= n
            if product > MAX_JOINT_ACTIONS:
                shown = " x ".join(f"{n:,}" for n in per_seat)
                raise self.err(("actions", a.name, "simultaneous"), (
                    f"the joint actions of {a.name}, the product of each seat's choices "
                    f"({shown}) with {g.players} players, may number up to {product:,}, over the "
                    f"limit of {MAX_JOINT_ACTIONS:,} (max_joint_actions)"))


def _renamed(say: str, seat: int) -> str:
    """`say` with each `{param}` field naming seat `seat`'s parameter."""
    out = ""
    for literal, field, _, _ in string.Formatter().parse(say):
        out += literal.replace("{", "{{").replace("}", "}}")
        if field is not None:
            out += "{" + seat_param(field, seat) + "}"
    return out


def _conjunction(whens: list[ir.Expr]) -> ir.Expr:
    """The seats' conditions joined by `and`, each conjunct once (in first-seen order)."""
    parts: list[ir.Expr] = []
    for w in whens:
        for c in (w.values if isinstance(w, ir.BoolOp) and w.op == "and" else (w,)):
            if c not in parts:
                parts.append(c)
    return parts[0] if len(parts) == 1 else ir.BoolOp("and", tuple(parts), BOOL)
