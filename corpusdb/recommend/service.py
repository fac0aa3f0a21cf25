"""``RecommendMixin``: recommenders and their suggestions, as part of ``corpusdb.api.Corpus``.

Assembled from one mixin per job: ``manage`` (add, list, remove), ``learning`` (training under the
blindness rules, a system's predictions offered), ``suggest`` (an annotator's suggestions, accepted
or rejected as edits); measuring (held-out evaluation, acceptance rates) is here.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from corpusdb.recommend.learning import TrainingMixin, offer_predictions
from corpusdb.recommend.manage import KINDS, RC, SG, TRAINABLE, infos
from corpusdb.recommend.suggest import SuggestionsMixin
from corpusdb.services import access
from corpusdb.store import tables

S = tables.annotation_set
A = tables.annotator

__all__ = ["KINDS", "TRAINABLE", "RecommendMixin", "infos", "offer_predictions"]


class RecommendMixin(SuggestionsMixin, TrainingMixin):
    """Recommenders (leads), training, suggestions (annotators), evaluation."""

    # -- measuring --------------------------------------------------------------------------------
    def evaluate_recommender(
        self,
        name: str,
        *,
        split: str | None = None,
        holdout: float = 0.2,
        seed: int = 0,
        criterion: str = "exact",
    ) -> dict[str, Any]:
        """P/R/F per type of a recommender trained afresh on gold of the other adjudicated documents
        and scored on held-out ones (``split``: that split's documents; else a seeded ``holdout``
        fraction), with the project's NER scorer (``corpusdb.evaluation.ner``); plus acceptance rates
        per annotator from the suggestions this user may read. Lead or adjudicator."""
        from corpusdb.recommend.evaluation import evaluate

        self._require("lead", "adjudicator", doing="evaluate recommenders")
        rec = self.recommender(name)
        report = evaluate(self, rec, split=split, holdout=holdout, seed=seed, criterion=criterion)
        report["acceptance"] = [r for r in self.acceptance() if r["recommender"] == name]
        return report

    def acceptance(self) -> list[dict[str, Any]]:
        """Per recommender and annotator: suggestions accepted, rejected and still open, and the
        acceptance rate (accepted / decided), over the sets this user may read (blindness: a lead
        counts complete documents only, an annotator her own)."""
        with self._read() as conn:
            ids = access.visible_set_ids(self.project_id, self.actor, kind="annotation")
            q = (
                select(RC.c.name, A.c.name, SG.c.status, func.count())
                .join(RC, RC.c.id == SG.c.recommender_id)
                .join(S, S.c.id == SG.c.set_id)
                .join(A, A.c.id == S.c.annotator_id)
                .where(SG.c.set_id.in_(ids))
                .group_by(RC.c.name, A.c.name, SG.c.status)
            )
            rows = conn.execute(q).all()
        table: dict[tuple[str, str], dict[str, int]] = {}
        for rec, who, status, n in rows:
            table.setdefault((rec, who), {"open": 0, "accepted": 0, "rejected": 0})[status] = int(n)
        out = []
        for (rec, who), c in sorted(table.items()):
            decided = c["accepted"] + c["rejected"]
            out.append(
                {
                    "recommender": rec,
                    "annotator": who,
                    **c,
                    "rate": round(c["accepted"] / decided, 4) if decided else None,
                }
            )
        return out
