"""Schemas: every shipped one loads and survives storage; a bad file names the file and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpusdb.basics.errors import NotFound, SchemaError
from corpusdb.cli.main import main
from guidelines.schema import guideline_text, load_schema, schema_from_dict, shipped_schemas

BIORELEX_TYPES = {
    "protein", "protein-family", "protein-complex", "protein-domain", "protein-region", "protein-motif",
    "protein-isoform", "fusion-protein", "protein-DNA-complex", "protein-RNA-complex", "peptide", "amino-acid",
    "gene", "DNA", "RNA", "RNA-family", "chemical", "drug", "reagent", "experimental-construct",
    "experiment-tag", "mutation", "cell", "organelle", "tissue", "organism", "disease", "process", "assay",
    "parameter", "brand",
}  # fmt: skip


@pytest.mark.parametrize("name", shipped_schemas())
def test_shipped_schema_loads_and_round_trips(name: str) -> None:
    s = load_schema(name)
    assert s.name == name
    assert schema_from_dict(s.to_dict()) == s
    if s.guideline:
        assert guideline_text(s).strip(), f"{name} names a guideline text that is missing"


def test_shipped_schemas_are_the_promised_ones() -> None:
    assert {"biorelex-1.0", "bb-2011", "rename-2011", "trec-relevance"} <= set(shipped_schemas())
    bx = load_schema("biorelex-1.0")
    assert {e.name for e in bx.entities} == BIORELEX_TYPES
    bind = bx.relation("bind")
    assert bind is not None and not bind.directed
    assert bx.label_set(bind.labels or "").names() == {1: "asserted", 0: "speculative", -1: "negated"}  # type: ignore[union-attr]
    assert set(bind.tags) == {"hypothesis", "title", "complex", "implicit"}
    assert {lt.name for lt in bx.links} == {"synonym", "abbreviation", "part_of"}
    assert bx.link("part_of").symmetric is False  # type: ignore[union-attr]
    assert {a.name for a in bx.attributes} == {"mutant", "state"}
    assert bx.rules.groundings and bx.ancestors("protein-domain") == ["protein"]
    bb = load_schema("bb-2011")
    assert {e.name for e in bb.entities} == {
        "Bacterium", "Host", "HostPart", "Geographical", "Environment", "Food", "Medical", "Soil", "Water"
    }  # fmt: skip
    loc = bb.relation("Localization")
    assert [r.name for r in loc.roles] == ["Bacterium", "Localization"]  # type: ignore[union-attr]
    assert [r.name for r in bb.relation("PartOf").roles] == ["Host", "Part"]  # type: ignore[union-attr]
    assert bb.link("Equiv").name == "coreference"  # type: ignore[union-attr]
    rn = load_schema("rename-2011").relation("Renaming")
    assert rn.directed and [r.name for r in rn.roles] == ["Former", "New"]  # type: ignore[union-attr]
    trec = load_schema("trec-relevance").document_label("relevance")
    assert [v.value for v in trec.values] == ["DR", "PR", "NR"] and trec.required  # type: ignore[union-attr]


BAD = {
    "no_head.toml": ('[[entity]]\nname = "A"\n', "missing the [schema] table"),
    "no_entities.toml": ('[schema]\nname = "x"\ntitle = "X"\n', "at least one [[entity]]"),
    "bad_color.toml": (
        '[schema]\nname="x"\ntitle="X"\n[[entity]]\nname="A"\ncolor="red"\n',
        "[[entity]] 'A': color",
    ),
    "dup.toml": (
        '[schema]\nname="x"\ntitle="X"\n[[entity]]\nname="A"\n[[entity]]\nname="A"\n',
        "'A' is defined twice",
    ),
    "parent.toml": ('[schema]\nname="x"\ntitle="X"\n[[entity]]\nname="A"\nparent="B"\n', "parent 'B'"),
    "cycle.toml": (
        '[schema]\nname="x"\ntitle="X"\n[[entity]]\nname="A"\nparent="B"\n[[entity]]\nname="B"\nparent="A"\n',
        "loops back",
    ),
    "role_type.toml": (
        '[schema]\nname="x"\ntitle="X"\n[[entity]]\nname="A"\n[[relation]]\nname="r"\n'
        'roles=[{name="a", types=["protien"]}, {name="b"}]\n',
        "[[relation]] 'r' role 'a': unknown entity type 'protien'",
    ),
    "labels.toml": (
        '[schema]\nname="x"\ntitle="X"\n[[entity]]\nname="A"\n[[relation]]\nname="r"\nlabels="nope"\n'
        'roles=[{name="a"}, {name="b"}]\n',
        "labels 'nope' is not a [[label_set]]",
    ),
    "unknown_key.toml": (
        '[schema]\nname="x"\ntitle="X"\ncolour="#ffffff"\n[[entity]]\nname="A"\n',
        "unknown key(s) colour",
    ),
    "type.toml": ('[schema]\nname="x"\ntitle=3\n[[entity]]\nname="A"\n', "'title' must be str"),
    "syntax.toml": ('[schema\nname="x"\n', "invalid TOML"),
    "one_role.toml": (
        '[schema]\nname="x"\ntitle="X"\n[[entity]]\nname="A"\n[[relation]]\nname="r"\nroles=[{name="a"}]\n',
        "at least two",
    ),
    "doclabel.toml": (
        '[schema]\nname="x"\ntitle="X"\n[[entity]]\nname="A"\n[[document_label]]\nname="rel"\n'
        'values=[{value="DR"},{value="DR"}]\n',
        "duplicate label values",
    ),
}


@pytest.mark.parametrize("fname", sorted(BAD))
def test_invalid_schema_names_file_and_problem(tmp_path: Path, fname: str) -> None:
    content, expected = BAD[fname]
    path = tmp_path / fname
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SchemaError) as exc:
        load_schema(path)
    assert str(path) in str(exc.value)
    assert expected in str(exc.value)


def test_missing_schema_and_cli_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(NotFound, match="shipped:"):
        load_schema("no-such-schema")
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD["role_type.toml"][0], encoding="utf-8")
    assert main(["schema", "check", str(bad)]) == 4
    err = capsys.readouterr().err
    assert str(bad) in err and "protien" in err and err.count("\n") == 1
    assert main(["schema", "check", str(Path(__file__).parents[1] / "guidelines/schemas/bb-2011.toml")]) == 0
