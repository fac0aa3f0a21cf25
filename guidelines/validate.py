"""Check one annotation set against its schema: what ``submit`` refuses and the TUI lists first.

Why a pure function over records: the TUI calls it on every keystroke-sized change to show the list
before submission, the store calls it at submit time, and importers may call it on a whole corpus;
none of them needs a database. Each problem is a :class:`Violation` that names the item, a stable
``code`` (for filtering and tests) and a message a person can act on. ``error`` violations block a
submission (unless forced); ``warning`` ones are shown but do not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from corpusdb.basics.records import Annotations, Relation, Span, grounding_key, split_key
from guidelines.schema import AttributeDef, Schema

Severity = Literal["error", "warning"]

CODES: tuple[str, ...] = (
    "unknown-entity-type", "unknown-relation-type", "unknown-role", "missing-role", "repeated-role",
    "argument-type", "label-not-allowed", "label-missing", "tag-not-allowed", "trigger-type",
    "unknown-attribute", "attribute-value", "attribute-not-applicable", "unknown-link-type", "link-type",
    "offsets", "text-mismatch", "text-whitespace", "unknown-document-label", "document-label-value",
    "required-document-label", "discontinuous", "too-many-fragments", "overlap", "grounding-not-allowed",
    "grounding-database", "grounding-required", "token-boundary", "edge-whitespace",
    # against the knowledge base (corpusdb.kb.check, which reads it):
    "grounding-unknown-id", "grounding-obsolete", "grounding-outside-branch", "grounding-kb-missing",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Violation:
    """One way an annotation set breaks its schema."""

    severity: Severity
    code: str
    """One of ``CODES``: stable, for filtering and tests."""
    item_kind: str
    """``span``, ``relation``, ``link``, ``label`` or ``set`` (the set as a whole)."""
    item_id: str
    """Local id of the item (label name for a document label, '' for the set)."""
    message: str

    def __str__(self) -> str:
        where = f"{self.item_kind} {self.item_id}" if self.item_id else self.item_kind
        return f"{self.severity}: {where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def errors(violations: list[Violation]) -> list[Violation]:
    """Only the violations that block a submission."""
    return [v for v in violations if v.severity == "error"]


def validate(schema: Schema, annotations: Annotations, text: str) -> list[Violation]:
    """Every violation of ``schema`` in ``annotations`` over the document ``text``, in item order."""
    out: list[Violation] = []
    spans = {s.id: s for s in annotations.spans}
    rels = {r.id: r for r in annotations.relations}
    for s in annotations.spans:
        _check_span(schema, s, text, out)
    _check_overlap(schema, annotations.spans, out)
    for r in annotations.relations:
        _check_relation(schema, r, spans, rels, out)
    for lk in annotations.links:
        lt = schema.link(lk.type)
        if lt is None:
            known = ", ".join(t.name for t in schema.links) or "none"
            out.append(Violation("error", "unknown-link-type", "link", lk.id,
                                 f"link type {lk.type!r} is not in the schema (known: {known})"))  # fmt: skip
            continue
        if lt.types:
            for end in (lk.source, lk.target):
                sp = spans.get(end)
                if sp is not None and not any(schema.is_a(sp.type, t) for t in lt.types):
                    out.append(Violation("error", "link-type", "link", lk.id,
                                         f"{lt.name} may join {', '.join(lt.types)}, not {sp.type} ({end})"))  # fmt: skip
    _check_document_labels(schema, annotations, out)
    return out


def _check_span(schema: Schema, s: Span, text: str, out: list[Violation]) -> None:
    rules = schema.rules
    if schema.entity(s.type) is None:
        out.append(Violation("error", "unknown-entity-type", "span", s.id,
                             f"entity type {s.type!r} is not in the schema"))  # fmt: skip
    frags = s.fragments
    if len(frags) > 1 and not rules.allow_discontinuous:
        out.append(Violation("error", "discontinuous", "span", s.id,
                             f"discontinuous spans are not allowed here ({len(frags)} fragments)"))  # fmt: skip
    if rules.max_fragments and len(frags) > rules.max_fragments:
        out.append(Violation("error", "too-many-fragments", "span", s.id,
                             f"{len(frags)} fragments, at most {rules.max_fragments} allowed"))  # fmt: skip
    bad = [f for f in frags if not (0 <= f[0] <= f[1] <= len(text))]
    if bad:
        out.append(Violation("error", "offsets", "span", s.id,
                             f"fragment {bad[0][0]}-{bad[0][1]} is outside the text (0-{len(text)})"))  # fmt: skip
    elif frags:
        expected = " ".join(text[a:b] for a, b in frags)
        if s.text != expected:
            if s.text.split() == expected.split() or _ws_equal(s.text, expected):
                out.append(Violation("warning", "text-whitespace", "span", s.id,
                                     f"text {s.text!r} differs from the document {expected!r} in whitespace only"))  # fmt: skip
            else:
                out.append(Violation("error", "text-mismatch", "span", s.id,
                                     f"text {s.text!r} is not the document's {expected!r} at these offsets"))  # fmt: skip
        if rules.token_boundaries or rules.trim_whitespace:
            _check_boundaries(schema, s, text, out)
    _check_attributes(schema, "entity", s.type, s.attributes, "span", s.id, out)
    if s.groundings:
        if not rules.groundings:
            out.append(Violation("warning", "grounding-not-allowed", "span", s.id,
                                 "this schema does not use groundings"))  # fmt: skip
        elif rules.grounding_databases:
            allowed = {d.lower() for d in rules.grounding_databases}
            for g in s.groundings:
                key = grounding_key(g)  # BioNLP-ST lines name their database in the line's type
                db = split_key(key)[0].lower()
                if db not in allowed:
                    out.append(Violation("warning", "grounding-database", "span", s.id,
                                         f"grounding {key!r} is not from {', '.join(rules.grounding_databases)}"))  # fmt: skip
    elif any(schema.is_a(s.type, t) for t in rules.require_grounding):
        out.append(Violation("error", "grounding-required", "span", s.id,
                             f"{s.type} mentions must be grounded before submission"))  # fmt: skip


BOUNDARY_SYMBOLS = "-/\\()[]{},;:.'\"+*=<>|~!?&%#@^`\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
"""Characters that end a token besides whitespace when a schema names none (see guidelines/README.md).
Ours: modelled on, but NOT verified against, the token-separating symbols of BioRelEx 1.0's Appendix
A.3 (Khachatrian et al. 2019), which no copy we could read holds; a schema states its own list in
``[rules] boundary_symbols``."""


def token_boundary(text: str, i: int, symbols: str = BOUNDARY_SYMBOLS) -> bool:
    """Whether offset ``i`` of ``text`` is a token boundary: an end of the text, or next to whitespace
    or a boundary symbol. Why this small tokenizer: participants must be able to reproduce the rule
    from one sentence of the guidelines, which no trained tokenizer allows."""
    if i <= 0 or i >= len(text):
        return True
    a, b = text[i - 1], text[i]
    return a.isspace() or b.isspace() or a in symbols or b in symbols


def _check_boundaries(schema: Schema, s: Span, text: str, out: list[Violation]) -> None:
    rules = schema.rules
    symbols = rules.boundary_symbols or BOUNDARY_SYMBOLS
    for a, b in s.fragments:
        if rules.trim_whitespace and b > a and (text[a].isspace() or text[b - 1].isspace()):
            out.append(Violation("error", "edge-whitespace", "span", s.id,
                                 f"fragment {a}-{b} {text[a:b]!r} starts or ends with whitespace"))  # fmt: skip
            return
        if rules.token_boundaries:
            cut = [x for x in (a, b) if not token_boundary(text, x, symbols)]
            if cut:
                x = cut[0]
                out.append(Violation("error", "token-boundary", "span", s.id,
                                     f"offset {x} cuts a word ({text[max(0, x - 8):x]}|{text[x:x + 8]}); spans start "
                                     "and end on token boundaries"))  # fmt: skip
                return


def _ws_equal(a: str, b: str) -> bool:
    return len(a) == len(b) and all(
        x == y or (x.isspace() and y.isspace()) for x, y in zip(a, b, strict=True)
    )


def _check_overlap(schema: Schema, spans: tuple[Span, ...], out: list[Violation]) -> None:
    if schema.rules.allow_overlap:
        return
    placed = sorted((a, b, s.id) for s in spans for a, b in s.fragments if b > a)
    reach, owner = -1, ""
    reported: set[str] = set()
    for a, b, sid in placed:
        if a < reach and owner != sid and sid not in reported:
            out.append(
                Violation("error", "overlap", "span", sid, f"overlaps span {owner} (overlap not allowed)")
            )
            reported.add(sid)
        if b > reach:
            reach, owner = b, sid


def _check_attributes(schema: Schema, applies: str, typ: str, attrs: Mapping[str, Any], kind: str,
                      item_id: str, out: list[Violation]) -> None:  # fmt: skip
    for name, value in attrs.items():
        a: AttributeDef | None = schema.attribute(name)
        if a is None or applies not in a.applies_to:
            out.append(Violation("error", "unknown-attribute", kind, item_id,
                                 f"attribute {name!r} is not defined for {applies} annotations"))  # fmt: skip
            continue
        if a.types and not any(typ == t or schema.is_a(typ, t) for t in a.types):
            out.append(Violation("error", "attribute-not-applicable", kind, item_id,
                                 f"attribute {name!r} applies to {', '.join(a.types)}, not {typ}"))  # fmt: skip
        if a.values:
            if str(value) not in a.values or isinstance(value, bool):
                out.append(Violation("error", "attribute-value", kind, item_id,
                                     f"{name}={value!r} is not one of {', '.join(a.values)}"))  # fmt: skip
        elif value is not True:
            out.append(Violation("error", "attribute-value", kind, item_id,
                                 f"{name} is binary (present or absent), not {value!r}"))  # fmt: skip


def _check_relation(schema: Schema, r: Relation, spans: Mapping[str, Span], rels: Mapping[str, Relation],
                    out: list[Violation]) -> None:  # fmt: skip
    rt = schema.relation(r.type)
    if rt is None:
        out.append(Violation("error", "unknown-relation-type", "relation", r.id,
                             f"relation type {r.type!r} is not in the schema"))  # fmt: skip
        return
    seen: dict[str, int] = {}
    for arg in r.args:
        role = rt.role(arg.role)
        if role is None:
            names = ", ".join(ro.name for ro in rt.roles)
            out.append(Violation("error", "unknown-role", "relation", r.id,
                                 f"{r.type} has no role {arg.role!r} (roles: {names})"))  # fmt: skip
            continue
        seen[role.name] = seen.get(role.name, 0) + 1
        if seen[role.name] > 1 and not role.repeatable:
            out.append(Violation("error", "repeated-role", "relation", r.id,
                                 f"role {role.name} is given more than once"))  # fmt: skip
        if not role.types:
            continue
        if arg.ref in spans:
            t = spans[arg.ref].type
            if not any(schema.is_a(t, x) for x in role.types):
                out.append(Violation("error", "argument-type", "relation", r.id,
                                     f"{arg.role}:{arg.ref} is a {t}; {role.name} takes {', '.join(role.types)}"))  # fmt: skip
        elif arg.ref in rels:
            t = rels[arg.ref].type
            if t not in role.types and "<EVENT>" not in role.types:
                out.append(Violation("error", "argument-type", "relation", r.id,
                                     f"{arg.role}:{arg.ref} is a {t} event; {role.name} takes {', '.join(role.types)}"))  # fmt: skip
    for role in rt.roles:
        if not role.optional and role.name not in seen:
            out.append(Violation("error", "missing-role", "relation", r.id, f"role {role.name} is missing"))
    if rt.labels is None:
        if r.label is not None:
            out.append(Violation("error", "label-not-allowed", "relation", r.id,
                                 f"{r.type} takes no label (got {r.label})"))  # fmt: skip
    else:
        ls = schema.label_set(rt.labels)
        allowed = [v.value for v in ls.values] if ls is not None else []
        if r.label is None:
            out.append(Violation("warning", "label-missing", "relation", r.id,
                                 f"{r.type} has no {rt.labels} label"))  # fmt: skip
        elif r.label not in allowed:
            out.append(Violation("error", "label-not-allowed", "relation", r.id,
                                 f"label {r.label} is not one of {allowed}"))  # fmt: skip
    for tag in r.tags:
        if tag not in rt.tags:
            out.append(Violation("error", "tag-not-allowed", "relation", r.id,
                                 f"tag {tag!r} is not allowed on {r.type} (allowed: {', '.join(rt.tags) or 'none'})"))  # fmt: skip
    if r.trigger is not None and rt.trigger_types:
        trig = spans.get(r.trigger)
        if trig is not None and not any(schema.is_a(trig.type, t) for t in rt.trigger_types):
            out.append(Violation("error", "trigger-type", "relation", r.id,
                                 f"trigger {r.trigger} is a {trig.type}, not {', '.join(rt.trigger_types)}"))  # fmt: skip
    _check_attributes(schema, "relation", r.type, r.attributes, "relation", r.id, out)


def _check_document_labels(schema: Schema, ann: Annotations, out: list[Violation]) -> None:
    given = {lb.name: lb for lb in ann.labels}
    for lb in ann.labels:
        d = schema.document_label(lb.name)
        if d is None:
            out.append(Violation("error", "unknown-document-label", "label", lb.name,
                                 f"document label {lb.name!r} is not in the schema"))  # fmt: skip
        elif str(lb.value) not in {str(v.value) for v in d.values}:
            values = ", ".join(str(v.value) for v in d.values)
            out.append(Violation("error", "document-label-value", "label", lb.name,
                                 f"{lb.name}={lb.value!r} is not one of {values}"))  # fmt: skip
    for d in schema.document_labels:
        if d.required and d.name not in given:
            out.append(Violation("error", "required-document-label", "label", d.name,
                                 f"the document label {d.name} must be set before submission"))  # fmt: skip
