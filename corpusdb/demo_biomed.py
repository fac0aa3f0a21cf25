"""The biomedical sample behind ``corpusdb demo``: binding interactions, two annotators, gold, a release.

Why its own module: the news sample (``corpusdb.demo``) loads brat folders as they are; this one builds
a whole project's life from a small CC0 data file (``corpusdb/sample/biomed/``, see its SOURCE.md):
two annotators who disagree, an entity cluster, groundings, a system's predictions, gold adjudicated
by an adjudicator through the same API the CLI uses, split and released.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Argument, Document, Entity, Grounding, Relation, Span

BIOMED_PROJECT = "demo"
BIOMED_ANNOTATORS = ("alice", "bob")
BIOMED_ADJUDICATOR = "judy"
BIOMED_SYSTEM = "tagger"
BIOMED_SCHEMA = "biorelex-1.0"


def biomed_dir() -> Path:
    """Where the bundled data and its licence are (inside the installed package)."""
    return Path(str(resources.files("corpusdb") / "sample" / "biomed"))


def _annotations(text: str, spec: dict[str, Any], groundings: dict[str, str]) -> Annotations:
    """Records from the data file's compact form: a span is (id, type, its text, which occurrence)."""
    spans = []
    for sid, type_, mention, nth in spec.get("spans", []):
        start = -1
        for _ in range(nth + 1):
            start = text.index(mention, start + 1)
        ground = tuple(Grounding(groundings[mention]) for _ in [0] if mention in groundings)
        spans.append(Span(sid, type_, ((start, start + len(mention)),), mention, groundings=ground))
    entities = tuple(
        Entity(eid, type_, tuple(members), groundings=(Grounding(groundings["MDM2"]),))
        for eid, type_, members in spec.get("entities", [])
    )
    relations = tuple(
        Relation(rid, "bind", (Argument("Arg1", a), Argument("Arg2", b)), label=1)
        for rid, a, b in spec.get("relations", [])
    )
    return Annotations(spans=tuple(spans), relations=relations, entities=entities)


def load_biomed(corpus: Corpus) -> None:
    """Fill a new ``biorelex-1.0`` project: documents, sets, predictions, gold, a split and release v1."""
    data = json.loads((biomed_dir() / "demo.json").read_text(encoding="utf-8"))
    texts: dict[str, str] = data["documents"]
    corpus.add_documents(Document(doc, text, source="corpusdb demo (CC0)") for doc, text in texts.items())
    corpus.add_annotator(BIOMED_ADJUDICATOR, "adjudicator")
    for name in BIOMED_ANNOTATORS:
        corpus.add_annotator(name)
        for doc, spec in data["annotators"][name].items():
            ann = _annotations(texts[doc], spec, data["groundings"])
            corpus.create_set(doc, name, annotations=ann, status="submitted")
    corpus.add_annotator(BIOMED_SYSTEM, "system")
    for doc, spec in data["system"][BIOMED_SYSTEM].items():
        ann = _annotations(texts[doc], spec, data["groundings"])
        corpus.create_set(doc, BIOMED_SYSTEM, kind="prediction", annotations=ann, status="submitted")
    judy = corpus.as_user(BIOMED_ADJUDICATOR)
    judy.merge()
    judy.resolve_bulk(None, take="alice", reason="alice follows the guideline on boundaries")
    judy.finish_golds()
    corpus.split(ratios=(3, 1), names=("train", "test"), seed=1)
    corpus.release("v1", notes="the demo's first release")
