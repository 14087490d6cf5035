"""The static types of the expression language.

Every expression is checked before any game runs: a number where a yes/no is
expected, or a player where a card kind is expected, is a spec error with its
position, not a surprise during play.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Type:
    """A type: `name` is one of int, bool, str, player, kind, zone, index, list.

    `ref` narrows it: the enum of a str, the item class of a kind (cards/tokens),
    the zone family of a zone, the index set of an index. `of` is a list's element.
    """

    name: str
    ref: str | None = None
    of: Type | None = None

    def __str__(self) -> str:
        if self.name == "list":
            return f"list of {self.of}"
        if self.name == "str" and self.ref:
            return f"one of {self.ref}"
        if self.name == "index" and self.ref:
            return f"a {self.ref}"
        if self.name == "zone" and self.ref:
            return f"zone {self.ref}"
        return {"int": "a number", "bool": "a yes/no condition", "str": "a name",
                "player": "a player", "kind": "a card or token kind"}.get(self.name, self.name)


INT = Type("int")
BOOL = Type("bool")
STR = Type("str")
PLAYER = Type("player")
KIND = Type("kind")
ANY = Type("any")


def list_of(t: Type) -> Type:
    return Type("list", of=t)


def ref_of(t: Type) -> str:
    """What a type narrows to (`ref`): the enum of a str, the family of a zone, ...; a type
    without one where one is needed is a bug of the caller, never of a spec."""
    if t.ref is None:
        raise ValueError(f"{t} has no ref")
    return t.ref



NUMERIC = frozenset({"int", "player", "index"})


def is_numeric(t: Type) -> bool:
    return t.name in NUMERIC or t.name == "any"


def fits(value: Type, expected: Type) -> bool:
    """Whether a value of type `value` may stand where `expected` is required."""
    if expected.name == "any" or value.name == "any":
        return True
    if expected.name == "int":
        return is_numeric(value)
    if expected.name in ("player", "index"):
        return value.name in (expected.name, "int")
    if expected.name == "list":
        return value.name == "list" and (value.of is None or expected.of is None
                                         or fits(value.of, expected.of))
    if expected.name == "str":
        return value.name == "str" and (not expected.ref or not value.ref
                                        or value.ref == expected.ref)
    return value.name == expected.name
