"""What an import or an export tells its caller, and how a refused import fails.

Why records of their own: the CLI prints them (text or JSON), scripts and tests read the counts, and a
refused import must carry *every* problem of the run, not only the first, plus the warnings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpusdb.basics.errors import Conflict, CorpusError, FormatError, Problem


@dataclass(frozen=True, slots=True)
class ImportReport:
    """The outcome of one committed import (nothing is committed when an import is refused)."""

    format: str
    """``brat`` or ``biorelex``."""
    path: str
    annotator: str | None
    """None for gold, which belongs to the adjudication."""
    kind: str
    status: str
    documents: int
    """Documents read and accepted (new, already stored, or with an unchanged set)."""
    documents_added: int
    documents_existing: int
    sets_created: int
    sets_replaced: int
    sets_unchanged: int
    """Sets already stored with the very same content: left alone, so a re-import is a no-op."""
    items: Mapping[str, int] = field(default_factory=dict)
    """Items written: spans, relations, links, notes, labels."""
    annotator_created: bool = False
    warnings: tuple[str, ...] = ()
    """Reader warnings, ``file:line: warning: message`` (whitespace-only text differences, BOM...)."""
    schema_warnings: tuple[str, ...] = ()
    """Types, roles and attributes the project's schema does not know (stored all the same)."""
    rejected: tuple[str, ...] = ()
    """Lenient mode: the files (brat) or sentence ids (BioRelEx) that were not imported."""
    problems: tuple[Problem, ...] = ()
    """Lenient mode: why they were not."""
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    """Lenient mode: what to do about the refusals, said once (see ``ImportRefused.notes``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "path": self.path,
            "annotator": self.annotator,
            "kind": self.kind,
            "status": self.status,
            "documents": self.documents,
            "documents_added": self.documents_added,
            "documents_existing": self.documents_existing,
            "sets_created": self.sets_created,
            "sets_replaced": self.sets_replaced,
            "sets_unchanged": self.sets_unchanged,
            "items": dict(self.items),
            "annotator_created": self.annotator_created,
            "warnings": list(self.warnings),
            "schema_warnings": list(self.schema_warnings),
            "rejected": list(self.rejected),
            "problems": [str(p) for p in self.problems],
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
        }

    def summary(self) -> str:
        if self.format == "texts":
            text = f"imported {self.documents} documents ({self.documents_added} new, no annotation sets)"
            text += f"; {len(self.rejected)} rejected" if self.rejected else ""
            return text + f" in {self.seconds:.2f} s"
        who = self.annotator if self.annotator is not None else "gold"
        items = ", ".join(f"{n} {k}" for k, n in self.items.items() if n)
        text = (
            f"imported {self.documents} documents ({self.documents_added} new) as {who} ({self.kind}, "
            f"{self.status}): {self.sets_created} sets created, {self.sets_replaced} replaced, "
            f"{self.sets_unchanged} unchanged"
        )
        text += f"; {items}" if items else ""
        if self.rejected:
            text += f"; {len(self.rejected)} rejected"
        return text + f" in {self.seconds:.2f} s"


@dataclass(frozen=True, slots=True)
class ExportReport:
    """The outcome of one export."""

    format: str
    path: str
    documents: int
    files: tuple[str, ...]
    """Paths written (brat: every file; BioRelEx: the one file)."""
    hidden: int = 0
    """Sets asked for but not visible to this user yet (blindness): left out, never revealed."""
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "path": self.path,
            "documents": self.documents,
            "files": len(self.files),
            "hidden": self.hidden,
            "warnings": list(self.warnings),
        }

    def summary(self) -> str:
        text = f"exported {self.documents} documents to {self.path} ({len(self.files)} files)"
        return text + (f"; {self.hidden} sets hidden until submitted" if self.hidden else "")


class ImportProblems(CorpusError):
    """Base of the two refusals below: every problem of the run and the warnings of the rest."""

    problems: tuple[Problem, ...]
    warnings: tuple[str, ...]
    unknown: tuple[Problem, ...] = ()
    """The problems that are names the schema does not define (one per document and name: a corpus
    in the wrong project has hundreds; the first of ``notes`` sums them up)."""
    notes: tuple[str, ...] = ()
    """What the problems amount to and what to do, each said once (not on every line)."""


class ImportRefused(FormatError, ImportProblems):
    """Invalid input: the database is unchanged; ``problems`` lists every error (exit code 4), the
    names the schema does not define last (also in ``unknown``), and ``notes`` what to do."""

    def __init__(
        self,
        problems: Sequence[Problem],
        warnings: Sequence[str] = (),
        *,
        unknown: Sequence[Problem] = (),
        notes: Sequence[str] = (),
    ) -> None:
        super().__init__([*problems, *unknown])
        self.warnings = tuple(warnings)
        self.unknown = tuple(unknown)
        self.notes = tuple(notes)
        if notes:  # the message (the API's; the CLI prints every line) starts with what they amount to
            self.args = (f"{notes[0]} — {self.args[0]}",)


class ImportConflict(Conflict, ImportProblems):
    """The input clashes with what is stored (another text under an id, a different set): the
    database is unchanged; ``problems`` lists every clash (exit code 6)."""

    def __init__(self, problems: Sequence[Problem], warnings: Sequence[str] = ()) -> None:
        self.problems = tuple(problems)
        self.warnings = tuple(warnings)
        errors = [p for p in self.problems if p.severity == "error"]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{errors[0] if errors else 'conflict'}{more}")


def refusal(
    problems: Sequence[Problem],
    conflicts: Sequence[Problem],
    warnings: Sequence[str],
    *,
    unknown: Sequence[Problem] = (),
    notes: Sequence[str] = (),
) -> CorpusError:
    """The error for a refused import: invalid input when any file is invalid, else a conflict."""
    if unknown or any(p.severity == "error" for p in problems):
        return ImportRefused([*problems, *conflicts], warnings, unknown=unknown, notes=notes)
    return ImportConflict([*problems, *conflicts], warnings)
