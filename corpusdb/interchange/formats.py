"""The interchange formats beyond brat and BioRelEx: which reader and writer each name stands for.

Why a table: the API has one import and one export entry point for all of them (``Corpus.import_file``,
``Corpus.export_file``), so blindness, all-or-nothing imports and overwrite rules are written once. The
readers and writers are pure (``importers``); each is imported only when its format is used, so the
``bioc`` package, ``networkx`` or spaCy cost nothing to a command that does not need them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpusdb.basics.errors import UsageError
from corpusdb.basics.records import Annotations, Document
from importers.standoff import ReadResult

Items = Sequence[tuple[Document, Annotations]]


@dataclass(frozen=True, slots=True)
class Written:
    """What a writer gives: the file's bytes and what it could not express (one line each)."""

    data: bytes
    notes: tuple[str, ...] = ()


def _bioc_reader(fmt: str) -> Callable[[str, Mapping[str, Any]], ReadResult]:
    def read(path: str, _opts: Mapping[str, Any]) -> ReadResult:
        from importers.bioc_io import read_bioc_lenient

        return read_bioc_lenient(path, fmt=fmt)

    return read


def _bioc_writer(fmt: str) -> Callable[[Items, Mapping[str, Any]], Written]:
    def write(items: Items, opts: Mapping[str, Any]) -> Written:
        from importers.bioc_io import format_bioc

        return Written(format_bioc(items, fmt=fmt, labels=opts.get("grounding_labels")).encode("utf-8"))

    return write


def _pubtator_read(path: str, _opts: Mapping[str, Any]) -> ReadResult:
    from importers.pubtator import read_pubtator_lenient

    return read_pubtator_lenient(path)


def _pubtator_write(items: Items, _opts: Mapping[str, Any]) -> Written:
    from importers.pubtator import format_pubtator

    text, notes = format_pubtator(items)
    return Written(text.encode("utf-8"), tuple(notes))


def _conll_read(path: str, opts: Mapping[str, Any]) -> ReadResult:
    from importers.conll import read_conll_lenient

    return read_conll_lenient(path, column=opts.get("column", -1))


def _conll_write(items: Items, opts: Mapping[str, Any]) -> Written:
    from importers.conll import format_conll

    text, notes = format_conll(
        items,
        tokenizer=opts.get("tokenizer", "words"),
        scheme=opts.get("scheme", "IOB2"),
        offsets=bool(opts.get("offsets", False)),
        nested=opts.get("nested", "outer"),
        types=opts.get("types"),
    )
    return Written(text.encode("utf-8"), tuple(notes))


def _competitor(name: str) -> Callable[[str, Mapping[str, Any]], ReadResult]:
    def read(path: str, opts: Mapping[str, Any]) -> ReadResult:
        from importers import competitors

        if name == "labelstudio" and opts.get("completed_by") is not None:
            return competitors.read_labelstudio(path, completed_by=str(opts["completed_by"]))
        return competitors.READERS[name](path)

    return read


def _webanno_read(path: str, _opts: Mapping[str, Any]) -> ReadResult:
    from importers.webanno import read_webanno_lenient

    return read_webanno_lenient(path)


def _spacy_jsonl(items: Items, _opts: Mapping[str, Any]) -> Written:
    from importers.spacy_out import format_jsonl

    text, notes = format_jsonl(items)
    return Written(text.encode("utf-8"), tuple(notes))


def _spacy_docbin(items: Items, opts: Mapping[str, Any]) -> Written:
    from importers.spacy_out import docbin_bytes

    data, notes = docbin_bytes(items, lang=opts.get("lang", "en"))
    return Written(data, tuple(notes))


READERS: dict[str, Callable[[str, Mapping[str, Any]], ReadResult]] = {
    "bioc": _bioc_reader("xml"),
    "bioc-json": _bioc_reader("json"),
    "pubtator": _pubtator_read,
    "conll": _conll_read,
    "doccano": _competitor("doccano"),
    "labelstudio": _competitor("labelstudio"),
    "prodigy": _competitor("prodigy"),
    "webanno": _webanno_read,
}
"""Import formats by name: BioC XML/JSON, PubTator, CoNLL/IOB2, doccano JSONL, Label Studio JSON,
Prodigy JSONL, INCEpTION/WebAnno TSV 3."""


def _json_write(items: Items, _opts: Mapping[str, Any]) -> Written:
    """The documents as a release's ``release.json`` holds them (id, text, split..., ``annotations`` in
    the same shape and the same serialisation), so one reader serves exports and releases."""
    import json
    from dataclasses import replace

    from corpusdb.services.items import annotations_to_json

    docs = [
        {"id": d.external_id, "text": d.text, "source": d.source, "metadata": dict(d.metadata),
         "group_key": d.group_key, "split": d.split, "annotations": annotations_to_json(replace(a, extra={}))}
        for d, a in sorted(items, key=lambda it: it[0].external_id)
    ]  # fmt: skip
    data = {"format": "corpusdb-annotations", "format_version": 1, "documents": docs}
    return Written((json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))


WRITERS: dict[str, Callable[[Items, Mapping[str, Any]], Written]] = {
    "json": _json_write,
    "bioc": _bioc_writer("xml"),
    "bioc-json": _bioc_writer("json"),
    "pubtator": _pubtator_write,
    "conll": _conll_write,
    "spacy-jsonl": _spacy_jsonl,
    "spacy-docbin": _spacy_docbin,
}
"""Export formats by name (one file each)."""


def reader(fmt: str) -> Callable[[str, Mapping[str, Any]], ReadResult]:
    try:
        return READERS[fmt]
    except KeyError:
        raise UsageError(f"unknown import format {fmt!r}; known: {', '.join(READERS)}") from None


def writer(fmt: str) -> Callable[[Items, Mapping[str, Any]], Written]:
    try:
        return WRITERS[fmt]
    except KeyError:
        raise UsageError(f"unknown export format {fmt!r}; known: {', '.join(WRITERS)}") from None
