"""Benchmark the recommenders on real corpora: quality, training time, latency, keystrokes saved.

    .venv/bin/python bench/bench_recommend.py [--corpus genia|bb|both] [--docs N] [--names 100000]

What it measures (prints figures and ratios to a baseline measured in the same run; asserts nothing):

1. **Quality** (``corpusdb recommend evaluate``): GENIA 2011 proteins, trained on the ``train`` folder's
   gold and scored on the ``devel`` folder's (the corpus's own split, ``keep-splits``); BB 2011
   (``train`` folder only: 65 documents) on a seeded 20% held out. P/R/F1 per type (exact boundaries
   and type, ``corpusdb.evaluation.ner``) for the string matcher and the CRF tagger, and training time;
   on BB 2011 also the relation recommender (Localization, PartOf; exact arguments), with a sentence
   window and a document window (``--relations-only``: just that).
2. **Latency when a document opens** (the string matcher, the issue's goal: <= 100 ms for a
   2,000-character document with a 10^5-name dictionary): GENIA's training protein names plus
   generated gene-like names up to ``--names``, loaded as a TSV dictionary; ``Corpus.suggestions``
   (read the set and the text, match, store new suggestions, read them back) on 2,000-character
   documents cut from the devel texts: the first call (which builds the automaton), then each
   document's first open (suggestions written) and a re-open (nothing to write). Baseline: reading the
   same set with ``Corpus.my_set`` (what opening a document costs without suggestions).
3. **A simulated annotator** on the held-out documents, through the API as ``alice`` (her set starts
   empty; the recommenders' shared parts learned from the training gold only). In text order she
   takes the next suggestion if it comes before the next gold item she lacks: a correct one (same
   type and fragments as gold) is accepted (``]`` then ``y``; ``Y`` once for a name whose open
   suggestions are all correct), a wrong one rejected (``]`` then ``X``); otherwise she tags the
   next missing gold item by hand: ``w`` once per token from the cursor to it, ``W`` once per
   token it covers, ``a`` and the type key (and ``f`` plus the selection for each further
   fragment), after which the string matcher proposes that name's other occurrences. Keystrokes are
   counted against the same annotator without suggestions (every item by hand, the same cost
   model); her final set is checked to equal gold.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from corpusdb.api import Corpus  # noqa: E402
from corpusdb.basics.records import Annotations, Document, Span  # noqa: E402
from corpusdb.recommend.tokens import tokenize  # noqa: E402
from corpusdb.services.edits import Put  # noqa: E402

DATA = Path(os.environ.get("CORPUSDB_SHARED", REPO.parent / "shared")) / "data"


def load(corpus: str, tmp: Path) -> tuple[str, Corpus, list[str]]:
    """(db url, a project with every document's gold and its split, the held-out documents)."""
    url = f"sqlite:///{tmp / f'{corpus}-all.sqlite'}"
    if corpus == "genia":
        c = Corpus.create("ge", "ge-2011", url=url)
        c.import_brat(DATA / "bionlp-st-2011-ge", kind="gold")  # train/ and devel/: their folders are splits
        c.keep_source_splits()
        held = [d.external_id for d in c.documents(split="devel", with_text=False)]
    else:
        c = Corpus.create("bb", "bb-2011", url=url)
        c.import_brat(DATA / "bionlp-st-2011-bb-train", kind="gold")
        ids = sorted(d.external_id for d in c.documents(with_text=False))
        random.Random(0).shuffle(ids)
        held = sorted(ids[: round(len(ids) * 0.2)])
    return url, c, held


TYPES = {
    "genia": ["Protein"],
    "bb": [
        "Bacterium",
        "Host",
        "HostPart",
        "Geographical",
        "Environment",
        "Food",
        "Medical",
        "Soil",
        "Water",
    ],
}


def quality(corpus: str, c: Corpus, held: list[str]) -> dict[str, float]:
    print(f"\n== {corpus}: quality on held-out gold (recommend evaluate) ==")
    train_seconds: dict[str, float] = {}
    for kind in ("string", "tagger"):
        name = f"{kind}-{corpus}"
        c.add_recommender(name, kind, types=TYPES[corpus])
        if corpus == "genia":
            rep = c.evaluate_recommender(name, split="devel")
        else:
            rep = c.evaluate_recommender(name, holdout=0.2, seed=0)
        assert sorted(rep["test_documents"] for _ in [0]) == [len(held)]
        train_seconds[kind] = rep["train_seconds"]
        print(
            f"{name}: {rep['rule']}; trained on {rep['train_documents']} documents in {rep['train_seconds']:.2f} s; "
            f"per document median {rep['latency_ms']['median']:.2f} ms"
        )
        print("  type            gold  tp     fp     P      R      F1")
        for r in rep["scores"]:
            if r["name"] == "all" and len(rep["scores"]) == 2:
                continue
            f = {k: ("   -  " if r[k] is None else f"{r[k]:.3f}") for k in ("precision", "recall", "f1")}
            print(
                f"  {r['name']:<14} {r['tp'] + r['fn']:>5}  {r['tp']:<5}  {r['fp']:<5}  {f['precision']}  "
                f"{f['recall']}  {f['f1']}"
            )
    if corpus == "bb":
        relations(c)
    return train_seconds


def relations(c: Corpus) -> None:
    """The relation recommender on BB 2011's gold relations (Localization, PartOf), the same seeded
    20% held out: trained on the other documents' gold relations, run on the held-out documents'
    gold spans, scored by exact arguments (role, type, fragments)."""
    c.add_recommender("relation-bb", "relation", options={"min_score": 0.3})
    for opts in ({"min_score": 0.3}, {}, {"window": "document"}):
        if opts != {"min_score": 0.3}:
            c.remove_recommender("relation-bb")
            c.add_recommender("relation-bb", "relation", options=opts)
        rep = c.evaluate_recommender("relation-bb", holdout=0.2, seed=0)
        print(
            f"relation-bb ({opts.get('window', 'sentence')} window, min_score {opts.get('min_score', 0.1)}): "
            f"{rep['rule']}; trained on "
            f"{rep['train_documents']} documents in {rep['train_seconds']:.3f} s; per document median "
            f"{rep['latency_ms']['median']:.2f} ms"
        )
        print("  type            gold  tp     fp     P      R      F1")
        for r in rep["scores"]:
            f = {k: ("   -  " if r[k] is None else f"{r[k]:.3f}") for k in ("precision", "recall", "f1")}
            print(
                f"  {r['name']:<14} {r['tp'] + r['fn']:>5}  {r['tp']:<5}  {r['fp']:<5}  {f['precision']}  "
                f"{f['recall']}  {f['f1']}"
            )


def generated_names(n: int, seed: int = 0) -> list[str]:
    """Gene-like names (``Kqx3``, ``TRPL-12 kinase``...), distinct, seeded."""
    rng = random.Random(seed)
    out: set[str] = set()
    while len(out) < n:
        stem = "".join(rng.choice(string.ascii_uppercase) for _ in range(rng.randint(2, 5)))
        name = stem + rng.choice(["", "-"]) + str(rng.randint(1, 99))
        if rng.random() < 0.2:
            name += " " + rng.choice(["kinase", "receptor", "protein", "factor"])
        out.add(name if rng.random() < 0.5 else name.capitalize())
    return sorted(out)


def latency(c_all: Corpus, tmp: Path, n_names: int) -> None:
    print(f"\n== latency: string matcher, 2,000-character documents, {n_names:,}-name dictionary ==")
    train_names = {
        sp.text
        for d in c_all.documents(split="train", with_text=False)
        for sp in c_all.gold(d.external_id).annotations.spans
        if sp.type == "Protein"
    }
    names = sorted(train_names) + generated_names(max(0, n_names - len(train_names)))
    names = names[:n_names]
    tsv = tmp / "names.tsv"
    tsv.write_text("".join(f"{n}\tProtein\n" for n in names), encoding="utf-8")
    devel = " ".join(d.text.replace("\n", " ") for d in c_all.documents(split="devel")[:120])
    docs = [devel[i * 2000 : (i + 1) * 2000] for i in range(50)]
    url = f"sqlite:///{tmp / 'latency.sqlite'}"
    c = Corpus.create("lat", "ge-2011", url=url)
    c.add_annotator("alice")
    c.add_documents([Document(f"L{i:02d}", t) for i, t in enumerate(docs)])
    c.assign(None, ["alice"])
    t = time.perf_counter()
    c.add_recommender("dict", "string", types=["Protein"], dictionary=tsv)
    t_add = time.perf_counter() - t
    (res,) = c.train_recommender("dict")
    print(
        f"dictionary: {len(names):,} names ({len(train_names):,} from GENIA train); read and stored "
        f"{t_add:.2f} s; shared part trained in {res.seconds:.2f} s"
    )
    alice = Corpus.open("lat", url=url, user="alice")
    t = time.perf_counter()
    first = alice.suggestions("L00")
    t_first = time.perf_counter() - t
    opens, reopens, base = [], [], []
    found = 0
    for i in range(1, 50):
        d = f"L{i:02d}"
        t = time.perf_counter()
        alice.my_set(d)
        base.append(time.perf_counter() - t)
        t = time.perf_counter()
        found += len(alice.suggestions(d))
        opens.append(time.perf_counter() - t)
        t = time.perf_counter()
        alice.suggestions(d)
        reopens.append(time.perf_counter() - t)

    def ms(xs: list[float]) -> str:
        xs = sorted(xs)
        return (
            f"median {1000 * statistics.median(xs):.1f} ms, p95 {1000 * xs[int(0.95 * (len(xs) - 1))]:.1f} ms"
        )

    b = statistics.median(base)
    print(f"first call (builds the automaton): {1000 * t_first:.0f} ms, {len(first)} suggestions")
    print(
        f"a document's first open (suggestions stored): {ms(opens)}; {statistics.median(opens) / b:.1f}x reading the set"
    )
    print(
        f"re-open (nothing new to store):               {ms(reopens)}; {statistics.median(reopens) / b:.1f}x reading the set"
    )
    print(
        f"baseline, Corpus.my_set on the same documents: {ms(base)}; {found / 49:.1f} suggestions a document"
    )
    from corpusdb.recommend.matcher import MatcherOptions, StringMatcher, count_names, propose

    t = time.perf_counter()
    m = StringMatcher(count_names((n, "Protein") for n in names), MatcherOptions())
    t_build = time.perf_counter() - t
    t = time.perf_counter()
    for d in docs:
        propose(d, [m])
    print(
        f"the matcher alone: automaton {1000 * t_build:.0f} ms to build, {1000 * (time.perf_counter() - t) / len(docs):.2f} ms a document"
    )


def cost_by_hand(text: str, cursor: int, item: tuple[str, tuple[tuple[int, int], ...]]) -> int:
    """Keys to tag one item by hand from ``cursor`` (the cost model of the module docstring)."""
    spans = tokenize(text).spans
    start = item[1][0][0]
    lo, hi = min(cursor, start), max(cursor, start)
    moves = sum(1 for a, _b in spans if lo < a <= hi) or (0 if cursor == start else 1)
    keys = moves + 2  # a + the type key
    for k, (a, b) in enumerate(item[1]):
        keys += max(1, sum(1 for x, y in spans if x >= a and y <= b)) + (1 if k else 0)  # W per token (+ f)
    return keys


def simulate(corpus: str, c_all: Corpus, held: list[str], tmp: Path, docs: int | None) -> None:
    print(f"\n== {corpus}: a simulated annotator on the held-out documents ==")
    url = f"sqlite:///{tmp / f'{corpus}-sim.sqlite'}"
    schema = "ge-2011" if corpus == "genia" else "bb-2011"
    c = Corpus.create("sim", schema, url=url)
    held_set = set(held)
    every = c_all.documents()
    c.add_documents([Document(d.external_id, d.text) for d in every])
    for d in every:
        if d.external_id not in held_set:
            g = c_all.gold(d.external_id).annotations
            c.create_set(
                d.external_id, None, kind="gold", status="submitted", annotations=Annotations(spans=g.spans)
            )
    chosen = held[:docs] if docs else held
    c.add_annotator("alice")
    c.assign(chosen, ["alice"])
    types = set(TYPES[corpus])
    for kind in ("string", "tagger"):
        c.add_recommender(f"{kind}-{corpus}", kind, types=TYPES[corpus])
    t = time.perf_counter()
    c.train_recommender()
    print(
        f"shared parts trained on {len(every) - len(held)} gold documents in {time.perf_counter() - t:.1f} s"
    )
    alice = Corpus.open("sim", url=url, user="alice")
    total = {"with": 0, "without": 0, "accepted": 0, "rejected": 0, "by_hand": 0, "gold": 0}
    t0 = time.perf_counter()
    for doc in chosen:
        text = c_all.document(doc).text
        gold_items = sorted(
            {
                (s.type, tuple(s.fragments))
                for s in c_all.gold(doc).annotations.spans
                if s.type in types and s.fragments
            },
            key=lambda it: (it[1][0][0], it[1][-1][1], it[0]),
        )
        total["gold"] += len(gold_items)
        cur = 0
        for item in gold_items:  # without suggestions: every item by hand, in text order
            total["without"] += cost_by_hand(text, cur, item)
            cur = item[1][-1][1]
        gold_set = set(gold_items)
        cursor = 0
        while True:
            s = alice.my_set(doc)
            have = {(x.type, tuple(x.fragments)) for x in s.annotations.spans}
            missing = [g for g in gold_items if g not in have]
            from corpusdb.recommend.actions import shown

            open_ = shown(s.annotations, alice.suggestions(doc, refresh=False))
            nxt_s = open_[0] if open_ else None
            nxt_g = missing[0] if missing else None
            if nxt_s is None and nxt_g is None:
                break
            if nxt_s is not None and (nxt_g is None or nxt_s.start <= nxt_g[1][0][0]):
                key = (nxt_s.type, nxt_s.fragments)
                if key in gold_set:
                    same = [x for x in open_ if x.text == nxt_s.text and x.type == nxt_s.type]
                    all_good = len(same) > 1 and all((x.type, x.fragments) in gold_set for x in same)
                    alice.accept_suggestions(
                        s.info.id, [nxt_s.id], expected_version=s.info.version, same_name=all_good
                    )
                    total["accepted"] += len(same) if all_good else 1
                else:
                    alice.reject_suggestions(s.info.id, [nxt_s.id], expected_version=s.info.version)
                    total["rejected"] += 1
                total["with"] += 2  # ] and y / Y / X
                cursor = nxt_s.start
            else:
                assert nxt_g is not None
                total["with"] += cost_by_hand(text, cursor, nxt_g)
                total["by_hand"] += 1
                sid = f"H{len(have) + 1}x{total['by_hand']}"
                sp = Span(sid, nxt_g[0], nxt_g[1], " ".join(text[a:b] for a, b in nxt_g[1]))
                alice.edit_set(
                    s.info.id, [Put(sp)], expected_version=s.info.version, history="do", description="add"
                )
                alice.suggestions(doc)  # what the TUI does after a span is added: other occurrences proposed
                cursor = nxt_g[1][-1][1]
        final = {(x.type, tuple(x.fragments)) for x in alice.my_set(doc).annotations.spans}
        assert final == gold_set, doc
    took = time.perf_counter() - t0
    saved = 1 - total["with"] / total["without"] if total["without"] else 0.0
    print(
        f"{len(chosen)} documents, {total['gold']} gold items: {total['accepted']} accepted from suggestions, "
        f"{total['by_hand']} by hand, {total['rejected']} suggestions rejected ({took:.1f} s through the API)"
    )
    print(
        f"keystrokes: {total['with']:,} with suggestions, {total['without']:,} without "
        f"(baseline): {100 * saved:.1f}% saved ({total['with'] / max(1, total['without']):.2f}x)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=("genia", "bb", "both"), default="both")
    ap.add_argument("--docs", type=int, default=None, help="simulate on the first N held-out documents only")
    ap.add_argument("--names", type=int, default=100_000, help="dictionary size for the latency run")
    ap.add_argument("--relations-only", action="store_true", help="BB 2011: the relation recommender only")
    args = ap.parse_args()
    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"bench_recommend, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load_avg:.2f}"
    )
    with tempfile.TemporaryDirectory() as tmp_:
        tmp = Path(tmp_)
        if args.relations_only:
            relations(load("bb", tmp)[1])
            return
        for corpus in ("genia", "bb") if args.corpus == "both" else (args.corpus,):
            _url, c_all, held = load(corpus, tmp)
            quality(corpus, c_all, held)
            if corpus == "genia":
                latency(c_all, tmp, args.names)
            simulate(corpus, c_all, held, tmp, args.docs)


if __name__ == "__main__":
    main()
