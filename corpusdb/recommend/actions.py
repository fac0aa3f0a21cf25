"""Accept and reject as edits: the changes one key makes (pure; the API and the TUI share them).

Accepting a suggestion puts the annotator's own item (a new local id, the suggestion's type and
fragments, its text from the document) with its provenance in ``extra["suggestion"]``, and marks the
suggestion accepted; rejecting only marks it. Either is one action: ``Corpus.edit_set`` stores it in
one transaction with one undo entry, and undo puts the suggestion back to open (and takes the item
away). Accepting all suggestions of one name is one action too, so one undo takes them all back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations, Argument, Relation, Span
from corpusdb.recommend.records import PROVENANCE, Suggestion
from corpusdb.services.edits import Change, Mark, Put, next_id


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


def accept(
    ann: Annotations, text: str, chosen: Sequence[Suggestion], pool: Sequence[Suggestion] = ()
) -> tuple[list[Change], str]:
    """The changes that accept ``chosen`` (open suggestions of this set), and a description.

    A relation suggestion names its arguments by place and type: each is one of the set's spans, or
    an open span suggestion of ``pool`` accepted with it (in the same action); else it is refused."""
    changes: list[Change] = []
    taken: list[str] = []
    have = {(sp.type, tuple(sp.fragments)): sp.id for sp in ann.spans}

    def put_span(s: Suggestion) -> str:
        sid = next_id(ann, "span", taken)
        taken.append(sid)
        have[(s.type, s.fragments)] = sid
        item_text = " ".join(text[a:b] for a, b in s.fragments)
        changes.append(Put(Span(sid, s.type, s.fragments, item_text, extra=_provenance(s))))
        changes.append(Mark(s.id, "accepted", "open", sid))
        return sid

    done: set[int] = set()
    for s in sorted(chosen, key=lambda x: x.kind != "span"):  # spans first: relations may need them
        if s.status != "open" or s.id in done:
            raise InvalidInput(f"suggestion {s.id} is {s.status}, not open")
        done.add(s.id)
        if s.kind == "span":
            if (s.type, s.fragments) in have:  # already an item of mine: just close the suggestion
                changes.append(Mark(s.id, "accepted", "open", have[(s.type, s.fragments)]))
            else:
                put_span(s)
            continue
        payload = dict(s.payload or {})
        args = []
        for a in payload.get("args") or ():
            frags = tuple((int(x), int(y)) for x, y in a["fragments"])
            sid = have.get((a["type"], frags))
            if sid is None:
                arg = next((x for x in pool if x.kind == "span" and x.status == "open" and x.id not in done
                            and x.type == a["type"] and x.fragments == frags), None)  # fmt: skip
                if arg is None:
                    raise InvalidInput(
                        f"suggestion {s.id} ({s.type}): its {a['role']} {a['type']} «{a.get('text', '')}» is neither "
                        "one of your items nor a suggestion: tag it first"
                    )
                done.add(arg.id)
                sid = put_span(arg)
            args.append(Argument(str(a["role"]), sid))
        rid = next_id(ann, "relation", taken)
        taken.append(rid)
        rel = Relation(rid, s.type, tuple(args), payload.get("label"), tuple(payload.get("tags") or ()),
                       kind=payload.get("relation_kind") or "relation", extra=_provenance(s))  # fmt: skip
        changes.append(Put(rel))
        changes.append(Mark(s.id, "accepted", "open", rid))
    if not changes:
        raise InvalidInput("no suggestion to accept")
    first = chosen[0]
    what = f"{first.type} «{first.text}»" + (f" ×{len(chosen)}" if len(chosen) > 1 else "")
    return changes, f"accept {what} from {first.source}"


def _provenance(s: Suggestion) -> dict[str, Any]:
    return {PROVENANCE: {"id": s.id, "recommender": s.recommender, "version": s.version, "score": s.score}}


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
