"""Names a string matcher learns besides annotations: TSV dictionaries, and knowledge bases.

A dictionary is a TSV file, one name a line: ``name<TAB>type`` (the type one of the schema's entity
types); blank lines and lines starting with ``#`` are skipped; a header line ``name<TAB>type`` is
allowed. Reading is all or nothing: a bad line refuses the whole file with its line number.

Knowledge bases: once the project has them, ``register_names("kb", fn)`` lets their module offer
names and synonyms; a recommender with the option ``{"kb": ["ncbitaxon"]}`` then learns them
(``fn(corpus, kb_names, types) -> iterable of (name, type)``). Why a hook and not an import: the
knowledge bases live in another part of corpusdb, which may be absent; the matcher only needs names.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

from corpusdb.basics.errors import InvalidInput

NameSource = Callable[[Any, list[str], Collection[str] | None], Iterable[tuple[str, str]]]
NAME_SOURCES: dict[str, NameSource] = {}


def register_names(option: str, source: NameSource) -> None:
    """Offer names to string matchers whose options name ``option`` (e.g. ``kb``)."""
    NAME_SOURCES[option] = source


def read_dictionary(path: str | Path, types: Collection[str]) -> list[tuple[str, str]]:
    """(name, type) pairs of a TSV dictionary; ``types``: the schema's entity types."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    out: list[tuple[str, str]] = []
    problems: list[str] = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if no == 1 and [f.strip().lower() for f in fields[:2]] == ["name", "type"]:
            continue
        if len(fields) != 2:
            problems.append(f"{p}:{no}: expected 'name<TAB>type', got {len(fields)} field(s)")
            continue
        name, typ = " ".join(fields[0].split()), fields[1].strip()
        if not name:
            problems.append(f"{p}:{no}: empty name")
        elif typ not in types:
            problems.append(
                f"{p}:{no}: type {typ!r} is not an entity type of the schema ({', '.join(sorted(types))})"
            )
        else:
            out.append((name, typ))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InvalidInput(f"{problems[0]}{more}")
    if not out:
        raise InvalidInput(f"{p}: no names in the dictionary")
    return out


def external_names(
    corpus: Any, options: dict[str, Any], types: Collection[str] | None
) -> list[tuple[str, str]]:
    """Names from the registered sources the options name (refused when a source is not there)."""
    out: list[tuple[str, str]] = []
    for option, source in ((k, v) for k, v in options.items() if k in ("kb",)):
        fn = NAME_SOURCES.get(option)
        if fn is None:
            raise InvalidInput(f"option {option!r}: this corpusdb has no {option} names to learn from")
        out.extend(fn(corpus, list(source), types))
    return out
