"""The sample projects behind ``corpusdb demo``: biomedical (default, ``corpusdb.demo_biomed``) or news.

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


SAMPLES = ("biomed", "news")


def build_demo(url: str | None = None, *, fresh: bool = False, sample: str = "news") -> DemoResult:
    """Create a sample project (or reuse it). ``news``: four annotators' submitted sets over bratiaa's
    news texts, one adjudicator; ``biomed``: binding interactions taken through gold to a release
    (``corpusdb.demo_biomed``). With ``fresh`` an existing sample project is an error to avoid mixing data."""
    from corpusdb.basics.errors import UsageError
    from corpusdb.demo_biomed import BIOMED_PROJECT, BIOMED_SCHEMA, load_biomed

    if sample not in SAMPLES:
        raise UsageError(f"no sample {sample!r}; choose one of {', '.join(SAMPLES)}")
    name, schema, load = (
        (BIOMED_PROJECT, BIOMED_SCHEMA, load_biomed)
        if sample == "biomed"
        else (SAMPLE_PROJECT, "conll-ner", _load)
    )
    engine = db.make_engine(url)
    if db.exists(engine) and migrate.current(engine) is not None:
        # Why refuse: a second project makes every later command in that database ask for --project.
        others = [p for p in list_projects(engine=engine) if p != name]
        if others:
            raise Conflict(
                f"this database holds project {others[0]!r}{' and others' if len(others) > 1 else ''}; the "
                "demo needs a database of its own: run it in another folder or with --db demo.sqlite"
            )
    migrate.upgrade(engine)  # an empty file becomes a corpusdb database
    try:
        corpus = Corpus.open(name, engine=engine)
    except NotFound:
        corpus = Corpus.create(name, schema, engine=engine)
    else:
        if fresh:
            raise Conflict(f"a project named {name!r} already exists in this database; use another --db")
        return DemoResult(corpus, created=False)
    load(corpus)
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
