"""Knowledge-base readers: OBO (pronto), the NCBI Taxonomy dump (streamed), TSV; all or nothing with
every problem's file and line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpusdb.basics.errors import FormatError
from importers.kb_ncbi import read_ncbi_taxonomy
from importers.kb_obo import read_obo
from importers.kb_tsv import read_tsv
from tests.kb_support import KB, ontobiotope


def test_obo_terms_synonyms_is_a_obsolete() -> None:
    got = {c.id: c for c in read_obo(KB / "habitats.obo")}
    assert len(got) == 11
    gut = got["HAB:0002"]
    assert gut.label == "digestive tract" and gut.parents == ("HAB:0001",)
    assert set(gut.synonyms) == {("gut", "EXACT"), ("alimentary canal", "RELATED")}
    assert got["HAB:0008"].parents == ("HAB:0001", "HAB:0007")  # two is_a
    old = got["HAB:0009"]
    assert old.obsolete and old.replaced_by == ("HAB:0007",)
    assert got["HAB:0000"].parents == () and not got["HAB:0000"].obsolete


def test_obo_problems_name_their_lines(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as exc:
        list(read_obo(KB / "bad.obo"))
    assert [str(p) for p in exc.value.problems] == [
        f"{KB / 'bad.obo'}:14: error: term HAB:0002: is_a HAB:9999 is not a term of this file"
    ]
    fixed = tmp_path / "noname.obo"
    fixed.write_text((KB / "bad.obo").read_text().replace("HAB:9999", "HAB:0000"))
    with pytest.raises(FormatError, match=r"noname.obo:8: error: term HAB:0001 has no name"):
        list(read_obo(fixed))
    broken = tmp_path / "syntax.obo"
    broken.write_text("format-version: 1.2\n\n[Term]\nid: X:1\nname: a\nsynonym: broken\n")
    with pytest.raises(FormatError, match=r"syntax.obo:6: error: not a valid OBO file"):
        list(read_obo(broken))


def test_ncbi_dump_streamed_with_merged_and_deleted() -> None:
    got = {c.id: c for c in read_ncbi_taxonomy(KB / "taxdump")}
    coli = got["562"]
    assert coli.label == "Escherichia coli" and coli.parents == ("561",) and coli.type == "species"
    assert ("E. coli", "common name") in coli.synonyms and ("Bacterium coli", "synonym") in coli.synonyms
    assert got["1"].parents == ()  # the root is its own parent in nodes.dmp
    assert got["12345"].obsolete and got["12345"].replaced_by == ("562",)
    assert got["99999"].obsolete and got["99999"].replaced_by == ()
    assert len(got) == 15


def test_ncbi_dump_problems(tmp_path: Path) -> None:
    dump = tmp_path / "taxdump"
    shutil.copytree(KB / "taxdump", dump)
    names = (dump / "names.dmp").read_text().splitlines(keepends=True)
    names.insert(3, "3\t|\tno such node\t|\t\t|\tscientific name\t|\n")  # tax_id 3 has no node
    names.append("garbage line\n")
    (dump / "names.dmp").write_text("".join(names))
    with pytest.raises(FormatError) as exc:
        list(read_ncbi_taxonomy(dump))
    msgs = [str(p) for p in exc.value.problems]
    assert any(
        m.startswith(f"{dump / 'names.dmp'}:4: error: name 'no such node' of tax_id 3") for m in msgs
    ), msgs
    assert any(m.startswith(f"{dump / 'names.dmp'}:{len(names)}: error: expected") for m in msgs), msgs
    (dump / "nodes.dmp").unlink()
    with pytest.raises(FormatError, match=r"nodes\.dmp: error: missing"):
        list(read_ncbi_taxonomy(dump))


def test_tsv_rows_and_problems() -> None:
    got = list(read_tsv(KB / "proteins.tsv"))
    assert [c.id for c in got] == ["P60568", "P01375", "P04637", "CHEBI:15422"]
    assert got[0].synonyms == (("IL-2", "synonym"), ("IL2", "synonym"), ("T-cell growth factor", "synonym"))
    assert got[0].type == "protein"
    with pytest.raises(FormatError) as exc:
        list(read_tsv(KB / "bad.tsv"))
    assert [(p.line, p.message) for p in exc.value.problems] == [
        (3, "P2: empty name"), (4, "id P1 already on line 2"), (5, "2 fields, the header has 3"),
    ]  # fmt: skip


def test_real_ontobiotope_2016() -> None:
    got = {c.id: c for c in read_obo(ontobiotope())}
    assert len(got) == 2320
    assert got["OBT:002162"].label == "soybean" and ("Glycine max", "EXACT") in got["OBT:002162"].synonyms
    assert [c for c, v in got.items() if not v.parents] == ["OBT:000000"]  # one root: bacteria habitat
