"""``Corpus.evaluation_data``: the store side of ``corpusdb evaluate`` (a mixin of ``corpusdb.api.Corpus``).

Why a thin layer: the scorers in :mod:`corpusdb.evaluation` are pure; all the database does is hand
them a reference (the project's gold, or a release's frozen gold, optionally one split) and systems'
prediction sets, as plain records. Scoring compares a system with gold, so it needs a lead's or an
adjudicator's rights: an annotator may not evaluate anything (gold and other people's sets stay
hidden from them, as blindness requires), and the refusal names nothing hidden.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from corpusdb.basics.errors import NotFound, UsageError
from corpusdb.basics.records import Annotations
from corpusdb.services import access
from corpusdb.services.base import ServiceBase
from corpusdb.services.sets import read_contents
from corpusdb.store import tables

if TYPE_CHECKING:
    from corpusdb.evaluation.documents import Judgement

D = tables.document
R = tables.release


@dataclass(frozen=True)
class EvaluationData:
    """A reference and systems' predictions on the same documents, as plain records."""

    reference_name: str
    texts: dict[str, str]
    reference: dict[str, Annotations]
    systems: dict[str, dict[str, Annotations]] = field(default_factory=dict)


@dataclass(frozen=True)
class TriageData:
    """Triage judgments kept as document labels: the reference's and each system's, scorable as is.

    ``reference`` is ``{doc: relevant}`` in document id order over the reference documents that carry
    the label; ``unlabelled`` lists the reference documents that do not (left out of the scoring)."""

    reference_name: str
    label: str
    positive: frozenset[str]
    reference: dict[str, bool]
    unlabelled: list[str] = field(default_factory=list)
    systems: dict[str, dict[str, Judgement]] = field(default_factory=dict)


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

    def triage_data(
        self, label: str, positive: str | Collection[str], *, release: str | None = None,
        split: str | None = None, systems: Sequence[str] = (),
    ) -> TriageData:  # fmt: skip
        """Document-label triage: the reference's ``label`` (a value in ``positive`` means relevant, any
        other not) and each system's same label with its confidence (see
        :mod:`corpusdb.evaluation.triage`). Read through :meth:`evaluation_data`, so the same rights
        (leads and adjudicators) and the same reference (gold or a release, one split) apply."""
        from corpusdb.evaluation.triage import parse_positive, reference_from_labels, run_from_labels

        self._require("lead", "adjudicator", doing="evaluate systems against gold")
        pos = parse_positive(positive)
        if not label.strip():
            raise UsageError("give the document label to score, e.g. --label relevance")
        data = self.evaluation_data(release=release, split=split, systems=systems)
        reference, unlabelled = reference_from_labels(data.reference, label, pos)
        if not reference:
            raise NotFound(f"no document of the reference {data.reference_name} has a {label!r} label")
        runs = {
            name: run_from_labels({d: a for d, a in sets.items() if d in reference}, label, pos, name)
            for name, sets in data.systems.items()
        }
        return TriageData(data.reference_name, label, pos, reference, unlabelled, runs)

    def evaluate_triage(
        self, label: str, positive: str | Collection[str], *, systems: Sequence[str],
        release: str | None = None, split: str | None = None, answered_only: bool = False, beta: float = 1.0,
        ur: float = 20.0, bootstrap: int = 0, seed: int = 0, confidence: float = 0.95,
        test: str = "approximate_randomization", test_resamples: int = 10000,
        runs: Mapping[str, Mapping[str, Judgement]] | None = None,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """Score systems' document labels against the reference's: the ``corpusdb.evaluation/1`` body
        of ``corpusdb evaluate triage --gold|--release V --system NAME --label L --positive V1,V2``
        (P/R/F, F-beta, accuracy, MCC, sensitivity/specificity, AUC iP/R, TREC 2004 utility; a
        ranking and paired tests with several systems). ``runs`` adds systems read elsewhere (TSV run
        files), scored against the same reference. Leads and adjudicators only."""
        from corpusdb.evaluation.triage import triage_report

        if not systems and not runs:
            raise UsageError("name at least one system (--system NAME) whose prediction sets to score")
        d = self.triage_data(label, positive, release=release, split=split, systems=systems)
        notes = [f"document label {d.label!r}; positive values: {', '.join(sorted(d.positive))}"]
        if d.unlabelled:
            notes.append(
                f"{len(d.unlabelled)} reference documents without a {d.label!r} label left out: "
                + ", ".join(d.unlabelled[:20])
                + (" ..." if len(d.unlabelled) > 20 else "")
            )
        clash = sorted(set(d.systems) & set(runs or {}))
        if clash:
            raise UsageError(f"two systems named {', '.join(clash)}: rename the run")
        all_runs = {**d.systems, **(runs or {})}
        return triage_report(d.reference_name, d.reference, all_runs, beta=beta, ur=ur, answered_only=answered_only,
                             bootstrap=bootstrap, seed=seed, confidence=confidence, test=test,
                             test_resamples=test_resamples, progress=progress, notes=notes,
                             options={"label": d.label, "positive": sorted(d.positive)})  # fmt: skip

    def _release_reference(
        self, conn: object, version: str, split: str | None
    ) -> tuple[str, dict[str, str], dict[str, Annotations]]:
        from corpusdb.services.items import annotations_from_json

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
