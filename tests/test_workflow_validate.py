"""guidelines.validate: every rule a submission is checked against, on the shipped schemas."""

from __future__ import annotations

from dataclasses import replace

from corpusdb.basics.records import Annotations, Argument, DocLabel, Grounding, Link, Relation, Span
from guidelines.schema import load_schema
from guidelines.validate import CODES, errors, validate

BB_TEXT = "Bacillus subtilis lives in soil and in the gut of chickens."


def codes(vs) -> set[str]:  # type: ignore[no-untyped-def]
    return {v.code for v in vs}


def bb_ok() -> Annotations:
    return Annotations(
        spans=(
            Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
            Span("T2", "Soil", ((27, 31),), "soil"),
            Span("T3", "Host", ((50, 58),), "chickens"),
            Span("T4", "HostPart", ((43, 46),), "gut"),
        ),
        relations=(
            Relation("R1", "Localization", (Argument("Bacterium", "T1"), Argument("Localization", "T2"))),
            Relation("R2", "PartOf", (Argument("Host", "T3"), Argument("Part", "T4"))),
        ),
        links=(Link("L1", "Equiv", "T3", "T3"),),
    )


def test_a_valid_set_has_no_violations() -> None:
    assert validate(load_schema("bb-2011"), bb_ok(), BB_TEXT) == []


def test_span_rules() -> None:
    sch = load_schema("bb-2011")  # no discontinuous spans, no groundings
    ann = bb_ok()
    bad = replace(
        ann,
        spans=(
            Span("T1", "Bacteria", ((0, 17),), "Bacillus subtilis"),  # unknown type
            Span("T2", "Soil", ((27, 31),), "sand"),  # text mismatch
            Span("T3", "Host", ((50, 58),), "chickens", attributes={"mutant": True}),  # unknown attribute
            Span("T4", "HostPart", ((43, 46), (50, 53)), "gut chi"),  # discontinuous
            Span("T5", "Soil", ((27, 99),), "x"),  # outside the text
            Span("T6", "Soil", ((27, 31),), "soil", groundings=(Grounding("ncbitaxon:1423"),)),
        ),
    )
    vs = validate(sch, bad, BB_TEXT)
    assert {"unknown-entity-type", "text-mismatch", "unknown-attribute", "discontinuous", "offsets",
            "grounding-not-allowed"} <= codes(vs)  # fmt: skip
    assert all(v.code in CODES for v in vs)
    assert {v.item_id for v in vs if v.code == "discontinuous"} == {"T4"}
    ws = replace(ann, spans=(Span("T1", "Bacterium", ((0, 17),), "Bacillus\u00a0subtilis"), *ann.spans[1:]))
    vs = validate(sch, ws, BB_TEXT)
    assert [(v.severity, v.code) for v in vs] == [("warning", "text-whitespace")]


def test_relation_rules() -> None:
    sch = load_schema("bb-2011")
    ann = bb_ok()
    bad = replace(
        ann,
        relations=(
            Relation("R1", "Localization", (Argument("Bacterium", "T2"), Argument("Localization", "T1"))),
            Relation("R2", "PartOf", (Argument("Host", "T3"),)),  # missing role
            Relation("R3", "Lives", (Argument("A", "T1"), Argument("B", "T2"))),  # unknown type
            Relation("R4", "PartOf", (Argument("Host", "T3"), Argument("Whole", "T4"))),  # unknown role
            Relation("R5", "PartOf", (Argument("Host", "T3"), Argument("Part", "T4")), label=1),  # no labels
        ),
    )
    vs = validate(sch, bad, BB_TEXT)
    assert {"argument-type", "missing-role", "unknown-relation-type", "unknown-role",
            "label-not-allowed"} <= codes(vs)  # fmt: skip
    assert sum(v.code == "argument-type" for v in vs) == 2  # both arguments of R1 are the wrong type


def test_labels_tags_attributes_links_on_biorelex() -> None:
    sch = load_schema("biorelex-1.0")
    text = "IL-2 binds IL-2Ra."
    spans = (Span("T1", "protein", ((0, 4),), "IL-2", attributes={"mutant": True}),
             Span("T2", "protein", ((11, 17),), "IL-2Ra", attributes={"state": "yes"}),
             Span("T3", "protein", (), "interleukin 2"))  # fmt: skip
    ann = Annotations(
        spans=spans,
        relations=(
            Relation(
                "R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), label=2, tags=("title",)
            ),
            Relation("R2", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), tags=("rumour",)),
        ),
        links=(Link("L1", "synonym", "T1", "T3"), Link("L2", "coreference", "T1", "T2")),
    )
    vs = validate(sch, ann, text)
    by = {(v.code, v.item_id) for v in vs}
    assert ("attribute-value", "T2") in by  # binary attribute with a value
    assert ("label-not-allowed", "R1") in by  # 2 is not 1/0/-1
    assert ("label-missing", "R2") in by and ("tag-not-allowed", "R2") in by
    assert ("unknown-link-type", "L2") in by
    assert not any(v.item_id == "T3" for v in vs)  # a name without a mention is fine
    assert [v.code for v in errors(vs)].count("label-missing") == 0  # a missing label only warns


def test_document_labels_required_and_values() -> None:
    sch = load_schema("trec-relevance")
    vs = validate(sch, Annotations(), "An abstract.")
    assert [(v.code, v.item_id) for v in vs] == [("required-document-label", "relevance")]
    vs = validate(sch, Annotations(labels=(DocLabel("relevance", "maybe"), DocLabel("topic", "x"))), "t")
    assert codes(vs) == {"document-label-value", "unknown-document-label", "required-document-label"} - {
        "required-document-label"
    }
    assert validate(sch, Annotations(labels=(DocLabel("relevance", "PR"),)), "t") == []


def test_overlap_rule() -> None:
    from guidelines.schema import Rules

    sch = replace(load_schema("bb-2011"), rules=Rules(allow_overlap=False))
    ann = Annotations(spans=(Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
                             Span("T2", "Bacterium", ((9, 17),), "subtilis"),
                             Span("T3", "Soil", ((27, 31),), "soil")))  # fmt: skip
    vs = validate(sch, ann, BB_TEXT)
    assert [(v.code, v.item_id) for v in vs] == [("overlap", "T2")]
