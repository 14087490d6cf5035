"""The errors rulespec raises for bad specs, bad situations and illegal actions, and for
its own bugs.

Every error a user can cause carries where it happened (file, line, column) and what
was expected, so the CLI can print one clear line and exit with a distinct code
instead of a traceback. `InternalError` is the other kind: a bug in rulespec (the code
generator emitting Python that does not compile, say), never the user's fault, so it is
not a `RulespecError`; the CLI reports it, like any unexpected exception, as a bug.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Where:
    """A place in a source file: 1-based line and column."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file


class RulespecError(Exception):
    """Base of the errors a user's input can cause; `exit_code` is what the CLI returns."""

    exit_code = 2


class SpecError(RulespecError):
    """A spec (or situation) file is malformed: says where and what was expected."""

    def __init__(self, where: Where | None, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)


class IllegalAction(RulespecError):
    """An action that is not legal in the state it was applied to; the state is unchanged."""

    exit_code = 1


class ModelError(RulespecError):
    """The rules led to a situation they do not define (an empty pile drawn from, say)."""

    exit_code = 1


class InternalError(Exception):
    """A bug in rulespec, not in its input; the CLI exits with `exit_code` and asks for a
    report."""

    exit_code = 4
