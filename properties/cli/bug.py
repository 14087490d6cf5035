"""What the `rulespec` command says when rulespec itself fails: a bug, not bad input.

A user's mistake is a `RulespecError` (one positioned line, exit 2). Anything else that
escapes a command (an `InternalError` of the code generator, or any exception nobody
expected) is a bug in rulespec: one line asking for a report with the spec and the
command, exit 4, and the traceback only when `RULESPEC_DEBUG` is set.
"""

from __future__ import annotations

import os
import shlex
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

import click

from model.errors import InternalError

#: The environment variable that makes a bug report show its traceback.
DEBUG_VARIABLE = "RULESPEC_DEBUG"


def bug_message(exc: BaseException, argv: Sequence[str]) -> str:
    """The one line a bug is reported as (untrusted text in it is shown escaped)."""
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    what = " ".join(what.split())  # one line
    return (f"this is a bug in rulespec: {what}; please report it with the spec and the "
            f"command: rulespec {shlex.join(argv)}")


def report_bug(exc: BaseException, argv: Sequence[str]) -> NoReturn:
    """Print the bug report for `exc` on stderr and exit with InternalError.exit_code."""
    if os.environ.get(DEBUG_VARIABLE):
        click.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
    click.echo(f"error: {bug_message(exc, argv)}", err=True)
    if not os.environ.get(DEBUG_VARIABLE):
        click.echo(f"(set {DEBUG_VARIABLE}=1 to see the traceback)", err=True)
    sys.exit(InternalError.exit_code)
