"""Every reader survives malformed input, through the real import path (issue #22.10).

As ``test_trust_readers`` does for standoff and BioRelEx, hypothesis feeds each format's reader mutated
files through the whole import — ``Corpus.import_file`` (BioC XML and JSON, PubTator, CoNLL, doccano,
Label Studio, Prodigy, WebAnno TSV), ``import_judgments``, ``import_texts``, and the CLI's ``runs``,
``qrels`` and ``topics import`` (whose reading is the CLI's) — into a real SQLite store. Every outcome
must be an import or a refusal of corpusdb's own (a ``CorpusError``; at the CLI an exit code other than
1, "internal error"); an invalid file is refused naming the file; a refused import leaves the database
exactly as it was. Two kinds of mutation: text edits (deep nesting, lone surrogates, numbers beyond 64
bits, stray syntax) and, for the JSON formats, values of the wrong type put at any place of a valid file
(a relation role that is null or a number, a span entry that is a string...).

The number of examples per reader is the profile ``reader-fuzz`` (a few seconds each);
``CORPUSDB_FUZZ_EXAMPLES=2000`` runs a long search by hand.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpusdb.api import Corpus
from corpusdb.basics.errors import CorpusError, FormatError, InvalidInput
from corpusdb.basics.records import (
    Annotations,
    Argument,
    DocLabel,
    Document,
    Grounding,
    Link,
    Note,
    Relation,
    Span,
)
from corpusdb.cli.main import main
from tests.test_trust_readers import _mutate, _snapshot

settings.register_profile(
    "reader-fuzz",
    max_examples=int(os.environ.get("CORPUSDB_FUZZ_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
READER_FUZZ = settings.get_profile("reader-fuzz")

TEXT = "IL-2 binds the IL-2 receptor in T cells."

# -- one valid file per format ------------------------------------------------------------------


def _bioc(fmt: str) -> str:
    from importers.bioc_io import format_bioc

    ann = Annotations(
        spans=(
            Span("T1", "protein", ((0, 4),), "IL-2", {"mutant": True}, (Grounding("uniprot:P60568"),)),
            Span("T2", "protein", ((15, 19), (29, 31)), "IL-2 in"),
            Span("T3", "cell", ((32, 39),), "T cells"),
        ),
        relations=(Relation("R1", "bind", (Argument("Agent", "T1"), Argument("Theme", "T2")), label=1),),
        links=(Link("L1", "coreference", "T2", "T1"),),
        notes=(Note("#1", "AnnotatorNotes", "T1", "checked"),),
        labels=(DocLabel("relevance", "DR"),),
    )
    return format_bioc([(Document("d1", TEXT, metadata={"pmid": 1}), ann)], fmt=fmt)


def _jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


DOCCANO = [
    {"id": 17, "text": TEXT, "entities": [
        {"id": 1, "label": "protein", "start_offset": 0, "end_offset": 4},
        {"id": 2, "label": "protein", "start_offset": 15, "end_offset": 28}],
     "relations": [{"id": 9, "from_id": 1, "to_id": 2, "type": "binds"}]},
    {"id": 18, "text": "EU rejects German call", "label": [[0, 2, "ORG"], [11, 17, "MISC"]]},
    {"id": 19, "text": "A relevant abstract.", "label": ["relevant"], "cats": {"yes": True}},
]  # fmt: skip
LABEL_STUDIO = [
    {"id": 101, "data": {"text": TEXT}, "annotations": [{
        "id": 5, "completed_by": 3, "was_cancelled": False, "result": [
            {"id": "a1", "from_name": "label", "to_name": "text", "type": "labels",
             "value": {"start": 0, "end": 4, "text": "IL-2", "labels": ["protein"]}},
            {"id": "a2", "from_name": "label", "to_name": "text", "type": "labels",
             "value": {"start": 15, "end": 28, "labels": ["protein"]}},
            {"from_id": "a2", "to_id": "a1", "type": "relation", "direction": "left", "labels": ["binds"]},
            {"id": "c1", "from_name": "relevance", "to_name": "text", "type": "choices",
             "value": {"choices": ["DR"]}}]},
        {"id": 6, "completed_by": {"id": 4, "email": "b@x"}, "result": []}]},
]  # fmt: skip
PRODIGY = [
    {"text": TEXT, "meta": {"id": "pmid-1"}, "_input_hash": 11, "answer": "accept",
     "spans": [{"start": 0, "end": 4, "label": "protein"}],
     "relations": [{"label": "binds", "head_span": {"start": 0, "end": 4, "label": "protein"},
                    "child_span": {"start": 15, "end": 28, "label": "protein"}}]},
    {"text": "Is this relevant?", "_input_hash": 12, "accept": ["DR"], "label": "rel", "answer": "reject"},
]  # fmt: skip
PUBTATOR = (
    "10021369|t|Mutations of BRCA1 in breast cancer.\n"
    "10021369|a|BRCA1 and TP53 were sequenced.\n"
    "10021369\t13\t18\tBRCA1\tGene\t672\n"
    "10021369\t22\t35\tbreast cancer\tDisease\tD001943\n"
    "10021369\tAssociation\t672\tD001943\tNovel\n"
    "\n"
    "10021370|t|No entities here.\n"
    "10021370|a|\n"
)
CONLL = (
    "-DOCSTART- d1\n\nIL-2\t0\t4\tB-protein\nbinds\t5\t10\tO\nT\t11\t12\tB-cell\ncells\t13\t18\tI-cell\n\n"
    "-DOCSTART- d2\n\nEU\tB-ORG\nrejects\tO\nGerman\tB-MISC\n"
)
WEBANNO = (
    "#FORMAT=WebAnno TSV 3.3\n"
    "#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|identifier|value\n"
    "#T_RL=webanno.custom.Interaction|label|BT_de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity\n\n\n"
    "#Text=IL-2 binds IL-2 receptor .\n"
    "1-1\t0-4\tIL-2\thttp://www.uniprot.org/uniprot/P60568\tprotein\t_\t_\n"
    "1-2\t5-10\tbinds\t_\t_\t_\t_\n"
    "1-3\t11-15\tIL-2\t_[1]\tprotein[1]\tbinds\t1-1[0_1]\n"
    "1-4\t16-24\treceptor\t_[1]\tprotein[1]\t_\t_\n"
    "1-5\t25-26\t.\t_\t_\t_\t_\n"
)
JUDGMENTS = "document\tlabel\tvalue\tannotator\nj1\trelevance\tDR\tcur\nj2\trelevance\tNR\tcur\n"

FILE_FORMATS: dict[str, tuple[str, Callable[[], str]]] = {
    "bioc": ("c.xml", lambda: _bioc("xml")),
    "bioc-json": ("c.json", lambda: _bioc("json")),
    "pubtator": ("c.pubtator", lambda: PUBTATOR),
    "conll": ("c.conll", lambda: CONLL),
    "doccano": ("c.jsonl", lambda: _jsonl(DOCCANO)),
    "labelstudio": ("c.json", lambda: json.dumps(LABEL_STUDIO, indent=1)),
    "prodigy": ("c.jsonl", lambda: _jsonl(PRODIGY)),
    "webanno": ("c.tsv", lambda: WEBANNO),
}
JSON_FORMATS: dict[str, Any] = {
    "bioc-json": lambda: json.loads(_bioc("json")),
    "doccano": lambda: DOCCANO,
    "labelstudio": lambda: LABEL_STUDIO,
    "prodigy": lambda: PRODIGY,
}

# -- mutations --------------------------------------------------------------------------------

DEEP = "[" * 3000 + "]" * 3000
_TOKENS = st.sampled_from(
    ["NaN", "Infinity", "-1", "1e999", "99999999999999999999", "-99999999999999999999", "1" * 30,
     "\\ud800", "\\udfff", '"', "[", "]", "{", "}", ",", ":", "null", "true", "0", "\t", "\n", "\r\n", ";",
     " ", "|", "\\", "\x00", "\ufeff", "é", "\U0001f600", "../", "a" * 250, DEEP, '{"a":' * 2000,
     "<a>" * 2000, '<location offset="99999999999999999999" length="1"/>', "<offset>9999999999999</offset>",
     '<location offset="-5" length="-9"/>', "&#xD800;", "&#0;", "<!ENTITY x 'y'>", "]]>", "-DOCSTART-",
     "B-", "I-x", "#T_SP=a|b", "#T_RL=a|BT_b", "#T_CH=c", "1-1.1", "2-1\t0-99999999999999999999\tx",
     "|t|", "|a|", "\t99999999999999999999\t", "\t-1\t", "²", "9" * 5000, "\t999999999999999\t"]
)  # fmt: skip
_EDITS = st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(0, 6), _TOKENS | st.text(max_size=4)),
    min_size=1,
    max_size=4,
)

_DEEP_MARK = "__deep__"
_JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.sampled_from([2**64, -(2**63) - 1, 10**40]),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5),
    st.sampled_from(["\ud800", "x\udfffy", "", " ", "-", _DEEP_MARK, "T1", "R1", "a1"]),
    st.lists(st.integers(-3, 50), max_size=3), st.dictionaries(st.sampled_from(["start", "end", "label", "id"]),
                                                               st.integers(-3, 50) | st.none(), max_size=3),
)  # fmt: skip


def _places(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (the path of keys and indices to it), the root included."""
    out = [path]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _places(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _places(v, (*path, i))
    return out


def _put(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        return {**obj, head: _put(obj[head], rest, value)}
    return [_put(v, rest, value) if i == head else v for i, v in enumerate(obj)]


def _dumps(fmt: str, obj: Any) -> str:
    if fmt in ("doccano", "prodigy") and isinstance(obj, list):
        raw = "".join(json.dumps(r) + "\n" for r in obj)
    else:
        raw = json.dumps(obj, indent=1)
    return raw.replace(json.dumps(_DEEP_MARK), DEEP)


# -- the import path ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_db(tmp_path_factory: pytest.TempPathFactory, _sqlite_template: Path) -> tuple[Corpus, Path]:
    base = tmp_path_factory.mktemp("fuzz-formats")
    db = base / "fuzz.sqlite"
    shutil.copy(_sqlite_template, db)
    c = Corpus.create("fuzz", "biorelex-1.0", url=f"sqlite:///{db}")
    c.add_annotator("cur")
    c.add_documents([Document("j1", "one"), Document("j2", "two")])  # for judgments
    return c, base


def _names_file(err: CorpusError, path: Path) -> bool:
    """A refusal of invalid input names the file (every problem of a FormatError does)."""
    if isinstance(err, FormatError):
        return all(str(path) in p.file or p.file in str(path) for p in err.problems if p.severity == "error")
    return str(path) in str(err) or path.name in str(err)


def _import_or_refuse(c: Corpus, path: Path, do: Callable[[], object]) -> None:
    db = Path(str(c.engine.url.database))
    before = _snapshot(db)
    try:
        do()
    except CorpusError as err:
        assert _snapshot(db) == before, "a refused import changed the database"
        if isinstance(err, InvalidInput):
            assert _names_file(err, path), f"the refusal does not name {path}: {err}"
        return
    c.status()  # imported: the project still reads back whole
    for d in c.documents():
        d.text.encode("utf-8")
    for s in c.set_headers():
        c.read_set(s.id)


def _write(path: Path, raw: str) -> Path:
    path.write_text(raw, encoding="utf-8", errors="surrogatepass")
    return path


@pytest.mark.parametrize("fmt", sorted(FILE_FORMATS))
@READER_FUZZ
@given(edits=_EDITS, n=st.integers(0, 10**6))
def test_fuzzed_file_never_escapes_uncaught(
    fuzz_db: tuple[Corpus, Path], fmt: str, edits: list[tuple[int, int, str]], n: int
) -> None:
    c, base = fuzz_db
    name, seed = FILE_FORMATS[fmt]
    path = _write(base / f"{fmt}-{n}-{name}", _mutate(seed(), edits))
    _import_or_refuse(
        c, path, lambda: c.import_file(path, fmt, "cur", allow_unknown=True, force=True, replace=True)
    )


@pytest.mark.parametrize("fmt", sorted(JSON_FORMATS))
@READER_FUZZ
@given(
    where=st.lists(st.tuples(st.integers(0, 10**4), _JUNK), min_size=1, max_size=3), n=st.integers(0, 10**6)
)
def test_fuzzed_json_values_never_escape_uncaught(
    fuzz_db: tuple[Corpus, Path], fmt: str, where: list[tuple[int, Any]], n: int
) -> None:
    c, base = fuzz_db
    obj = JSON_FORMATS[fmt]()
    for k, junk in where:
        places = _places(obj)
        obj = _put(obj, places[k % len(places)], junk)
    path = _write(base / f"{fmt}-{n}-typed.json", _dumps(fmt, obj))
    _import_or_refuse(
        c, path, lambda: c.import_file(path, fmt, "cur", allow_unknown=True, force=True, replace=True)
    )


@READER_FUZZ
@given(edits=_EDITS, n=st.integers(0, 10**6))
def test_fuzzed_judgments_never_escape_uncaught(
    fuzz_db: tuple[Corpus, Path], edits: list[tuple[int, int, str]], n: int
) -> None:
    c, base = fuzz_db
    path = _write(base / f"j{n}.tsv", _mutate(JUDGMENTS, edits))
    _import_or_refuse(c, path, lambda: c.import_judgments(path, replace=True, allow_unknown=True, force=True))


@READER_FUZZ
@given(edits=_EDITS, name_edits=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 2), _TOKENS), max_size=1),
       n=st.integers(0, 10**6))  # fmt: skip
def test_fuzzed_texts_never_escape_uncaught(
    fuzz_db: tuple[Corpus, Path], edits: list[tuple[int, int, str]], name_edits: Any, n: int
) -> None:
    c, base = fuzz_db
    folder = Path(tempfile.mkdtemp(dir=base, prefix=f"texts{n}-"))
    stem = _mutate(f"t{n}", name_edits).replace("/", "_").replace("\x00", "_")[:200] or "x"
    try:
        _write(folder / f"{stem}.txt", _mutate(TEXT, edits))
    except (OSError, UnicodeEncodeError):  # a name the file system refuses is no input at all
        return
    _import_or_refuse(c, folder, lambda: c.import_texts(folder))


# -- runs, qrels and topics: read by the CLI ------------------------------------------------------

RUN = "1 Q0 p1 1 9.5 runA\n1 Q0 p2 2 8.0 runA\n2 Q0 p6 1 4.0 runA\n"
QRELS = "1 0 p1 2\n1 0 p2 0\n2 0 p6 1\n"
TOPICS = {
    "tsv": "id\ttitle\tneed\tcontext\n1\tFerroportin\tFind it.\tIron.\n2\tTwo\tNeed two.\t\n",
    "xml": "<TOPICS><TOPIC><ID>1</ID><TITLE>Ferroportin</TITLE><NEED>Find it.</NEED></TOPIC>"
    "<TOPIC><ID>2</ID><TITLE>Two</TITLE></TOPIC></TOPICS>\n",
    "txt": "<top>\n<num> Number: 1\n<title> Ferroportin\n<desc> Description:\nFind it.\n</top>\n",
}


@pytest.fixture(scope="module")
def trec_db(tmp_path_factory: pytest.TempPathFactory, _sqlite_template: Path) -> tuple[Corpus, Path]:
    base = tmp_path_factory.mktemp("fuzz-trec")
    db = base / "trec.sqlite"
    shutil.copy(_sqlite_template, db)
    c = Corpus.create("trec", "trec-relevance", url=f"sqlite:///{db}")
    from corpusdb.relevance.records import Topic

    c.add_topics([Topic("1", "Ferroportin", "Find it.", ""), Topic("2", "Two", "", "")])
    return c, base


def _cli_import_or_refuse(c: Corpus, path: Path, *args: str) -> None:
    db = Path(str(c.engine.url.database))
    before = _snapshot(db)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["--db", str(db), *args])
    assert code != 1 and "Traceback" not in err.getvalue(), err.getvalue()[-3000:]
    if code != 0:
        assert _snapshot(db) == before, "a refused import changed the database"
        if code == 4:
            assert path.name in err.getvalue(), err.getvalue()


@pytest.mark.parametrize("what", ["runs", "qrels", "topics.tsv", "topics.xml", "topics.txt"])
@READER_FUZZ
@given(edits=_EDITS, n=st.integers(0, 10**6))
def test_fuzzed_trec_files_never_escape_uncaught(
    trec_db: tuple[Corpus, Path], what: str, edits: list[tuple[int, int, str]], n: int
) -> None:
    c, base = trec_db
    if what.startswith("topics"):
        seed, cmd = TOPICS[what.split(".")[1]], ["topics", "import"]
    else:
        seed, cmd = (RUN, ["runs", "import"]) if what == "runs" else (QRELS, ["qrels", "import"])
    path = _write(base / f"{what}-{n}.txt", _mutate(seed, edits))
    extra = ["--replace"] if what in ("runs", "qrels") else []
    _cli_import_or_refuse(c, path, *cmd, str(path), *extra)


# -- the crashes the issue found, one by one ---------------------------------------------------


def _refused(c: Corpus, path: Path, fmt: str, why: str, line: int | None = None) -> str:
    """Import ``path`` as ``fmt``: refused naming the file (and ``line``) and ``why``; nothing stored."""
    db = Path(str(c.engine.url.database))
    before = _snapshot(db)
    with pytest.raises(FormatError) as err:
        c.import_file(path, fmt, "cur", allow_unknown=True, force=True)
    msg = str(err.value)
    assert why in msg and str(path) in msg, msg
    if line is not None:
        assert f"{path}:{line}:" in msg, msg
    assert _snapshot(db) == before
    return msg


@pytest.fixture
def corpus(sqlite_url: str) -> Corpus:
    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    c.add_annotator("cur")
    return c


@pytest.mark.parametrize("fmt", ["bioc-json", "doccano", "labelstudio", "prodigy"])
def test_deep_nesting_is_refused_with_its_line(corpus: Corpus, tmp_path: Path, fmt: str) -> None:
    """RecursionError reached users as "internal error" (Label Studio, doccano, BioC JSON)."""
    obj = json.loads(json.dumps(JSON_FORMATS[fmt]()))
    home = obj["documents"][0]["infons"] if fmt == "bioc-json" else obj[0]
    home["x"] = _DEEP_MARK  # 3,000 levels: beyond the parser's recursion
    raw = _dumps(fmt, obj)
    line = next(i for i, x in enumerate(raw.split("\n"), 1) if "[[[" in x)
    _refused(corpus, _write(tmp_path / "deep.json", raw), fmt, "nested more than 64 levels deep", line)


@pytest.mark.parametrize("fmt", ["bioc-json", "doccano", "labelstudio", "prodigy"])
def test_lone_surrogates_are_refused_before_any_insert(corpus: Corpus, tmp_path: Path, fmt: str) -> None:
    """A ``\\ud800`` in a text reached the insert (BioC JSON, doccano, Label Studio, Prodigy)."""
    raw = _dumps(fmt, JSON_FORMATS[fmt]())
    first = raw.index("IL-2 binds")
    raw = raw[:first] + "IL-2 \\ud800binds" + raw[first + len("IL-2 binds") :]
    line = raw.count("\n", 0, first) + 1
    _refused(corpus, _write(tmp_path / "s.json", raw), fmt, "lone surrogate \\ud800", line)


@pytest.mark.parametrize("role", [None, 7])
def test_bioc_relation_role_of_the_wrong_type_is_refused(
    corpus: Corpus, tmp_path: Path, role: object
) -> None:
    obj = json.loads(_bioc("json"))
    obj["documents"][0]["relations"][0]["nodes"][0]["role"] = role
    msg = _refused(corpus, _write(tmp_path / "r.json", json.dumps(obj, indent=1)), "bioc-json", "role is")
    assert f"documents[0].relations[0].nodes[0].role is {json.dumps(role)}, not a string" in msg


@pytest.mark.parametrize(
    ("spans", "why"),
    [(["T1"], "spans[0] is a string, not an object"), ({"start": 0}, "spans is an object, not a list"),
     ([{"start": [0], "end": 4, "label": "protein"}], "offsets [0]-4 are not integers"),
     ([{"start": 0, "end": 4, "label": {"x": 1}}], "spans[0].label is an object")],
)  # fmt: skip
def test_prodigy_span_entries_of_the_wrong_type_are_refused(
    corpus: Corpus, tmp_path: Path, spans: object, why: str
) -> None:
    rows = json.loads(json.dumps(PRODIGY))
    rows[0]["spans"] = spans
    _refused(corpus, _write(tmp_path / "p.jsonl", _jsonl(rows)), "prodigy", why, 1)


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [('<location offset="0" length="4"/>', '<location offset="99999999999999999999" length="4"/>',
      "outside the text"),
     ("<offset>0</offset>", "<offset>999999999999999</offset>", "longer than 10,000,000 characters")],
)  # fmt: skip
def test_bioc_xml_huge_offsets_are_refused(
    corpus: Corpus, tmp_path: Path, old: str, new: str, why: str
) -> None:
    """OverflowError (and a petabyte of spaces) on huge offsets in BioC XML."""
    raw = _bioc("xml")
    assert old in raw
    _refused(corpus, _write(tmp_path / "o.xml", raw.replace(old, new, 1)), "bioc", why)


@pytest.mark.parametrize(
    ("fmt", "old", "new", "why"),
    [("conll", "IL-2\t0\t4", "IL-2\t999999999999999\t999999999999999",
      "a text longer than 10,000,000 characters is refused"),
     ("conll", "IL-2\t0\t4", "IL-2\t" + "9" * 5000 + "\t4", "a text longer than 10,000,000 characters is refused"),
     ("webanno", "1-1\t0-4", "1-1\t999999999999999-999999999999999", "a text longer than 10,000,000 characters"),
     ("webanno", "1-1\t0-4", "1-1\t" + "9" * 5000 + "-4", "a text longer than 10,000,000 characters"),
     ("pubtator", "\t13\t18\t", "\t" + "9" * 5000 + "\t18\t", "are outside the text"),
     ("webanno", "|label|BT_de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity", "",
      "relation layer webanno.custom.Interaction names no span layer"),  # (an IndexError)
     ("pubtator", "\t13\t18\t", "\t1²\t18\t", "relation 1² names '18'"),  # not offsets: a relation line
     ("conll", "T\t11\t12\tB-cell", "T\t1²\t12\tB-cell", "")],  # not offsets: the tokens' own spacing
)  # fmt: skip
def test_offsets_in_text_formats_cannot_crash_the_reader(
    corpus: Corpus, tmp_path: Path, fmt: str, old: str, new: str, why: str
) -> None:
    """Offsets of 4,300+ digits (a bare ValueError from int()), 10^15 (a petabyte of spaces: MemoryError)
    and "²" (a digit to str.isdigit, not to int) crashed the CoNLL, WebAnno and PubTator readers."""
    name, seed = FILE_FORMATS[fmt]
    raw = seed()
    assert old in raw
    path = _write(tmp_path / name, raw.replace(old, new, 1))
    if why:
        _refused(corpus, path, fmt, why)
    else:
        corpus.import_file(path, fmt, "cur", allow_unknown=True, force=True)


@pytest.mark.parametrize(
    "line", ["T1\tProtein 0 " + "9" * 5000 + "\tIL-2", "T1\tProtein 0 4;5 " + "9" * 5000 + "\tIL-2 binds"]
)
def test_standoff_numbers_of_thousands_of_digits_are_refused(
    corpus: Corpus, tmp_path: Path, line: str
) -> None:
    """``int()`` refuses 4,300+ digits with a bare ValueError: it escaped the standoff reader."""
    folder = tmp_path / "brat"
    folder.mkdir()
    (folder / "d.txt").write_text(TEXT, encoding="utf-8")
    (folder / "d.ann").write_text("T2\tProtein 15 19\tIL-2\n" + line + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as err:
        corpus.import_brat(folder, "cur", allow_unknown=True, force=True)
    assert f"{folder / 'd.ann'}:2:" in str(err.value)
    assert corpus.documents() == []


def test_bioc_infon_that_is_not_json_is_refused(corpus: Corpus, tmp_path: Path) -> None:
    """A ``corpusdb:*`` infon holding broken JSON escaped as a bare JSONDecodeError."""
    raw = _bioc("xml").replace('<infon key="attr:mutant">true</infon>',
                               '<infon key="corpusdb:extra">{oops</infon>', 1)  # fmt: skip
    _refused(corpus, _write(tmp_path / "j.xml", raw), "bioc", "infon 'corpusdb:extra': not valid JSON")


def test_trec_run_rank_beyond_64_bits_is_refused_with_its_line(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """OverflowError at the insert: "internal error", exit 1."""
    db = str(tmp_path / "t.sqlite")
    assert main(["--db", db, "init", "t", "--schema", "trec-relevance"]) == 0
    run = _write(tmp_path / "r.run", "1 Q0 p1 1 9.5 runA\n1 Q0 p2 99999999999999999999 8.0 runA\n")
    capsys.readouterr()
    assert main(["--db", db, "runs", "import", str(run)]) == 4
    err = capsys.readouterr().err
    assert f"{run}:2:" in err and "rank '99999999999999999999' is beyond 64 bits" in err, err
    assert Corpus.open(url=f"sqlite:///{db}").runs() == []


# -- item 7: a BioC annotation without a location ------------------------------------------------


def test_bioc_annotation_without_location_is_refused(corpus: Corpus, tmp_path: Path) -> None:
    """It was imported (a warning only) as a span at -1..-1 that then blocked every brat export."""
    xml = _bioc("xml")
    bad_xml = xml.replace('<location offset="32" length="7"/>', "", 1)
    line = next(i for i, x in enumerate(bad_xml.split("\n"), 1) if '<annotation id="T3"' in x)
    msg = _refused(
        corpus, _write(tmp_path / "n.xml", bad_xml), "bioc", "annotation T3 (cell) has no location", line
    )
    assert "document 'd1'" in msg
    obj = json.loads(_bioc("json"))
    [t3] = [a for p in obj["documents"][0]["passages"] for a in p["annotations"] if a["id"] == "T3"]
    t3["locations"] = []
    raw = json.dumps(obj, indent=1)
    line = next(i for i, x in enumerate(raw.split("\n"), 1) if x.strip() == '"id": "T3",')
    _refused(
        corpus, _write(tmp_path / "n.json", raw), "bioc-json", "annotation T3 (cell) has no location", line
    )
    assert corpus.documents() == []


@pytest.mark.parametrize("fmt", ["bioc", "bioc-json"])
def test_a_name_without_a_mention_still_round_trips_through_bioc(
    corpus: Corpus, tmp_path: Path, fmt: str
) -> None:
    """What corpusdb writes for a BioRelEx name without a mention says so, and reads back as it was."""
    from importers.bioc_io import format_bioc

    ann = Annotations(spans=(Span("T1", "protein", ((0, 4),), "IL-2"), Span("T2", "protein", (), "IL2")))
    path = _write(
        tmp_path / f"x.{fmt}",
        format_bioc([(Document("d1", TEXT), ann)], fmt=fmt.removeprefix("bioc-") if fmt != "bioc" else "xml"),
    )
    corpus.import_file(path, fmt, "cur", allow_unknown=True, force=True)
    [s] = corpus.sets()
    assert corpus.read_set(s.id).annotations.spans == ann.spans


def test_bioc_json_keeps_infons_that_are_not_text(corpus: Corpus, tmp_path: Path) -> None:
    """BioC JSON made elsewhere (PubTator's) has infons such as ``"valid": true``: kept as attributes,
    while an infon corpusdb reads as text (``type``) must be text."""
    obj = json.loads(_bioc("json"))
    ann = obj["documents"][0]["passages"][0]["annotations"][2]
    ann["infons"].update({"valid": True, "normalized_id": 672})
    corpus.import_file(
        _write(tmp_path / "ok.json", json.dumps(obj)), "bioc-json", "cur", allow_unknown=True, force=True
    )
    [s] = corpus.sets()
    span = corpus.read_set(s.id).annotations.spans[2]
    assert span.attributes == {"valid": True, "normalized_id": 672}
    ann["infons"]["type"] = 3
    _refused(
        corpus, _write(tmp_path / "bad.json", json.dumps(obj)), "bioc-json", "infon 'type' is 3, not a string"
    )
