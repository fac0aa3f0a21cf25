"""Pure helpers for the adjudication screen: what a conflict covers, how it reads, an edited item.

Why apart: the screen only runs keys and dialogs; these functions work on the workflow's records
(``Conflict``, ``Variant``, ``SourceRef``) and plain annotations, and are tested without a terminal.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from rich.text import Text

from corpusdb.basics.records import Annotations, Argument, Entity, Link, Relation, Span
from tui.items import item_fragments

LETTERS = "ABCDEFGHI"


def source_letter(i: int) -> str:
    return LETTERS[i] if i < len(LETTERS) else str(i + 1)


def source_index(sources: Sequence[Any], set_id: int) -> int | None:
    return next((i for i, s in enumerate(sources) if s.set_id == set_id), None)


def conflict_ranges(conflict: Any, source_sets: Mapping[int, Annotations]) -> list[tuple[int, int]]:
    """Text ranges a conflict is about: its spans' fragments, or its relation/link arguments'."""
    return sorted({r for v in conflict.variants for r in variant_ranges(v, source_sets)})


def variant_ranges(v: Any, source_sets: Mapping[int, Annotations]) -> list[tuple[int, int]]:
    """Text ranges of one version: a span's fragments, or its relation/link/entity arguments'."""
    item = v.item
    if isinstance(item, Span):
        return list(item.fragments)
    out: list[tuple[int, int]] = []
    if isinstance(item, Relation | Link | Entity) and v.sources:
        ann = source_sets.get(v.sources[0].set_id)
        if isinstance(item, Entity):
            refs = list(item.members)
        else:
            refs = [a.ref for a in item.args] if isinstance(item, Relation) else [item.source, item.target]
        if ann is not None:
            out.extend(item_fragments(ann, refs))
    return out


def is_agreed(conflict: Any) -> bool:
    """An item every source had identically (accepted by the merge, shown only on request)."""
    return not conflict.differs and conflict.decision is not None and conflict.decision.method == "unanimous"


def conflict_label(conflict: Any) -> Text:
    """One line of the conflict list: state, kind, first version, what differs."""
    if conflict.decision is not None:
        mark, style = ("=", "dim") if is_agreed(conflict) else ("✓", "green")
    elif conflict.blocked:
        mark, style = ("⊘", "yellow")
    else:
        mark, style = ("●", "bold red")
    shown = next((v.display for v in conflict.variants if not v.absent), conflict.key)
    differs = f" · {','.join(conflict.differs)}" if conflict.differs else ""
    return Text.assemble((f"{mark} ", style), (f"{conflict.kind} ", "bold"), shown, (differs, "italic"))


def variant_rows(conflict: Any, sources: Sequence[Any]) -> list[tuple[str, str]]:
    """(letters of the sources holding it, display) per variant, e.g. ("A", "protein 0-4 'IL-2'")."""
    rows = []
    for v in conflict.variants:
        letters = "".join(
            source_letter(i) for s in v.sources if (i := source_index(sources, s.set_id)) is not None
        )
        rows.append((letters or "?", v.display))
    return rows


def describe(conflict: Any, sources: Sequence[Any]) -> str:
    """The detail panel: the key, each version with its sources, the decision or what blocks it."""
    head = f"{conflict.key}"
    if conflict.differs:
        head += f" · differs: {', '.join(conflict.differs)}"
    lines = [head]
    for letters, display in variant_rows(conflict, sources):
        who = ",".join(
            f"{source_letter(i)}={sources[i].annotator or 'gold'}"
            for i in range(len(sources))
            if source_letter(i) in letters
        )
        lines.append(f"  {letters:>3}  {display}   ({who})")
    d = conflict.decision
    if d is not None:
        lines.append(
            f"decided: {d.method} by {d.decided_by or 'system'}" + (f" — {d.reason}" if d.reason else "")
        )
    elif conflict.blocked:
        lines.append(f"blocked: {conflict.blocked}")
    return "\n".join(lines)


def variant_of(conflict: Any, source_i: int, sources: Sequence[Any]) -> Any | None:
    """The variant source ``source_i`` holds (None when that source has no variant here)."""
    set_id = sources[source_i].set_id
    return next((v for v in conflict.variants if any(s.set_id == set_id for s in v.sources)), None)


def to_gold_refs(item: Relation | Link, source: Annotations, gold: Annotations) -> Relation | Link | str:
    """An item from a source with its span references moved to the gold spans with the same
    fragments (an edited relation must name gold ids); a message when one has no gold span yet."""
    src = {s.id: s for s in source.spans}
    by_frags = {s.fragments: s.id for s in gold.spans}

    src_ents = {e.id: e for e in source.entities}
    gold_spans = {s.id: s for s in gold.spans}

    def members(ann_spans: Mapping[str, Span], e: Entity) -> frozenset[Any]:
        return frozenset((ann_spans[m].fragments, ann_spans[m].text) for m in e.members if m in ann_spans)

    by_members = {members(gold_spans, e): e.id for e in gold.entities}

    def gold_id(ref: str) -> str | None:
        s = src.get(ref)
        if s is None and ref in src_ents:  # an entity argument: the gold entity of the same members
            return by_members.get(members(src, src_ents[ref]))
        return by_frags.get(s.fragments) if s is not None else None

    if isinstance(item, Relation):
        args = []
        for a in item.args:
            g = gold_id(a.ref)
            if g is None:
                return f"argument {a.role} has no gold span yet: resolve it first"
            args.append(Argument(a.role, g))
        return replace(item, args=tuple(args), trigger=None, extra={})
    ends = [gold_id(item.source), gold_id(item.target)]
    if None in ends:
        return "a link end has no gold span yet: resolve it first"
    return replace(item, source=str(ends[0]), target=str(ends[1]), group=None, extra={})


def source_ranges(
    conflict: Any, source_i: int, sources: Sequence[Any], source_sets: Mapping[int, Annotations]
) -> list[tuple[int, int]]:
    """The text ranges of the version source ``source_i`` holds (its own boundaries, so each source's
    column highlights what that annotator marked; empty when it has nothing here)."""
    v = variant_of(conflict, source_i, sources)
    return sorted(set(variant_ranges(v, source_sets))) if v is not None and not v.absent else []


def overlapping_gold(gold: Annotations, item: Any, source: Annotations | None = None) -> list[Span]:
    """Gold spans of the same type that overlap ``item`` without being it: taking a second boundary
    alternative would put both into gold (the screen asks before doing so). A gold span the taken
    source also marks itself is no alternative but a nested or overlapping mention it meant too."""
    if not isinstance(item, Span):
        return []
    own = {(s.fragments, s.type) for s in source.spans} if source is not None else set()
    return [
        g
        for g in gold.spans
        if g.type == item.type
        and g.fragments != item.fragments
        and (g.fragments, g.type) not in own
        and any(a < d and c < b for a, b in g.fragments for c, d in item.fragments)
    ]


# -- editing a gold item's boundaries -------------------------------------------------------------
def move_boundary(span: Span, text: str, bounds: Any, side: str, unit: str, step: int) -> Span:
    """``span`` with its start (``side="start"``) or end moved by a character or a word (``step`` -1
    left, 1 right); a move that would empty the span or leave the text changes nothing.

    A multi-fragment span moves its first fragment's start or its last fragment's end."""
    frags = [list(f) for f in span.fragments]
    start, end = frags[0][0], frags[-1][1]
    if side == "start":
        lo, hi = 0, frags[0][1] - 1
        if unit == "char":
            new = start + step
        elif step < 0:
            new = bounds.prev_word(start)
        else:
            new = bounds.next_word(start)
        if not lo <= new <= hi:
            return span
        frags[0][0] = new
    else:
        lo, hi = frags[-1][0] + 1, len(text)
        if unit == "char":
            new = end + step
        elif step > 0:
            new = bounds.word_end(end)
        else:
            i = bisect_left(bounds.word_ends, end)
            new = bounds.word_ends[i - 1] if i > 0 else lo
        if not lo <= new <= hi:
            return span
        frags[-1][1] = new
    fragments = tuple((a, b) for a, b in frags)
    return replace(span, fragments=fragments, text=" ".join(text[a:b] for a, b in fragments))


def retype_relation(rel: Relation, rtype: Any) -> Relation:
    """``rel`` as another relation type: its arguments keep their order and take the new type's
    role names (a type with other roles is picked only when the counts match)."""
    roles = [r.name for r in rtype.roles]
    args = tuple(Argument(roles[i] if i < len(roles) else a.role, a.ref) for i, a in enumerate(rel.args))
    label = rel.label if rtype.labels else None
    tags = tuple(t for t in rel.tags if t in rtype.tags)
    return replace(rel, type=rtype.name, args=args, label=label, tags=tags)
