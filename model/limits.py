"""The limits on what a spec (or situation, or replay) file may ask for, in one place.

A spec is untrusted input: a designer runs the tool on changes other people propose.
Every size, depth and number a file can make the tool spend time or memory on has a
limit here, with its default; docs/spec-language.md ("Limits") lists them. Going over
one is a `SpecError` naming the limit, the place and the number. The names are also
how the error messages refer to them (`max_players`, ...).

Identifiers are the other half of keeping a spec from becoming code: every name that
the code generator turns into a Python name matches `IDENTIFIER` (checked by the JSON
Schema and again by the loader), and the generator adds a prefix of its own.
"""

from __future__ import annotations

import keyword
import re

#: A name declared in a spec (attribute, zone, variable, action, parameter, index set,
#: def, param, condition, ambiguity, variant): an ASCII letter, then letters, digits and
#: single underscores, not ending in one. The generator joins two names with `__`, so
#: a name without `__` keeps every generated name distinct.
IDENTIFIER = re.compile(r"[A-Za-z](?:_?[A-Za-z0-9])*")
#: A loop variable renamed so that it captures no local of a def's or procedure's argument
#: (`expr.binding_name`): a spec identifier, `__` and a number. No spec name holds `__`,
#: so it is distinct from every name a spec declares.
RENAMED_LOCAL = re.compile(rf"(?:{IDENTIFIER.pattern})__[1-9][0-9]*")
#: A joint action's parameter for one seat (`model.joint`): a spec identifier, `__seat` and
#: the seat. Neither a spec name nor a renamed loop variable can be one.
SEAT_LOCAL = re.compile(rf"(?:{IDENTIFIER.pattern})__seat(?:0|[1-9][0-9]?)")
#: A kind's name (`"1"`, `joker`, `2/3`, `+4`): text, never a Python name.
KIND_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_/+-]*")

MAX_NAME_LENGTH = 64

# ------------------------------------------------------------------ the file
MAX_FILE_BYTES = 1_000_000       # a spec, situation or replay file
MAX_YAML_DEPTH = 32              # nested mappings and lists
MAX_YAML_NODES = 100_000         # values in the file, each use of an alias counted in full

# ---------------------------------------------------------------- expressions
MAX_EXPR_CHARS = 2_000           # one expression or statement, as written
MAX_EXPR_DEPTH = 50              # nesting of one expression, defs expanded
MAX_EXPR_CHAIN = 100             # links of chains of one level on any path (a + b + ...)
MAX_EXPR_NODES = 5_000           # parts of one expression, defs expanded
MAX_SPEC_EXPR_NODES = 200_000    # parts of all expressions of a spec together
MAX_INT = 10**9                  # any whole number written in a spec, or computed from params

# --------------------------------------------------------------------- sizes
MAX_PLAYERS = 16                 # players.max, and the player count a game is loaded for
MAX_KINDS = 500                  # card and token kinds together
MAX_EACH_NAMES = 4               # names one generated entry of kinds ranges over (suit x rank)
MAX_COPIES = 1_000               # copies of one kind
MAX_ITEMS = 10_000               # cards and tokens together
MAX_INDEX_SIZE = 100             # members of one index set
MAX_ZONE_SLOTS = 1_000           # zones, counting each player's (or member's) own
MAX_VAR_SLOTS = 1_000            # variables, counted the same way
MAX_ACTIONS = 200
MAX_ACTION_PARAMS = 4
MAX_JOINT_PARAMS = 16            # parameters of a joint action expanded: seats x parameters
MAX_JOINT_ACTIONS = 100_000      # a joint action's legal actions, the product of the seats'
#                                  choices, as bounded from the spec

# --------------------------------------------------------------------- loops
MAX_REPEAT = 1_000               # a `repeat` count
MAX_WHILE = 10_000               # a `while` loop's `max`
MAX_RANGE = 1_000                # the length of a `range(a, b)`
MAX_EFFECT_DEPTH = 40            # effects nested in effects (if, for, ...), procedures expanded
MAX_LOOP_NESTING = 16            # loops (for, repeat, while) among them: Python compiles at most
#                                  20 nested loops, and the generated code adds two
MAX_CALL_DEPTH = 16              # procedures calling procedures, one inside another
MAX_CALLS = 1_000                # procedure calls expanded in a spec, each call inside an
#                                  expanded procedure counted again
MAX_WORK = 1_000_000             # steps one action (its legal choices and effects), a
#                                  round's start or its scoring may take, as bounded from
#                                  the loops and choices the spec writes

LIMITS = {name.lower(): value for name, value in globals().items()
          if name.startswith("MAX_") and isinstance(value, int)}


def identifier_problem(name: object, in_expressions: bool = True) -> str | None:
    """Why `name` cannot be a spec identifier, or None if it can. A name that expressions
    use (a zone, a variable, ...) cannot be a reserved word such as `and` or `pass`."""
    if not isinstance(name, str):
        return f"a name is text, found {name!r}"
    if len(name) > MAX_NAME_LENGTH:
        return (f"a name has at most {MAX_NAME_LENGTH} characters (max_name_length); this one "
                f"has {len(name)}")
    if not IDENTIFIER.fullmatch(name):
        return (f"{short(name)} is not a name: use ASCII letters, digits and single "
                "underscores, starting with a letter (hand_size, quit, card2)")
    if in_expressions and keyword.iskeyword(name):
        return f"{name!r} is a reserved word of the expression language"
    return None


def short(value: object, limit: int = 60) -> str:
    """`repr(value)`, cut to `limit` characters: error messages quote untrusted text."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return text[: limit - 3] + "..."


def over(limit: str, what: str, found: int) -> str:
    """The message for a value over a limit: names the limit and both numbers."""
    value = LIMITS[limit]
    return f"{what} is {found:,}, over the limit of {value:,} ({limit})"
