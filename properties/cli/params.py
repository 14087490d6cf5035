"""The click parameter types the commands share, checked as the command line is read,
so that a mistake is said before any game is played:

- `OutputFile` (`OUTPUT_FILE`, `OUTPUT_FILE_OR_DASH`): a file a command writes (a report,
  a replay): not a folder nor a symbolic link, in a folder that exists and can be written;
- `OutputFolder` (`OUTPUT_FOLDER`): a folder a command makes and writes files into: not a
  file nor a symbolic link, below a folder that can be written;
- `Finite`: a number in a range, never nan or infinite (a time or a share of nan passes
  every comparison a range makes, and an infinite one never ends);
- `SchedulerAddress` (`SCHEDULER`): the form of a Dask scheduler's address, checked
  before any connection is tried;
- `Z3Budget` (`z3_budget_option`): z3's deterministic budget, a whole number of millions
  of its resource units.

The files themselves are written by `model.safe_write`, which checks again.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click

from model.safe_write import output_file_problem, output_folder_problem

from ..compare.runner import scheduler_problem


class OutputFile(click.ParamType):
    """A file a command will write; with `dash`, also '-' (standard output)."""

    name = "file"

    def __init__(self, dash: bool = False) -> None:
        self.dash = dash

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path:
        path = Path(value)
        if self.dash and str(value) == "-":
            return path
        problem = output_file_problem(path)
        if problem is not None:
            self.fail(f"{path}: {problem}", param, ctx)
        return path


class OutputFolder(click.ParamType):
    """A folder a command will make (if missing) and write files into."""

    name = "folder"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path:
        path = Path(value)
        problem = output_folder_problem(path)
        if problem is not None:
            self.fail(f"{path}: {problem}", param, ctx)
        return path


class Finite(click.FloatRange):
    """A `click.FloatRange` that refuses nan and the infinities. Without bounds, `--help`
    shows it as a plain number (click would print the empty range as `x<=None`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.min is None and self.max is None:
            self.name = "float"

    def _describe_range(self) -> str:
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


class SchedulerAddress(click.ParamType):
    """A Dask scheduler's address: [tcp|tls|ws|wss://]HOST:PORT."""

    name = "address"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        problem = scheduler_problem(str(value))
        if problem is not None:
            self.fail(f"{value!r}: {problem}", param, ctx)
        return str(value)


OUTPUT_FILE = OutputFile()
OUTPUT_FILE_OR_DASH = OutputFile(dash=True)
OUTPUT_FOLDER = OutputFolder()
SCHEDULER = SchedulerAddress()


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
