"""The workflow commands: --help with exit codes, and a project's life driven from the shell."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span
from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]
COMMANDS = (["assign"], ["submit"], ["reopen"], ["conflicts"], ["adjudicate"], ["decisions"], ["correct"],
            ["review"], ["split"], ["release"], ["releases"], ["releases", "show"], ["releases", "export"])  # fmt: skip
TEXT = "Bacillus subtilis lives in soil and in the gut of chickens."


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help_says_what_and_exit_codes(cmd: list[str], capsys: Cap) -> None:
    code, out, _ = run(capsys, *cmd, "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "Exit codes: 0 ok" in text and "5 " in text
    assert len(text) > 200


def test_life_from_the_shell(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    c = Corpus.create("bb", "bb-2011", url=f"sqlite:///{db}")
    c.add_documents([Document("d1", TEXT, group_key="g1"), Document("d2", TEXT, group_key="g2")])
    base = ["--db", db]
    assert run(capsys, *base, "annotator", "add", "alice", "bob")[0] == 0
    assert run(capsys, *base, "annotator", "add", "judy", "--role", "adjudicator")[0] == 0
    code, out, _ = run(capsys, *base, "-f", "json", "assign", "-n", "2", "--seed", "3")
    assert code == 0 and json.loads(out)["load"] == {"alice": 2, "bob": 2}
    spans = (
        Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
        Span("T2", "Soil", ((27, 31),), "soil"),
    )
    rel = (Relation("R1", "Localization", (Argument("Bacterium", "T1"), Argument("Localization", "T2"))),)
    for who, ann in (("alice", Annotations(spans, rel)), ("bob", Annotations(spans[:1]))):
        me = c.as_user(who)
        for d in ("d1", "d2"):
            s = me.my_set(d).info
            me.replace_set(s.id, ann, expected_version=s.version)
            code, out, err = run(capsys, *base, "--as", who, "submit", "-d", d)
            assert code == 0 and "submitted" in out, err
    code, _, err = run(capsys, *base, "--as", "alice", "submit", "-d", "d1")
    assert code == 6 and "already submitted" in err
    code, out, _ = run(capsys, *base, "--as", "judy", "-f", "json", "conflicts", "--counts")
    assert [(q["document"], q["open"]) for q in json.loads(out)] == [("d1", 2), ("d2", 2)]
    code, out, _ = run(capsys, *base, "--as", "judy", "conflicts", "d1")
    assert code == 0 and "span:27-31" in out and "(absent)" in out
    assert run(capsys, *base, "--as", "judy", "adjudicate")[0] == 0
    rel_key = "relation:Localization(Bacterium=span:0-17,Localization=span:27-31)"
    for d in ("d1", "d2"):
        code, out, err = run(capsys, *base, "--as", "judy", "adjudicate", d, "--key", "span:27-31", "--take", "alice",
                             "-r", "soil is a habitat")  # fmt: skip
        assert code == 0 and "gold T2" in out, err
        code, out, err = run(
            capsys, *base, "--as", "judy", "adjudicate", d, "--key", rel_key, "--take", "alice"
        )
        assert code == 0 and "gold R1" in out and "0 open conflict(s) left" in out, err
    code, out, _ = run(capsys, *base, "--as", "judy", "-f", "json", "conflicts", "--counts")
    assert all(q["open"] == 0 and q["gold_status"] == "in_progress" for q in json.loads(out))  # not finished
    code, _, err = run(capsys, *base, "--as", "judy", "adjudicate", "d1", "--key", "span:1-2", "--none")
    assert code == 3
    # a decision is revised (an edit from alice's version), undone, decided again, until gold is finished
    env = json.dumps({"type": "Environment", "fragments": [[27, 31]]})  # the text is the document's
    revise = ["--as", "judy", "adjudicate", "d2", "--key", "span:27-31", "--item", env, "--take", "alice"]
    code, out, err = run(capsys, *base, *revise)  # decided already: a revision must be asked for
    assert code == 6 and "span:27-31 on d2 was already decided by you" in err and "--revise" in err, err
    code, out, err = run(capsys, *base, *revise, "--revise", "-r", "soil as such")
    assert code == 0 and "gold T2 (edited" in out and "revised decision" in out, err
    code, out, err = run(capsys, *base, "--as", "judy", "adjudicate", "d2", "--key", "span:27-31", "--undo")
    assert code == 0 and "resting on it: R1" in out and "2 open conflict(s)" in out, (
        err
    )  # R1 is blocked again
    code, out, err = run(capsys, *base, "--as", "judy", "adjudicate", "d2", "--check")
    assert (
        code == 6 and "  open     span:27-31\n" in out and f"open     {rel_key}  (blocked: span:27-31" in out
    )
    assert err == "corpusdb: error: cannot finish the gold of d2: 2 open: decide span:27-31 first\n"
    code, out, err = run(capsys, *base, "--as", "judy", "adjudicate", "d2", "--finish")
    assert code == 6 and "open     span:27-31" in out and "cannot finish" not in out
    assert err == "corpusdb: error: cannot finish the gold of d2: 2 open: decide span:27-31 first\n"
    code, out, err = run(
        capsys, *base, "--as", "judy", "adjudicate", "d2", "--key", "span:27-31", "--take", "alice"
    )
    assert code == 0 and "finish with --finish" not in out  # the relation is open again (alice's only)
    assert run(capsys, *base, "--as", "judy", "adjudicate", "d2", "--key", rel_key, "--take", "alice")[0] == 0
    code, out, err = run(capsys, *base, "release", "v0")
    assert code == 6 and "not finished" in err
    for d in ("d1", "d2"):
        code, out, err = run(capsys, *base, "--as", "judy", "adjudicate", d, "--finish")
        assert code == 0 and "gold finished" in out, err
    code, _, err = run(capsys, *base, "--as", "judy", "adjudicate", "d1", "--key", "span:27-31", "--none")
    assert code == 6 and "finished" in err and "corpusdb correct" in err
    code, out, _ = run(capsys, *base, "--as", "judy", "conflicts", "--counts")
    assert out.splitlines()[1:3] == ["d1\t2\t2\t0\t0\tfinished", "d2\t2\t2\t0\t0\tfinished"]
    code, out, _ = run(capsys, *base, "-f", "json", "decisions", "d1")
    methods = sorted(d["method"] for d in json.loads(out))
    assert methods == ["adjudicated", "adjudicated", "unanimous"]
    code, out, _ = run(capsys, *base, "-f", "json", "decisions", "d2")
    history = json.loads(out)
    edit = next(d for d in history if d["method"] == "edited")
    assert edit["provenance"] == "edited from alice:T2 (Soil → Environment)" and edit["in_force"] is False
    assert edit["before"]["type"] == "Soil" and (edit["after"]["type"], edit["after"]["text"]) == (
        "Environment",
        "soil",
    )
    assert sorted(d["item"] for d in history if d["method"] == "undone") == ["R1", "T2"]
    code, out, _ = run(capsys, *base, "decisions", "d2")
    assert code == 0 and "undone" in out and "revised or undone" in out
    code, out, _ = run(capsys, *base, "-f", "json", "decisions", "d2", "--current")
    assert sorted(d["method"] for d in json.loads(out)) == ["adjudicated", "adjudicated", "unanimous"]
    code, out, _ = run(capsys, *base, "split", "--ratios", "50/0/50", "--seed", "1")
    assert code == 0 and "2 document(s) newly assigned" in out
    code, out, err = run(capsys, *base, "release", "v1", "-o", str(tmp_path / "v1"))
    assert code == 0 and "release v1: 2 documents" in out, err
    assert run(capsys, *base, "release", "v1")[0] == 6
    item = json.dumps({"kind": "span", "type": "Environment", "fragments": [[27, 31]], "text": "soil"})
    code, out, err = run(capsys, *base, "correct", "d1", "--action", "change", "--key", "T2", "--item", item,
                         "-r", "an environment", "--author", "judy")  # fmt: skip
    assert code == 0 and "correction 1" in out, err
    assert (
        run(
            capsys, *base, "correct", "d1", "--action", "delete", "--key", "T2", "-r", "x", "--author", "judy"
        )[0]
        == 4
    )
    assert run(capsys, *base, "release", "v2", "-o", str(tmp_path / "v2"))[0] == 0
    code, out, _ = run(capsys, *base, "-f", "json", "releases")
    assert [r["version"] for r in json.loads(out)] == ["v1", "v2"]
    code, out, _ = run(capsys, *base, "-f", "json", "releases", "show", "v2")
    assert json.loads(out)["changelog"]["corrections"][0]["reason"] == "an environment"
    assert run(capsys, *base, "releases", "export", "v1", str(tmp_path / "again"))[0] == 0
    for f in (tmp_path / "v1").rglob("*"):
        if f.is_file():
            twin = tmp_path / "again" / f.relative_to(tmp_path / "v1")
            assert hashlib.sha256(twin.read_bytes()).hexdigest() == hashlib.sha256(f.read_bytes()).hexdigest()
    code, out, _ = run(capsys, *base, "-f", "json", "review", "--min-sources", "1")
    top = json.loads(out)[0]  # the corrected span: neither alice (Soil) nor bob (nothing) agrees with gold
    assert code == 0 and (top["document"], top["key"], top["disagreeing"]) == ("d1", "span:27-31", 2)
    code, _, err = run(capsys, *base, "reopen", "1")
    assert code == 2  # --reason is required
    code, out, _ = run(capsys, *base, "reopen", "1", "-r", "typo in the guideline")
    assert code == 0 and "reopened" in out
