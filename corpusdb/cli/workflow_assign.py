"""``corpusdb assign``, ``submit`` and ``reopen``: sets from assigned to submitted, and back."""

from __future__ import annotations

from typing import Annotated

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import emit, err, out, state
from corpusdb.cli.workflow_common import codes


def assign(
    ctx: typer.Context,
    documents: Annotated[
        list[str] | None, typer.Option("--document", "-d", help="A document (repeatable); default: all.")
    ] = None,
    annotators: Annotated[
        list[str] | None,
        typer.Option("--annotator", "-a", help="An annotator (repeatable); default: every annotator role."),
    ] = None,
    per_document: Annotated[
        int | None,
        typer.Option(
            "--per-document", "-n", help="Draw N annotators per document, evenly (else: all of them)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the draw (same seed, same assignment).")] = 0,
    only_unassigned: Annotated[
        bool, typer.Option("--only-unassigned", help="Skip documents that already have an annotation set.")
    ] = False,
    seed_from: Annotated[
        str | None,
        typer.Option("--pre-annotate", help="Copy this system's predictions into each new set."),
    ] = None,
    as_suggestions: Annotated[
        bool,
        typer.Option("--as-suggestions", help="With --pre-annotate: offer them as suggestions, not items."),
    ] = False,
    order: Annotated[
        str | None,
        typer.Option(
            "--order",
            help="uncertainty (a tagger's least certain first) or disagreement (recommenders'); seeded.",
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", help="With --order: hand out only the first N documents.")
    ] = None,
    order_by: Annotated[
        str | None, typer.Option("--order-by", help="With --order: only this recommender.")
    ] = None,
) -> None:
    """Give documents to annotators (lead only): explicit lists, or N per document drawn evenly."""
    st = state(ctx)
    res = st.corpus().assign(
        documents, annotators, per_document=per_document, seed=seed, only_unassigned=only_unassigned,
        seed_from=seed_from, as_suggestions=as_suggestions, order=order, limit=limit, order_by=order_by,
    )  # fmt: skip

    def render() -> None:
        out.print(f"created {len(res.created)} annotation set(s)")
        if res.order:
            out.print(res.order, markup=False)
        if as_suggestions:
            out.print(
                f"{res.suggestions} suggestion(s) from {seed_from} (not items: annotators accept them)",
                markup=False,
            )
        for s in res.created:
            seeded = f" (pre-annotated from set {s.seeded_from})" if s.seeded_from else ""
            rank = res.ranks.get(s.document_external_id)
            ranked = f" [#{rank[0]}, score {rank[1]:.4f}]" if rank else ""
            out.print(
                f"  set {s.id}: {s.document_external_id} -> {s.annotator}{seeded}{ranked}", markup=False
            )
        if res.skipped:
            out.print(f"skipped {len(res.skipped)}:")
            for d, a, why in res.skipped[:20]:
                out.print(f"  {d} / {a}: {why}", markup=False)
        out.print("load: " + ", ".join(f"{k} {v}" for k, v in res.load.items()), markup=False)

    emit(st, res.to_dict(), render)


def _target(st, set_id: int | None, document: str | None) -> int:  # type: ignore[no-untyped-def]
    if (set_id is None) == (document is None):
        raise UsageError("name the set: SET_ID, or --document DOC for your own set on a document")
    if set_id is not None:
        return set_id
    return int(st.corpus().my_set(document).info.id)


def submit(
    ctx: typer.Context,
    set_id: Annotated[int | None, typer.Argument(help="The annotation set's id.")] = None,
    document: Annotated[
        str | None, typer.Option("--document", "-d", help="Your own set on this document (with --as).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--ignore-schema", help="Submit even with schema errors (recorded).")
    ] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Only list the schema violations (stderr; exit 4 on errors).")
    ] = False,
) -> None:
    """Submit a set: it is checked against the schema first, and read-only afterwards."""
    st = state(ctx)
    c = st.corpus()
    sid = _target(st, set_id, document)
    if check:  # violations on stderr (JSON on stdout); exit 4 when any would block the submission
        vs = c.validate_set(sid)
        derived = c.derived_in_set(sid)

        def show() -> None:
            _ = [err.print(str(v), markup=False) for v in vs] or out.print("no violations")
            _show_derived(derived)

        emit(st, [v.to_dict() for v in vs], show)
        errors = [v for v in vs if v.severity == "error"]
        if errors:
            from corpusdb.basics.errors import InvalidInput

            raise InvalidInput(f"set {sid} breaks the schema: {len(errors)} error(s), listed above")
        return
    from corpusdb.workflow.types import SubmissionRefused

    try:
        info = c.submit(sid, force=force)
    except SubmissionRefused as exc:
        for v in exc.violations:
            err.print(str(v), markup=False)
        raise
    derived = c.derived_in_set(sid)
    emit(st, {"set": info.id, "status": info.status, "version": info.version, "derived": derived},
         lambda: (out.print(f"set {info.id} ({info.document_external_id}) submitted"), _show_derived(derived)))  # fmt: skip


def _show_derived(derived: list[dict[str, object]]) -> None:
    """The relations the schema's rules derive from the set: shown as derived, never as its items."""
    if not derived:
        return
    from guidelines.derive import derived_line

    out.print(f"derived by the schema's rules (not items of the set): {len(derived)}", markup=False)
    for d in derived:
        out.print(f"  {derived_line(d)}", markup=False)


def reopen(
    ctx: typer.Context,
    set_id: Annotated[int, typer.Argument(help="The submitted set's id.")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (recorded in the audit trail).")],
) -> None:
    """Make a submitted set editable again by its annotator (lead only)."""
    st = state(ctx)
    info = st.corpus().reopen(set_id, reason=reason)
    emit(st, {"set": info.id, "status": info.status},
         lambda: out.print(f"set {info.id} ({info.document_external_id}, {info.annotator}) reopened"))  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("assign", epilog=codes("4 invalid input", "5 not a lead", "6 conflict"))(assign)
    app.command("submit", epilog=codes("4 schema violations (listed on stderr)", "5 not your set",
                                       "6 already submitted or changed meanwhile"))(submit)  # fmt: skip
    app.command("reopen", epilog=codes("4 no reason given", "5 not a lead", "6 not submitted"))(reopen)
