"""``TrainingMixin``: training recommenders (who may train what, under blindness) and offering a
system's predictions as suggestions.

* a **lead** (or the owner) trains the *shared* part, learned from gold of adjudicated documents and
  from dictionaries only, so every member may read it; for an external recommender, "training"
  offers its system's prediction sets as suggestions on the annotation sets of the same documents;
* an **annotator** trains her *own* part (``recommender_model``, hers alone), learned from the
  shared part's gold and her own sets; the database owner may train anyone's own part (it reads
  what that annotator reads, nothing more). What each reads is ``corpusdb.recommend.training``'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, insert, select, update

from corpusdb.basics.errors import InvalidInput, NotFound, PermissionDenied
from corpusdb.recommend.manage import RC, RM, TRAINABLE, RecommendersMixin
from corpusdb.services import access, content
from corpusdb.services.base import utcnow_aware
from corpusdb.store import tables

if TYPE_CHECKING:
    from corpusdb.recommend.records import RecommenderInfo, TrainingResult

A = tables.annotator


class TrainingMixin(RecommendersMixin):
    """Training (leads: shared parts; annotators: their own)."""

    # -- training ---------------------------------------------------------------------------------
    def train_recommender(
        self,
        name: str | None = None,
        *,
        annotator: str | None = None,
        progress: Callable[[int, int | None, str], None] | None = None,
    ) -> list[TrainingResult]:
        """Train one recommender (``name``) or every trainable one.

        A lead (or the owner) without ``annotator`` trains the shared part, from gold of adjudicated
        documents (and dictionaries); an external recommender instead offers its system's predictions
        as suggestions on every annotation set of a predicted document. An annotator trains her own
        part (``annotator`` may only be herself); the owner may name any annotator.
        ``progress(done, total, what)``: each recommender's steps (reading, each training iteration,
        storing), ``what`` naming the recommender."""
        if annotator is None and self.actor.name is not None and not self.actor.is_lead:
            annotator = self.actor.name
        if annotator is not None and self.actor.name not in (None, annotator):
            raise PermissionDenied(
                f"{self.actor.label} may not train {annotator}'s own model: it learns from {annotator}'s sets, "
                "which only they (and the database owner) read"
            )
        if annotator is None:
            self._require("lead", doing="train recommenders' shared part")
        recs = [self.recommender(name)] if name is not None else self.recommenders()
        out: list[TrainingResult] = []
        for rec in recs:
            tick = None
            if progress is not None:

                def tick(done: int, total: int | None, what: str, rec: RecommenderInfo = rec) -> None:
                    progress(done, total, f"{rec.name}: {what}")

                tick(0, None, "reading examples")
            if annotator is None:
                if rec.kind == "external":
                    out.append(self._offer_external(rec))
                else:
                    out.append(self._train_shared(rec, tick))
            elif rec.kind in TRAINABLE:
                out.append(self._train_own(rec, annotator, tick))
            if tick is not None:
                tick(1, 1, "stored")
        return out

    def _names_from_sources(self, rec: RecommenderInfo) -> list[tuple[str, str]]:
        from corpusdb.recommend.sources import external_names

        out = self.dictionary_names(rec.name)
        return out + external_names(self, dict(rec.options), rec.types)

    def _train_shared(self, rec: RecommenderInfo, progress: Any = None) -> TrainingResult:
        from corpusdb.recommend import models
        from corpusdb.recommend.matcher import count_names
        from corpusdb.recommend.records import TrainingResult
        from corpusdb.recommend.tagger import TaggerOptions
        from corpusdb.recommend.training import gold_examples

        t0 = time.perf_counter()
        types = set(rec.types) if rec.types is not None else None
        with self._read() as conn:
            examples = gold_examples(conn, self.project_id, types)
        payload: dict[str, Any]
        if rec.kind == "string":
            names = count_names((n, t) for ex in examples for n, t in ex.names())
            extra = self._names_from_sources(rec)
            count_names(extra, names)
            payload = {"names": names}
            detail = {"names": len(names), "dictionary_names": len(extra)}
        else:
            from corpusdb.recommend.tagger import train

            if not examples:
                raise InvalidInput(
                    f"{rec.name}: no adjudicated gold to train on yet (finish gold of some documents)"
                )
            model = train(
                ((ex.text, ex.items) for ex in examples), TaggerOptions.from_dict(rec.options), progress
            )
            payload = {
                "crf": models.encode_bytes(model),
                "gold": {ex.document: [[t, [list(f) for f in fr]] for t, fr in ex.items] for ex in examples},
            }
            detail = {"model_bytes": len(model)}
        seconds = time.perf_counter() - t0
        stats = {"gold_documents": len(examples), "seconds": round(seconds, 3), **detail}
        with self._write() as conn:
            version = int(conn.execute(select(RC.c.version).where(RC.c.id == rec.id)).scalar_one()) + 1
            conn.execute(
                update(RC)
                .where(RC.c.id == rec.id)
                .values(version=version, model=models.pack(payload), stats=stats, trained=utcnow_aware())
            )
            self._audit(
                conn,
                "train_recommender",
                rec.name,
                part="shared",
                version=version,
                gold_documents=len(examples),
            )
        return TrainingResult(rec.name, "shared", version, seconds, len(examples), detail)

    def _train_own(self, rec: RecommenderInfo, annotator: str, progress: Any = None) -> TrainingResult:
        from corpusdb.recommend import models
        from corpusdb.recommend.matcher import count_names
        from corpusdb.recommend.records import TrainingResult
        from corpusdb.recommend.tagger import TaggerOptions
        from corpusdb.recommend.training import Example, own_examples, texts

        t0 = time.perf_counter()
        types = set(rec.types) if rec.types is not None else None
        with self._read() as conn:
            aid = conn.execute(
                select(A.c.id).where(A.c.project_id == self.project_id, A.c.name == annotator)
            ).scalar()
            if aid is None:
                raise NotFound(f"no annotator named {annotator!r} in this project")
            own = own_examples(conn, self.project_id, int(aid), types, submitted_only=rec.kind == "tagger")
            shared = self._shared_payload(conn, rec.id) if rec.kind == "tagger" else None
            gold_texts = texts(conn, self.project_id, list((shared or {}).get("gold", {})))
        detail: dict[str, Any]
        if rec.kind == "string":
            names = count_names(n for ex in own for n in ex.names())
            payload: dict[str, Any] = {"names": names}
            detail = {"names": len(names)}
        else:
            from corpusdb.recommend.tagger import train

            if not own:
                return TrainingResult(
                    rec.name,
                    annotator,
                    0,
                    time.perf_counter() - t0,
                    0,
                    {"note": "no submitted set of her own yet: the shared model serves her"},
                )
            gold = [
                Example(d, gold_texts[d], tuple((t, tuple((a, b) for a, b in fr)) for t, fr in items))
                for d, items in (shared or {}).get("gold", {}).items()
                if d in gold_texts
            ]
            mine = {ex.document for ex in own}
            examples = [
                ex for ex in gold if ex.document not in mine
            ] + own  # her own version of a document wins
            model = train(
                ((ex.text, ex.items) for ex in examples), TaggerOptions.from_dict(rec.options), progress
            )
            payload = {"crf": models.encode_bytes(model)}
            detail = {"gold_documents": len(examples) - len(own), "model_bytes": len(model)}
        seconds = time.perf_counter() - t0
        stats = {"own_sets": len(own), "seconds": round(seconds, 3), **detail}
        with self._write() as conn:
            base = int(conn.execute(select(RC.c.version).where(RC.c.id == rec.id)).scalar_one())
            row = conn.execute(
                select(RM.c.id, RM.c.version).where(RM.c.recommender_id == rec.id, RM.c.annotator_id == aid)
            ).first()
            values = {
                "base_version": base,
                "model": models.pack(payload),
                "stats": stats,
                "trained": utcnow_aware(),
            }
            if row is None:
                version = 1
                conn.execute(
                    insert(RM).values(recommender_id=rec.id, annotator_id=aid, version=version, **values)
                )
            else:
                version = int(row.version) + 1
                conn.execute(update(RM).where(RM.c.id == row.id).values(version=version, **values))
        return TrainingResult(rec.name, annotator, version, seconds, len(own), detail)

    def _offer_external(self, rec: RecommenderInfo) -> TrainingResult:
        """A system's predictions as suggestions on every annotation set of a document it predicted."""
        from corpusdb.recommend.records import TrainingResult

        t0 = time.perf_counter()
        system = str(rec.system)
        with self._write() as conn:
            n, sets = offer_predictions(conn, self.project_id, self.actor, rec, system)
            self._audit(conn, "train_recommender", rec.name, part="external", system=system, suggestions=n)
        return TrainingResult(
            rec.name, "external", rec.version, time.perf_counter() - t0, sets, {"suggestions": n}
        )

    def train_in_background(
        self, name: str | None = None, *, url: str | None = None, project: str | None = None
    ) -> Any:
        """Start ``corpusdb recommend train`` as this user in a separate process and return it at once
        (``subprocess.Popen``): an annotator never waits for training (``corpusdb.recommend.background``)."""
        from corpusdb.recommend.background import spawn_training

        return spawn_training(
            url or self.engine.url.render_as_string(hide_password=False), project, self.actor.name, name
        )


def offer_predictions(
    conn: Connection,
    project_id: int,
    actor: Any,
    rec: RecommenderInfo,
    system: str,
    set_ids: Collection[int] | None = None,
) -> tuple[int, int]:
    """Suggestions from ``system``'s prediction sets on the annotation sets of the same documents that
    are not submitted (``set_ids``: only these). Returns (suggestions added, sets given some)."""
    from corpusdb.recommend import store as sstore
    from corpusdb.recommend.matcher import Proposal

    preds = access.visible_sets(conn, project_id, actor, kind="prediction", annotator=system)
    if not preds:
        return 0, 0
    by_doc = {p.document_id: p for p in preds}
    targets = [
        h
        for h in access.set_headers(conn, project_id, actor, kind="annotation", document_ids=list(by_doc))
        if h.status != "submitted" and (set_ids is None or h.id in set_ids)
    ]
    if not targets:
        return 0, 0
    body = content.load_many(conn, [by_doc[t.document_id].id for t in targets])
    types = set(rec.types) if rec.types is not None else None
    added = given = 0
    for t in targets:
        pred = by_doc[t.document_id]
        props = [
            Proposal(
                sp.type,
                tuple((int(a), int(b)) for a, b in sp.fragments),
                sp.text,
                float(sp.attributes.get("score", 1.0))
                if isinstance(sp.attributes.get("score"), int | float)
                else 1.0,
            )
            for sp in body[pred.id].spans
            if sp.fragments and (types is None or sp.type in types)
        ]
        n = sstore.add(conn, t.id, rec.id, str(pred.version), props)
        n += sstore.add_relations(conn, t.id, rec.id, str(pred.version), _relations(body[pred.id], types))
        added += n
        given += bool(n)
    return added, given


def _relations(ann: Any, types: Collection[str] | None) -> list[dict[str, Any]]:
    """A prediction set's relations whose arguments are all spans with a text mention (of the
    recommender's types), as proposals naming their arguments by place and type."""
    spans = {sp.id: sp for sp in ann.spans if sp.fragments}
    out = []
    for r in ann.relations:
        args = [spans.get(a.ref) for a in r.args]
        if not args or any(sp is None or (types is not None and sp.type not in types) for sp in args):
            continue
        out.append({
            "type": r.type, "label": r.label, "tags": list(r.tags), "kind": r.kind,
            "args": [{"role": a.role, "type": sp.type, "fragments": [list(f) for f in sp.fragments], "text": sp.text}
                     for a, sp in zip(r.args, args, strict=True)],  # type: ignore[union-attr]
        })  # fmt: skip
    return out
