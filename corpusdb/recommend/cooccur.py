"""The relation recommender: relations proposed between an annotator's spans, learned from gold.

Why co-occurrence statistics rather than a trained classifier: relations are rarer than spans (a
BB 2011 or BioRelEx document has a handful), so a model must learn from few examples and say why it
proposes what it proposes. This one counts, in the gold relations it learns from (the schema's
binary relation types: two arguments, both spans):

* **by types**: for each ordered pair of entity types that occur together (same sentence, or the
  ``window`` option), how often the pair was related by each relation type with which roles:
  ``P(R, roles | types, together)`` = related pairs / pairs together;
* **by names**: the same per pair of names (casefolded span texts), which outweighs the types once a
  pair of names was seen together (``Bacillus subtilis`` and ``soil`` related before: proposed again).

On a document it looks at every pair of the annotator's own spans that occur together and proposes
the best relation type and roles for the pair when its score (the names' ratio when the names were
seen together at least ``min_seen`` times, else the types') reaches ``min_score``; a pair that
already has a relation of that type is not proposed. The label (speculation/negation) proposed is
the one gold gave that relation most. Pure: no database; ``learning`` feeds it the examples the
blindness rules allow (gold of adjudicated documents; the annotator's own sets for her own part).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpusdb.basics.errors import InvalidInput

WINDOWS = ("sentence", "document")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])|\n+")


@dataclass(frozen=True, slots=True)
class RelationOptions:
    window: str = "sentence"
    """``sentence``: two spans are together when in one sentence; ``document``: anywhere."""
    min_score: float = 0.1
    min_seen: int = 1
    """A relation (by types) or a pair of names is counted once seen related this many times."""

    def __post_init__(self) -> None:
        problems = []
        if self.window not in WINDOWS:
            problems.append(f"window must be one of {', '.join(WINDOWS)}, not {self.window!r}")
        if not 0.0 <= self.min_score <= 1.0:
            problems.append("min_score must be between 0 and 1")
        if self.min_seen < 1:
            problems.append("min_seen must be at least 1")
        if problems:
            raise InvalidInput("relation recommender options: " + "; ".join(problems))

    @classmethod
    def from_dict(cls, opts: Mapping[str, Any]) -> RelationOptions:
        known = {k: opts[k] for k in cls.__dataclass_fields__ if k in opts}
        try:
            if "min_score" in known:
                known["min_score"] = float(known["min_score"])
            if "min_seen" in known:
                known["min_seen"] = int(known["min_seen"])
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"relation recommender options: {exc}") from None
        return cls(**known)


@dataclass(frozen=True, slots=True)
class Mention:
    """A span as the model sees it: id, type, fragments, text."""

    id: str
    type: str
    fragments: tuple[tuple[int, int], ...]
    text: str

    @property
    def start(self) -> int:
        return self.fragments[0][0]


@dataclass(frozen=True, slots=True)
class RelExample:
    """One document's text, spans and binary relations (type, (role, span id) x2, label)."""

    document: str
    text: str
    mentions: tuple[Mention, ...]
    relations: tuple[tuple[str, tuple[tuple[str, str], tuple[str, str]], int | None], ...] = ()


@dataclass
class Counts:
    """What the model learned (JSON-able: stored with the recommender)."""

    together: Counter[tuple[str, str]] = field(default_factory=Counter)
    related: Counter[tuple[str, str, str, str, str]] = field(default_factory=Counter)
    """(relation type, first role, second role, first type, second type) -> times."""
    names_together: Counter[tuple[str, str]] = field(default_factory=Counter)
    names_related: Counter[tuple[str, str, str, str, str]] = field(default_factory=Counter)
    labels: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(relation type, label as text) -> times."""
    undirected: set[str] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        def rows(c: Counter[Any]) -> list[list[Any]]:
            return [[*k, n] for k, n in sorted(c.items())]

        return {
            "together": rows(self.together),
            "related": rows(self.related),
            "names_together": rows(self.names_together),
            "names_related": rows(self.names_related),
            "labels": rows(self.labels),
            "undirected": sorted(self.undirected),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Counts:
        def counter(rows: Iterable[Sequence[Any]]) -> Counter[Any]:
            return Counter({tuple(r[:-1]): int(r[-1]) for r in rows})

        return cls(
            counter(data.get("together", ())),
            counter(data.get("related", ())),
            counter(data.get("names_together", ())),
            counter(data.get("names_related", ())),
            counter(data.get("labels", ())),
            set(data.get("undirected", ())),
        )

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.together + other.together,
            self.related + other.related,
            self.names_together + other.names_together,
            self.names_related + other.names_related,
            self.labels + other.labels,
            self.undirected | other.undirected,
        )


def _name(text: str) -> str:
    return " ".join(text.casefold().split())


def windows(text: str, window: str) -> list[tuple[int, int]]:
    """The stretches of text within which two spans are together (sentences, or the document)."""
    if window == "document":
        return [(0, len(text))]
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def pairs_together(text: str, mentions: Sequence[Mention], window: str) -> list[tuple[Mention, Mention]]:
    """Every ordered pair of distinct mentions in one window (both orders)."""
    spans = windows(text, window)
    by_window: dict[int, list[Mention]] = {}
    for m in mentions:
        i = next((k for k, (a, b) in enumerate(spans) if a <= m.start < max(b, a + 1)), len(spans) - 1)
        by_window.setdefault(i, []).append(m)
    out = []
    for ms in by_window.values():
        for x in ms:
            for y in ms:
                if x.id != y.id and x.fragments != y.fragments:
                    out.append((x, y))
    return out


def learn(examples: Iterable[RelExample], options: RelationOptions, undirected: Iterable[str] = ()) -> Counts:
    """Count what ``examples`` show: pairs of types and names together, and related."""
    c = Counts(undirected=set(undirected))
    for ex in examples:
        by_id = {m.id: m for m in ex.mentions}
        for x, y in pairs_together(ex.text, ex.mentions, options.window):
            c.together[(x.type, y.type)] += 1
            c.names_together[(_name(x.text), _name(y.text))] += 1
        inside = {(x.id, y.id) for x, y in pairs_together(ex.text, ex.mentions, options.window)}
        for rtype, ((r1, a1), (r2, a2)), label in ex.relations:
            x, y = by_id.get(a1), by_id.get(a2)
            if x is None or y is None or (x.id, y.id) not in inside:
                continue
            c.related[(rtype, r1, r2, x.type, y.type)] += 1
            c.names_related[(rtype, r1, r2, _name(x.text), _name(y.text))] += 1
            c.labels[(rtype, "" if label is None else str(label))] += 1
    return c


@dataclass(frozen=True)
class RelationModel:
    """Counts ready to propose from (indexes built once per model version)."""

    counts: Counts
    options: RelationOptions
    types: frozenset[str] | None = None
    """Only these relation types (None: every one learned)."""

    def __post_init__(self) -> None:
        by_types: dict[tuple[str, str], list[tuple[str, str, str, int]]] = {}
        for (rtype, r1, r2, t1, t2), n in self.counts.related.items():
            if self.types is None or rtype in self.types:
                by_types.setdefault((t1, t2), []).append((rtype, r1, r2, n))
        object.__setattr__(self, "_by_types", by_types)

    def _label(self, rtype: str) -> int | None:
        seen = [(n, lab) for (t, lab), n in self.counts.labels.items() if t == rtype]
        if not seen:
            return None
        lab = max(seen)[1]
        return None if lab == "" else int(lab)

    def propose(
        self,
        text: str,
        mentions: Sequence[Mention],
        existing: Iterable[tuple[str, str, str]] = (),
    ) -> list[dict[str, Any]]:
        """Relations between ``mentions`` (``existing``: (type, first id, second id) already there),
        as ``store.add_relations`` takes them, best first within each pair."""
        c, o = self.counts, self.options
        have = set(existing)
        by_types: dict[tuple[str, str], list[tuple[str, str, str, int]]] = self._by_types  # type: ignore[attr-defined]
        best: dict[tuple[str, ...], dict[str, Any]] = {}
        for x, y in pairs_together(text, mentions, o.window):
            options = by_types.get((x.type, y.type))
            if not options:
                continue
            nx, ny = _name(x.text), _name(y.text)
            names_seen = c.names_together.get((nx, ny), 0)
            for rtype, r1, r2, n in options:
                if n < o.min_seen:
                    continue
                undirected = rtype in c.undirected
                if (rtype, x.id, y.id) in have or (undirected and (rtype, y.id, x.id) in have):
                    continue
                by_name = c.names_related.get((rtype, r1, r2, nx, ny), 0)
                if names_seen >= o.min_seen:
                    score = by_name / names_seen
                else:
                    score = n / max(1, c.together.get((x.type, y.type), 0))
                if score < o.min_score:
                    continue
                key = (rtype, *sorted((x.id, y.id))) if undirected else (rtype, x.id, y.id)
                if key in best and best[key]["score"] >= score:
                    continue
                best[key] = {
                    "type": rtype,
                    "label": self._label(rtype),
                    "tags": [],
                    "kind": "relation",
                    "score": round(min(1.0, score), 4),
                    "args": [
                        {
                            "role": r1,
                            "type": x.type,
                            "fragments": [list(f) for f in x.fragments],
                            "text": x.text,
                        },
                        {
                            "role": r2,
                            "type": y.type,
                            "fragments": [list(f) for f in y.fragments],
                            "text": y.text,
                        },
                    ],
                }
        return sorted(best.values(), key=lambda r: (r["args"][0]["fragments"][0][0], -r["score"], r["type"]))


def examples_of(document: str, text: str, ann: Any, types: Iterable[str] | None = None) -> RelExample:
    """A ``RelExample`` from a set's ``Annotations``: its spans with a text mention, and its binary
    relations between two of them (of ``types`` when given)."""
    wanted = set(types) if types is not None else None
    mentions = tuple(
        Mention(sp.id, sp.type, tuple((int(a), int(b)) for a, b in sp.fragments), sp.text)
        for sp in ann.spans
        if sp.fragments
    )
    ids = {m.id for m in mentions}
    rels = tuple(
        (r.type, ((r.args[0].role, r.args[0].ref), (r.args[1].role, r.args[1].ref)), r.label)
        for r in ann.relations
        if len(r.args) == 2
        and r.trigger is None
        and all(a.ref in ids for a in r.args)
        and (wanted is None or r.type in wanted)
    )
    return RelExample(document, text, mentions, rels)
