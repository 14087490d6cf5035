"""Command-line option types shared by several commands: z3's budget, in millions of its
resource units."""

from __future__ import annotations

import click


class Z3Budget(click.ParamType):
    """z3 resource units, given in millions (`--z3-budget 400`): a whole number from
    `minimum` to 100,000 (a hundred billion units), passed on as units."""

    name = "MILLIONS"

    def __init__(self, minimum: int = 1) -> None:
        self.minimum = minimum

    def convert(self, value, param, ctx):  # type: ignore[no-untyped-def]
        if isinstance(value, int):
            return value
        try:
            millions = int(str(value), 10)
        except ValueError:
            self.fail(f"{value!r} is not a whole number of millions of z3 resource units",
                      param, ctx)
        if not self.minimum <= millions <= 100_000:
            self.fail(f"{millions} is not between {self.minimum} and 100000 (millions of "
                      "units)", param, ctx)
        return millions * 1_000_000


def z3_budget_option(default: int = 400, what: str = "per z3 query", name: str = "--z3-budget",
                     minimum: int = 1):  # type: ignore[no-untyped-def]
    """The `--z3-budget` option: z3's deterministic budget, in millions of resource units."""
    return click.option(
        name, "z3_budget", type=Z3Budget(minimum), default=str(default), show_default=True,
        help=f"Millions of z3 resource units {what} (z3's own count of its work, `rlimit`): "
             "the same verdict on any machine under any load. On a 2-core machine z3 spends "
             "1-8 million units a second.")
