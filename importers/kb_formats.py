"""Knowledge-base readers by format name: file in, :class:`~corpusdb.basics.records.Concept` records out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from corpusdb.basics.errors import UsageError
from corpusdb.basics.records import Concept

KB_FORMATS = ("obo", "ncbi-taxonomy", "tsv")


def reader(fmt: str) -> Callable[[str | Path], Iterator[Concept]]:
    """The reader of a format (imported lazily: pronto loads only for OBO files)."""
    if fmt == "obo":
        from importers.kb_obo import read_obo

        return read_obo
    if fmt == "ncbi-taxonomy":
        from importers.kb_ncbi import read_ncbi_taxonomy

        return read_ncbi_taxonomy
    if fmt == "tsv":
        from importers.kb_tsv import read_tsv

        return read_tsv
    raise UsageError(f"knowledge-base format {fmt!r} is not one of {', '.join(KB_FORMATS)}")
