"""The expression language: what it accepts, its types, and what it rejects (with where)."""

from __future__ import annotations

import pytest

from model import ir
from model.errors import SpecError, Where
from model.expr import ExprParser, Scope
from model.types import BOOL, INT, PLAYER, STR, Type

ZONES = {
    "stock": ir.ZoneDecl("stock", "pile", None, "cards"),
    "hand": ir.ZoneDecl("hand", "bag", "player", "cards"),
}


def parser() -> ExprParser:
    scope = Scope(
        params={"limit": (40, INT), "mode": ("a", Type("str", ref="mode"))},
        vars={"active": (PLAYER, None), "round": (INT, None), "quit": (BOOL, "player"),
              "phase": (Type("str", ref="phase"), None)},
        zones=ZONES, indices={}, index_attr_types={},
        kind_attrs={"rank": INT, "values": Type("list", of=INT)},
        kind_index={"1": 0, "llama": 1},
        enums={"phase": ("play", "return"), "mode": ("a", "b")},
        builtins={"players": Type("list", of=PLAYER), "player_count": INT},
    )
    return ExprParser(scope, lambda offset: Where("test.yaml", 1, 1 + offset))


def parse(text: str, env: dict | None = None) -> ir.Expr:
    return parser().expression(text, env)


CARD = {"card": ir.Local("card", Type("kind"))}


def test_accepts_the_lama_follow_rule() -> None:
    e = parse("card.rank == top(stock).rank or card.rank == top(stock).rank % 7 + 1", CARD)
    assert e.type == BOOL
    assert isinstance(e, ir.BoolOp) and e.op == "or"


def test_types_of_common_forms() -> None:
    assert parse("count(hand[active])").type == INT
    assert parse("count(p for p in players if not quit[p])").type == INT
    assert parse("[p for p in players if quit[p]]").type == Type("list", of=PLAYER)
    assert parse("first((q for q in after(active) if not quit[q]), active)").type == PLAYER
    assert parse("any(v == 3 for v in card.values)", CARD).type == BOOL
    assert parse("'llama' in hand[active]").type == BOOL


def test_kind_names_compare_to_kinds_and_are_checked() -> None:
    e = parse("top(stock) == 'llama'")
    assert isinstance(e, ir.Cmp) and e.right == ir.Const(1, Type("kind"))
    with pytest.raises(SpecError, match="unknown card or token kind 'lama'"):
        parse("top(stock) == 'lama'")


def test_enum_values_are_checked() -> None:
    assert parse("phase == 'return'").type == BOOL
    with pytest.raises(SpecError, match="'retrun' is not one of play, return"):
        parse("phase == 'retrun'")


@pytest.mark.parametrize(("text", "message"), [
    ("card.__class__", "attribute names starting with '_' are not allowed"),
    ("__import__('os')", "names starting with '_' are not allowed"),
    ("card.colour", "kinds have no attribute 'colour'"),
    ("eval('1')", "unknown function 'eval'"),
    ("open('x')", "unknown function 'open'"),
    ("foo(1)", "unknown function 'foo'"),
    ("count(hand[active]) + 'x'", "expected a number, found a name"),
    ("limit - 'three'", "expected a number, found a name"),
    ("count(hand[active]) and True", "expected a yes/no condition, found a number"),
    ("not count(stock)", "expected a yes/no condition, found a number"),
    ("nosuch > 1", "unknown name 'nosuch'"),
    ("count(deck)", "unknown name 'deck'"),
    ("count(hand)", "zone hand is one per player"),
    ("hand[active].x", "has no attribute"),
    ("(lambda: 1)()", "only plain function names can be called"),
    ("lambda: 1", "a lambda is not part of the expression language"),
    ("{1: 2}", "a dict is not part of the expression language"),
    ("x := 3", "cannot parse"),
    ("top(hand[active])", r"top\(\) needs a pile"),
    ("move(card, stock, hand[active])", "changes the state"),
    ("count(stock) is 3", "'is' is not part of the language"),
    ("1 +", "cannot parse"),
])
def test_rejects(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse(text, CARD)


def test_error_points_into_the_text() -> None:
    with pytest.raises(SpecError) as info:
        parse("count(stock) + nosuch")
    assert info.value.where == Where("test.yaml", 1, 16)


def test_statements() -> None:
    p = parser()
    s = p.statement("quit[active] = True", {}, ("x.en#L1",))
    assert isinstance(s, ir.Assign) and s.target.name == "quit"
    m = p.statement("move(card, hand[active], stock)", CARD, ())
    assert isinstance(m, ir.Do) and m.fn == "move"
    with pytest.raises(SpecError, match="only a variable"):
        p.statement("hand[active] = 3", {}, ())
    with pytest.raises(SpecError, match="round is kept by the runtime"):
        p.statement("round = 3", {}, ())
    with pytest.raises(SpecError, match="unknown effect 'destroy'"):
        p.statement("destroy(stock)", {}, ())
    with pytest.raises(SpecError, match="expected a yes/no condition, found a number"):
        p.statement("quit[active] = 3", {}, ())
    with pytest.raises(SpecError, match="expected an assignment"):
        p.statement("import os", {}, ())


def test_str_type_name() -> None:
    assert str(STR) == "a name"
