"""Active learning: the order in which ``assign --order`` hands documents out.

* ``uncertainty``: the documents a tagger is least sure of first. A document's score is the mean
  over its tokens of 1 - the marginal probability of the label the tagger chose
  (``Tagger.uncertainty``), from the tagger's shared part (gold of adjudicated documents).
* ``disagreement``: the documents the recommenders disagree on most first. Each span recommender
  with a model (string matchers and taggers trained, external ones through their system's
  prediction sets) proposes its spans; the score is 1 - the mean pairwise F1 (exact boundaries and
  type) over pairs of recommenders, a pair that both propose nothing counting as agreeing (F1 1).

Ties (and documents no model can score) are ordered by a shuffle seeded with ``seed``, so the same
call on the same project gives the same order; the order, the recommenders and the seed are stated
in ``Ordering`` (and in ``assign``'s output).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpusdb.basics.errors import InvalidInput

ORDERS: tuple[str, ...] = ("uncertainty", "disagreement")


@dataclass(frozen=True, slots=True)
class Ordering:
    order: str
    seed: int
    recommenders: tuple[str, ...]
    scores: Mapping[str, float]
    """Document external id -> score (higher first)."""
    ranked: tuple[str, ...]

    def describe(self) -> str:
        return f"order {self.order} by {', '.join(self.recommenders)} (seed {self.seed}): " + (
            "most uncertain first" if self.order == "uncertainty" else "most disagreement first"
        )


def pair_f1(a: Sequence[Any], b: Sequence[Any]) -> float:
    """F1 of two proposal lists under exact boundaries and type (1.0 when both are empty)."""
    ka = {(p.type, tuple(p.fragments)) for p in a}
    kb = {(p.type, tuple(p.fragments)) for p in b}
    if not ka and not kb:
        return 1.0
    return 2 * len(ka & kb) / (len(ka) + len(kb))


def rank(scores: Mapping[str, float], documents: Sequence[str], seed: int) -> tuple[str, ...]:
    docs = sorted(documents)
    random.Random(seed).shuffle(docs)
    tie = {d: i for i, d in enumerate(docs)}
    return tuple(sorted(docs, key=lambda d: (-scores.get(d, -1.0), tie[d])))


def order_documents(
    corpus: Any, documents: Sequence[str], order: str, *, seed: int = 0, recommender: str | None = None
) -> Ordering:
    """Score and rank ``documents`` (external ids) for ``order`` (a lead: reads shared parts and, for
    external recommenders, prediction sets)."""
    from corpusdb.recommend import models
    from corpusdb.recommend.matcher import MatcherOptions, StringMatcher, propose
    from corpusdb.recommend.tagger import Tagger, TaggerOptions

    if order not in ORDERS:
        raise InvalidInput(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    recs = [r for r in corpus.recommenders() if recommender is None or r.name == recommender]
    if recommender is not None and not recs:
        corpus.recommender(recommender)  # NotFound with the names
    texts = {d.external_id: d.text for d in corpus.documents(external_ids=list(documents))}

    def payload(rec: Any) -> dict[str, Any]:
        with corpus._read() as conn:
            got = corpus._shared_payload(conn, rec.id)
        assert got is not None
        return got

    def proposer(rec: Any) -> Any:
        types = frozenset(rec.types) if rec.types is not None else None
        if rec.kind == "string" and rec.version:
            m = StringMatcher(payload(rec)["names"], MatcherOptions.from_dict(rec.options), types)
            return lambda text, _d: propose(text, [m])
        if rec.kind == "tagger" and rec.version:
            opts = TaggerOptions.from_dict(rec.options)
            t = Tagger(models.decode_bytes(payload(rec)["crf"]), types, opts.min_score)
            return lambda text, _d: t.propose(text)
        if rec.kind == "external":
            preds = {
                s.info.document_external_id: s.annotations.spans
                for s in corpus.read_sets(
                    [i.id for i in corpus.sets(kind="prediction", annotator=rec.system)]
                )
            }
            return lambda _text, d: [sp for sp in preds.get(d, ()) if types is None or sp.type in types]
        return None

    scores: dict[str, float] = {}
    if order == "uncertainty":
        taggers = [r for r in recs if r.kind == "tagger" and r.version]
        if not taggers:
            raise InvalidInput(
                "--order uncertainty needs a trained tagger (corpusdb recommend add T --kind tagger; "
                "corpusdb recommend train T)"
            )
        rec = taggers[0]
        opts = TaggerOptions.from_dict(rec.options)
        tagger = Tagger(models.decode_bytes(payload(rec)["crf"]), None, opts.min_score)
        used = (rec.name,)
        for d, text in texts.items():
            scores[d] = round(tagger.uncertainty(text), 6)
    else:
        pairs = [(r.name, p) for r in recs if (p := proposer(r)) is not None]
        if len(pairs) < 2:
            raise InvalidInput(
                "--order disagreement needs at least two recommenders with a model or predictions"
            )
        used = tuple(n for n, _ in pairs)
        for d, text in texts.items():
            got = [p(text, d) for _n, p in pairs]
            f1s = [pair_f1(got[i], got[j]) for i in range(len(got)) for j in range(i + 1, len(got))]
            scores[d] = round(1.0 - sum(f1s) / len(f1s), 6)
    return Ordering(order, seed, used, scores, rank(scores, list(texts), seed))
