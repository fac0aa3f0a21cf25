"""The review queue: gold items that several other sources contradict, worst first.

Why: gold is made by people and has errors; the cheapest place to look is where annotators' sets and
systems' predictions agree with each other against gold (an item they all have that gold lacks, a gold
item none of them has, or another version they share). BioCreative II.5 found its two misjudged test
articles this way. The queue is ranked by how many sources disagree with gold; fixing an entry is a
``correct`` call.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, select

from corpusdb.basics.records import DocLabel, SetInfo
from corpusdb.services import access
from corpusdb.services.base import ServiceBase
from corpusdb.services.sets import read_contents
from corpusdb.store import tables
from corpusdb.workflow import store, units
from corpusdb.workflow.types import SourceSet, Suspect
from corpusdb.workflow.units import Source

D = tables.document


def _load(conn: Connection, svc: ServiceBase, predictions: bool) -> list[tuple[str, str, list[Source]]]:
    """(document, text, [gold, then the other sources]) for every document with gold, in bulk."""
    golds = access.visible_sets(conn, svc.project_id, svc.actor, kind="gold")
    per_doc: dict[int, list[SetInfo]] = {}
    texts: dict[int, str] = {}
    doc_ids = [g.document_id for g in golds]
    for i in range(0, len(doc_ids), 500):
        chunk = doc_ids[i : i + 500]
        for info in access.visible_sets(conn, svc.project_id, svc.actor, document_ids=chunk):
            if (
                info.kind == "gold"
                or (info.kind == "annotation" and info.status == "submitted")
                or (predictions and info.kind == "prediction")
            ):
                per_doc.setdefault(info.document_id, []).append(info)
        texts.update(
            {int(r[0]): str(r[1]) for r in conn.execute(select(D.c.id, D.c.text).where(D.c.id.in_(chunk)))}
        )
    wanted = [i for infos in per_doc.values() for i in infos]
    body = {s.info.id: s.annotations for s in read_contents(conn, wanted)}
    out = []
    for g in sorted(golds, key=lambda g: g.document_external_id):
        infos = sorted(per_doc.get(g.document_id, []),
                       key=lambda i: (i.kind != "gold", i.kind != "annotation", i.annotator or "", i.id))  # fmt: skip
        srcs = [Source(SourceSet(i.annotator, i.id, i.kind), body[i.id]) for i in infos]
        out.append((g.document_external_id, texts[g.document_id], srcs))
    return out


class ReviewMixin(ServiceBase):
    """Ranking gold suspects (leads and adjudicators)."""

    def review(
        self,
        *,
        min_sources: int = 2,
        criterion: str = "exact",
        types: str = "required",
        predictions: bool = True,
    ) -> list[Suspect]:
        """Gold items that at least ``min_sources`` other sources contradict in the same way."""
        self._require("lead", "adjudicator", doing="review gold")
        schema = self.schema()  # type: ignore[attr-defined]
        out: list[Suspect] = []
        with self._read() as conn:
            golds = access.visible_sets(conn, self.project_id, self.actor, kind="gold")
            decisions = store.latest_by_item(store.load_decisions(conn, [g.id for g in golds]))
            loaded = _load(conn, self, predictions)
        for ext, text, srcs in loaded:
            if len(srcs) < 2:
                continue
            for u in units.align(srcs, text, schema=schema, criterion=criterion, types=types):
                s = self._suspect(ext, u, srcs, min_sources)
                if s is None:
                    continue
                gi = s.gold_item
                key = (gi.name if isinstance(gi, DocLabel) else gi.id) if gi is not None else None
                d = decisions.get((u.kind, key)) if key is not None else None
                out.append(replace(s, decision_method=d.method if d else None))
        out.sort(key=lambda s: (-s.disagreeing, s.document, s.key))
        return out

    @staticmethod
    def _suspect(doc: str, u: units.Unit, srcs: list[Source], min_sources: int) -> Suspect | None:
        k = len(srcs) - 1
        gold = [m for m in u.members if m.source == 0]
        if len(gold) > 1:
            return None
        others = [m for m in u.members if m.source != 0]
        by_sig: dict[Any, list[units.Member]] = {}
        for m in others:
            by_sig.setdefault(m.sig, []).append(m)
        ranked = sorted(
            by_sig.values(), key=lambda ms: (-len({m.source for m in ms}), min(m.source for m in ms))
        )
        present = len({m.source for m in others})
        absent = k - present
        refs = lambda ms: tuple(units.ref_of(srcs, m) for m in ms)  # noqa: E731
        if not gold:
            if ranked and len({m.source for m in ranked[0]}) >= min_sources:
                best = ranked[0]
                return Suspect(
                    doc, u.key, u.kind, "missing_in_gold", None, best[0].item, refs(best), present, k
                )
            return None
        g = gold[0]
        agree = len({m.source for m in by_sig.get(g.sig, [])})
        disagree = k - agree
        if absent >= min_sources and all(absent >= len({m.source for m in ms}) for ms in ranked):
            miss = [i for i in range(1, len(srcs)) if i not in {m.source for m in others}]
            return Suspect(doc, u.key, u.kind, "only_in_gold", g.item, None,
                           tuple(units.absent_ref(srcs, i) for i in miss), disagree, k)  # fmt: skip
        for ms in ranked:
            if ms[0].sig != g.sig and len({m.source for m in ms}) >= min_sources:
                return Suspect(doc, u.key, u.kind, "differs", g.item, ms[0].item, refs(ms), disagree, k)
        return None
