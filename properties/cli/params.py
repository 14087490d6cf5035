"""The click parameter types the commands share, checked as the command line is read,
so that a mistake is said before any game is played:

- `OutputFile` (`OUTPUT_FILE`, `OUTPUT_FILE_OR_DASH`): a file a command writes (a report,
  a replay): not a folder nor a symbolic link, in a folder that exists and can be written;
- `OutputFolder` (`OUTPUT_FOLDER`): a folder a command makes and writes files into: not a
  file nor a symbolic link, below a folder that can be written;
- `Finite`: a number in a range, never nan or infinite (a time or a share of nan passes
  every comparison a range makes, and an infinite one never ends);
- `SchedulerAddress` (`SCHEDULER`): the form of a Dask scheduler's address, checked
  before any connection is tried.

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
    """A `click.FloatRange` that refuses nan and the infinities."""

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
