"""A relation's ``label`` and ``tags`` read back from the brat attributes they are written as.

Why: brat has no field for them, so the standoff writer writes a relation's label as a valued
attribute (``A1\tlabel R1 1``) and each tag as a binary one (``A2\timplicit R1``). Read back
without the schema they are plain attributes, which the schema does not define: a BioRelEx corpus
exported to brat (or a participant's run in that layout) was refused, and its ``implicit`` flag
lost. With the schema the inverse is exact: ``label`` on a relation whose type has a label set
becomes ``Relation.label`` (the set's value, ``"1"`` -> 1), and a binary attribute named as one of
the type's tags becomes that tag. A schema that defines an attribute of that name keeps it.
"""

from __future__ import annotations

from dataclasses import replace

from corpusdb.basics.records import Annotations, Relation
from guidelines.schema import Schema

LABEL = "label"


def _lift(schema: Schema, r: Relation) -> Relation:
    rt = schema.relation(r.type)
    if rt is None or not r.attributes:
        return r
    attrs = dict(r.attributes)
    label, tags = r.label, list(r.tags)
    if rt.labels and LABEL in attrs and schema.attribute(LABEL) is None and label is None:
        ls = next((x for x in schema.label_sets if x.name == rt.labels), None)
        raw = attrs[LABEL]
        value = next(
            (v.value for v in (ls.values if ls else ()) if str(v.value) == str(raw) or v.name == raw), None
        )
        if value is not None:
            label = value  # type: ignore[assignment]
            del attrs[LABEL]
    for t in rt.tags:
        if attrs.get(t) is True and schema.attribute(t) is None:
            del attrs[t]
            if t not in tags:
                tags.append(t)
    if len(attrs) == len(r.attributes):
        return r
    return replace(r, label=label, tags=tuple(tags), attributes=attrs)


def relation_fields(schema: Schema, ann: Annotations) -> Annotations:
    """``ann`` with each relation's label and tags taken out of its attributes, as the schema says."""
    if not any(r.attributes for r in ann.relations):
        return ann
    rels = tuple(_lift(schema, r) for r in ann.relations)
    if all(a is b for a, b in zip(rels, ann.relations, strict=True)):
        return ann
    return replace(ann, relations=rels)
