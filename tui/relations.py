"""Relations where the text is: markers on argument spans, partners, and how a relation reads.

Why a module without Textual: the document view (annotation and adjudication screens alike)
draws markers under the text without knowing the schema or the screens, and the tests check the
wording and the partner rules without a terminal.

A relation ``R1 Lives_In(Bacterium=T1, Location=T2)`` marks T1 with ``R1 Lives_In:Bacterium→``
(the source carries the type) and T2 with ``→R1 Location``; an undirected one uses ``↔``. An event
with a trigger marks the trigger as the source. An argument that is an entity marks each of its
member spans (``→R1 Location@E1``); an argument that is another relation marks that relation's
anchor (its trigger, else its first argument) with ``→R1 Theme=R2``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rich.text import Text

from corpusdb.basics.records import Entity, Relation, Span
from tui.items import LABEL_MARK, short

K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class Marker:
    """One relation end on one span: ``full`` when there is room under the text, else ``short``."""

    relation: str
    full: str
    short: str
    source: bool
    """True on the relation's source end (its first argument, or an event's trigger)."""


class RelationIndex:
    """The spans, entities and relations of one set, indexed for resolving argument references."""

    def __init__(
        self,
        spans: Iterable[Span],
        relations: Iterable[Relation] = (),
        entities: Iterable[Entity] = (),
        undirected: Collection[str] = (),
    ) -> None:
        self.spans = {s.id: s for s in spans}
        self.relations = {r.id: r for r in relations}
        self.entities = {e.id: e for e in entities}
        self.undirected = frozenset(undirected)
        self._by_span: dict[str, list[Relation]] | None = None

    def anchors(self, ref: str, _seen: frozenset[str] = frozenset()) -> list[Span]:
        """The spans that stand for ``ref`` in the text: the span itself, an entity's members, a
        relation's trigger (else its first argument's anchors). Unknown references have none."""
        if ref in self.spans:
            return [self.spans[ref]]
        if ref in self.entities:
            return [self.spans[m] for m in self.entities[ref].members if m in self.spans]
        rel = self.relations.get(ref)
        if rel is None or ref in _seen:
            return []
        if rel.trigger and rel.trigger in self.spans:
            return [self.spans[rel.trigger]]
        return self.anchors(rel.args[0].ref, _seen | {ref}) if rel.args else []

    def arrow(self, rel: Relation) -> str:
        return "↔" if rel.type in self.undirected else "→"

    def ref_text(self, ref: str, n: int = 24) -> str:
        """``T1 «Bacillus subtilis»``, ``E1 {IL-2|interleukin 2}``, ``R2 bind``."""
        if ref in self.spans:
            return f"{ref} «{short(self.spans[ref].text, n)}»"
        if ref in self.entities:
            names = dict.fromkeys(self.spans[m].text for m in self.entities[ref].members if m in self.spans)
            return f"{ref} {{{short('|'.join(names), n)}}}"
        if ref in self.relations:
            return f"{ref} {self.relations[ref].type}"
        return f"{ref} (missing)"

    def markers(self) -> dict[str, list[Marker]]:
        """Span id → the relation ends shown under it, in relation order."""
        out: dict[str, list[Marker]] = {}

        def put(span_ids: Iterable[str], marker: Marker) -> None:
            for sid in span_ids:
                bucket = out.setdefault(sid, [])
                if marker not in bucket:
                    bucket.append(marker)

        for rel in self.relations.values():
            arrow = self.arrow(rel)
            flag = label_flag(rel)
            triggered = bool(rel.trigger and rel.trigger in self.spans)
            if triggered:
                put(
                    [rel.trigger or ""],
                    Marker(rel.id, f"{rel.id} {flag}{rel.type}{arrow}", f"{rel.id}{flag}{arrow}", True),
                )
            for i, arg in enumerate(rel.args):
                role = arg.role
                if arg.ref in self.entities:
                    role = f"{role}@{arg.ref}"
                elif arg.ref in self.relations:
                    role = f"{role}={arg.ref}"
                ids = [s.id for s in self.anchors(arg.ref)]
                if i == 0 and not triggered:
                    full = f"{rel.id} {flag}{rel.type}:{role}{arrow}"
                    put(ids, Marker(rel.id, full, f"{rel.id}{flag}{arrow}", True))
                else:
                    put(ids, Marker(rel.id, f"{arrow}{rel.id}{flag} {role}", f"{arrow}{rel.id}{flag}", False))
        return out

    def relations_of(self, span_id: str) -> list[Relation]:
        """The relations one of whose ends is drawn on ``span_id`` (indexed once: the cursor asks
        on every move)."""
        if self._by_span is None:
            by_span: dict[str, list[Relation]] = {}
            for r in self.relations.values():
                for _role, _ref, spans in self.ends(r):
                    for s in spans:
                        bucket = by_span.setdefault(s.id, [])
                        if not bucket or bucket[-1] is not r:
                            bucket.append(r)
            self._by_span = by_span
        return self._by_span.get(span_id, [])

    def ends(self, rel: Relation) -> list[tuple[str, str, list[Span]]]:
        """(role, reference, anchor spans) of each end of ``rel``, the trigger first."""
        out: list[tuple[str, str, list[Span]]] = []
        if rel.trigger and rel.trigger in self.spans:
            out.append(("trigger", rel.trigger, [self.spans[rel.trigger]]))
        out.extend((a.role, a.ref, self.anchors(a.ref)) for a in rel.args)
        return out

    def partners(self, span_id: str) -> list[tuple[int, int]]:
        """Text ranges of the other ends of every relation drawn on ``span_id`` (highlighted when
        the span is the active one)."""
        out: list[tuple[int, int]] = []
        for rel in self.relations_of(span_id):
            for _role, _ref, spans in self.ends(rel):
                for s in spans:
                    if s.id != span_id:
                        out.extend(f for f in s.fragments if f not in out)
        return out

    def hot_ends(self, span_id: str) -> list[str]:
        """``span_id`` and every span at an end of its relations (their markers stand out)."""
        return [
            span_id,
            *(s.id for r in self.relations_of(span_id) for _ro, _re, ss in self.ends(r) for s in ss),
        ]

    def item_partners(self, marks: Collection[tuple[int, int]]) -> tuple[list[tuple[int, int]], list[str]]:
        """(ranges, hot spans) for an item shown by its ``marks`` (a conflict's span, an entity's
        members, a relation's ends): the partners of every span lying inside the marks, those not
        marked themselves. How an adjudication view highlights partners, as the annotate screen
        does for the active span."""
        marked = set(marks)
        inside = [s for s in self.spans.values() if s.fragments and set(s.fragments) <= marked]
        ranges: list[tuple[int, int]] = []
        hot: list[str] = []
        for s in inside:
            ranges.extend(r for r in self.partners(s.id) if r not in marked and r not in ranges)
            hot.extend(h for h in self.hot_ends(s.id) if h not in hot)
        return ranges, hot

    def relation_ranges(self, rel_id: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """(source ranges, other ends' ranges) of a relation: the source is marked like the active
        span, the others like partners."""
        rel = self.relations.get(rel_id)
        if rel is None:
            return [], []
        ends = self.ends(rel)
        if not ends:
            return [], []
        source = [f for s in ends[0][2] for f in s.fragments]
        others = [f for _r, _ref, spans in ends[1:] for s in spans for f in s.fragments if f not in source]
        return source, others

    def describe(self, rel: Relation, *, n: int = 24) -> str:
        """One line saying everything about a relation: id, type, label, tags, each end with its
        role and text, in direction order (the detail line shows it untruncated)."""
        label = f" {LABEL_MARK.get(rel.label, str(rel.label))}" if rel.label is not None else ""
        tags = f" [{','.join(rel.tags)}]" if rel.tags else ""
        arrow = f" {self.arrow(rel)} "
        ends = arrow.join(f"{role} {self.ref_text(ref, n)}" for role, ref, _spans in self.ends(rel))
        return f"{rel.id} {rel.type}{label}{tags}: {ends}"

    def span_roles(self, span_id: str, *, n: int = 16) -> str:
        """What the span is in its relations, for the detail line: ``R1 Lives_In: Bacterium → Location
        T2 «soil»`` (this span's end named by its role only, the partner with its text)."""
        parts = []
        for rel in self.relations_of(span_id):
            arrow = f" {self.arrow(rel)} "
            ends = []
            for role, ref, spans in self.ends(rel):
                mine = any(s.id == span_id for s in spans)
                ends.append(f"[{role}]" if mine else f"{role} {self.ref_text(ref, n)}")
            parts.append(f"{rel.id} {rel.type}: {arrow.join(ends)}")
        return " · ".join(parts)

    def list_row(self, rel: Relation, *, n: int = 40) -> Text:
        """A relation in the relation-centred list: a head line (id, type, label, tags), then one
        line per end (direction, role, text), so nothing useful is cut at 80 columns."""
        label = f" {LABEL_MARK.get(rel.label, str(rel.label))}" if rel.label is not None else ""
        tags = f" [{','.join(rel.tags)}]" if rel.tags else ""
        out = Text.assemble((f"{rel.id} {rel.type}", "bold"), label, (tags, "italic"))
        arrow = self.arrow(rel)
        for i, (role, ref, _spans) in enumerate(self.ends(rel)):
            lead = " ●" if i == 0 else f" {arrow}"
            out.append(f"\n{lead} {role}: ", style="dim" if i else "")
            out.append(self.ref_text(ref, n))
        return out


def label_flag(rel: Relation) -> str:
    """The label as a marker shows it: ``?`` speculative, ``¬`` negated, nothing when asserted
    or unlabelled (the plain reading)."""
    return LABEL_MARK.get(rel.label, "") if rel.label is not None and rel.label != 1 else ""


def connector_pairs(
    index: RelationIndex, relations: Iterable[Relation], limit: int = 12
) -> list[tuple[int, int]]:
    """(source start, target start) of each end pair of ``relations``, for the view's margin: from
    the source (trigger, else first argument) to every other end's spans."""
    out: list[tuple[int, int]] = []
    for rel in relations:
        ends = index.ends(rel)
        if not ends:
            continue
        sources = [s.start for s in ends[0][2] if s.start >= 0]
        for _role, _ref, spans in ends[1:]:
            for a in sources:
                for s in spans:
                    if s.start >= 0 and (a, s.start) not in out:
                        out.append((a, s.start))
        if len(out) >= limit:
            break
    return out[:limit]


def undirected_types(schema: object) -> frozenset[str]:
    """The schema's undirected relation types (their ends are drawn with ``↔``)."""
    rels: Sequence[object] = getattr(schema, "relations", ())
    return frozenset(getattr(r, "name", "") for r in rels if not getattr(r, "directed", True))


def fit(text: str, room: int) -> str:
    """``text`` cut to ``room`` cells with an ellipsis (markers under the text never wrap)."""
    if room <= 0:
        return ""
    return text if len(text) <= room else (text[: room - 1] + "…" if room > 1 else "…")


def span_tag(span_type: str, width: int) -> str:
    """A span's type label under the text, drawn over the span's width: ``cell──┘`` marks where
    the span ends, so adjacent and nested spans of one type are told apart."""
    if width >= len(span_type) + 2:
        return span_type + "─" * (width - len(span_type) - 1) + "┘"
    return span_type


def marker_lines(
    items: Sequence[tuple[int, str, str, K]], width: int, max_rows: int = 3
) -> list[list[tuple[int, str, K]]]:
    """Place marker texts under a line of text: ``items`` are (column, full, short, key) sorted by
    column; a marker goes at its column in the first row with room for its full text, else in a
    new row (up to ``max_rows``), else in its short form; what still does not fit is cut (the detail
    line and the relations view have it whole).
    Returns rows of (column, text, key)."""
    rows: list[list[tuple[int, str, K]]] = []
    ends: list[int] = []
    for col, full, brief, key in items:
        if col >= width:
            continue
        room = width - col
        placed = False
        candidates = (full, brief) if brief != full else (full,)
        for candidate in candidates:
            for r, end in enumerate(ends):
                if end < col and len(candidate) <= room:
                    rows[r].append((col, candidate, key))
                    ends[r] = col + len(candidate)
                    placed = True
                    break
            if placed:
                break
            # a new row: the full text if it fits, else the short one (cut only as a last resort)
            if len(rows) < max_rows and (len(candidate) <= room or candidate is candidates[-1]):
                text = fit(candidate, room)
                rows.append([(col, text, key)])
                ends.append(col + len(text))
                placed = True
                break
        if not placed:  # every row is taken there: squeeze the short form into the emptiest row
            r = min(range(len(ends)), key=lambda k: ends[k])
            if ends[r] < col:
                text = fit(brief, room)
                rows[r].append((col, text, key))
                ends[r] = col + len(text)
    return rows
