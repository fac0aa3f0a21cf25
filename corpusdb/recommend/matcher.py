"""The string matcher: every occurrence of names already known, found with one Aho-Corasick automaton.

Why pyahocorasick: a dictionary of 10^5 names is matched against a document in one pass over its
text (a regular expression per name would be 10^5 passes). The automaton is built once per model
version and kept in memory (``corpusdb.recommend.models``); matching a 2,000-character document then
takes well under a millisecond.

What it proposes (options, all stated in ``MatcherOptions``):

* names learned with their types and counts (``Names``: name -> type -> times seen), from gold, the
  served annotator's own sets, TSV dictionaries and knowledge bases (``corpusdb.recommend.sources``);
* ``case``: ``sensitive`` (the text must be written as the name), ``insensitive``, or ``auto``
  (names of at least ``auto_min`` characters in any case, shorter ones, mostly abbreviations such as
  ``IL`` or ``CAT``, exactly as written);
* ``boundaries``: ``token`` (a match must start and end on token boundaries, ``tokens.tokenize``:
  ``IL-2`` is found in ``IL-2 binds`` but not in ``IL-2R``) or ``none``;
* names shorter than ``min_length`` characters, without a letter, or seen fewer than ``min_count``
  times are left out;
* the type proposed is the one the name was seen with most; ``score`` is that type's share of the
  name's counts (1.0 when the name always had that type), and proposals under ``min_score`` are
  dropped;
* overlapping matches: the longest wins, then the leftmost (``IL-2 receptor`` over ``IL-2``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpusdb.basics.errors import InvalidInput
from corpusdb.recommend.tokens import tokenize

_LETTER = re.compile(r"[^\W\d_]")
"""A letter (names without one, such as ``2`` or ``--``, are never proposed)."""

Names = dict[str, dict[str, int]]
"""name -> type -> times seen."""

CASES = ("sensitive", "insensitive", "auto")
BOUNDARIES = ("token", "none")


@dataclass(frozen=True, slots=True)
class Proposal:
    """One item a model proposes: a span (type, fragments, text) and how sure it is (0..1)."""

    type: str
    fragments: tuple[tuple[int, int], ...]
    text: str
    score: float

    @property
    def start(self) -> int:
        return self.fragments[0][0]

    @property
    def end(self) -> int:
        return self.fragments[-1][1]


@dataclass(frozen=True, slots=True)
class MatcherOptions:
    case: str = "auto"
    auto_min: int = 5
    boundaries: str = "token"
    min_length: int = 2
    min_count: int = 1
    min_score: float = 0.0

    def __post_init__(self) -> None:
        problems = []
        if self.case not in CASES:
            problems.append(f"case must be one of {', '.join(CASES)}, not {self.case!r}")
        if self.boundaries not in BOUNDARIES:
            problems.append(f"boundaries must be one of {', '.join(BOUNDARIES)}, not {self.boundaries!r}")
        if self.min_length < 1 or self.auto_min < 1 or self.min_count < 1:
            problems.append("min_length, auto_min and min_count must be at least 1")
        if not 0.0 <= self.min_score <= 1.0:
            problems.append(f"min_score must be in [0, 1], not {self.min_score}")
        if problems:
            raise InvalidInput("string matcher options: " + "; ".join(problems))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> MatcherOptions:
        known = {k: v for k, v in (d or {}).items() if k in cls.__dataclass_fields__}
        try:
            return cls(**known)
        except TypeError as exc:
            raise InvalidInput(f"string matcher options: {exc}") from None


def fold(text: str) -> str:
    """Lower case, keeping every character's offset (a character whose lower case is longer,
    such as ``İ``, stays as it is)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def count_names(items: Iterable[tuple[str, str]], into: Names | None = None) -> Names:
    """(name, type) pairs counted into ``Names``."""
    out: Names = {} if into is None else into
    for name, typ in items:
        name = " ".join(name.split())
        if not name:
            continue
        types = out.setdefault(name, {})
        types[typ] = types.get(typ, 0) + 1
    return out


def merge_names(*parts: Mapping[str, Mapping[str, int]]) -> Names:
    out: Names = {}
    for p in parts:
        for name, types in p.items():
            dst = out.setdefault(name, {})
            for t, n in types.items():
                dst[t] = dst.get(t, 0) + n
    return out


@dataclass
class StringMatcher:
    """An automaton over ``names``; ``find`` gives raw hits, ``propose`` the resolved proposals."""

    names: Mapping[str, Mapping[str, int]]
    options: MatcherOptions = field(default_factory=MatcherOptions)
    types: frozenset[str] | None = None
    """Only these types (None: every type)."""

    def __post_init__(self) -> None:
        import ahocorasick  # pyahocorasick: loaded when a matcher is first built

        # One pass, no per-name generator or comprehension: at 10^5 names this loop is most of a
        # cold start (the automaton itself is built in C).
        opts = self.options
        exact_below = {"sensitive": 1 << 30, "insensitive": 0}.get(opts.case, opts.auto_min)
        wanted, min_count, min_length = self.types, opts.min_count, opts.min_length
        letter = _LETTER.search
        auto = ahocorasick.Automaton()
        entries: dict[str, list[tuple[str, Mapping[str, int], bool]]] = {}
        for name, types in self.names.items():
            if len(name) < min_length or letter(name) is None:
                continue
            kept = types if wanted is None else {t: n for t, n in types.items() if t in wanted}
            if not kept or (min_count > 1 and sum(kept.values()) < min_count):
                continue
            low = name.lower()
            key = low if len(low) == len(name) else fold(name)
            entry = (name, kept, len(name) < exact_below)
            found = entries.get(key)
            if found is None:
                entries[key] = [entry]
            else:
                found.append(entry)
        for key, value in entries.items():
            auto.add_word(key, value)
        self.size = len(entries)
        if entries:
            auto.make_automaton()
        self._automaton = auto if entries else None

    def find(self, text: str) -> list[tuple[int, int, Counter[str]]]:
        """Every match ``(start, end, type counts)`` on the boundaries the options ask for."""
        if self._automaton is None or not text:
            return []
        opts = self.options
        if opts.boundaries == "token":
            toks = tokenize(text)
            starts, ends = toks.starts(), toks.ends()
        out = []
        for last, entries in self._automaton.iter(fold(text)):
            end = last + 1
            start = end - len(entries[0][0])
            if opts.boundaries == "token" and (start not in starts or end not in ends):
                continue
            counts: Counter[str] = Counter()
            for name, types, exact in entries:
                if exact and text[start:end] != name:
                    continue
                counts.update(types)
            if counts:
                out.append((start, end, counts))
        return out


def resolve(
    text: str, hits: Sequence[tuple[int, int, Counter[str]]], min_score: float = 0.0
) -> list[Proposal]:
    """Hits of one or several matchers (their counts add up) as proposals: one type per place,
    overlaps resolved longest first, then leftmost."""
    merged: dict[tuple[int, int], Counter[str]] = {}
    for start, end, counts in hits:
        merged.setdefault((start, end), Counter()).update(counts)
    kept: list[Proposal] = []
    taken: list[tuple[int, int]] = []
    for (start, end), counts in sorted(merged.items(), key=lambda kv: (kv[0][0] - kv[0][1], kv[0][0])):
        if any(start < b and end > a for a, b in taken):
            continue
        typ, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        score = n / sum(counts.values())
        if score < min_score:
            continue
        taken.append((start, end))
        kept.append(Proposal(typ, ((start, end),), text[start:end], round(score, 4)))
    kept.sort(key=lambda p: (p.start, p.end))
    return kept


def propose(text: str, matchers: Sequence[StringMatcher]) -> list[Proposal]:
    """What ``matchers`` together propose on ``text`` (the first one's options decide the score cut)."""
    hits = [h for m in matchers for h in m.find(text)]
    return resolve(text, hits, matchers[0].options.min_score if matchers else 0.0)
