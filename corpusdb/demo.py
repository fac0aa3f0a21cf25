"""The sample project behind ``corpusdb demo``: real text, four annotators, ready to inspect.

Why bundled: a new user should see the whole tool on real data in one command, without ../shared
or a download. The data is bratiaa's example project (MIT): seven CoNLL-2002 Spanish news documents
annotated with PER/ORG/LOC/MISC by four annotators (see ``corpusdb/sample/README.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from corpusdb.api import Corpus, list_projects
from corpusdb.basics.errors import Conflict, NotFound
from corpusdb.reports import AgreementReport
from corpusdb.store import db, migrate

SAMPLE_PROJECT = "sample"
SAMPLE_ANNOTATORS = ("Lisa", "Maria", "Max", "Peter")
SAMPLE_ADJUDICATOR = "Ana"


def sample_dir() -> Path:
    """Where the bundled brat files are (inside the installed package)."""
    return Path(str(resources.files("corpusdb") / "sample" / "bratiaa"))


@dataclass(frozen=True, slots=True)
class DemoResult:
    corpus: Corpus
    created: bool
    """False when the sample project already existed and was reused."""


def build_demo(url: str | None = None, *, fresh: bool = False) -> DemoResult:
    """Create the sample project (or reuse it): documents, four annotators' submitted sets, one
    adjudicator. With ``fresh`` an existing sample project is an error to avoid mixing data."""
    engine = db.make_engine(url)
    if db.exists(engine) and migrate.current(engine) is not None:
        # Why refuse: a second project makes every later command in that database ask for --project.
        others = [p for p in list_projects(engine=engine) if p != SAMPLE_PROJECT]
        if others:
            raise Conflict(
                f"this database holds project {others[0]!r}{' and others' if len(others) > 1 else ''}; the "
                "demo needs a database of its own: run it in another folder or with --db demo.sqlite"
            )
    migrate.upgrade(engine)  # an empty file becomes a corpusdb database
    try:
        corpus = Corpus.open(SAMPLE_PROJECT, engine=engine)
    except NotFound:
        corpus = Corpus.create(SAMPLE_PROJECT, "conll-ner", engine=engine)
    else:
        if fresh:
            raise Conflict(
                f"a project named {SAMPLE_PROJECT!r} already exists in this database; use another --db"
            )
        return DemoResult(corpus, created=False)
    _load(corpus)
    return DemoResult(corpus, created=True)


def demo_agreement(corpus: Corpus) -> AgreementReport:
    """What a lead looks at first: exact span+type agreement of the four annotators (the figures
    bratiaa publishes for this data: pairwise F1 from 0.816 Maria-Max to 0.959 Lisa-Peter)."""
    return corpus.agreement("spans", raters=list(SAMPLE_ANNOTATORS), criterion="exact", types="required")


def _load(corpus: Corpus) -> None:
    from importers.standoff import read_directory

    root = sample_dir()
    corpus.add_annotator(SAMPLE_ADJUDICATOR, "adjudicator")
    for name in SAMPLE_ANNOTATORS:
        corpus.add_annotator(name)
        parsed = read_directory(root / name)
        corpus.add_documents(p.document for p in parsed)
        for p in parsed:
            corpus.create_set(p.document.external_id, name, annotations=p.annotations, status="submitted")
