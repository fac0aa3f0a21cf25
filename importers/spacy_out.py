"""spaCy training data: JSONL (no spaCy needed) and DocBin (``.spacy``, with the optional extra).

Why two: JSONL (``{"text", "spans": [{"start", "end", "label"}], ...}``, the shape Prodigy and spaCy's
own converters read) lets any pipeline train without spaCy installed here; a DocBin is what ``spacy
train`` reads directly, and needs spaCy itself to build (``pip install 'corpusdb[spacy]'``).

DocBin rule: every contiguous span goes into ``doc.spans["sc"]`` (a span group, which may overlap, for
the span categorizer); ``doc.ents`` (the NER component's, which may not) gets the longest non-overlapping
ones. Spans whose offsets do not fall on spaCy's token boundaries (``char_span(..., alignment_mode=
"expand")`` widens them to whole tokens) and discontinuous spans (one entry per fragment) are counted.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from corpusdb.basics.errors import UsageError
from corpusdb.basics.records import Annotations, Document

__all__ = ["docbin_bytes", "format_jsonl"]


def _record(doc: Document, ann: Annotations, lost: Counter[str]) -> dict[str, Any]:
    spans = []
    index: dict[str, int] = {}
    for s in sorted(ann.spans, key=lambda s: (s.start, s.end, s.id)):
        if not s.fragments:
            lost["names without a mention (left out)"] += 1
            continue
        if len(s.fragments) > 1:
            lost["discontinuous spans (one entry per fragment)"] += 1
        for a, b in s.fragments:
            index.setdefault(s.id, len(spans))
            spans.append({"start": a, "end": b, "label": s.type, "id": s.id})
    rels = []
    for r in ann.relations:
        if len(r.args) != 2 or any(a.ref not in index for a in r.args):
            lost["relations not between two spans (left out)"] += 1
            continue
        h, c = (spans[index[a.ref]] for a in r.args)
        rels.append({"head_span": h, "child_span": c, "label": r.type, "head_role": r.args[0].role,
                     "child_role": r.args[1].role, **({"value": r.label} if r.label is not None else {})})  # fmt: skip
    out: dict[str, Any] = {
        "text": doc.text,
        "spans": spans,
        "relations": rels,
        "meta": {"id": doc.external_id},
    }
    if ann.labels:
        out["cats"] = {f"{lb.name}={lb.value}": 1.0 for lb in ann.labels}
    lost["links (left out)"] += len(ann.links)
    return out


def format_jsonl(items: Sequence[tuple[Document, Annotations]]) -> tuple[str, list[str]]:
    """One JSON object per document: text, spans (with their corpusdb id), relations, cats, meta.id."""
    lost: Counter[str] = Counter()
    lines = [json.dumps(_record(d, a, lost), ensure_ascii=False) for d, a in items]
    return "".join(line + "\n" for line in lines), [
        f"spaCy JSONL cannot express {n} {w}" for w, n in sorted(lost.items()) if n
    ]


def docbin_bytes(
    items: Sequence[tuple[Document, Annotations]], *, lang: str = "en"
) -> tuple[bytes, list[str]]:
    """A serialised DocBin of these documents (tokenised by ``spacy.blank(lang)``)."""
    try:
        import spacy
        from spacy.tokens import DocBin
        from spacy.util import filter_spans
    except ImportError as err:
        raise UsageError(
            "exporting a spaCy DocBin needs spaCy: pip install 'corpusdb[spacy]' (spacy-jsonl needs nothing)"
        ) from err
    nlp = spacy.blank(lang)
    lost: Counter[str] = Counter()
    db = DocBin(store_user_data=True)
    for doc, ann in items:
        sd = nlp.make_doc(doc.text)
        group = []
        for s in ann.spans:
            if len(s.fragments) > 1:
                lost["discontinuous spans (one entry per fragment)"] += 1
            for a, b in s.fragments:
                sp = sd.char_span(a, b, label=s.type, alignment_mode="expand")
                if sp is None:
                    lost["spans covering no token (left out)"] += 1
                    continue
                if (sp.start_char, sp.end_char) != (a, b):
                    lost["spans widened to token boundaries"] += 1
                group.append(sp)
        sd.spans["sc"] = group
        ents = filter_spans(group)
        lost["overlapping spans left out of doc.ents (kept in spans['sc'])"] += len(group) - len(ents)
        sd.ents = ents
        sd.user_data["id"] = doc.external_id
        for lb in ann.labels:
            sd.cats[f"{lb.name}={lb.value}"] = 1.0
        db.add(sd)
    return db.to_bytes(), [f"spaCy DocBin: {n} {w}" for w, n in sorted(lost.items()) if n]
