"""A small project to try the TUI on, and the documents its tests and bench use.

Why in the package: the tests, the bench and a person trying ``corpusdb tui`` need the same real
project built through the public API (never through tables), so it lives next to the app.
"""

from __future__ import annotations

import random

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span

TEXTS = {
    "d1": (
        "IL-2 binds CD25 in T cells. Mutant IL-2 did not bind the receptor alpha chain.\n"
        "STAT5 is phosphorylated after IL-2 signalling."
    ),
    "d2": "The Ras protein interacts with Raf-1 kinase. Raf-1 then activates MEK1 and MEK2.",
    "d3": "Bacillus subtilis lives in soil. E. coli was isolated from the gut of patients.",
}


def span(text: str, sid: str, type_: str, needle: str, nth: int = 0) -> Span:
    """A span on the ``nth`` occurrence of ``needle`` (test helper)."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    return Span(sid, type_, ((start, start + len(needle)),), needle)


def build_sample(url: str, *, project: str = "demo", submitted: bool = False) -> Corpus:
    """A BioRelEx project: annotators alice and bob on d1-d3, adjudicator carol, lead lena.

    bob already has two spans and a relation on d1 (blindness: alice must never see them). With
    ``submitted``, alice's and bob's d1 sets are filled and submitted so d1 is ready for adjudication.
    """
    owner = Corpus.create(project, "biorelex-1.0", url=url)
    for name, role in (
        ("alice", "annotator"),
        ("bob", "annotator"),
        ("carol", "adjudicator"),
        ("lena", "lead"),
    ):
        owner.add_annotator(name, role)
    owner.add_documents([Document(k, v) for k, v in TEXTS.items()])
    t = TEXTS["d1"]
    bob_d1 = Annotations(
        spans=(span(t, "T1", "protein", "STAT5"), span(t, "T2", "protein", "IL-2", 2)),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), 1),),
    )
    alice_d1 = Annotations(
        spans=(
            span(t, "T1", "protein", "IL-2"),
            span(t, "T2", "protein", "CD25"),
            span(t, "T3", "protein", "STAT5"),
        ),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), 1),),
    )
    status = "submitted" if submitted else "assigned"
    for doc in TEXTS:
        for who in ("alice", "bob"):
            content = None
            if doc == "d1" and who == "bob":
                content = bob_d1
            elif doc == "d1" and who == "alice" and submitted:
                content = alice_d1
            owner.create_set(doc, who, annotations=content, status=status if doc == "d1" else "assigned")
    return owner


def build_triage(url: str, *, project: str = "triage") -> Corpus:
    """A TREC relevance project (document labels DR/PR/NR) with one document for alice."""
    owner = Corpus.create(project, "trec-relevance", url=url)
    owner.add_annotator("alice")
    owner.add_documents([Document("pmid1", TEXTS["d2"])])
    owner.create_set("pmid1", "alice")
    return owner


WORDS = [
    "protein",
    "kinase",
    "binds",
    "receptor",
    "the",
    "of",
    "and",
    "in",
    "cells",
    "with",
    "domain",
    "complex",
    "activation",
    "signalling",
    "phosphorylation",
    "mutant",
    "IL-2",
    "CD25",
    "STAT5",
    "Raf-1",
    "MEK1",
    "expression",
    "was",
    "not",
]


def long_document(n_chars: int = 2000, n_spans: int = 300, *, seed: int = 7) -> tuple[str, tuple[Span, ...]]:
    """A document of about ``n_chars`` characters with ``n_spans`` spans, some nested, some
    discontinuous (the bench's worst realistic case: a dense abstract)."""
    rng = random.Random(seed)
    words: list[str] = []
    length = 0
    while length < n_chars:
        w = rng.choice(WORDS)
        words.append(w)
        length += len(w) + 1
        if rng.random() < 0.08:
            words[-1] += "."
    text = " ".join(words)[:n_chars]
    starts = [i for i, ch in enumerate(text) if ch != " " and (i == 0 or text[i - 1] == " ")]
    types = ("protein", "gene", "chemical", "protein-domain", "DNA", "cell")
    spans: list[Span] = []
    for k in range(n_spans):
        s = starts[(k * 7) % len(starts)] if k < len(starts) else rng.choice(starts)
        e = text.find(" ", s)
        e = len(text) if e < 0 else e
        if k % 5 == 0:  # a longer span around the next word too: nesting
            nxt = text.find(" ", e + 1)
            e = len(text) if nxt < 0 else nxt
        frags: tuple[tuple[int, int], ...] = ((s, e),)
        if k % 17 == 0 and e + 20 < len(text):  # discontinuous
            s2 = text.find(" ", e + 10) + 1
            e2 = text.find(" ", s2)
            if 0 < s2 < e2:
                frags = ((s, e), (s2, e2))
        spans.append(Span(f"T{k + 1}", types[k % len(types)], frags, " ".join(text[a:b] for a, b in frags)))
    return text, tuple(spans)


if __name__ == "__main__":  # python -m tui.sample try.sqlite; then: corpusdb --db try.sqlite tui --as alice
    import sys
    from pathlib import Path

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "tui-sample.sqlite").resolve()
    build_sample(f"sqlite:///{target}", submitted=True)
    print(f"built {target}: try `corpusdb --db {target} tui --as alice` (or bob, carol, lena)")
