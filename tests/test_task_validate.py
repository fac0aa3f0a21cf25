"""``corpusdb validate`` (issue 28): a submission checked without a database and without gold, one line
per problem with file and line, exit 0/4; and the schema's boundary rules (token boundaries, no edge
whitespace) at validate and ``submit --check``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.cli.main import main
from guidelines.schema import load_schema
from guidelines.submission import check_submission
from guidelines.validate import token_boundary
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "fixtures" / "bb2011-mini"
Cap = pytest.CaptureFixture[str]


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _submission(tmp_path: Path, extra: str = "") -> Path:
    """The mini corpus's .a2 files, without their texts, with ``extra`` lines added to doc1.a2."""
    sub = tmp_path / "run1"
    sub.mkdir(parents=True)
    for name in ("doc1.a2", "doc2.a2"):
        shutil.copy(MINI / name, sub / name)
    if extra:
        with open(sub / "doc1.a2", "a", encoding="utf-8") as fh:
            fh.write(extra)
    return sub


def test_a_clean_submission_passes_with_the_texts_apart(tmp_path: Path, capsys: Cap) -> None:
    sub = _submission(tmp_path)
    code, out, err = run(capsys, "validate", str(sub), "--task", "bb-2011", "--texts", str(MINI))
    assert code == 0, out + err
    assert out == "" and "2 document(s) checked against schema bb-2011: 0 error(s)" in err


def test_each_problem_is_one_line_with_file_and_line(tmp_path: Path, capsys: Cap) -> None:
    extra = (
        "T20\tBacteria 0 13\tLactobacillus\n"  # line 19: unknown type
        "T21\tBacterium 0 21\tLactobacillus reuteri\n"  # line 20: duplicate of T1
        "E9\tLocalization Bacterium:T4 Localization:T1\n"  # line 21: argument types swapped
    )
    sub = _submission(tmp_path, extra)
    code, out, err = run(capsys, "validate", str(sub), "--task", "bb-2011", "--texts", str(MINI))
    assert code == 4
    a2 = sub / "doc1.a2"
    lines = out.splitlines()
    assert lines[0] == f"{a2}:19: error: span T20: entity type 'Bacteria' is not in the schema"
    assert lines[1] == f"{a2}:20: error: span T21: duplicate of T1 (same type Bacterium and offsets)"
    assert lines[2].startswith(f"{a2}:21: error: relation E9: Bacterium:T4 is a Host")
    assert lines[3].startswith(f"{a2}:21: error: relation E9: Localization:T1 is a Bacterium")
    assert len(lines) == 4 and "4 error(s)" in err


def test_a_text_field_that_is_not_the_documents_is_refused(tmp_path: Path, capsys: Cap) -> None:
    sub = _submission(tmp_path, "T22\tFood 148 157\tsauerkraut\n")
    code, out, _ = run(capsys, "validate", str(sub), "--task", "bb-2011", "--texts", str(MINI))
    assert code == 4
    assert out.startswith(
        f"{sub / 'doc1.a2'}:19: error: T22: text field does not match the document at 148 157"
    )


def test_format_errors_and_missing_texts_are_refused_with_their_place(tmp_path: Path, capsys: Cap) -> None:
    sub = _submission(tmp_path, "T20\tBacterium 0 x13\tLactobacillus\n")  # line 19
    (sub / "doc9.a2").write_text("T1\tBacterium 0 4\tLact\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(sub), "--task", "bb-2011", "--texts", str(MINI))
    assert code == 4
    assert f"{sub / 'doc1.a2'}:19: error:" in out
    assert f"{sub / 'doc9.a2'}: error: no text doc9.txt for this annotation file in {MINI}" in out
    # without --texts the texts are looked for beside the files, and the message says what to give
    code, out, _ = run(capsys, "validate", str(_submission(tmp_path / "b")), "--task", "bb-2011")
    assert code == 4 and "give --texts DIR" in out


def test_a_schema_file_works_and_json_output_lists_problems(tmp_path: Path, capsys: Cap) -> None:
    sub = _submission(tmp_path, "T20\tBacteria 0 13\tLactobacillus\n")
    schema = ROOT / "guidelines" / "schemas" / "bb-2011.toml"
    code, out, _ = run(
        capsys, "-f", "json", "validate", str(sub), "--schema", str(schema), "--texts", str(MINI)
    )
    import json

    body = json.loads(out)
    assert code == 4 and body["ok"] is False and body["documents"] == 2
    assert body["problems"] == [{"file": str(sub / "doc1.a2"), "line": 19, "severity": "error",
                                 "message": "span T20: entity type 'Bacteria' is not in the schema"}]  # fmt: skip
    code, _, err = run(capsys, "validate", str(sub))
    assert code == 2 and "--task" in err


def test_real_bb_2011_training_data_passes(capsys: Cap) -> None:
    data = shared_path("data", "bionlp-st-2011-bb-train")
    res = check_submission(load_schema("bb-2011"), data)
    assert res.errors == [] and len(res.documents) == 65


# -- boundary rules (issue 28.4) ------------------------------------------------------------------


def _boundary_schema(tmp_path: Path) -> Path:
    text = (ROOT / "guidelines" / "schemas" / "bb-2011.toml").read_text(encoding="utf-8")
    text = text.replace('name = "bb-2011"', 'name = "bb-2011-strict"')
    text += "token_boundaries = true\ntrim_whitespace = true\n"
    p = tmp_path / "strict.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_the_tokenizer_is_the_one_the_guidelines_state() -> None:
    text = "E. coli-infected (IL-2) cells"
    assert token_boundary(text, 0) and token_boundary(text, len(text))
    assert token_boundary(text, 2) and token_boundary(text, 3)  # around the space after "E."
    assert token_boundary(text, 7) and token_boundary(text, 8)  # around "-"
    assert token_boundary(text, 18) and token_boundary(text, 22)  # inside the parentheses
    assert not token_boundary(text, 5)  # co|li
    assert token_boundary(text, 20) and not token_boundary(text, 19)  # IL|-2 is one, I|L-2 is not


def test_mid_word_and_trailing_space_spans_fail_validate(tmp_path: Path, capsys: Cap) -> None:
    schema = _boundary_schema(tmp_path)
    extra = "T20\tBacterium 0 8\tLactobac\nT21\tFood 147 157\t sourdough\n"
    sub = _submission(tmp_path, extra)
    code, out, _ = run(capsys, "validate", str(sub), "--schema", str(schema), "--texts", str(MINI))
    assert code == 4
    a2 = sub / "doc1.a2"
    assert f"{a2}:19: error: span T20: offset 8 cuts a word (Lactobac|illus re)" in out
    assert f"{a2}:20: error: span T21: fragment 147-157 ' sourdough' starts or ends with whitespace" in out
    # the corpus itself keeps to the rules
    code, out, _ = run(capsys, "validate", str(_submission(tmp_path / "ok")), "--schema", str(schema),
                       "--texts", str(MINI))  # fmt: skip
    assert code == 0, out


def test_mid_word_and_trailing_space_spans_fail_submit_check(tmp_path: Path, capsys: Cap) -> None:
    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    c = Corpus.create("bb", str(_boundary_schema(tmp_path)), url=url)
    c.add_annotator("alice")
    text = (MINI / "doc1.txt").read_text(encoding="utf-8")
    c.add_documents([Document("d1", text), Document("d2", text), Document("d3", text)])
    mid = c.create_set(
        "d1", "alice", annotations=Annotations(spans=(Span("T1", "Bacterium", ((0, 8),), "Lactobac"),))
    )
    trail = c.create_set(
        "d2",
        "alice",
        annotations=Annotations(spans=(Span("T1", "Bacterium", ((0, 22),), "Lactobacillus reuteri "),)),
    )
    good = c.create_set(
        "d3",
        "alice",
        annotations=Annotations(spans=(Span("T1", "Bacterium", ((0, 21),), "Lactobacillus reuteri"),)),
    )
    base = ["--db", str(tmp_path / "c.sqlite"), "--as", "alice"]
    capsys.readouterr()
    assert main([*base, "submit", "--check", str(mid.id)]) == 4
    assert "token-boundary" not in (e := capsys.readouterr().err) and "cuts a word" in " ".join(e.split())
    assert main([*base, "submit", "--check", str(trail.id)]) == 4
    assert "starts or ends with whitespace" in " ".join(capsys.readouterr().err.split())
    assert main([*base, "submit", "--check", str(good.id)]) == 0


# -- from an installed wheel, outside the repository ---------------------------------------------


@pytest.mark.slow
def test_validate_runs_from_a_wheel_installed_outside_the_repository(tmp_path: Path) -> None:
    """Builds the wheel (``pip wheel --no-deps``), installs it with ``--no-deps``
    into a folder of its own, and runs ``corpusdb.cli.main`` from a temporary working directory with
    that folder first on the path (the dependencies come from this venv); the module must load from
    the wheel, not the checkout, and the shipped schema must be found inside it."""
    wheels, site = tmp_path / "wheels", tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr.strip()[-300:]}")
    wheel = next(wheels.glob("corpusdb-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=600)  # fmt: skip
    work = tmp_path / "cwd"
    work.mkdir()
    _submission(work, "T20\tBacteria 0 13\tLactobacillus\n")
    texts = work / "texts"
    texts.mkdir()
    for name in ("doc1.txt", "doc2.txt"):
        shutil.copy(MINI / name, texts / name)
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = (
        "import sys, corpusdb, guidelines; from corpusdb.cli.main import main; "
        "assert corpusdb.__file__.startswith(sys.argv[1]), corpusdb.__file__; "
        "assert guidelines.__file__.startswith(sys.argv[1]), guidelines.__file__; "
        "sys.exit(main(sys.argv[2:]))"
    )
    res = subprocess.run(
        [sys.executable, "-c", code, str(site), "validate", "run1", "--task", "bb-2011", "--texts", "texts"],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 4, res.stderr
    assert res.stdout == "run1/doc1.a2:19: error: span T20: entity type 'Bacteria' is not in the schema\n"


def test_an_import_of_submitted_sets_checks_the_boundary_rules(tmp_path: Path, capsys: Cap) -> None:
    """Imports of submitted annotation sets run the submit check: the boundary rules apply there too."""
    db = str(tmp_path / "c.sqlite")
    assert main(["--db", db, "init", "bb", "--schema", str(_boundary_schema(tmp_path))]) == 0
    folder = tmp_path / "ann"
    folder.mkdir()
    shutil.copy(MINI / "doc1.txt", folder / "doc1.txt")
    (folder / "doc1.a2").write_text("T1\tBacterium 0 8\tLactobac\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["--db", db, "import", "brat", str(folder), "-a", "alice"]) == 4
    assert "cuts a word" in " ".join(capsys.readouterr().err.split())
    (folder / "doc1.a2").write_text("T1\tBacterium 0 21\tLactobacillus reuteri\n", encoding="utf-8")
    assert main(["--db", db, "import", "brat", str(folder), "-a", "alice"]) == 0
