"""The NCBI Taxonomy dump (``names.dmp`` + ``nodes.dmp``, optional ``merged.dmp``/``delnodes.dmp``).

Why a hand-written reader: the dump is a plain ``\\t|\\t``-separated table of ~2.7 million taxa and
~4 million names; the packages that read it (ete3, taxopy...) build the whole tree in memory or a
database of their own. A knowledge base only needs each taxon once, with its names and parent, so
this reader *streams*: both files are sorted by tax_id, and it walks them side by side, yielding one
:class:`Concept` per node with the names read for it, holding one taxon at a time.

Each taxon's label is its ``scientific name``; its other names (synonym, equivalent name, common
name, includes, authority...) are synonyms with their NCBI name class. ``merged.dmp`` (old id ->
new id) and ``delnodes.dmp`` (deleted ids), when present beside the two files, add obsolete entries
so that a grounding to a merged or deleted taxon is told so, with its replacement.

All or nothing: every problem (a malformed line, a name of a taxon that has no node, files out of
tax_id order) is collected with its file and line; the generator raises them together as one
:class:`FormatError` at the end, so a loader that writes as it reads rolls back.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.records import Concept

MAX_PROBLEMS = 200
"""Problems listed before the reader stops (a wrong file would otherwise list millions)."""


def dump_files(path: str | Path) -> tuple[Path, Path]:
    """``(names.dmp, nodes.dmp)`` from the dump's folder or one of its two files."""
    p = Path(path)
    folder = p if p.is_dir() else p.parent
    names, nodes = folder / "names.dmp", folder / "nodes.dmp"
    for f in (names, nodes):
        if not f.is_file():
            raise FormatError.single(f, None, "missing: an NCBI Taxonomy dump needs names.dmp and nodes.dmp")
    return names, nodes


def _fields(line: str) -> list[str]:
    """The fields of a ``.dmp`` line (``a\\t|\\tb\\t|\\n``)."""
    line = line.rstrip("\n").rstrip("\r")
    if line.endswith("\t|"):
        line = line[:-2]
    return line.split("\t|\t")


class _Problems:
    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, file: Path, line: int | None, message: str) -> None:
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(Problem(str(file), line, message))
        if len(self.items) >= MAX_PROBLEMS:
            raise FormatError(
                [*self.items, Problem(str(file), line, f"stopped after {MAX_PROBLEMS} problems")]
            )


def _names(path: Path, problems: _Problems) -> Iterator[tuple[int, int, str, str]]:
    """``(line, tax_id, name, class)`` in file order."""
    with path.open(encoding="utf-8", errors="strict", newline="") as fh:
        n = 0
        try:
            for n, raw in enumerate(fh, 1):
                f = _fields(raw)
                if len(f) < 4 or not f[0].isdigit() or not f[1]:
                    problems.add(
                        path, n, f"expected 'tax_id | name | unique name | class |', got {raw[:60]!r}"
                    )
                    continue
                yield n, int(f[0]), f[1], f[3]
        except UnicodeDecodeError as exc:
            problems.add(path, n + 1, f"not UTF-8 ({exc.reason})")


def _nodes(path: Path, problems: _Problems) -> Iterator[tuple[int, int, int, str]]:
    """``(line, tax_id, parent, rank)`` in file order."""
    with path.open(encoding="utf-8", errors="strict", newline="") as fh:
        for n, raw in enumerate(fh, 1):
            f = _fields(raw)
            if len(f) < 3 or not f[0].isdigit() or not f[1].isdigit():
                problems.add(path, n, f"expected 'tax_id | parent tax_id | rank | ...', got {raw[:60]!r}")
                continue
            yield n, int(f[0]), int(f[1]), f[2]


def _pairs(path: Path, problems: _Problems, two: bool) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    if not path.is_file():
        return out
    with path.open(encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            f = _fields(raw)
            if not f[0].isdigit() or (two and (len(f) < 2 or not f[1].isdigit())):
                problems.add(path, n, f"malformed line {raw[:60]!r}")
                continue
            out.append((f[0], f[1] if two else None))
    return out


def read_ncbi_taxonomy(path: str | Path) -> Iterator[Concept]:
    """Every taxon of the dump (and its merged and deleted ids) as a :class:`Concept`, streamed."""
    names_path, nodes_path = dump_files(path)
    problems = _Problems()
    names = _names(names_path, problems)
    pending = next(names, None)
    last_node = -1
    for nline, tax, parent, rank in _nodes(nodes_path, problems):
        if tax <= last_node:
            problems.add(
                nodes_path, nline, f"tax_id {tax} after {last_node}: nodes.dmp must be sorted by tax_id"
            )
            continue
        last_node = tax
        label = ""
        synonyms: list[tuple[str, str]] = []
        while pending is not None and pending[1] <= tax:
            line, ntax, name, cls = pending
            if ntax < tax:
                problems.add(names_path, line, f"name {name!r} of tax_id {ntax}, which nodes.dmp does not "
                             "have (or names.dmp is not sorted by tax_id)")  # fmt: skip
            elif cls == "scientific name" and not label:
                label = name
            else:
                synonyms.append((name, cls))
            pending = next(names, None)
        if not label:
            problems.add(nodes_path, nline, f"tax_id {tax} has no scientific name in names.dmp")
            continue
        yield Concept(
            id=str(tax),
            label=label,
            synonyms=tuple(synonyms),
            parents=() if parent == tax else (str(parent),),  # the root is its own parent
            type=rank,
        )
    while pending is not None:
        problems.add(
            names_path,
            pending[0],
            f"name {pending[2]!r} of tax_id {pending[1]}, which nodes.dmp does not have",
        )
        pending = next(names, None)
    folder = names_path.parent
    for old, new in _pairs(folder / "merged.dmp", problems, True):
        yield Concept(id=old, label=f"(merged into {new})", obsolete=True, replaced_by=(str(new),))
    for old, _ in _pairs(folder / "delnodes.dmp", problems, False):
        yield Concept(id=old, label="(deleted)", obsolete=True)
    if problems.items:
        raise FormatError(problems.items)
