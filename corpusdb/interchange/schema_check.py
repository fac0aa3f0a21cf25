"""What imported annotations use that the project's schema does not know.

Why errors by default: the schema is the project's contract, and a corpus imported into the wrong
project (GENIA into ``bb-2011``) must not get in silently. Each document using an unknown type, role,
attribute, link type or document label is refused with the name and a first example
(``unknown_in``); with ``--allow-unknown`` such names are stored as they are (a round trip must give
the files back, and a corpus often predates its schema) and listed as warnings, one line per name
with a count (``warnings``). Item-level validation (argument types, offsets...) belongs to the
submit check, which imports of submitted annotation sets run too (``pipeline.Checks``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from operator import attrgetter

from corpusdb.basics.records import ParsedDocument
from guidelines.schema import Schema

Found = dict[tuple[str, str], list[object]]
"""``(what, name)`` → ``[count, first example]``; mergeable across chunks read in other processes."""

_WHAT = {
    "span": "span(s) of type {!r}: not an entity type",
    "relation": "relation(s)/event(s) of type {!r}: not a relation type",
    "role": "argument(s) with role {!r}: not a role of that relation",
    "attribute": "item(s) with attribute {!r}: not an attribute",
    "link": "link(s) of type {!r}: not a link type",
    "document label": "document label(s) {!r}: not a document label",
}


_TYPE = attrgetter("type")
_ATTRIBUTES = attrgetter("attributes")


class SchemaUsage:
    """Counts the names documents use that ``schema`` does not define."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.found: Found = {}
        self._entities = {e.name for e in schema.entities}
        self._relations = {r.name: r for r in schema.relations}
        self._known: dict[tuple[str, str], bool] = {}
        self._roles: dict[tuple[str, str], bool] = {}
        """(relation type, role) -> whether the schema's relation has the role (looked up once)"""

    def _unknown(self, what: str, name: str) -> bool:
        key = (what, name)
        known = self._known.get(key)
        if known is None:  # (the schema's look-ups are linear: once per name)
            s = self.schema
            look = {"attribute": s.attribute, "link": s.link, "document label": s.document_label}[what]
            known = self._known[key] = look(name) is not None
        return not known

    def _note(self, what: str, name: str, where: str, count: int = 1) -> None:
        seen = self.found.get((what, name))
        if seen is None:
            self.found[(what, name)] = [count, where]
        else:
            seen[0] += count  # type: ignore[operator]

    def add(self, docs: Iterable[ParsedDocument]) -> None:
        entities, relations = self._entities, self._relations
        for d in docs:
            ext = d.document.external_id
            ann = d.annotations
            spans = ann.spans
            # per type, not per span: a corpus has 10^6 spans and a handful of types
            types = list(map(_TYPE, spans))
            if not entities.issuperset(types):
                counts = Counter(types)  # (counted in C)
                for t, k in counts.items():
                    if t not in entities:
                        self._note("span", t, f"{ext} {spans[types.index(t)].id}", k)
            rels = ann.relations
            # (the items with attributes picked in C: most have none)
            for item in [*filter(_ATTRIBUTES, spans), *filter(_ATTRIBUTES, rels)]:
                for name in item.attributes:
                    if self._unknown("attribute", name):
                        self._note("attribute", name, f"{ext} {item.id}")
            for t in set(map(_TYPE, rels)) - relations.keys():
                hits = [r for r in rels if r.type == t]
                self._note("relation", t, f"{ext} {hits[0].id}", len(hits))
            roles = self._roles
            for r in rels:
                rt = relations.get(r.type)
                if rt is not None:
                    for a in r.args:
                        known = roles.get((r.type, a.role))
                        if known is None:
                            role = f"{r.type}.{a.role}"
                            known = self._known.get(("role", role))
                            if known is None:
                                known = self._known[("role", role)] = rt.role(a.role) is not None
                            roles[(r.type, a.role)] = known
                        if not known:
                            self._note("role", f"{r.type}.{a.role}", f"{ext} {r.id}")
            for lk in ann.links:
                if self._unknown("link", lk.type):
                    self._note("link", lk.type, f"{ext} {lk.id}")
            for lb in ann.labels:
                if self._unknown("document label", lb.name):
                    self._note("document label", lb.name, ext)

    def unknown_in(self, d: ParsedDocument) -> list[tuple[str, str]]:
        """What one document uses that the schema does not define: ``(first item's id, message)`` per
        name (the item id, empty for a document label, says where to look)."""
        saved, self.found = self.found, {}
        ext = d.document.external_id
        try:
            self.add([d])
            out = []
            for (what, name), (count, example) in self.found.items():
                item = str(example)[len(ext) + 1 :]
                first = f" (first: {item})" if item else ""
                out.append((item, f"{count} {_WHAT[what].format(name)} of schema {self.schema.name}{first}"))
            return out
        finally:
            self.found = saved

    def merge(self, found: Found) -> None:
        for key, (count, example) in found.items():
            seen = self.found.get(key)
            if seen is None:
                self.found[key] = [count, example]
            else:
                seen[0] += count  # type: ignore[operator]

    def warnings(self) -> list[str]:
        return [
            f"schema {self.schema.name}: {count} {_WHAT[what].format(name)} of the schema (first: {example}); "
            "stored as they are"
            for (what, name), (count, example) in self.found.items()
        ]


_KINDS = {
    "span": ("entity type", "entity types"),
    "relation": ("relation type", "relation types"),
    "role": ("role", "roles"),
    "attribute": ("attribute", "attributes"),
    "link": ("link type", "link types"),
    "document label": ("document label", "document labels"),
}
SHOWN_NAMES = 12
"""Names a headline lists before "…"."""


def headline(found: Found, schema_name: str) -> str | None:
    """Every name refused documents use that the schema does not define, said once, e.g. "9 entity
    types and 2 relation types are not in schema biorelex-1.0: Bacterium, Host, …; is this the right
    project?" (None when there are none). Why: a corpus imported into the wrong project refuses every
    document for the same few names; one line says so, where one line per document and name did not."""
    if not found:
        return None
    parts: list[str] = []
    names: list[str] = []
    for what, (one, many) in _KINDS.items():
        here = sorted(
            ((int(c), n) for (w, n), (c, _e) in found.items() if w == what), key=lambda x: (-x[0], x[1])
        )
        if here:
            parts.append(f"{len(here)} {one if len(here) == 1 else many}")
            names += [n for _c, n in here]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    verb = "is" if len(names) == 1 else "are"
    shown = ", ".join(names[:SHOWN_NAMES]) + (", …" if len(names) > SHOWN_NAMES else "")
    return (
        f"{said} {verb} not in schema {schema_name}: {shown}; is this the right project? (amend the "
        "schema, or import with --allow-unknown to store them as they are)"
    )


def schema_warnings(schema: Schema, docs: Iterable[ParsedDocument]) -> list[str]:
    """One warning per kind of mismatch, e.g. ``12 span(s) of type 'Gene' ... (first: PMID-1 T3)``."""
    usage = SchemaUsage(schema)
    usage.add(docs)
    return usage.warnings()
