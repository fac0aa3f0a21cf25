"""Every real corpus in ../shared/data: import into the store, export, and get the same bytes back.

Why: the importers' own round trips prove the format layer; these prove the store keeps everything
the files hold (ids, line order, spacing, CRLF/BOM details, verbatim lines, groundings, notes).
Each corpus is imported once per module (module-scoped database); PostgreSQL gets a representative
subset, since its JSON columns are where key order or text could drift.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from corpusdb.api import Corpus
from corpusdb.interchange import ImportRefused
from corpusdb.store.models import AnnotationSetRow, DocumentRow

try:
    from tests.conftest import shared_path
except ModuleNotFoundError:  # pytest started without the repository root on sys.path
    from conftest import shared_path  # type: ignore[no-redef]

pytestmark = pytest.mark.shared
EXTS = (".txt", ".ann", ".a1", ".a2")
SINGLE = [  # corpus, schema, keep_unknown: one import of the whole folder (subfolders included)
    ("bionlp-st-2011-bb-train", "bb-2011", False),
    ("bionlp-st-2011-bi-train", "ge-2011", True),
    ("bionlp-st-2011-rename-train", "rename-2011", False),
    ("bionlp-st-2011-ge", "ge-2011", False),
    ("bionlp-st-2016-bb-event", "bb-2019", False),
    ("bionlp-ost-2019-bb-rel", "bb-2019", False),
]
ANNOTATORS = ("Lisa", "Maria", "Max", "Peter")


def tree(root: Path) -> dict[str, bytes]:
    """Relative path → bytes of every standoff file under ``root``."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.suffix in EXTS
    }


def leaf_folders(root: Path) -> list[Path]:
    return sorted({p.parent for p in root.rglob("*.txt")})


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, _sqlite_template: Path) -> Iterator[tuple[str, Path]]:
    """One SQLite database for the module (one project per corpus) and a folder for the exports."""
    base = tmp_path_factory.mktemp("corpora")
    shutil.copy(_sqlite_template, base / "db.sqlite")
    yield f"sqlite:///{base / 'db.sqlite'}", base


_done: dict[str, tuple[Path, Path, list[object]]] = {}


def round_trip(workdir: tuple[str, Path], corpus: str) -> tuple[Path, Path, list[object]]:
    """Import ``corpus`` as it is meant to be (once per module), export it; (source, export, reports)."""
    if corpus in _done:
        return _done[corpus]
    url, base = workdir
    src = shared_path("data", corpus)
    out = base / "out" / corpus
    reports: list[object] = []
    if corpus == "brat-examples":  # its folders reuse file names: one project per folder
        for k, leaf in enumerate(leaf_folders(src)):
            c = Corpus.create(f"brat-{k}", "ge-2011", url=url)
            reports.append(c.import_brat(leaf, "brat", allow_unknown=True, force=True))
            c.export_brat(out / leaf.relative_to(src), "brat")
    elif corpus == "bratiaa-example-project":  # one text set, four annotators
        c = Corpus.create("bratiaa", "conll-ner", url=url)
        for who in ANNOTATORS:
            reports.append(c.import_brat(src / who, who, allow_unknown=True, force=True))
        for who in ANNOTATORS:  # the owner sees them: every set is submitted
            c.export_brat(out / who, who)
    else:
        schema, keep = next((s, k) for name, s, k in SINGLE if name == corpus)
        c = Corpus.create(corpus, schema, url=url)
        reports.append(c.import_brat(src, "alice", keep_unknown=keep, allow_unknown=True, force=True))
        c.export_brat(out, "alice")
    _done[corpus] = (src, out, reports)
    return _done[corpus]


@pytest.mark.parametrize("corpus", [*(c for c, _, _ in SINGLE), "brat-examples", "bratiaa-example-project"])
def test_store_round_trip_is_byte_identical(workdir: tuple[str, Path], corpus: str) -> None:
    src, out, _ = round_trip(workdir, corpus)
    expected = tree(src)
    got = tree(out)
    assert sorted(got) == sorted(expected)
    differ = [rel for rel in expected if got[rel] != expected[rel]]
    assert differ == [], f"{len(differ)} files differ, first {differ[:3]}"


def test_ge_counts_in_the_store(workdir: tuple[str, Path]) -> None:
    _, _, reports = round_trip(workdir, "bionlp-st-2011-ge")
    rep = reports[0]
    assert (rep.documents, rep.sets_created) == (1_167, 1_167)  # type: ignore[attr-defined]
    assert rep.items == {"spans": 27_246, "relations": 13_560, "links": 729, "notes": 0, "labels": 0}  # type: ignore[attr-defined]
    assert rep.schema_warnings == () and rep.warnings == ()  # type: ignore[attr-defined]


def test_bratiaa_documents_are_shared(workdir: tuple[str, Path]) -> None:
    _, _, reports = round_trip(workdir, "bratiaa-example-project")
    assert [r.documents_added for r in reports] == [7, 0, 0, 0]  # type: ignore[attr-defined]
    assert [r.items["spans"] for r in reports] == [404, 404, 358, 401]  # type: ignore[attr-defined]


def test_bb_2019_whitespace_warnings_reach_the_report(workdir: tuple[str, Path]) -> None:
    _, _, reports = round_trip(workdir, "bionlp-ost-2019-bb-rel")
    assert len(reports[0].warnings) == 5  # type: ignore[attr-defined]


def test_refusals_on_real_data(workdir: tuple[str, Path]) -> None:
    """GI's non-brat lines without keep_unknown, and brat-examples' reused names in one project: every
    problem listed, nothing stored."""
    url, _ = workdir
    c = Corpus.create("refused", "ge-2011", url=url)
    with pytest.raises(ImportRefused) as err:
        c.import_brat(shared_path("data", "bionlp-st-2011-bi-train"), "alice", allow_unknown=True)
    assert sum(p.severity == "error" for p in err.value.problems) == 3_884
    with pytest.raises(ImportRefused) as err:
        c.import_brat(shared_path("data", "brat-examples"), "alice", allow_unknown=True)
    assert sum("is already read from" in p.message for p in err.value.problems) == 13  # tutorials bio/news
    with c.engine.connect() as conn:
        docs = conn.execute(
            select(func.count()).select_from(DocumentRow).where(DocumentRow.project_id == c.project_id)
        )
        assert docs.scalar_one() == 0
        assert (
            conn.execute(select(func.count()).select_from(AnnotationSetRow)).scalar_one() > 0
        )  # other projects'


@pytest.mark.postgres
def test_round_trip_on_postgres(pg_url: str, tmp_path: Path) -> None:
    """Discontinuous spans and NBSP (BB 2016), N/#/Alias lines (brat tutorial), four annotators
    (bratiaa), verbatim lines (GI) on PostgreSQL."""
    from corpusdb.store import migrate
    from corpusdb.store.db import make_engine

    engine = make_engine(pg_url)
    migrate.upgrade(engine)
    cases = [
        ("bionlp-st-2016-bb-event", "bionlp-st-2016-bb-event", None, False),
        ("brat-examples/tutorials/bio", "tutorials-bio", None, False),
        ("bionlp-st-2011-bi-train", "bi", None, True),
        ("bratiaa-example-project/Lisa", "bratiaa", "Lisa", False),
        ("bratiaa-example-project/Max", "bratiaa", "Max", False),
    ]
    for rel, project, who, keep in cases:
        src = shared_path("data", *rel.split("/"))
        try:
            c = Corpus.open(project, engine=engine)
        except Exception:
            c = Corpus.create(project, "ge-2011", engine=engine)
        c.import_brat(src, who or "alice", keep_unknown=keep, allow_unknown=True, force=True)
        out = tmp_path / rel
        c.export_brat(out, who or "alice")
        assert tree(out) == tree(src), rel
    engine.dispose()
