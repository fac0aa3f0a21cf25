"""Accept and reject as edits: the changes one key makes (pure; the API and the TUI share them).

Accepting a suggestion puts the annotator's own item (a new local id, the suggestion's type and
fragments, its text from the document) with its provenance in ``extra["suggestion"]``, and marks the
suggestion accepted; rejecting only marks it. Either is one action: ``Corpus.edit_set`` stores it in
one transaction with one undo entry, and undo puts the suggestion back to open (and takes the item
away). Accepting all suggestions of one name is one action too, so one undo takes them all back.
"""

from __future__ import annotations

from collections.abc import Sequence

from corpusdb.edits import Change, Mark, Put, next_id
from corpusdb.errors import InvalidInput
from corpusdb.recommend.records import PROVENANCE, Suggestion
from corpusdb.records import Annotations, Span


def provenance(span: Span) -> str | None:
    """``accepted from string-matcher v3 (score 0.92)``, or None for an item made by hand."""
    p = span.extra.get(PROVENANCE) if span.extra else None
    if not isinstance(p, dict):
        return None
    return (
        f"accepted from {p.get('recommender')} v{p.get('version')} (score {float(p.get('score') or 0):.2f})"
    )


def shown(ann: Annotations, suggestions: Sequence[Suggestion]) -> list[Suggestion]:
    """The open span suggestions worth showing: not one the set already has as an item (same type,
    same fragments), one per place and type (the best score when recommenders agree)."""
    have = {(sp.type, tuple(sp.fragments)) for sp in ann.spans}
    best: dict[tuple[str, tuple[tuple[int, int], ...]], Suggestion] = {}
    for s in suggestions:
        if s.status != "open" or s.kind != "span" or not s.fragments:
            continue
        key = (s.type, s.fragments)
        if key in have:
            continue
        if key not in best or s.score > best[key].score:
            best[key] = s
    return sorted(best.values(), key=lambda s: (s.start, s.end, s.type))


def same_name(suggestions: Sequence[Suggestion], chosen: Suggestion) -> list[Suggestion]:
    """The open suggestions of the same name (text) and type as ``chosen``, ``chosen`` included."""
    return [
        s
        for s in suggestions
        if s.status == "open" and s.kind == "span" and s.type == chosen.type and s.text == chosen.text
    ]


def accept(ann: Annotations, text: str, chosen: Sequence[Suggestion]) -> tuple[list[Change], str]:
    """The changes that accept ``chosen`` (open span suggestions of this set), and a description."""
    changes: list[Change] = []
    taken: list[str] = []
    have = {(sp.type, tuple(sp.fragments)) for sp in ann.spans}
    for s in chosen:
        if s.status != "open":
            raise InvalidInput(f"suggestion {s.id} is {s.status}, not open")
        if s.kind != "span":
            raise InvalidInput(f"suggestion {s.id} is a {s.kind}: only span suggestions are accepted here")
        if (s.type, s.fragments) in have:  # already an item of mine: just close the suggestion
            changes.append(Mark(s.id, "accepted", "open"))
            continue
        sid = next_id(ann, "span", taken)
        taken.append(sid)
        have.add((s.type, s.fragments))
        extra = {
            PROVENANCE: {"id": s.id, "recommender": s.recommender, "version": s.version, "score": s.score}
        }
        item_text = " ".join(text[a:b] for a, b in s.fragments)
        changes.append(Put(Span(sid, s.type, s.fragments, item_text, extra=extra)))
        changes.append(Mark(s.id, "accepted", "open", sid))
    if not changes:
        raise InvalidInput("no suggestion to accept")
    first = chosen[0]
    what = f"{first.type} «{first.text}»" + (f" ×{len(chosen)}" if len(chosen) > 1 else "")
    return changes, f"accept {what} from {first.source}"


def reject(chosen: Sequence[Suggestion]) -> tuple[list[Change], str]:
    """The changes that reject ``chosen``: they are not proposed to this annotator again."""
    if not chosen:
        raise InvalidInput("no suggestion to reject")
    for s in chosen:
        if s.status != "open":
            raise InvalidInput(f"suggestion {s.id} is {s.status}, not open")
    first = chosen[0]
    what = f"{first.type} «{first.text}»" + (f" ×{len(chosen)}" if len(chosen) > 1 else "")
    return [Mark(s.id, "rejected", "open") for s in chosen], f"reject {what} from {first.source}"
