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
"""

from __future__ import annotations

from dataclasses import replace

from corpusdb.basics.records import Annotations, Argument, Relation
from guidelines.schema import DeriveRule, Schema


def _arg(r: Relation, role: str) -> str | None:
    return next((a.ref for a in r.args if a.role == role), None)


def derived_relations(rule: DeriveRule, ann: Annotations) -> list[Relation]:
    """What ``rule`` implies in ``ann`` that is not annotated already (ids ``D1``, ``D2``...)."""
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
        new += derived_relations(rule, replace(ann, relations=(*ann.relations, *new)))
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
