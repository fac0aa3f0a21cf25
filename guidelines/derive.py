"""Relations a schema's rules derive from others, marked ``derived`` with their rule.

Why pure (schema and annotations in, annotations out): the same rule must give the same items
wherever it is applied, and callers choose whether figures include them. A derived relation carries
``extra["derived"] = rule name`` and an id ``D<n>`` (never an annotator's ``R``/``E`` id), so it is
never confused with an annotated one; a relation already annotated with the same type and arguments
is not derived again (its annotation stands).

The GI 2011 rule (``guidelines/schemas/gi-2011.toml``): ``BindTo(Agent: A, Target: P)`` and
``PromoterOf(Agent: P, Target: G)`` imply ``Interaction(Agent: A, Target: G)`` — a protein or
polymerase binding the promoter of a gene interacts with the gene. We read it off the GI training
data, where each such pair comes with that Interaction annotated (``tests/test_task_derive.py``
measures it), not from the task paper's text.

The BioRelEx rule (``guidelines/schemas/biorelex-1.0.toml``, a link rule): a ``bind`` whose
argument is a part (``part_of`` link: a domain, a subunit) implies the ``bind`` of the whole, tagged
``implicit`` and with the same label — "a binding with a part-of member implies the implicit
bindings of the whole", as issue 28 words BioRelEx 1.0's Table 4 (Khachatrian et al., "BioRelEx 1.0:
Biological Relation Extraction Benchmark", BioNLP 2019, ACL Anthology W19-5019, pp. 176-190).

What was verified, and against what (2026-11-28): the paper's Table 4 itself could NOT be read here.
The stored copies we could search hold only the paper's abstract and first page (aclanthology.org,
paperswithcode.com, an fdocuments.fr copy of the proceedings PDF); no stored copy of its Table 4 or
of Appendix A.3 was found, and the BioRelEx repository (github.com/YerevaNN/BioRelEx at dd64dea:
README.md, evaluate.py) states no annotation rule. So the rule above is issue 28's wording, not a
quotation, and its scope (part-of only; whether the paper also counts, e.g., members of a named
complex as implicitly binding each other) is unverified. What was verified: the official
``evaluate.py`` (dd64dea, lines 312-313) has its skip of implicit interactions commented out, so it
scores the file's interactions as they are, implicit ones included, and applies no rule; BioRelEx
JSON has an ``implicit`` flag per interaction and no part-of relation (../shared/data/README.md).
The rule is therefore the annotation guideline's, applied where the schema says (submit,
adjudication, release, ``--derived include``), never by the official scorer.
"""

from __future__ import annotations

from dataclasses import replace

from corpusdb.basics.records import Annotations, Argument, Relation
from guidelines.schema import DeriveRule, Schema


def _arg(r: Relation, role: str) -> str | None:
    return next((a.ref for a in r.args if a.role == role), None)


def _whole_of(ann: Annotations, link: str) -> dict[str, list[str]]:
    """Part -> its wholes through ``link`` links (source part, target whole), by span id and, where
    relations join entities, by entity id too (an entity is a part when one of its members is, and a
    whole is named by its entity when it has one)."""
    entity_of = {m: e.id for e in ann.entities for m in e.members}
    out: dict[str, list[str]] = {}
    for lk in ann.links:
        if lk.type != link:
            continue
        whole = entity_of.get(lk.target, lk.target)
        for part in {lk.source, entity_of.get(lk.source, lk.source)}:
            if whole != part and whole not in out.setdefault(part, []):
                out[part].append(whole)
    return out


def _lifted(rule: DeriveRule, ann: Annotations, directed: bool) -> list[Relation]:
    """A link rule: each ``first`` relation with a part in an argument, that argument lifted to
    the whole (every whole, one argument at a time), tagged; not where one is annotated already."""

    def key(typ: str, args: tuple[Argument, ...]) -> tuple[str, object]:
        if directed:
            return typ, tuple(sorted((a.role, a.ref) for a in args))
        return typ, tuple(sorted(a.ref for a in args))  # undirected: the same pair in either order

    wholes = _whole_of(ann, rule.link)
    have = {key(r.type, r.args) for r in ann.relations}
    out: list[Relation] = []
    for r in ann.relations:
        if r.type != rule.first or r.extra.get("derived"):
            continue
        for i, arg in enumerate(r.args):
            for whole in wholes.get(arg.ref, ()):
                args = tuple(Argument(a.role, whole) if j == i else a for j, a in enumerate(r.args))
                selfish = (
                    len({a.ref for a in args}) == 1 < len({a.ref for a in r.args})
                )  # whole binds its part
                if key(rule.relation, args) in have or selfish:
                    continue
                have.add(key(rule.relation, args))
                tags = tuple(dict.fromkeys((*r.tags, *((rule.tag,) if rule.tag else ()))))
                out.append(Relation("", rule.relation, args, label=r.label, tags=tags, kind=r.kind,
                                    extra={"derived": rule.name, "from": [r.id]}))  # fmt: skip
    return out


def derived_relations(rule: DeriveRule, ann: Annotations, schema: Schema | None = None) -> list[Relation]:
    """What ``rule`` implies in ``ann`` that is not annotated already (ids ``D1``, ``D2``...)."""
    if rule.link:
        rt = schema.relation(rule.relation) if schema is not None else None
        return _lifted(rule, ann, rt.directed if rt is not None else True)
    firsts = [r for r in ann.relations if r.type == rule.first and not r.extra.get("derived")]
    seconds = [r for r in ann.relations if r.type == rule.second and not r.extra.get("derived")]
    have = {(r.type, tuple(sorted((a.role, a.ref) for a in r.args))) for r in ann.relations}
    out: list[Relation] = []
    for a in firsts:
        for b in seconds:
            if _arg(a, rule.join[0]) is None or _arg(a, rule.join[0]) != _arg(b, rule.join[1]):
                continue
            src = {"first": a, "second": b}
            args = []
            for role, spec in rule.roles:
                which, _, arg = spec.partition(".")
                ref = _arg(src[which], arg)
                if ref is not None:
                    args.append(Argument(role, ref))
            key = (rule.relation, tuple(sorted((x.role, x.ref) for x in args)))
            if len(args) != len(rule.roles) or key in have:
                continue
            have.add(key)
            out.append(Relation("", rule.relation, tuple(args), kind="event",
                                extra={"derived": rule.name, "from": [a.id, b.id]}))  # fmt: skip
    return out


def with_derived(schema: Schema, ann: Annotations) -> Annotations:
    """``ann`` with every relation the schema's rules derive added (marked), repeated until no rule
    adds one (a derived relation may feed another rule only through annotated ones: rules read
    annotated relations, so the result never depends on the order of the rules)."""
    new: list[Relation] = []
    for rule in schema.derive:
        new += derived_relations(rule, replace(ann, relations=(*ann.relations, *new)), schema)
    taken = {r.id for r in ann.relations}
    numbered, n = [], 0
    for r in new:
        n += 1
        while f"D{n}" in taken:
            n += 1
        numbered.append(replace(r, id=f"D{n}"))
    return replace(ann, relations=(*ann.relations, *numbered))


def without_derived(ann: Annotations) -> Annotations:
    """``ann`` without derived relations (for figures that exclude them)."""
    return replace(ann, relations=tuple(r for r in ann.relations if not r.extra.get("derived")))


def derived_listing(schema: Schema, ann: Annotations) -> list[dict[str, object]]:
    """What ``schema``'s rules derive in ``ann``, readable (id ``D<n>``, type, arguments, label, tags,
    the rule, the annotated relations it comes from): the one listing release, submit and
    adjudication show, always apart from the annotated items. Derived relations already stored in
    ``ann`` are recomputed, never taken as annotated."""
    if not schema.derive:
        return []
    got = with_derived(schema, without_derived(ann))
    return [
        {"id": r.id, "type": r.type, "args": [{"role": a.role, "ref": a.ref} for a in r.args], "label": r.label,
         "tags": list(r.tags), "derived": r.extra["derived"], "from": list(r.extra.get("from") or [])}
        for r in got.relations if r.extra.get("derived")
    ]  # fmt: skip


def derived_line(d: dict[str, object]) -> str:
    """One derived relation in one line: ``D1 Interaction Agent:T5 Target:T1 (derived by RULE from E3, E5)``."""
    args = " ".join(f"{a['role']}:{a['ref']}" for a in d["args"])  # type: ignore[attr-defined]
    src = ", ".join(d["from"])  # type: ignore[call-overload]
    return f"{d['id']} {d['type']} {args} (derived by {d['derived']}" + (f" from {src})" if src else ")")
