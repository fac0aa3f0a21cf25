"""Every error corpusdb raises on purpose, each with the CLI exit code it maps to.

Why one module: the CLI turns any ``CorpusError`` into one line on stderr and its ``exit_code``;
importers and agreement code raise these without depending on the store.

Exit codes (documented in the README and ``corpusdb --help``):

====  ==========================================================
0     success
1     unexpected internal error (a bug: please report it)
2     usage error (bad option or argument)
3     not found (project, document, annotator, set, release...)
4     invalid input data (a file, a schema, a value)
5     permission refused (blindness, roles, read-only sets)
6     conflict (stale version, already exists, state does not allow it)
7     database error (cannot open, needs upgrade, constraint)
====  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal


class CorpusError(Exception):
    """Base of all corpusdb errors; ``str(err)`` is the one-line message shown to users."""

    exit_code: int = 1


class UsageError(CorpusError):
    exit_code = 2


class NotFound(CorpusError):
    exit_code = 3


class InvalidInput(CorpusError):
    exit_code = 4


class SchemaError(InvalidInput):
    """A schema/guideline file is malformed or annotations break the schema."""


class PermissionDenied(CorpusError):
    """The acting user may not do this (blindness, roles, a submitted set)."""

    exit_code = 5


class Conflict(CorpusError):
    exit_code = 6


class StaleVersion(Conflict):
    """Optimistic locking: the set changed since the caller read it."""

    def __init__(self, set_id: int, expected: int, actual: int) -> None:
        super().__init__(
            f"annotation set {set_id} changed since you read it (you had version {expected}, "
            f"it is now {actual}); reload it and apply your change again"
        )
        self.set_id = set_id
        self.expected = expected
        self.actual = actual


class DecidedMeanwhile(Conflict):
    """A conflict the caller meant to decide was decided by someone (often another adjudicator at
    the same moment): their decision is kept; deciding again is a revision, asked for explicitly."""

    def __init__(self, message: str, decided_by: str | None, decision_id: int, method: str) -> None:
        super().__init__(message)
        self.decided_by = decided_by
        self.decision_id = decision_id
        self.method = method


class DatabaseError(CorpusError):
    exit_code = 7


class MissingPath(DatabaseError):
    """A file or folder the user named does not exist: a file error (exit 7), not invalid input."""


class OptionError(UsageError, InvalidInput):
    """An option's value is not one of its choices (``agree -c exactt``): a usage error (exit 2); still
    an ``InvalidInput`` for callers of the API that catch that."""


def must_exist(path: str) -> None:
    """Refuse a path that does not exist before anything is read, naming it."""
    import os

    if not os.path.exists(path):
        raise MissingPath(f"{path}: no such file or folder")


Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem found in an input file, located precisely."""

    file: str
    line: int | None
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.severity}: {self.message}"


class FormatError(InvalidInput):
    """One or more errors found while reading input files; lists every one, not just the first."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        head = str(errors[0]) if errors else "invalid input"
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        super().__init__(head + more)

    @classmethod
    def single(cls, file: str | Path, line: int | None, message: str) -> FormatError:
        return cls([Problem(str(file), line, message)])
