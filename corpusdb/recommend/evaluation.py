"""How good a recommender is, measured honestly: trained on some adjudicated documents, scored on
others it never saw, with the project's NER scorer (``corpusdb.evaluation.ner``).

The held-out documents are a split's (``split="test"``: documents whose split is ``test``) or a
seeded random fraction of the adjudicated documents (``holdout``, ``seed``; sorted ids shuffled with
``random.Random(seed)``), stated in the report. The model is trained afresh on the gold of the other
adjudicated documents (and, for a string matcher, its dictionaries): never on the held-out gold, and
never on annotators' sets. An external recommender is scored on its system's prediction sets of the
held-out documents (nothing to train). Scores are micro P/R/F1 per type and overall (``all``), with
tp/fn/fp; a held-out document the model proposes nothing on counts its gold as misses.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Span
from corpusdb.recommend.matcher import MatcherOptions, StringMatcher, count_names, propose
from corpusdb.recommend.records import RecommenderInfo
from corpusdb.recommend.tagger import TaggerOptions
from corpusdb.recommend.training import Example, gold_examples


def partition(
    examples: Sequence[Example], split_of: dict[str, str | None], split: str | None, holdout: float, seed: int
) -> tuple[list[Example], list[Example], str]:
    """(train, held out, the rule in words)."""
    if split is not None:
        test = [ex for ex in examples if split_of.get(ex.document) == split]
        rule = f"held out: the adjudicated documents of split {split!r}"
    else:
        if not 0.0 < holdout < 1.0:
            raise InvalidInput(f"the held-out fraction must be in (0, 1), got {holdout}")
        docs = sorted(ex.document for ex in examples)
        random.Random(seed).shuffle(docs)
        chosen = set(docs[: max(1, round(len(docs) * holdout))])
        test = [ex for ex in examples if ex.document in chosen]
        rule = f"held out: {len(chosen)} of {len(docs)} adjudicated documents drawn with seed {seed} (fraction {holdout})"
    names = {ex.document for ex in test}
    train = [ex for ex in examples if ex.document not in names]
    if not test:
        raise InvalidInput(f"no adjudicated document to hold out ({rule})")
    return train, test, rule


def spans(ex: Example) -> list[Span]:
    return [
        Span(f"T{i}", t, fr, " ".join(ex.text[a:b] for a, b in fr)) for i, (t, fr) in enumerate(ex.items, 1)
    ]


def evaluate(
    corpus: Any, rec: RecommenderInfo, *, split: str | None, holdout: float, seed: int, criterion: str
) -> dict[str, Any]:
    from corpusdb.evaluation.ner import score_ner

    if rec.kind == "relation":
        return evaluate_relations(corpus, rec, split=split, holdout=holdout, seed=seed)
    types = set(rec.types) if rec.types is not None else None
    with corpus._read() as conn:
        examples = gold_examples(conn, corpus.project_id, types)
    if not examples:
        raise InvalidInput("no adjudicated gold to evaluate against (finish gold of some documents)")
    split_of = {d.external_id: d.split for d in corpus.documents(with_text=False)}
    train, test, rule = partition(examples, split_of, split, holdout, seed)
    t0 = time.perf_counter()
    predicted: dict[str, list[Span]] = {}
    if rec.kind == "external":
        system = str(rec.system)
        wanted = {ex.document for ex in test}
        infos = [
            i for i in corpus.sets(kind="prediction", annotator=system) if i.document_external_id in wanted
        ]
        for s in corpus.read_sets([i.id for i in infos]):
            predicted[s.info.document_external_id] = [
                sp for sp in s.annotations.spans if types is None or sp.type in types
            ]
        train_seconds = 0.0
        latency: list[float] = []
    else:
        if rec.kind == "string":
            names = count_names((n, t) for ex in train for n, t in ex.names())
            count_names(corpus.dictionary_names(rec.name), names)
            matcher = StringMatcher(
                names, MatcherOptions.from_dict(rec.options), frozenset(types) if types else None
            )

            def run(text: str) -> list[Any]:
                return propose(text, [matcher])
        else:
            from corpusdb.recommend.tagger import Tagger
            from corpusdb.recommend.tagger import train as train_crf

            if not train:
                raise InvalidInput("no adjudicated document left to train on: hold out fewer")
            opts = TaggerOptions.from_dict(rec.options)
            tagger = Tagger(
                train_crf(((ex.text, ex.items) for ex in train), opts),
                frozenset(types) if types else None,
                opts.min_score,
            )
            run = tagger.propose
        train_seconds = time.perf_counter() - t0
        latency = []
        for ex in test:
            t1 = time.perf_counter()
            props = run(ex.text)
            latency.append(time.perf_counter() - t1)
            predicted[ex.document] = [
                Span(f"S{i}", p.type, p.fragments, p.text) for i, p in enumerate(props, 1)
            ]
    reference = {ex.document: spans(ex) for ex in test}
    scores = score_ner(reference, predicted, criterion=criterion, types="required")
    rows = [scores["all"].to_dict()] + [scores[k].to_dict() for k in sorted(scores) if k != "all"]
    latency.sort()
    return {
        "recommender": rec.name,
        "kind": rec.kind,
        "criterion": criterion,
        "types": "required",
        "rule": rule,
        "seed": seed if split is None else None,
        "split": split,
        "train_documents": len(train) if rec.kind != "external" else 0,
        "test_documents": len(test),
        "train_seconds": round(train_seconds, 3),
        "latency_ms": {
            "median": round(1000 * latency[len(latency) // 2], 3),
            "max": round(1000 * latency[-1], 3),
        }
        if latency
        else None,
        "scores": rows,
    }


def _prf(tp: int, fn: int, fp: int, name: str) -> dict[str, Any]:
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
    return {"name": name, "tp": tp, "fn": fn, "fp": fp, "precision": p, "recall": r, "f1": f}


def evaluate_relations(
    corpus: Any, rec: RecommenderInfo, *, split: str | None, holdout: float, seed: int
) -> dict[str, Any]:
    """A relation recommender trained afresh on the gold relations of the other adjudicated
    documents and run on the held-out ones' gold spans: a proposed relation is right when gold has
    that type with the same arguments (role, type and fragments; either order when undirected)."""
    from corpusdb.recommend.cooccur import RelationModel, RelationOptions, examples_of, learn
    from corpusdb.recommend.training import adjudicated_gold
    from corpusdb.services import content

    schema = corpus.schema()
    undirected = {r.name for r in schema.relations if not r.directed}
    with corpus._read() as conn:
        rows = [(int(r[0]), str(r[1]), str(r[2])) for r in conn.execute(adjudicated_gold(corpus.project_id))]
        body = content.load_many(conn, [r[0] for r in rows])
    examples = [examples_of(doc, text, body[sid], rec.types) for sid, doc, text in rows]
    if not examples:
        raise InvalidInput("no adjudicated gold to evaluate against (finish gold of some documents)")
    split_of = {d.external_id: d.split for d in corpus.documents(with_text=False)}
    train, test, rule = partition(examples, split_of, split, holdout, seed)  # type: ignore[arg-type]
    opts = RelationOptions.from_dict(rec.options)
    t0 = time.perf_counter()
    model = RelationModel(learn(train, opts, undirected), opts, frozenset(rec.types) if rec.types else None)
    train_seconds = time.perf_counter() - t0

    def key(rtype: str, args: Sequence[tuple[str, Any]]) -> tuple[Any, ...]:
        parts = [(role, tuple(map(tuple, frags))) for role, frags in args]
        if rtype in undirected:
            parts = sorted(p[1] for p in parts)  # type: ignore[misc]
        return (rtype, *parts)

    counts: dict[str, list[int]] = {}
    latency: list[float] = []
    for ex in test:
        by_id = {m.id: m for m in ex.mentions}
        gold = {
            key(t, [(r1, by_id[a1].fragments), (r2, by_id[a2].fragments)])
            for t, ((r1, a1), (r2, a2)), _ in ex.relations
        }
        t1 = time.perf_counter()
        props = model.propose(ex.text, ex.mentions)
        latency.append(time.perf_counter() - t1)
        found = {key(p["type"], [(a["role"], a["fragments"]) for a in p["args"]]) for p in props}
        for k in gold | found:
            c = counts.setdefault(k[0], [0, 0, 0])
            c[0 if k in gold and k in found else 1 if k in gold else 2] += 1
    total = [sum(c[i] for c in counts.values()) for i in range(3)]
    rows = [_prf(*total, "all")] + [_prf(*counts[t], t) for t in sorted(counts)]
    latency.sort()
    return {
        "recommender": rec.name,
        "kind": rec.kind,
        "criterion": "exact arguments",
        "types": "required",
        "rule": rule,
        "seed": seed if split is None else None,
        "split": split,
        "train_documents": len(train),
        "test_documents": len(test),
        "train_seconds": round(train_seconds, 3),
        "latency_ms": {
            "median": round(1000 * latency[len(latency) // 2], 3),
            "max": round(1000 * latency[-1], 3),
        },
        "scores": rows,
    }
