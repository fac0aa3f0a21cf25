"""What a word, phrase, prefix or regex of a query matches, and what an index may ask for it (pure).

The rule: a :class:`Pattern` is decided by its Python regex (``rx``), on the text itself, so a query
means the same on SQLite and PostgreSQL and every hit has exact code-point offsets. An index only
narrows the candidates, so what it is asked must hold for *every* text the regex matches (a
superset):

* ``tokens``: the words of the pattern as SQLite's FTS5 ``unicode61`` tokenizer cuts them
  (letters and digits; the rest separates); a word or phrase matches only where these tokens
  stand next to each other, so an FTS5 phrase of them is a superset;
* ``literals``: substrings every match contains, for ``LIKE`` / ``ILIKE`` (PostgreSQL's trigram
  index serves those); taken from a regex's mandatory literal runs when it has some.

Words are case-insensitive (compared as ``str.lower()`` folds them) and whole (not inside a longer
run of letters, digits, ``_`` or combining marks); a regex is as written (``/.../i`` ignores case).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_WORDISH = r"\w\u0300-\u036f"
_WORDCH = re.compile(rf"[{_WORDISH}]")
_RIGHT = rf"(?![{_WORDISH}])"
_TOKEN = re.compile(r"[^\W_]+")
"""A token as FTS5's unicode61 cuts it (near enough: letters and digits)."""
_ASCII_RUN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Pattern:
    """A compiled word, prefix, phrase or regex; see the module docstring."""

    source: str
    """As the user typed it (for messages and output)."""
    kind: str
    """``word``, ``prefix``, ``phrase`` or ``regex`` (``words``: a phrase's words in any order, what
    a document holding a discontinuous span's text is asked)."""
    rx: re.Pattern[str]
    """A regex: as written. Otherwise the lower-cased words, run on the lower-cased text."""
    tokens: tuple[str, ...] = ()
    """The pattern's letters-and-digits runs (none: the full-text index cannot help)."""
    literals: tuple[str, ...] = ()
    text: str = ""
    """The words as typed (what FTS5 is given)."""
    lowered: bool = False
    """``rx`` is run on ``text.lower()`` (words, prefixes and phrases: case-insensitive)."""
    left: bool = False
    """A match must not follow a word character (checked by hand: a look-behind in ``rx`` would
    keep ``re`` from searching for the literal first, ten times slower on abstracts)."""

    @property
    def ignore_case(self) -> bool:
        return self.lowered or bool(self.rx.flags & re.IGNORECASE)

    def finditer(self, text: str) -> Iterator[tuple[int, int]]:
        """Each match's ``(start, stop)`` in code points (non-overlapping, left to right; empty
        matches are skipped)."""
        if not self.lowered:
            for m in self.rx.finditer(text):
                if m.end() > m.start():
                    yield m.start(), m.end()
            return
        low = text.lower()
        where = None if len(low) == len(text) else _positions(text)
        pos, search = 0, self.rx.search
        while (m := search(low, pos)) is not None:
            a, b = m.span()
            if self.left and a > 0 and _WORDCH.match(low, a - 1):
                pos = a + 1  # inside a word: a match may still start later within this one
                continue
            pos = b if b > a else a + 1
            if b > a:
                yield (a, b) if where is None else (where[a], where[b])

    def found_in(self, text: str) -> bool:
        return any(True for _ in self.finditer(text))

    def fts5(self) -> str | None:
        """An FTS5 query every matching text satisfies, or None (the index cannot help). The words go
        to FTS5 as typed, in a quoted phrase, so its own tokenizer cuts the query as it cut the
        texts (``IL-2`` is the phrase ``il 2``; ``İstanbul`` stays one token, as in the texts)."""
        if not self.tokens:
            return None

        def q(s: str) -> str:
            return '"' + s.replace('"', '""') + '"'

        if self.kind == "words":  # the words anywhere, in any order
            return " AND ".join(q(c) for c in self.literals if _TOKEN.search(c))
        return q(self.text) + ("*" if self.kind == "prefix" else "")

    def tsquery(self) -> str | None:
        """A ``tsquery`` (``simple``) over the words index (``corpusdb.store.text_index.words_sql``:
        lexemes are the text's runs of ASCII letters and digits, lower-cased) that every matching
        text satisfies, or None (then the trigram index is asked). Only for words, prefixes and
        phrases typed in ASCII: each run of ``[a-z0-9]`` in them is then a whole lexeme of the text
        (its neighbours are a separator of the query, or a non-word character that the whole-word
        rule asks of the text), the last a prefix for ``kin*``. The runs are ANDed, not a phrase:
        positions past 16,383 are clipped."""
        if self.kind not in ("word", "prefix", "phrase", "words") or not self.lowered:
            return None
        typed = self.text.lower()
        if not typed.isascii():
            return None
        runs = _ASCII_RUN.findall(typed)
        terms = [f"'{r}'" for r in runs if len(r) <= 2000]  # longer: the parser drops them
        if self.kind == "prefix" and runs and typed.endswith(runs[-1]) and len(runs[-1]) <= 2000:
            terms[-1] += ":*"
        return " & ".join(terms) or None

    def like_literals(self) -> tuple[str, ...]:
        """Substrings for ``LIKE``/``ILIKE`` (case-insensitive for ASCII only, so a case-insensitive
        regex offers only its ASCII literals, and a word, prefix or phrase the ASCII runs of its
        lower-cased words that every text it matches holds, :func:`_ascii_runs`: ``β-catenin``
        offers ``-catenin``)."""
        if not self.ignore_case:
            return self.literals
        if not self.lowered:  # a regex's /i: Python folds as LIKE does for ASCII literals
            return tuple(lit for lit in self.literals if lit.isascii())
        out = [r for lit in self.literals for r in _ascii_runs(lit.lower())]
        return tuple(sorted(dict.fromkeys(out), key=len, reverse=True))


def _ascii_runs(lowered: str) -> list[str]:
    """The runs of ASCII characters of a lower-cased word that every text matching it holds, ASCII
    case aside. A text matches where its ``str.lower()`` holds the word, and the only characters
    past ASCII whose ``lower()`` holds an ASCII one are KELVIN SIGN (``k``) and ``İ`` (``i`` and a
    combining dot): so a run is cut at ``k``, and an ``i`` before a combining dot (or ending the
    word: a prefix's match may go on with the dot) is left out; every other character of a run
    stands in the text as itself or its ASCII capital."""
    out: list[str] = []
    for m in re.finditer(r"[\x00-\x7f]+", lowered):
        run, end = m.group(), m.end()
        if run.endswith("i") and (end == len(lowered) or lowered[end] == "\u0307"):
            run = run[:-1]
        out += [r for r in run.split("k") if r]
    return out


def _positions(text: str) -> list[int]:
    """Offset in ``text`` of each offset of ``text.lower()`` (a few characters lower-case to two,
    ``İ`` -> ``i̇``), and one past the end."""
    out: list[int] = []
    for i, c in enumerate(text):
        out += [i] * len(c.lower())
    out.append(len(text))
    return out


def _words(value: str, kind: str, body: str, source: str, literals: tuple[str, ...], last: str) -> Pattern:
    right = _RIGHT if _WORDCH.match(last) else ""
    rx = re.compile(body + right)
    left = bool(_WORDCH.match(value.lower()[0]))
    tokens = tuple(_TOKEN.findall(value.lower()))
    return Pattern(source, kind, rx, tokens, literals, value, lowered=True, left=left)


def word(value: str) -> Pattern:
    """A whole word (``IL-2`` included: its characters in order, not inside a longer word)."""
    return _words(value, "word", re.escape(value.lower()), value, (value,), value.lower()[-1])


def prefix(value: str) -> Pattern:
    """A word starting with ``value`` (``kin*``)."""
    body = re.escape(value.lower()) + rf"[{_WORDISH}]*"
    return _words(value, "prefix", body, value + "*", (value,), "-")


def phrase(value: str) -> Pattern:
    """Words in order, any run of whitespace between them, whole at both ends."""
    chunks = value.split()
    body = r"\s+".join(re.escape(c.lower()) for c in chunks)
    return _words(value.strip(), "phrase", body, f'"{value}"', tuple(chunks), chunks[-1].lower()[-1])


def regex(source: str, *, ignore_case: bool = False) -> Pattern:
    """A Python regular expression (raises ``re.error`` when it is not one)."""
    rx = re.compile(source, re.IGNORECASE if ignore_case else 0)
    shown = f"/{source}/" + ("i" if ignore_case else "")
    return Pattern(shown, "regex", rx, (), _mandatory_literals(source, rx.flags))


def _mandatory_literals(source: str, flags: int) -> tuple[str, ...]:
    """Runs of literal characters every match of the regex contains (its top-level sequence and plain
    groups), longest first; none when the regex cannot be read so (``re._parser`` is CPython's own
    parser: if it changes, the index just helps less)."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(source, flags)
        lit, sub, branch = _parser.LITERAL, _parser.SUBPATTERN, _parser.BRANCH
    except Exception:
        return ()
    runs: list[str] = []

    def walk(seq: object) -> None:
        run: list[str] = []
        for op, arg in seq:  # type: ignore[attr-defined]
            if op is lit:
                run.append(chr(arg))
                continue
            if run:
                runs.append("".join(run))
                run = []
            if op is sub and arg[-1] is not None and not (arg[1] or arg[2]):  # (...) with no inline flags
                walk(arg[-1])
            elif op is branch:
                continue
        if run:
            runs.append("".join(run))

    walk(parsed)
    return tuple(sorted({r for r in runs if r}, key=len, reverse=True))
