"""Helpers for the agreement-report tests (no tests here): build projects from real brat data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document


def project_from_annotators(
    url: str, root: Path, names: Sequence[str], schema: str = "conll-ner", name: str = "iaa"
) -> Corpus:
    """One project, one annotator per sub-folder of ``root`` (bratiaa's layout), all submitted."""
    from importers.standoff import read_directory

    corpus = Corpus.create(name, schema, url=url)
    for n in names:
        corpus.add_annotator(n)
        parsed = read_directory(root / n)
        corpus.add_documents(p.document for p in parsed)
        for p in parsed:
            corpus.create_set(p.document.external_id, n, annotations=p.annotations, status="submitted")
    return corpus


def project_from_sets(
    url: str,
    schema: str,
    docs: Sequence[Document],
    sets: Mapping[str, Mapping[str, Annotations]],
    name: str = "iaa",
) -> Corpus:
    """A project with the given documents and each annotator's submitted sets."""
    corpus = Corpus.create(name, schema, url=url)
    corpus.add_documents(docs)
    for n, per_doc in sets.items():
        corpus.add_annotator(n)
        for doc, ann in per_doc.items():
            corpus.create_set(doc, n, annotations=ann, status="submitted")
    return corpus
