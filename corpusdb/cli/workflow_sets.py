"""``corpusdb sets``: which set of which document is where, with the set ids ``submit`` and ``reopen`` need.

Thin over ``Corpus.set_headers``: headers only (who, status, version), no annotation content, and
the same blindness as every other read (an annotator lists only their own sets).
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import emit, state
from corpusdb.cli.tables import print_table
from corpusdb.cli.workflow_common import codes

SET_STATUSES = ("assigned", "in_progress", "submitted")
"""``corpusdb.basics.records.SET_STATUSES``, spelled here so that building the command line does not
load the records (start-up; tests/test_startup.py keeps the two equal)."""


def sets(
    ctx: typer.Context,
    document: Annotated[str | None, typer.Argument(help="One document; default: all.")] = None,
    annotator: Annotated[
        str | None, typer.Option("--annotator", "-a", help="Only this annotator's sets.")
    ] = None,
    status: Annotated[
        str | None, typer.Option("--status", help=f"Only sets in this status ({', '.join(SET_STATUSES)}).")
    ] = None,
    kind: Annotated[
        str | None, typer.Option("--kind", help="Only this kind: annotation, gold or prediction.")
    ] = None,
) -> None:
    """Annotation sets with their ids, document, annotator, kind, status and version."""
    if status is not None and status not in SET_STATUSES:
        raise UsageError(f"unknown status {status!r} (one of: {', '.join(SET_STATUSES)})")
    st = state(ctx)
    res = st.corpus().set_headers(document=document, annotator=annotator, kind=kind, status=status)

    def render() -> None:
        by = Counter(h.status for h in res)
        print_table(
            ("set", "document", "annotator", "kind", "status", "version", "updated"),
            [
                (
                    h.id,
                    h.document_external_id,
                    h.annotator or "-",
                    h.kind,
                    h.status,
                    h.version,
                    f"{h.updated:%Y-%m-%d %H:%M}",
                )
                for h in res
            ],
            f"total: {len(res)} sets on {len({h.document_id for h in res})} documents"
            + (f" ({', '.join(f'{k} {v}' for k, v in sorted(by.items()))})" if by else ""),
        )

    emit(st, [{"id": h.id, "document": h.document_external_id, "annotator": h.annotator, "kind": h.kind,
               "status": h.status, "version": h.version, "guideline_version": h.guideline_version,
               "updated": h.updated.isoformat()} for h in res], render)  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("sets", epilog=codes())(sets)
