"""``corpusdb search``: find words, phrases, regexes and annotations; act on every hit.

Thin over ``Corpus.search`` / ``search_counts`` / ``search_annotate`` / ``search_undo`` /
``search_correct`` (the query language: ``corpusdb.search.query``); the same blindness as every
other read (an annotator's search sees texts and her own sets only).
"""

from __future__ import annotations

from typing import Annotated

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import emit, err, state
from corpusdb.cli.tables import print_table
from corpusdb.cli.workflow_common import codes

EPILOG_SYNTAX = (
    'Query: words (whole, any case), kin* (prefix), "a phrase", /regex/ (/regex/i), and fields: '
    "type:T  text:WORDS  attr:NAME[=V]  grounding:ID (or *)  label:WORDS (a grounding's KB label)  "
    "rel:TYPE[.ROLE][=LABEL]  annotator:NAME (gold)  kind:K  status:S  doc:ID  "
    "agree:|disagree:|disagree-type:|disagree-span:|only:A,B; -TERM negates; * is a wildcard. "
    "Without a field the words are found in the texts; with one, spans are (and the words in their text)."
)


def search(
    ctx: typer.Context,
    query: Annotated[
        list[str] | None, typer.Argument(help="The query (its words may be given as several arguments).")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="At most this many hits (0: all).")] = 100,
    context: Annotated[int, typer.Option("--context", "-C", help="Characters of context each side.")] = 40,
    count: Annotated[
        bool, typer.Option("--count", help="Hits per document and type instead of the hits.")
    ] = False,
    document: Annotated[
        list[str] | None, typer.Option("--document", "-d", help="Only this document (repeatable).")
    ] = None,
    annotate: Annotated[
        str | None,
        typer.Option("--annotate", help="Annotate every hit as this type in your own sets (--as NAME)."),
    ] = None,
    undo: Annotated[
        str | None, typer.Option("--undo", help="Undo the bulk annotation with this id (no query).")
    ] = None,
    set_type: Annotated[
        str | None, typer.Option("--set-type", help="Gold correction: every gold span hit gets this type.")
    ] = None,
    delete: Annotated[
        bool, typer.Option("--delete", help="Gold correction: delete every gold span hit.")
    ] = False,
    add: Annotated[
        str | None, typer.Option("--add", help="Gold correction: a gold span of this type at every text hit.")
    ] = None,
    reason: Annotated[
        str | None, typer.Option("--reason", "-r", help="Why (gold corrections need one).")
    ] = None,
    author: Annotated[
        str | None, typer.Option("--author", help="The corrections' author (default: --as NAME).")
    ] = None,
) -> None:
    """Search the texts and the annotations you may read; print KWIC lines (document, offsets, what,
    context), or counts; or act on every hit (annotate; correct gold, each hit one correction)."""
    st = state(ctx)
    q = " ".join(query or ())
    if undo is None and not q.strip():
        raise UsageError('give a query: words, "a phrase", /regex/ or fields such as type:NAME')
    corpus = st.corpus()
    if undo is not None:
        done = corpus.search_undo(undo)
        emit(st, done.to_dict(), lambda: _bulk_report(done))
        return
    if annotate is not None:
        got = corpus.search_annotate(q, annotate, document=document or None)
        emit(st, got.to_dict(), lambda: _bulk_report(got))
        return
    if set_type is not None or delete or add is not None:
        if not reason:
            raise UsageError("a gold correction needs --reason (it goes into the next release's change log)")
        fixed = corpus.search_correct(q, reason=reason, set_type=set_type, delete=delete, add_type=add,
                                      author=author)  # fmt: skip

        def render_fixed() -> None:
            print_table(
                ("correction", "document", "action", "item", "before", "after"),
                [
                    (
                        c.id,
                        c.document,
                        c.action,
                        c.item_id,
                        (c.before or {}).get("type", "-"),
                        (c.after or {}).get("type", "-"),
                    )
                    for c in fixed
                ],
                f"total: {len(fixed)} correction(s) on {len({c.document for c in fixed})} document(s), "
                f"reason: {reason}",
            )

        emit(st, [c.to_dict() for c in fixed], render_fixed)
        return
    if count:
        counts = corpus.search_counts(q, document=document or None)

        def render_counts() -> None:
            by_type = counts.by_type()
            print_table(
                ("document", "type", "hits"),
                [(r.document, r.type, r.hits) for r in counts.rows],
                f"total: {counts.total} hit(s) in {len({r.document for r in counts.rows})} document(s)"
                + (f" ({', '.join(f'{t} {n}' for t, n in by_type.items())})" if by_type else ""),
            )
            err.print(f"searched: {counts.scope}", markup=False)

        emit(st, counts.to_dict(), render_counts)
        return
    from corpusdb.search import kwic

    res = corpus.search(q, limit=limit or None, context=context, document=document or None)

    def render() -> None:
        for h in res.hits:
            typer.echo(kwic.line(h, context))
        more = f"; more: --limit {limit * 10} or --limit 0 for all, --count to count them" if res.more else ""
        err.print(f"{len(res.hits)} hit(s){more} (searched: {res.scope})", markup=False)

    emit(st, res.to_dict(), render)


def _bulk_report(b: object) -> None:
    from corpusdb.search.bulk import BulkAnnotation

    assert isinstance(b, BulkAnnotation)
    verb = "removed" if b.undone else "added"
    print_table(
        ("document", "set", "spans"),
        [(d, s, n) for d, s, n in b.added],
        f"total: {b.total} {b.type} span(s) {verb} in {len(b.added)} set(s)"
        + (f"; {b.already} hit(s) were annotated so already" if b.already else ""),
    )
    for d, why in b.skipped:
        err.print(f"skipped {d}: {why}", markup=False)
    if not b.undone:
        err.print(f"bulk {b.bulk_id}: undo it with `corpusdb search --undo {b.bulk_id}` (or u per document in the TUI)",
                  markup=False)  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command(
        "search", epilog=EPILOG_SYNTAX + " " + codes("4 invalid input", "5 permission refused", "6 conflict")
    )(search)
