"""Pure helpers for the adjudication screen: what a conflict covers, how it reads, an edited item.

Why apart: the screen only runs keys and dialogs; these functions work on the workflow's records
(``Conflict``, ``Variant``, ``SourceRef``) and plain annotations, and are tested without a terminal.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from rich.cells import cell_len
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


def decided_letters(conflict: Any, sources: Sequence[Any]) -> str:
    """The sources whose version the decision took (``"A"``, ``"AB"``), ``"-"`` for neither (a refusal),
    ``""`` when open or when the decision came from no source's version as it is (added by hand)."""
    d = conflict.decision
    if d is None:
        return ""
    if not d.item_id:
        return "-"
    used = {(int(s["set_id"]), str(s.get("local_id") or "")) for s in d.sources if "set_id" in s}
    for v in conflict.variants:
        if not v.absent and any((s.set_id, s.local_id) in used for s in v.sources):
            return "".join(
                source_letter(i) for s in v.sources if (i := source_index(sources, s.set_id)) is not None
            )
    return ""


def decided_variant(conflict: Any) -> Any | None:
    """The version the conflict's decision took (None: open, refused, or made by hand)."""
    d = conflict.decision
    if d is None or not d.item_id:
        return None
    used = {(int(s["set_id"]), str(s.get("local_id") or "")) for s in d.sources if "set_id" in s}
    return next(
        (
            v
            for v in conflict.variants
            if not v.absent and any((s.set_id, s.local_id) in used for s in v.sources)
        ),
        None,
    )


def conflict_label(conflict: Any, sources: Sequence[Any] = ()) -> Text:
    """One line of the conflict list: state, kind, the version shown, what differs.

    A decided line shows the version decided (its letters after the mark: ``✓A``, ``✓-`` for
    neither, ``✓✎`` edited), an open one its first version."""
    d = conflict.decision
    if d is not None:
        mark, style = ("=", "dim") if is_agreed(conflict) else ("✓", "green")
    elif conflict.blocked:
        mark, style = ("⊘", "yellow")
    else:
        mark, style = ("●", "bold red")
    taken = decided_variant(conflict)
    shown: str | Text
    if d is not None and not is_agreed(conflict):
        if not d.item_id:
            mark = "✓-"  # neither: the version shown struck through (not in gold)
            shown = Text(next((v.display for v in conflict.variants if not v.absent), conflict.key), "strike")
        elif d.method == "edited" or taken is None:
            mark, shown = "✓✎", _edited_display(d, conflict)
        else:
            mark, shown = f"✓{decided_letters(conflict, sources) or '?'}", taken.display
    else:
        shown = next((v.display for v in conflict.variants if not v.absent), conflict.key)
    differs = f" · {','.join(conflict.differs)}" if conflict.differs else ""
    return Text.assemble((f"{mark} ", style), (f"{conflict.kind} ", "bold"), shown, (differs, "italic"))


def pending_label(conflict: Any, what: str) -> Text:
    """A conflict decided on screen whose decision is still being saved: ``… took A · span ...``."""
    shown = next((v.display for v in conflict.variants if not v.absent), conflict.key)
    return Text.assemble(("… ", "yellow"), (f"{what} ", "italic"), (f"{conflict.kind} ", "bold"), shown)


def _edited_display(d: Any, conflict: Any) -> str:
    """What an edited decision put into gold, in the shape of a version's display."""
    after = d.after if isinstance(d.after, dict) else None
    if after:
        typ = after.get("type") or after.get("name") or ""
        frags = after.get("fragments") or ()
        where = ";".join(f"{a}-{b}" for a, b in frags)
        text = after.get("text")
        parts = [str(typ), where, f"'{text}'" if text else ""]
        label = after.get("label")
        if label is not None:
            parts.append(f"label={label}")
        value = after.get("value")
        if value is not None:
            parts.append(f"={value}")
        shown = " ".join(p for p in parts if p)
        if shown:
            return f"{shown} (edited)"
    return f"{d.item_id or conflict.key} (edited)"


def wrap_label(label: Text, width: int, indent: int = 2) -> Text:
    """``label`` wrapped at word boundaries to ``width`` cells, continuation lines indented by
    ``indent`` (only a word longer than a line is cut). ``width`` < 10: unchanged (not laid out)."""
    if width < 10 or label.cell_len <= width:
        return label
    plain = label.plain
    pieces: list[tuple[int, int]] = []  # (start, end) of each line in ``plain``
    start = end = 0
    room = width
    for m in re.finditer(r"\S+", plain):
        a, b = m.span()
        if start == end:  # first word of a line
            start = end = a
        if cell_len(plain[start:b]) <= room:
            end = b
            continue
        if end > start:  # the line is full: the word starts the next one
            pieces.append((start, end))
            room = width - indent
            start = end = a
        while cell_len(plain[start:b]) > room:  # a word longer than a line: cut it
            cut = start + 1
            while cut < b and cell_len(plain[start : cut + 1]) <= room:
                cut += 1
            pieces.append((start, cut))
            room = width - indent
            start = end = cut
        end = b
    if end > start:
        pieces.append((start, end))
    lines = [label[a:b] if i == 0 else Text(" " * indent) + label[a:b] for i, (a, b) in enumerate(pieces)]
    return Text("\n").join(lines)


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


def derived_summary(derived: Mapping[str, Sequence[Mapping[str, object]]], sources: Sequence[Any]) -> str:
    """The relations the schema's rules derive, shown apart from the conflicts (never one to decide):
    a count per source (by its letter) and for gold, then gold's, one a line, each with its rule
    (the release writes those marked derived). Empty when the rules derive nothing."""
    if not any(derived.values()):
        return ""
    from guidelines.derive import derived_line

    names = {
        str(s.annotator or s.set_id): f"{source_letter(i)}={s.annotator or s.set_id}"
        for i, s in enumerate(sources)
    }
    counts = " · ".join(f"{names.get(k, k)} {len(v)}" for k, v in derived.items())
    lines = [f"derived by the schema's rules (not conflicts): {counts}"]
    lines += [f"  gold {derived_line(d)}" for d in derived.get("gold", ())]
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


# -- an item's decision history ---------------------------------------------------------------------
def item_history(conflict: Any, decisions: Sequence[Any]) -> list[Any]:
    """The decisions (``DecisionInfo``, oldest first) ever taken on ``conflict``'s item: those that
    used one of its versions (as the workflow finds a conflict's decision), the one in force, the
    decisions they revised or that revised them, and edits of the gold item they made."""
    refs = {(s.set_id, s.local_id) for v in conflict.variants for s in v.sources if s.local_id}
    by_id = {d.id: d for d in decisions}
    found = {
        d.id
        for d in decisions
        if any("set_id" in s and (int(s["set_id"]), str(s.get("local_id") or "")) in refs for s in d.sources)
    }
    if conflict.decision is not None:
        found.add(conflict.decision.id)
    changed = True
    while changed:  # follow revisions both ways, and edits of the same gold item
        items = {(by_id[i].item_kind, by_id[i].item_id) for i in found if i in by_id and by_id[i].item_id}
        more = {
            d.id
            for d in decisions
            if d.id not in found
            and (
                d.superseded_by in found
                or any(by_id[i].superseded_by == d.id for i in found if i in by_id)
                or (d.item_id and (d.item_kind, d.item_id) in items)
            )
        }
        changed = bool(more)
        found |= more
    return sorted((by_id[i] for i in found if i in by_id), key=lambda d: d.id)
