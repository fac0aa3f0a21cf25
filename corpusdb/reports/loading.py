"""Load the raters' sets for an agreement report in one read, through the blindness gate.

Why here and not in the engine: the engine is pure (records in, figures out); this module is the
only place where an agreement report touches the database, and it reads nothing but what
``corpusdb.services.access.visible_sets`` clears for the acting user. An annotator therefore compares only
their own sets and learns nothing of anybody else's, not even whether they exist.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping

from sqlalchemy import Connection

from corpusdb.basics.errors import InvalidInput, NotFound, PermissionDenied
from corpusdb.basics.records import Annotations, SetInfo
from corpusdb.reports.options import GOLD, AgreementOptions, Rater
from corpusdb.services import access
from corpusdb.services.base import Actor
from corpusdb.services.sets import read_contents


def rater_name(info: SetInfo, annotation_names: set[str]) -> str:
    """Gold is ``gold``; a prediction set is its system's name (``name:prediction`` on a clash)."""
    if info.kind == "gold":
        return GOLD
    name = info.annotator or "?"
    if name.casefold() == GOLD:  # an annotator named before the name was reserved: never the gold sets
        return f"{name}:{info.kind}"
    if info.kind == "prediction" and name in annotation_names:
        return f"{name}:prediction"
    return name


def _choose(available: dict[str, str], opts: AgreementOptions, actor: Actor) -> list[str]:
    """The raters to compare, in a stable order, or a refusal that reveals nothing hidden."""
    if opts.raters is None:
        kinds = (
            ["annotation"] + (["gold"] if opts.gold else []) + (["prediction"] if opts.predictions else [])
        )
        chosen = [n for k in kinds for n in sorted(n for n, kk in available.items() if kk == k)]
        for flag, kind, hint in (
            (opts.gold, "gold", "adjudicate or import gold first"),
            (opts.predictions, "prediction", "import a system's predictions first"),
        ):
            if flag and kind not in available.values():
                raise NotFound(f"--{'gold' if kind == 'gold' else 'predictions'}: no {kind} sets visible to "
                               f"{actor.label} on the selected documents ({hint})")  # fmt: skip
    else:
        chosen = list(dict.fromkeys(opts.raters))
        missing = [n for n in chosen if n not in available]
        if missing:
            if actor.role in ("annotator", "system"):
                raise PermissionDenied(
                    f"no sets of {', '.join(map(repr, missing))} are visible to {actor.label}: an annotator's "
                    "agreement report compares only sets they may read (annotation is double-blind)"
                )
            raise NotFound(
                f"no visible sets of {', '.join(map(repr, missing))} on the selected documents (unknown name, or "
                "the documents are not yet submitted by every annotator); visible raters: "
                + (", ".join(sorted(available)) or "none")
            )
    if len(chosen) < 2:
        who = f"{actor.label} ({actor.role})"
        hint = (
            " an annotator sees only their own sets, so cannot compare with anyone"
            if actor.role in ("annotator", "system")
            else " add --gold / --predictions, or wait until documents are submitted"
        )
        raise InvalidInput(
            f"agreement needs at least two raters with visible sets; {who} can read "
            f"{', '.join(chosen) or 'none'}:{hint}"
        )
    return chosen


def load_raters(
    conn: Connection,
    project_id: int,
    actor: Actor,
    opts: AgreementOptions,
    document_ids: list[int] | None,
    exclude: Collection[int] = (),
) -> list[Rater]:
    """Every chosen rater's visible sets on the chosen documents, read in bulk (``exclude``:
    document ids left out, e.g. documents skipped as irrelevant)."""
    infos = access.visible_sets(conn, project_id, actor, document_ids=document_ids)
    if exclude:
        infos = [i for i in infos if i.document_id not in exclude]
    names = {i.annotator for i in infos if i.kind == "annotation" and i.annotator}
    available: dict[str, str] = {}
    by_rater: dict[str, list[SetInfo]] = defaultdict(list)
    for info in infos:
        name = rater_name(info, names)  # type: ignore[arg-type]
        available.setdefault(name, info.kind)
        by_rater[name].append(info)
    chosen = _choose(available, opts, actor)
    if opts.layer == "labels":  # document labels only
        from corpusdb.reports.columns import read_labels

        return [Rater(n, available[n], read_labels(conn, by_rater[n])) for n in chosen]
    marked = suggested_items(conn, project_id, [i for n in chosen for i in by_rater[n]], opts.layer)
    counts = {n: _per_document(by_rater[n], marked) for n in chosen}
    if opts.layer == "spans" and not (opts.exclude_suggested and marked):
        # only five columns of the spans, straight into arrays (issue #14)
        from corpusdb.reports.columns import ColumnSets, read_raters_columns

        cols = read_raters_columns(conn, [by_rater[n] for n in chosen], meanwhile=_import_engine)
        return [
            Rater(n, available[n], ColumnSets(c), c, counts[n]) for n, c in zip(chosen, cols, strict=True)
        ]
    wanted = [i for n in chosen for i in by_rater[n]]
    content = {s.info.id: s.annotations for s in read_contents(conn, wanted)}
    if opts.exclude_suggested and marked:
        content = {k: _without(ann, marked.get(k, set()), opts.layer) for k, ann in content.items()}
    return [
        Rater(n, available[n], {i.document_external_id: content[i.id] for i in by_rater[n]}, None, counts[n])
        for n in chosen
    ]


def suggested_items(
    conn: Connection, project_id: int, infos: list[SetInfo], layer: str
) -> dict[int, set[str]]:
    """Set id -> local ids of its items (of the layer compared) accepted from suggestions.

    Why this way: an accepted item carries its provenance in ``extra["suggestion"]``
    (``corpusdb.recommend.actions``); a project without any accepted suggestion pays one indexed
    query, the others one more per 500 sets (a text match on the extra column, checked in Python)."""
    from sqlalchemy import String, cast, select

    from corpusdb.store import tables

    sg, s_, d_ = tables.suggestion, tables.annotation_set, tables.document
    any_accepted = conn.execute(
        select(sg.c.id).join(s_, s_.c.id == sg.c.set_id).join(d_, d_.c.id == s_.c.document_id)
        .where(d_.c.project_id == project_id, sg.c.status == "accepted").limit(1)
    ).first()  # fmt: skip
    if any_accepted is None or not infos:
        return {}
    t = tables.relation if layer == "relations" else tables.link if layer == "links" else tables.span
    import orjson

    out: dict[int, set[str]] = {}
    ids = [i.id for i in infos]
    for k in range(0, len(ids), 500):
        q = select(t.c.set_id, t.c.local_id, t.c.extra).where(
            t.c.set_id.in_(ids[k : k + 500]), cast(t.c.extra, String).like('%"suggestion"%')
        )
        for set_id, local_id, extra in conn.execute(q):
            data = orjson.loads(extra) if isinstance(extra, str | bytes) else extra
            if isinstance(data, dict) and isinstance(data.get("suggestion"), dict):
                out.setdefault(int(set_id), set()).add(str(local_id))
    return out


def _per_document(infos: list[SetInfo], marked: Mapping[int, set[str]]) -> dict[str, int]:
    return {i.document_external_id: len(marked[i.id]) for i in infos if marked.get(i.id)}


def _without(ann: Annotations, ids: set[str], layer: str) -> Annotations:
    """The set without the items of ``layer`` accepted from suggestions (``--exclude-suggested``): spans
    (and what points at them: a relation cannot keep an argument that is not compared) or relations."""
    from dataclasses import replace

    if not ids:
        return ann
    if layer == "relations":
        return replace(ann, relations=tuple(r for r in ann.relations if r.id not in ids))
    if layer == "links":
        return replace(ann, links=tuple(lk for lk in ann.links if lk.id not in ids))
    from corpusdb.services.edits import dependents

    gone = set(ids)
    for sid in ids:
        gone |= {c.key for c in dependents(ann, sid)}
    return replace(
        ann,
        spans=tuple(s for s in ann.spans if s.id not in gone),
        relations=tuple(r for r in ann.relations if r.id not in gone),
        links=tuple(lk for lk in ann.links if lk.id not in gone),
        entities=tuple(
            replace(e, members=tuple(m for m in e.members if m not in gone)) for e in ann.entities
        ),
    )


def _import_engine() -> None:
    """Import what computes the span report (0.2-0.3 s) while the raters' spans are read."""
    import corpusdb.reports.report  # noqa: F401
    from corpusdb.agreement import coefficients

    coefficients.warm_up()


def layer_items(conn: Connection, project_id: int, actor: Actor) -> dict[str, int]:
    """Items per agreement layer in the annotation sets this actor may read (counted in SQL, through
    the gate's own clause): ``spans``, ``relations``, ``links`` (links plus entity clusters, what the
    links report compares), ``labels``."""
    from sqlalchemy import func, select

    from corpusdb.store import tables

    ids = access.visible_set_ids(project_id, actor, kind="annotation")
    counts: dict[str, int] = {}
    for name, t in (("spans", tables.span), ("relations", tables.relation), ("links", tables.link),
                    ("entities", tables.entity), ("labels", tables.document_label)):  # fmt: skip
        counts[name] = int(
            conn.execute(select(func.count()).select_from(t).where(t.c.set_id.in_(ids))).scalar_one()
        )
    counts["links"] += counts.pop("entities")
    return counts
