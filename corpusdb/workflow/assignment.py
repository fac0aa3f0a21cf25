"""Assignment: who annotates which document, drawn evenly and reproducibly, optionally pre-annotated.

Why a plan then a write: the draw is a pure function of (documents, annotators, current load,
seed), so the same call on the same project gives the same sets, and the whole assignment is
written in one transaction (all or nothing).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from sqlalchemy import select

from corpusdb.basics.errors import InvalidInput, NotFound, UsageError
from corpusdb.services import access, content
from corpusdb.services.base import ServiceBase
from corpusdb.services.sets import (
    annotator_id,
    current_guideline_version,
    document_id,
    insert_set,
    read_contents,
)
from corpusdb.store import tables
from corpusdb.workflow.types import Assignment

A = tables.annotator
D = tables.document


def draw(
    documents: Sequence[str],
    annotators: Sequence[str],
    existing: Mapping[str, set[str]],
    load: Mapping[str, int],
    per_document: int,
    seed: int,
) -> list[tuple[str, str]]:
    """(document, annotator) pairs giving every document ``per_document`` annotators in all.

    Least-loaded annotators first (load counts existing sets too), ties broken by a seeded shuffle
    made per document, so the result is reproducible and the load stays within one of even.
    """
    rng = random.Random(seed)
    cur = Counter({a: load.get(a, 0) for a in annotators})
    out: list[tuple[str, str]] = []
    for doc in documents:
        have = existing.get(doc, set())
        need = per_document - len(have)
        cands = [a for a in annotators if a not in have]
        rng.shuffle(cands)
        cands.sort(key=lambda a: cur[a])  # stable: the shuffle breaks ties
        for a in cands[: max(need, 0)]:
            out.append((doc, a))
            cur[a] += 1
    return out


class AssignmentMixin(ServiceBase):
    """Giving documents to annotators (leads)."""

    def assign(
        self,
        documents: Sequence[str] | None = None,
        annotators: Sequence[str] | None = None,
        *,
        per_document: int | None = None,
        seed: int = 0,
        only_unassigned: bool = False,
        seed_from: str | None = None,
        as_suggestions: bool = False,
        order: str | None = None,
        limit: int | None = None,
        order_by: str | None = None,
    ) -> Assignment:
        """Create annotation sets.

        * explicit: every listed annotator gets every listed document (``documents`` None: all);
        * ``per_document=N``: each document gets N annotators in all, drawn evenly (seeded);
        * ``only_unassigned``: leave documents that already have an annotation set alone;
        * ``seed_from``: a system annotator whose prediction set on each document is copied into the
          new sets as pre-annotation (``SetInfo.seeded_from`` names the prediction set); with
          ``as_suggestions`` it is offered as suggestions instead (an external recommender of that
          name, created if missing), never the annotator's items until she accepts them;
        * ``order`` (``uncertainty``, ``disagreement``; ``corpusdb.recommend.ordering``): documents are
          handed out in that order (seeded by ``seed``; ``order_by`` names the recommender), each new
          set keeps its rank (the TUI lists documents so), and ``limit`` hands out only the first N.
        """
        self._require("lead", doing="assign documents")
        if per_document is not None and per_document < 1:
            raise UsageError(f"--per-document must be at least 1, got {per_document}")
        if as_suggestions and seed_from is None:
            raise UsageError(
                "--as-suggestions needs --pre-annotate SYSTEM (whose predictions become suggestions)"
            )
        if limit is not None and (order is None or limit < 1):
            raise UsageError("--limit N needs --order and N >= 1 (the first N documents of the order)")
        ordering = None
        if order is not None:  # scored before the write transaction: tagging every document takes a while
            from corpusdb.recommend.ordering import order_documents

            everything = self.documents(with_text=False)  # type: ignore[attr-defined]
            pool = list(documents) if documents is not None else [d.external_id for d in everything]
            ordering = order_documents(self, pool, order, seed=seed, recommender=order_by)
        with self._write() as conn:
            roles = dict(
                conn.execute(select(A.c.name, A.c.role).where(A.c.project_id == self.project_id)).all()
            )
            if annotators is None:
                names = sorted(n for n, r in roles.items() if r == "annotator")
            else:
                names = list(dict.fromkeys(annotators))
                for n in names:
                    if n not in roles:
                        raise NotFound(f"no annotator named {n!r} in this project")
                    if roles[n] == "system":
                        raise InvalidInput(
                            f"{n} is a system: its output is a prediction set, not an assignment"
                        )
            if not names:
                raise UsageError("no annotators to assign to (add some with `corpusdb annotator add`)")
            if per_document is not None and per_document > len(names):
                raise UsageError(f"{per_document} annotators per document, but only {len(names)} given")
            if seed_from is not None and roles.get(seed_from) != "system":
                raise InvalidInput(f"pre-annotations come from a system annotator; {seed_from!r} is not one")
            heads = access.set_headers(conn, self.project_id, self.actor, kind="annotation")
            existing: dict[str, set[str]] = defaultdict(set)
            load: Counter[str] = Counter()
            for h in heads:
                if h.annotator is not None:
                    existing[h.document_external_id].add(h.annotator)
                    load[h.annotator] += 1
            if documents is None:
                docs = list(conn.execute(select(D.c.external_id).where(D.c.project_id == self.project_id)
                                         .order_by(D.c.external_id)).scalars())  # fmt: skip
            else:
                docs = list(dict.fromkeys(documents))
                for d in docs:
                    document_id(conn, self.project_id, d)  # NotFound for an unknown id
            skipped: list[tuple[str, str, str]] = []
            if only_unassigned:
                skipped += [(d, "*", "already assigned") for d in docs if existing.get(d)]
                docs = [d for d in docs if not existing.get(d)]
            if ordering is not None:
                wanted = set(docs)
                docs = [d for d in ordering.ranked if d in wanted]
                if limit is not None:
                    docs = docs[:limit]
            if per_document is None:
                pairs = []
                for d in docs:
                    for n in names:
                        if n in existing.get(d, set()):
                            skipped.append((d, n, "already assigned"))
                        else:
                            pairs.append((d, n))
            else:
                pairs = draw(docs, names, existing, load, per_document, seed)
            created_ids = self._create(conn, pairs, None if as_suggestions else seed_from, skipped)
            offered = 0
            if as_suggestions:
                offered = self._offer_suggestions(conn, seed_from, created_ids)  # type: ignore[arg-type]
            if ordering is not None:
                self._queue_positions(conn, ordering, pairs, created_ids)
            self._audit(conn, "assign", "", sets=len(created_ids), per_document=per_document, seed=seed,
                        seed_from=seed_from, as_suggestions=as_suggestions or None,
                        order=ordering.describe() if ordering else None)  # fmt: skip
            created = access.set_headers(conn, self.project_id, self.actor, set_ids=created_ids)
            final = Counter(h.annotator for h in access.set_headers(conn, self.project_id, self.actor,
                                                                     kind="annotation") if h.annotator)  # fmt: skip
        return Assignment(tuple(created), tuple(skipped), dict(sorted(final.items())),
                          suggestions=offered, order=ordering.describe() if ordering else None,
                          ranks=self._order_ranks(ordering, pairs))  # fmt: skip

    @staticmethod
    def _order_ranks(ordering, pairs) -> dict[str, tuple[int, float]]:  # type: ignore[no-untyped-def]
        if ordering is None:
            return {}
        handed = {d for d, _a in pairs}
        return {d: (i, ordering.scores.get(d, 0.0)) for i, d in enumerate(ordering.ranked, 1) if d in handed}

    def _offer_suggestions(self, conn, system: str, set_ids: list[int]) -> int:  # type: ignore[no-untyped-def]
        """``system``'s predictions as suggestions on the new sets (its external recommender, made
        when missing); returns how many suggestions."""
        from corpusdb.recommend.service import infos, offer_predictions

        recs = infos(conn, self.project_id)
        rec = next((r for r in recs if r.kind == "external" and r.system == system), None)
        if rec is None:
            from sqlalchemy import insert

            from corpusdb.basics.errors import Conflict
            from corpusdb.services.base import utcnow_aware

            if any(r.name == system for r in recs):
                raise Conflict(
                    f"a {system!r} recommender exists but is not {system}'s predictions: rename it first"
                )
            conn.execute(insert(tables.recommender).values(
                project_id=self.project_id, name=system, kind="external", layer="spans",
                options={"system": system}, version=0, created=utcnow_aware()))  # fmt: skip
            rec = self._recommender(conn, system)  # type: ignore[attr-defined]
        return offer_predictions(conn, self.project_id, self.actor, rec, system, set(set_ids))[0]

    def _queue_positions(self, conn, ordering, pairs, set_ids) -> None:  # type: ignore[no-untyped-def]
        """Each new set's rank in the order it was handed out in (the TUI lists documents so)."""
        from sqlalchemy import insert

        from corpusdb.services.base import utcnow_aware

        rank = {d: i for i, d in enumerate(ordering.ranked, 1)}
        rows = [{"set_id": sid, "ordering": ordering.order, "rank": rank[doc], "score": float(ordering.scores.get(doc, 0.0)),
                 "seed": ordering.seed, "created": utcnow_aware()} for (doc, _a), sid in zip(pairs, set_ids, strict=True)]  # fmt: skip
        if rows:
            conn.execute(insert(tables.queue_position), rows)

    def _create(self, conn, pairs, seed_from, skipped) -> list[int]:  # type: ignore[no-untyped-def]
        version = current_guideline_version(conn, self.project_id)
        ids: list[int] = []
        preds: dict[str, tuple[int, object]] = {}
        if seed_from is not None and pairs:
            doc_ids = {d: document_id(conn, self.project_id, d) for d, _ in pairs}
            infos = access.visible_sets(conn, self.project_id, self.actor, document_ids=list(doc_ids.values()),
                                        kind="prediction", annotator=seed_from)  # fmt: skip
            for s in read_contents(conn, infos):
                preds[s.info.document_external_id] = (s.info.id, s.annotations)
        batch = []
        for doc, name in pairs:
            pred = preds.get(doc)
            if seed_from is not None and pred is None:
                skipped.append((doc, name, f"no prediction of {seed_from} to seed from (created empty)"))
            set_id = insert_set(
                conn, document_id=document_id(conn, self.project_id, doc),
                annotator_id=annotator_id(conn, self.project_id, name), kind="annotation", status="assigned",
                guideline_version=version, seeded_from=pred[0] if pred else None,
                extra=dict(pred[1].extra) if pred and pred[1].extra else None,  # type: ignore[attr-defined]
            )  # fmt: skip
            ids.append(set_id)
            if pred is not None:
                batch.append((set_id, pred[1]))
        content.insert_many(conn, batch)  # type: ignore[arg-type]
        return ids
