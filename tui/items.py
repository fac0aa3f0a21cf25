"""What an annotation action changes, and how items read in lists: pure functions over records.

Why apart from the screens: every action the TUI offers becomes a list of ``Put``/``Remove`` here, so
the rules (fresh ids, merged fragments, cached text, dependents removed with a span) are tested
without a terminal and the screens only run the dialogs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from rich.text import Span as TextSpan
from rich.text import Text

from corpusdb.basics.records import (
    Annotations,
    Argument,
    DocLabel,
    Entity,
    Grounding,
    Link,
    Note,
    Relation,
    Span,
)
from corpusdb.services.edits import Change, Put, Remove, dependents, next_id
from guidelines.schema import AttributeDef, Schema
from tui.paint import UNKNOWN_COLOR, contrast

LABEL_MARK = {1: "+", 0: "?", -1: "¬"}
NOTE_MARK = "#"
LEGEND: list[tuple[str, str]] = [
    ("*", "after a span id: the span has attributes (i shows them)"),
    ("@", "after a span id: the span is grounded (db:id, g)"),
    ("…", "after a span id: a discontinuous span (several fragments); in text: cut short"),
    (NOTE_MARK, "after an id: the item has a note (# edits it)"),
    ("+ ? ¬", "relation label: asserted, speculative, negated"),
    ("[a,b]", "relation tags"),
]
"""What the one-character marks in the span, link and relation lists mean (help screen, README)."""


# -- building changes ----------------------------------------------------------------------------
def span_text(text: str, fragments: Sequence[tuple[int, int]]) -> str:
    """The cached text of a span: its fragments' slices joined by one space (records convention)."""
    return " ".join(text[a:b] for a, b in fragments)


def merge_fragments(fragments: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sorted fragments with overlapping or touching ones joined."""
    out: list[list[int]] = []
    for a, b in sorted(fragments):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def new_span(ann: Annotations, text: str, start: int, end: int, type_: str) -> Span:
    return Span(next_id(ann, "span"), type_, ((start, end),), text[start:end])


def add_fragment(span: Span, text: str, start: int, end: int) -> Span:
    frags = merge_fragments([*span.fragments, (start, end)])
    return replace(span, fragments=frags, text=span_text(text, frags))


def remove_fragment(span: Span, text: str, offset: int) -> Span | None:
    """The span without the fragment covering ``offset`` (None when it is its only one)."""
    frags = tuple(f for f in span.fragments if not f[0] <= offset < f[1])
    if not frags or frags == span.fragments:
        return None
    return replace(span, fragments=frags, text=span_text(text, frags))


def delete_span(ann: Annotations, span_id: str) -> list[Change]:
    """Remove a span and everything that points at it, as one action (undo restores all). The last
    member of an entity takes the entity with it, and what points at the entity (no empty entity
    is left behind: a relation on it could not be exported)."""
    out: list[Change] = list(dependents(ann, span_id))
    entity = entity_of(ann, span_id)
    if entity is not None and entity.members == (span_id,):
        out += [ch for ch in dependents(ann, entity.id) if ch not in out]
        out.append(Remove("entity", entity.id))
    return [*out, Remove("span", span_id)]


def applicable_attributes(schema: Schema, item_type: str, applies_to: str = "entity") -> list[AttributeDef]:
    out = []
    for a in schema.attributes:
        if applies_to not in a.applies_to:
            continue
        if a.types and not any(schema.is_a(item_type, t) or item_type == t for t in a.types):
            continue
        out.append(a)
    return out


def toggle_attribute(span: Span, name: str, value: str | bool) -> Span:
    """Set ``name`` to ``value`` (True for a binary attribute), or clear it if it already has it."""
    attrs = dict(span.attributes)
    if attrs.get(name) == value:
        attrs.pop(name)
    else:
        attrs[name] = value
    return replace(span, attributes=attrs)


def toggle_grounding(span: Span, ref: str, schema: Schema | None = None) -> Span:
    """Add the grounding ``ref`` (``db:id``, optionally followed by a space and the concept's label, as
    the knowledge-base picker answers), or remove it when the span already has it. Where the schema
    writes that database's groundings as BioNLP-ST lines (``line_kind``), the grounding is made so."""
    from corpusdb.basics.records import grounding_key, split_key

    ref, _, label = ref.partition(" ")
    if any(ref in (g.ref, grounding_key(g)) for g in span.groundings):
        return replace(
            span, groundings=tuple(g for g in span.groundings if ref not in (g.ref, grounding_key(g)))
        )
    db, acc = split_key(ref)
    kb = schema.knowledge_base(db) if schema is not None else None
    if kb is not None and kb.line_kind:
        code = acc if ref.startswith(f"{kb.database}:") or ref.startswith(f"{kb.line_kind}:") else ref
        new = Grounding(code, kind=kb.line_kind, extra={"st": True})
    else:
        new = Grounding(ref, text=label or None)
    return replace(span, groundings=(*span.groundings, new))


def check_grounding(schema: Schema, ref: str) -> str | None:
    """Why ``ref`` is not an acceptable grounding, or None."""
    if ":" not in ref or ref.startswith(":") or ref.endswith(":") or " " in ref:
        return "a grounding is db:id, e.g. uniprot:P60568"
    if not schema.rules.groundings:
        return f"schema {schema.name} does not use groundings"
    db = ref.split(":", 1)[0]
    allowed = schema.rules.grounding_databases
    if allowed and db.lower() not in {d.lower() for d in allowed}:
        return f"{db!r} is not a database of this schema ({', '.join(allowed)})"
    return None


def new_link(ann: Annotations, type_: str, source: str, target: str) -> Link:
    return Link(next_id(ann, "link"), type_, source, target)


def new_relation(
    ann: Annotations, type_: str, args: Sequence[tuple[str, str]], label: int | None, tags: Sequence[str]
) -> Relation:
    return Relation(
        next_id(ann, "relation"), type_, tuple(Argument(r, ref) for r, ref in args), label, tuple(tags)
    )


def set_doc_label(ann: Annotations, name: str, value: str) -> tuple[list[Change], str]:
    """Set a document label, or clear it when it already has that value (one key toggles)."""
    cur = next((lb for lb in ann.labels if lb.name == name), None)
    if cur is not None and cur.value == value:
        return [Remove("label", name)], f"cleared {name}"
    return [Put(DocLabel(name, value))], f"{name} = {value}"


def doc_label_keys(schema: Schema) -> dict[str, tuple[str, str, str]]:
    """Digit → (label name, value, value's long name): 1..9 across the schema's document labels."""
    out: dict[str, tuple[str, str, str]] = {}
    n = 1
    for d in schema.document_labels:
        for v in d.values:
            if n > 9:
                return out
            out[str(n)] = (d.name, str(v.value), v.name)
            n += 1
    return out


def spans_near(ann: Annotations, offset: int, like: Span | None = None) -> list[Span]:
    """Every span, the nearest to ``offset`` first (argument pickers start with the likely ones).
    With ``like`` (a span to put in an entity or to link as the same thing): spans of its type and
    text first, then of its type, then the others, each group nearest first."""
    if like is None:
        return sorted(ann.spans, key=lambda s: (abs(s.start - offset), s.start, s.id))
    return sorted(
        ann.spans, key=lambda s: (likeness(like, s.type, [s.text]), abs(s.start - offset), s.start, s.id)
    )


def same_text(a: str, b: str) -> bool:
    """The same name, whatever the case and spacing (``IL-2`` and ``il-2``)."""
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def likeness(like: Span, type_: str, texts: Sequence[str]) -> int:
    """0: the type and a text of ``like``; 1: its type only; 2: another type (an entity picker's
    order: the mentions of the same thing first)."""
    if type_ != like.type:
        return 2
    return 0 if any(same_text(t, like.text) for t in texts) else 1


# -- showing items -------------------------------------------------------------------------------
def swatch(color: str) -> Text:
    return Text("  ", style=f"on {color}")


def short(text: str, n: int = 28) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def note_of(ann: Annotations, target: str) -> Note | None:
    """The item's annotator note (brat ``AnnotatorNotes``), the one the TUI shows and edits."""
    return next((n for n in ann.notes if n.target == target and n.type == "AnnotatorNotes"), None)


def span_label(span: Span, colors: Mapping[str, str], *, width: int = 28, noted: bool = False) -> Text:
    color = colors.get(span.type, UNKNOWN_COLOR)
    flags = "".join(
        [
            "*" if span.attributes else "",
            "@" if span.groundings else "",
            "…" if len(span.fragments) > 1 else "",
            NOTE_MARK if noted else "",
        ]
    )
    head = span.type[:12]
    # As Text.assemble((head, style), rest) builds it, at a fifth of the cost: a full-text
    # article's span list has thousands of rows.
    style = f"bold {contrast(color)} on {color}"
    return Text(
        f"{head} {span.id}{flags} {short(span.text, width)}",
        spans=[TextSpan(0, len(head), style)] if head else [],
    )


def grounding_shown(g: Grounding, labels: Mapping[str, str] | None = None) -> str:
    """A grounding as shown: its id, with its knowledge-base label (``OBT:000965 (gastric mucosa)``)
    when the schema maps its database to a loaded knowledge base that has the id."""
    from corpusdb.basics.records import grounding_key

    labels = labels or {}
    label = labels.get(grounding_key(g)) or labels.get(g.ref)
    return f"{g.ref} ({label})" if label else g.ref


def span_details(span: Span, labels: Mapping[str, str] | None = None) -> str:
    parts = [f"{span.id} {span.type} «{short(span.text, 40)}»"]
    if len(span.fragments) > 1:
        parts.append("fragments " + ";".join(f"{a}-{b}" for a, b in span.fragments))
    if span.attributes:
        parts.append(" ".join(k if v is True else f"{k}={v}" for k, v in span.attributes.items()))
    if span.groundings:
        parts.append(" ".join(grounding_shown(g, labels) for g in span.groundings))
    return " · ".join(parts)


def _ref_text(ann_spans: Mapping[str, Span], ref: str, entities: Mapping[str, Entity] | None = None) -> str:
    s = ann_spans.get(ref)
    if s is None and entities and ref in entities:  # an entity argument: its names, each once
        names = dict.fromkeys(ann_spans[m].text for m in entities[ref].members if m in ann_spans)
        return f"{ref} {{{short('|'.join(names), 20)}}}"
    return f"{ref} {short(s.text, 14)}" if s else ref


def entity_of(ann: Annotations, span_id: str) -> Entity | None:
    """The explicit entity (cluster) a span belongs to, if any."""
    return next((e for e in ann.entities if span_id in e.members), None)


_by_id_last: tuple[Annotations | None, dict[str, Span], dict[str, Entity]] = (None, {}, {})


def _by_id(ann: Annotations) -> tuple[dict[str, Span], dict[str, Entity]]:
    """Spans and entities by id, for the last set asked about (sets are immutable: the screen asks
    on every keystroke about the same one, with thousands of spans in a full-text article)."""
    global _by_id_last
    last = _by_id_last  # one read, one write: safe if a worker thread asks too
    if last[0] is not ann:
        last = _by_id_last = (ann, {s.id: s for s in ann.spans}, {e.id: e for e in ann.entities})
    return last[1], last[2]


def item_fragments(ann: Annotations, refs: list[str]) -> list[tuple[int, int]]:
    """Fragments of spans and of entities' members (a relation between entities covers them all)."""
    spans, ents = _by_id(ann)
    out: list[tuple[int, int]] = []
    for ref in refs:
        for sid in ents[ref].members if ref in ents else (ref,):
            if sid in spans:
                out.extend(spans[sid].fragments)
    return out


def link_label(link: Link, spans: Mapping[str, Span]) -> Text:
    return Text(f"{link.id} {link.type}: {_ref_text(spans, link.source)} → {_ref_text(spans, link.target)}")


def relation_label(
    rel: Relation,
    spans: Mapping[str, Span],
    entities: Mapping[str, Entity] | None = None,
    *,
    noted: bool = False,
) -> Text:
    label = f" {LABEL_MARK.get(rel.label, str(rel.label))}" if rel.label is not None else ""
    args = ", ".join(f"{a.role}={_ref_text(spans, a.ref, entities)}" for a in rel.args)
    tags = f" [{','.join(rel.tags)}]" if rel.tags else ""
    return Text(f"{rel.id}{NOTE_MARK if noted else ''} {rel.type}{label}: {args}{tags}")


def item_offset(ann: Annotations, kind: str, key: str) -> int | None:
    """Where an item starts in the text (a relation or link: its first argument)."""
    spans = {s.id: s for s in ann.spans}
    if kind == "span" and key in spans:
        return spans[key].start
    if kind == "link":
        lk = next((x for x in ann.links if x.id == key), None)
        return spans[lk.source].start if lk and lk.source in spans else None
    refs: list[str] = [key] if kind == "entity" else []
    if kind == "relation":
        r = next((x for x in ann.relations if x.id == key), None)
        refs = [a.ref for a in r.args] if r else []
    frags = item_fragments(ann, refs)
    return min(s for s, _ in frags) if frags else None


def item_ranges(ann: Annotations, kind: str, key: str) -> list[tuple[int, int]]:
    """The text ranges an item covers (a relation or link: its arguments' fragments; an entity
    argument, or an entity itself: all its members')."""
    refs: list[str] = []
    if kind in ("span", "entity"):
        refs = [key]
    elif kind == "link":
        lk = next((x for x in ann.links if x.id == key), None)
        refs = [lk.source, lk.target] if lk else []
    elif kind == "relation":
        r = next((x for x in ann.relations if x.id == key), None)
        refs = [a.ref for a in r.args] if r else []
    return item_fragments(ann, refs)
