"""``Corpus.evaluation_data``: the store side of ``corpusdb evaluate`` (a mixin of ``corpusdb.api.Corpus``).

Why a thin layer: the scorers in :mod:`corpusdb.evaluation` are pure; all the database does is hand
them a reference (the project's gold, or a release's frozen gold, optionally one split) and systems'
prediction sets, as plain records. Scoring compares a system with gold, so it needs a lead's or an
adjudicator's rights: an annotator may not evaluate anything (gold and other people's sets stay
hidden from them, as blindness requires), and the refusal names nothing hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select

from corpusdb import access
from corpusdb.errors import NotFound
from corpusdb.models import DocumentRow, ReleaseRow
from corpusdb.records import Annotations
from corpusdb.service import ServiceBase
from corpusdb.sets import read_contents

D = DocumentRow.__table__
R = ReleaseRow.__table__


@dataclass(frozen=True)
class EvaluationData:
    """A reference and systems' predictions on the same documents, as plain records."""

    reference_name: str
    texts: dict[str, str]
    reference: dict[str, Annotations]
    systems: dict[str, dict[str, Annotations]] = field(default_factory=dict)


class EvaluationMixin(ServiceBase):
    """Reads what ``corpusdb evaluate`` scores, in one read."""

    def evaluation_data(
        self, *, release: str | None = None, split: str | None = None, systems: Sequence[str] = (),
        documents: Sequence[str] | None = None,
    ) -> EvaluationData:  # fmt: skip
        """The reference (``release`` version, else the project's gold; one ``split`` if given) and each
        named system's prediction sets on its documents. Leads and adjudicators only."""
        self._require("lead", "adjudicator", doing="evaluate systems against gold")
        with self._read() as conn:
            if release is not None:
                name, texts, reference = self._release_reference(conn, release, split)
            else:
                name = "gold" + (f" ({split})" if split else "")
                q = select(D.c.id, D.c.external_id, D.c.text).where(D.c.project_id == self.project_id)
                if split is not None:
                    q = q.where(D.c.split == split)
                rows = conn.execute(q).all()
                ids = [r.id for r in rows]
                golds = access.visible_sets(conn, self.project_id, self.actor, document_ids=ids, kind="gold")
                texts = {r.external_id: r.text for r in rows}
                reference = {s.info.document_external_id: s.annotations for s in read_contents(conn, golds)}
                texts = {d: t for d, t in texts.items() if d in reference}
            if documents is not None:
                keep = set(documents)
                reference = {d: a for d, a in reference.items() if d in keep}
            doc_rows = conn.execute(
                select(D.c.id, D.c.external_id).where(D.c.project_id == self.project_id,
                                                      D.c.external_id.in_(list(reference)))
            ).all()  # fmt: skip
            doc_ids = [r.id for r in doc_rows]
            out: dict[str, dict[str, Annotations]] = {}
            for system in systems:
                infos = access.visible_sets(
                    conn,
                    self.project_id,
                    self.actor,
                    document_ids=doc_ids,
                    kind="prediction",
                    annotator=system,
                )
                if not infos:
                    raise NotFound(f"no prediction sets of {system!r} on the reference documents")
                out[system] = {s.info.document_external_id: s.annotations for s in read_contents(conn, infos)}
        if not reference:
            raise NotFound(f"the reference {name} has no documents" + (" in that split" if split else ""))
        return EvaluationData(name, {d: texts[d] for d in reference}, reference, out)

    def _release_reference(
        self, conn: object, version: str, split: str | None
    ) -> tuple[str, dict[str, str], dict[str, Annotations]]:
        from corpusdb.workflow.items import annotations_from_json

        row = conn.execute(  # type: ignore[attr-defined]
            select(R.c.snapshot).where(R.c.project_id == self.project_id, R.c.version == version)
        ).first()
        if row is None:
            raise NotFound(f"no release {version!r} in this project")
        snap = row[0]
        splits = snap.get("splits") or {}
        if split is not None and split not in splits:
            raise NotFound(
                f"release {version} has no split {split!r}; it has {', '.join(sorted(splits)) or 'none'}"
            )
        keep = set(splits[split]) if split is not None else None
        docs = [d for d in snap["documents"] if keep is None or d["id"] in keep]
        name = f"release {version}" + (f" ({split})" if split else "")
        return (
            name,
            {d["id"]: d["text"] for d in docs},
            {d["id"]: annotations_from_json(d["annotations"]) for d in docs},
        )
