"""One CLI grammar (docs/cli/index.md, issue #26): every command's options, walked from the Typer app,
spell one thing one way; old spellings still work with a one-line note; typos and bad values are
usage errors (exit 2) said in one line; a missing input folder is a file error (exit 7)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer.main

from corpusdb.cli.main import app, main

Cap = pytest.CaptureFixture[str]
FIXTURE = Path(__file__).parent / "fixtures" / "first-project"


def every_command() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []

    def walk(cmd: object, path: str) -> None:
        out.append((path, cmd))
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            walk(sub, f"{path} {name}")

    walk(typer.main.get_command(app), "corpusdb")
    return out


def options(cmd: object) -> list[tuple[set[str], object]]:
    return [(set(p.opts) | set(p.secondary_opts), p) for p in cmd.params if p.param_type_name == "option"]  # type: ignore[attr-defined]


def test_the_walk_sees_every_command() -> None:
    paths = {p for p, _ in every_command()}
    assert len(paths) > 90 and {"corpusdb agree", "corpusdb export brat", "corpusdb releases export"} <= paths


def test_short_options_mean_one_thing_everywhere() -> None:
    """-a is always --annotator, -d always --document; the long names never hide behind other shorts."""
    wrong = []
    for path, cmd in every_command():
        for names, _ in options(cmd):
            for short, long in (("-a", "--annotator"), ("-d", "--document")):
                if (short in names) != (long in names):
                    wrong.append(f"{path}: {sorted(names)}")
    assert not wrong, wrong


def test_no_force_and_no_plural_list_options() -> None:
    """--force said four things; comma-list options (--annotators, --documents) are gone from help."""
    bad = [
        f"{path}: {sorted(names)}"
        for path, cmd in every_command()
        for names, param in options(cmd)
        if not getattr(param, "hidden", False) and names & {"--force", "--annotators", "--documents"}
    ]
    assert not bad, bad


def test_overrides_are_named_by_what_they_override() -> None:
    have = {
        path: set().union(*(n for n, _ in options(cmd))) if options(cmd) else set()
        for path, cmd in every_command()
    }
    assert (
        "--store-invalid" in have["corpusdb import brat"]
        and "--store-invalid" in have["corpusdb import bioc"]
    )
    assert "--overwrite" in have["corpusdb export brat"] and "--overwrite" in have["corpusdb releases export"]
    assert "--ignore-schema" in have["corpusdb submit"] and "--ignore-schema" in have["corpusdb adjudicate"]


def test_annotator_and_document_options_repeat_where_several_make_sense() -> None:
    for path in ("corpusdb agree", "corpusdb assign"):
        cmd = dict(every_command())[path]
        for names, param in options(cmd):
            if names & {"--annotator", "--document"}:
                assert param.multiple, (path, names)  # type: ignore[attr-defined]


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Cap) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURE / "alice", tmp_path / "alice")
    shutil.copytree(FIXTURE / "bob", tmp_path / "bob")
    assert main(["init", "g", "--schema", "bb-2011"]) == 0
    assert main(["import", "brat", "alice", "-a", "alice"]) == 0
    assert main(["import", "brat", "bob", "-a", "bob"]) == 0
    capsys.readouterr()
    return tmp_path


def test_old_spellings_work_with_one_note(project: Path, capsys: Cap) -> None:
    assert main(["agree", "-a", "alice", "-a", "bob", "-d", "doc1", "-d", "doc2", "-f", "json"]) == 0
    new = capsys.readouterr()
    assert new.err == ""
    assert main(["agree", "--annotators", "alice,bob", "--documents", "doc1,doc2", "-f", "json"]) == 0
    old = capsys.readouterr()
    same = [{k: v for k, v in json.loads(o).items() if k != "generated"} for o in (old.out, new.out)]
    assert same[0] == same[1]  # the same report (but for the time it was made)
    notes = old.err.splitlines()
    assert len(notes) == 4 and all(n.startswith("corpusdb: note: ") for n in notes), notes
    assert any("use --annotator" in n for n in notes) and any("repeat it" in n for n in notes)

    assert main(["export", "brat", "out", "-a", "alice"]) == 0
    assert main(["export", "brat", "out", "-a", "alice"]) == 6  # files exist
    err = capsys.readouterr().err
    assert "--overwrite" in err and "--force" not in err
    assert main(["export", "brat", "out", "-a", "alice", "--force"]) == 0
    assert capsys.readouterr().err == (
        "corpusdb: note: --force is deprecated here and goes in the next version; use --overwrite\n"
    )
    assert main(["export", "brat", "out", "-a", "alice", "--overwrite"]) == 0


def test_agree_partial_is_now_overlap_with_one_note(project: Path, capsys: Cap) -> None:
    """corpusdb's any-overlap criterion was named ``partial``, which SemEval-2013 and nervaluate use for
    half credit (issue 27): it is ``overlap``; the old value still works, with one note."""
    assert main(["agree", "-c", "overlap", "-f", "json"]) == 0
    new = capsys.readouterr()
    assert new.err == "" and json.loads(new.out)["settings"]["criterion"] == "overlap"
    for old_args in (["-c", "partial"], ["--criterion=partial"]):
        assert main(["agree", *old_args, "-f", "json"]) == 0
        old = capsys.readouterr()
        same = [{k: v for k, v in json.loads(o).items() if k != "generated"} for o in (old.out, new.out)]
        assert same[0] == same[1]
        assert old.err.count("\n") == 1 and old.err.startswith("corpusdb: note: "), old.err
        assert "is deprecated" in old.err and "overlap" in old.err and "half-credit" in old.err
    assert main(["conflicts", "--criterion", "partial", "--counts"]) == 0
    assert "use --criterion overlap" in capsys.readouterr().err
    # the Python API takes the old name too, with a DeprecationWarning, and reports the new one
    from corpusdb.api import Corpus

    with pytest.warns(DeprecationWarning, match="now named 'overlap'"):
        rep = Corpus.open(url=f"sqlite:///{project / 'corpusdb.sqlite'}").agreement(criterion="partial")
    assert rep.body["settings"]["criterion"] == "overlap"


def test_typos_are_one_line_with_the_suggestion(capsys: Cap) -> None:
    assert main(["stauts"]) == 2
    assert (
        capsys.readouterr().err
        == "corpusdb: error: no command 'stauts'; did you mean 'status'? (corpusdb --help)\n"
    )
    assert main(["agree", "--critrion", "exact"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean --criterion?" in err and "Usage" not in err
    assert main(["releases", "exprt", "v1", "x"]) == 2
    assert "did you mean 'export'?" in capsys.readouterr().err


def test_bad_choice_is_a_usage_error_and_missing_folder_a_file_error(project: Path, capsys: Cap) -> None:
    assert main(["agree", "-c", "exactt"]) == 2
    assert "criterion must be one of exact" in capsys.readouterr().err
    assert main(["import", "brat", str(project / "nowhere"), "-a", "alice"]) == 7
    assert capsys.readouterr().err.strip().endswith("nowhere: no such file or folder")
    assert main(["import", "texts", str(project / "nowhere")]) == 7


def test_types_is_one_option_with_one_rule_everywhere() -> None:
    """-t/--types: on every command that compares spans, the same names, help and default (None:
    ``required``, or ``merged`` when classes are given; ``corpusdb.cli.common.types_mode``); -t means
    nothing else than --types or --type (one annotation type)."""
    from corpusdb.cli.common import TYPES_HELP, types_mode

    having, wrong = [], []
    for path, cmd in every_command():
        for names, param in options(cmd):
            if "--types" in names:
                having.append(path)
                if names != {"-t", "--types"} or param.default is not None or param.help != TYPES_HELP:  # type: ignore[attr-defined]
                    wrong.append(f"{path}: {sorted(names)} default {param.default!r}")  # type: ignore[attr-defined]
            if "-t" in names and not names & {"--types", "--type"}:
                wrong.append(f"{path}: -t is {sorted(names)}")
    assert not wrong, wrong
    assert {"corpusdb agree", "corpusdb evaluate ner", "corpusdb conflicts", "corpusdb adjudicate"} <= set(
        having
    )
    assert types_mode(None) == "required" and types_mode(None, merged=True) == "merged"
    assert types_mode("ignored") == "ignored"


@pytest.fixture()
def type_dispute(project: Path, capsys: Cap) -> Path:
    """alice says doc1's 'soil' is Soil, bob says Water: a type dispute on the same words."""
    (project / "t").mkdir()
    for who, typ in (("alice", "Soil"), ("bob", "Water")):
        d = project / "t" / who
        d.mkdir()
        (d / "doc9.txt").write_text("Bacillus subtilis lives in soil.", encoding="utf-8")
        (d / "doc9.ann").write_text(
            f"T1\tBacterium 0 17\tBacillus subtilis\nT2\t{typ} 27 31\tsoil\n", encoding="utf-8"
        )
        assert main(["import", "brat", str(d), "-a", who]) == 0
    capsys.readouterr()
    return project


def test_types_default_is_required_and_a_type_dispute_is_one_conflict(
    type_dispute: Path, capsys: Cap
) -> None:
    def conflicts(*extra: str) -> list[tuple[str, list[str]]]:
        assert main(["-f", "json", "conflicts", "doc9", *extra]) == 0
        [dc] = json.loads(capsys.readouterr().out)
        return [(x["key"], x["differs"]) for x in dc["conflicts"]]

    default = conflicts()
    assert default == [("span:27-31", ["type"])]  # one conflict with both versions, not two presences
    assert conflicts("-t", "required") == default == conflicts("--types", "ignored")

    def agree(*extra: str) -> dict:
        assert main(["agree", "-d", "doc9", "-f", "json", *extra]) == 0
        rep = json.loads(capsys.readouterr().out)
        rep.pop("generated", None)
        return rep

    assert agree() == agree("-t", "required") != agree("-t", "ignored")  # agree counts the type dispute
    assert main(["conflicts", "doc9", "-t", "exactt"]) == 2
    assert "--types must be one of required, ignored, merged" in capsys.readouterr().err


def test_single_document_commands_name_it_as_their_argument() -> None:
    """Where a command's subject is one document it is the argument: no command *requires* a
    ``-d/--document`` option. ``-d`` is left to filters: one document per occurrence, repeatable where
    several make sense (``agree``, ``export``), or one (``search -d``, ``submit -d``: your own set on
    that document, its subject being a set)."""
    single = [
        path
        for path, cmd in every_command()
        for names, param in options(cmd)
        if "--document" in names and param.required  # type: ignore[attr-defined]
    ]
    assert not single, single
    cmds = dict(every_command())
    for path in ("corpusdb recommend suggestions", "corpusdb recommend accept", "corpusdb recommend reject",
                 "corpusdb conflicts", "corpusdb adjudicate", "corpusdb correct", "corpusdb skip"):  # fmt: skip
        first = next(p for p in cmds[path].params if p.param_type_name == "argument")  # type: ignore[attr-defined]
        assert first.name == "document", path


def test_old_document_option_of_a_single_document_command_still_works(project: Path, capsys: Cap) -> None:
    assert main(["--as", "alice", "-f", "json", "recommend", "suggestions", "doc1"]) == 0
    new = capsys.readouterr()
    assert new.err == ""
    assert main(["--as", "alice", "-f", "json", "recommend", "suggestions", "-d", "doc1"]) == 0
    old = capsys.readouterr()
    assert old.out == new.out
    assert old.err == (
        "corpusdb: note: -d is deprecated here and goes in the next version; name the document first: "
        "corpusdb recommend suggestions DOCUMENT ...\n"
    )


def test_old_short_options_of_topic_and_task_are_rewritten() -> None:
    from corpusdb.cli.deprecated import rewrite

    assert rewrite(["pool", "-t", "1", "-t", "2"], 0) == ["pool", "--topic", "1", "--topic", "2"]
    assert rewrite(["--as", "x", "task", "submit", "a", "f", "-t", "st"], 2)[-2:] == ["--task", "st"]
    args = ["recommend", "accept", "3", "4", "-d", "D1", "--all-of-name"]
    assert rewrite(args, 0) == ["recommend", "accept", "D1", "3", "4", "--all-of-name"]
