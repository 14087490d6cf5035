"""Tricks (docs/spec-language.md#tricks): a zone declared with `trick:` is desugared, when
the spec is loaded, into constructs the language already has.

The zone becomes one one-card pile per player (what each has played to the trick, so a
card remembers who played it), with a player variable `leader` (who led it), defs that
read the trick (`led_suit`, `trick_size`, `trick_complete`, `can_follow(zone)`,
`follows_suit(card, zone)`, `trick_strength(q)`, `trick_winner`, and `trick_trumps`
where there are trumps) and a procedure
`collect_trick(to)` (the winner becomes the leader, and the trick goes to `to`). The defs
are expression text, read like the spec's own; the procedure's body is effect text,
expanded where it is called like a spec's procedure. So the back ends (the generated
model, the z3 encoding) see plain statements and expressions, and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from . import ir
from .errors import SpecError, Where
from .expr import Def
from .limits import MAX_VAR_SLOTS, over, short
from .reader import SpecReader
from .source import PathKey
from .types import PLAYER, STR

#: The names a trick zone brings, besides the zone's own (docs/spec-language.md#tricks).
LEADER = "leader"
TRUMPS = "trick_trumps"
DEFS = ("led_suit", "trick_size", "trick_complete", "can_follow", "follows_suit",
        "trick_strength", "trick_winner", TRUMPS)
COLLECT = "collect_trick"
NAMES = (LEADER, *DEFS, COLLECT)
#: The sections whose keys are names a spec declares.
_SECTIONS = ("params", "zones", "indices", "vars", "defs", "procedures")


@attrs.frozen
class Trick:
    """A trick zone as declared: its name, the item class it holds, the kinds' suit and
    rank attributes, the trump suit (None: no trumps; else expression text) and where."""

    zone: str
    holds: str
    suit: str
    rank: str
    trumps: str | None
    path: PathKey


class TricksReader(SpecReader):
    """Reads the `trick:` of a zone, and gives the names it brings (before the spec's own
    variables, defs and procedures are read)."""

    trick: Trick | None = None
    #: the kinds, as read before the zones (the loader sets it)
    kind_list: Sequence[ir.Kind] = ()

    def trick_zone(self, name: str, z: dict[str, Any]) -> dict[str, Any]:
        """The zone `name` as a plain zone (a pile per player) if it is a trick zone; it is
        remembered for the names it brings. At most one zone of a spec is a trick."""
        path: PathKey = ("zones", name, "trick")
        if self.trick is not None:
            raise self.key_err(path, f"zone {self.trick.zone} is already the trick; a spec "
                                     "has at most one trick zone")
        for key, want in (("order", "pile"), ("per", "player")):
            if key in z and z[key] != want:
                raise self.err(("zones", name, key), f"a trick zone is one pile per player "
                               f"(order: pile, per: player); leave {key} out, found "
                               f"{short(z[key])}")
        t = z["trick"]
        trumps = t.get("trumps")
        if trumps is not None and not isinstance(trumps, str):
            raise self.err((*path, "trumps"), "trumps is the name of a suit, a param naming "
                           f"one, or an expression; found {short(trumps)}")
        self.trick = Trick(name, z["holds"], t["suit"], t["rank"], trumps, path)
        self._trick_names_free()
        self._trick_attributes()
        return {**z, "order": "pile", "per": "player"}

    def _trick_names_free(self) -> None:
        """The names the trick brings are not the spec's own names."""
        assert self.trick is not None
        for section in _SECTIONS:
            for key in self.d.get(section, {}) or {}:
                name = str(key).split("(")[0].strip()
                if name in NAMES:
                    raise self.key_err((section, key), f"{name!r} is a name the trick zone "
                                       f"{self.trick.zone} brings ({', '.join(NAMES)}; "
                                       "docs/spec-language.md#tricks); name yours otherwise")

    def _trick_attributes(self) -> None:
        """`suit` is an enum attribute and `rank` a number attribute of the items held."""
        t = self.trick
        assert t is not None
        declared = (self.d.get(t.holds) or {}).get("attributes", {})
        for key, want in (("suit", "an enum (a list of names)"), ("rank", "int")):
            attr = getattr(t, key)
            typ = self.scope.kind_attrs.get(attr)
            if attr not in declared or typ is None:
                raise self.err((*t.path, key), f"{key}: {short(attr)} is not an attribute of "
                               f"the {t.holds}; the {t.holds}' attributes are "
                               + (", ".join(declared) or "none"))
            ok = typ.name == "str" if key == "suit" else typ.name == "int"
            if not ok:
                raise self.err((*t.path, key), f"{key}: the attribute {attr} must be {want}, "
                                               f"found {typ}")

    def trick_vars(self, slots: int) -> tuple[ir.VarDecl, ...]:
        """`leader`: who leads the trick (seat 0 until the spec says otherwise); `slots`
        the variable slots the spec declares."""
        if self.trick is None:
            return ()
        if slots + 1 > MAX_VAR_SLOTS:
            raise self.err(("vars",), over("max_var_slots", f"the number of variables with "
                                           f"{self.players} players, the trick's leader "
                                           "included", slots + 1))
        self.scope.vars[LEADER] = (PLAYER, None)
        return (ir.VarDecl(LEADER, PLAYER, None, ir.Const(0, PLAYER)),)

    def trick_defs(self) -> tuple[str, ...]:
        """The trick's defs, as text the expression parser reads like a spec's def, where
        they are used; their names."""
        t = self.trick
        if t is None:
            return ()
        z, s, r = t.zone, t.suit, t.rank
        # the texts' own locals, none named like the zone (the only spec name they read)
        q, x, k, card, zone = (n + "1" if n == z else n for n in ("q", "x", "k", "card", "zone"))
        trumps = self._trumps()
        spread = self._rank_spread()
        led = f"({spread} if top({z}[{q}]).{s} == led_suit else 0)"
        bonus = (led if trumps is None else
                 f"({2 * spread} if top({z}[{q}]).{s} == {TRUMPS} else {led})")
        order = f"trick_strength({{v}}) * player_count - ({{v}} - {LEADER}) % player_count"
        texts: dict[str, tuple[tuple[str, ...], str]] = {
            "led_suit": ((), f"top({z}[{LEADER}]).{s}"),
            "trick_size": ((), f"sum(count({z}[{q}]) for {q} in players)"),
            "trick_complete": ((), f"all(not empty({z}[{q}]) for {q} in players)"),
            "can_follow": ((zone,), f"not empty({z}[{LEADER}]) and "
                                    f"any({k}.{s} == led_suit for {k} in kinds({zone}))"),
            "follows_suit": ((card, zone), f"empty({z}[{LEADER}]) or {card}.{s} == led_suit "
                                           f"or not can_follow({zone})"),
            "trick_strength": ((q,), f"top({z}[{q}]).{r} + {bonus}"),
            "trick_winner": ((), f"first(({q} for {q} in players if not empty({z}[{q}]) and "
                                 f"{order.format(v=q)} == max(({order.format(v=x)} for {x} "
                                 f"in players if not empty({z}[{x}])), 0)), {LEADER})"),
        }
        if trumps is not None:  # a def of its own: the spec's text captures no local
            texts[TRUMPS] = ((), trumps)
        where = self.doc.key_where(t.path)

        def at(_offset: int) -> Where:
            return where  # the text is not the file's (a use points at itself instead)

        for name, (params, text) in texts.items():
            self.scope.defs[name] = Def(name, params, text, at, given=True)
        return tuple(texts)

    def _trumps(self) -> str | None:
        """The trump suit as expression text (None: no trumps): a suit's name, a param
        whose value is one (or `none`), else the text as written, of the suit's type."""
        t = self.trick
        assert t is not None
        if t.trumps is None:
            return None
        at = (*t.path, "trumps")
        suits = self.scope.enums[t.suit]
        text = t.trumps.strip()
        if text in suits:
            return repr(text)
        if text in self.scope.params and isinstance(self.scope.params[text][0], str):
            value = self.scope.params[text][0]
            if value == "none":
                return None
            if value not in suits:
                raise self.err(at, f"trumps: the param {text} is {short(value)}, which is not "
                               f"a suit ({', '.join(suits)}) nor none")
            return repr(value)
        if text == "none":
            return None
        parsed = self.expr(at, text)
        if parsed.type.name != "str" or parsed.type.ref not in (None, t.suit):
            raise self.err(at, f"trumps is a suit ({', '.join(suits)}), a param naming one "
                               f"or none, or an expression giving a suit; found {parsed.type}")
        for node in ir.walk(parsed):  # a name written in it ('bells' if x else 'leaves')
            if isinstance(node, ir.Const) and node.type == STR and node.value not in suits:
                raise self.err(at, f"trumps: {short(node.value)} is not a suit; the suits are "
                                   + ", ".join(suits))
        return text

    def _rank_spread(self) -> int:
        """One more than the largest difference of two ranks of the items held: a card of
        the suit led outranks every other suit by this much, a trump by twice as much."""
        t = self.trick
        assert t is not None
        ranks = [int(k.attrs.get(t.rank, 0)) for k in self.kind_list if k.item_class == t.holds]
        return max(ranks, default=0) - min(ranks, default=0) + 1

    def trick_procedure(self) -> tuple[str, tuple[str, ...], list[Any], PathKey] | None:
        """`collect_trick(to)`: the winner becomes the leader, then every card of the trick
        goes to `to` (read after the leader is set: `won[leader]`)."""
        t = self.trick
        if t is None:
            return None
        body = [f"{LEADER} = trick_winner",
                {"for": "q in players", "do": [f"move_all({t.zone}[q], to)"]}]
        return COLLECT, ("to",), body, t.path

    def check_collect(self, args: list[ir.Expr], at: Where) -> None:
        """The argument of `collect_trick` reads neither the trick nor its winner: it is read
        as the cards move, after the leader has become the winner."""
        t = self.trick
        assert t is not None
        for node in ir.walk(args[0]):
            if isinstance(node, ir.Zone) and node.family == t.zone:
                raise SpecError(at, f"collect_trick(to): to is read while the cards of "
                                    f"{t.zone} move, so it cannot read {t.zone} (nor "
                                    "trick_winner); write won[leader]: the leader is the "
                                    "winner by then")
