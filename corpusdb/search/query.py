"""The search query language: one string in, a :class:`Query` out (pure; no database).

A query is terms separated by spaces; every term must hold (AND). A term is:

========================  ====================================================================
``kinase``                a word: whole words only, case-insensitive
``kin*``                  a word prefix (``kinase``, ``kinases``, ``kinetic``)
``"IL-2 receptor"``       a phrase: its words in this order (any whitespace between them)
``/IL-\\d+/`` ``/il/i``   a regular expression (Python syntax; ``i`` after it: ignore case)
``type:Habitat``          a span of that type (``type:Hab*``; ``type:Habitat,Bacterium``: either)
``text:gut``              the span's own text holds the word, phrase, prefix or regex
``attr:mutant``           the span has the attribute (not false); ``attr:Negation=yes``: that value
``grounding:OBT:000001``  grounded to that id (whole key or accession; ``grounding:OBT:*``; ``*``: any)
``label:"gastric"``       grounded to a concept whose knowledge-base label holds these words
``rel:Lives_In``          an argument or trigger of such a relation; ``rel:Lives_In.Location`` in that
                          role; ``rel:*=-1`` of a relation labelled -1 (``rel:TYPE.ROLE=LABEL``)
``annotator:alice``       in alice's sets (``annotator:gold``: gold; ``annotator:alice,bob``)
``kind:prediction``       in sets of that kind (``annotation``, ``gold``, ``prediction``)
``status:submitted``      in sets of that status (``assigned``, ``in_progress``, ``submitted``)
``doc:BTID-10*``          in documents with that id
``agree:alice,bob``       spans both have, same fragments and type
``disagree:alice,bob``    spans one has and the other has not with the same fragments and type
``disagree-type:a,b``     ... same fragments in the other's set, but another type
``disagree-span:a,b``     ... overlapping a span of the other's, other boundaries
``only:a,b``              ... nothing of the other's overlaps it
``-TERM``                 the term does not hold (``-type:Habitat``, ``-grounding:*``)
========================  ====================================================================

Without any annotation field, words, phrases and regexes find places in the documents' *texts*
(text hits); with one (``type:``, ``annotator:``...), the query finds *spans* (span hits), and
unfielded words, phrases and regexes apply to the span's text, as ``text:`` does. ``*`` in a value
is a wildcard. A field name is case-insensitive; an unknown lower-case field (``typ:x``) is refused
rather than searched as a word.

Why a small language of our own rather than an engine's (FTS5's, PostgreSQL's ``tsquery``): the same
query must mean the same on SQLite and PostgreSQL, and must reach annotations (types, groundings,
agreement between two annotators), which no text engine knows about. The engines narrow the
candidates; :mod:`corpusdb.search.patterns` decides what matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpusdb.basics.errors import UsageError
from corpusdb.search.patterns import Pattern, phrase, prefix, regex, word

LIST_FIELDS = ("type", "annotator", "kind", "status", "doc", "grounding")
"""Fields whose value is a comma-separated list of names (globs with ``*``)."""
PATTERN_FIELDS = ("text", "label")
"""Fields whose value is a word, phrase, prefix or regex."""
AGREEMENT_STATES = ("agree", "disagree", "disagree-type", "disagree-span", "only")
OTHER_FIELDS = ("attr", "rel")
FIELDS = LIST_FIELDS + PATTERN_FIELDS + AGREEMENT_STATES + OTHER_FIELDS
ALIASES = {"by": "annotator", "ann": "annotator", "g": "grounding", "document": "doc", "attribute": "attr",
           "relation": "rel", "set-kind": "kind"}  # fmt: skip
SPAN_FIELDS = frozenset(FIELDS) - {"doc"}
"""Fields that make a query look for spans rather than places in the text."""
KINDS = ("annotation", "gold", "prediction")
STATUSES = ("assigned", "in_progress", "submitted")


@dataclass(frozen=True, slots=True)
class TextTerm:
    """An unfielded word, phrase, prefix or regex (``negated``: it must not occur)."""

    pattern: Pattern
    negated: bool = False


@dataclass(frozen=True, slots=True)
class ListTerm:
    """``field:a,b*``: the value is one of these names (``*`` a wildcard)."""

    field: str
    values: tuple[str, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class PatternTerm:
    """``text:`` / ``label:`` with a word, phrase, prefix or regex."""

    field: str
    pattern: Pattern
    negated: bool = False


@dataclass(frozen=True, slots=True)
class AttrTerm:
    name: str
    value: str | None = None
    """None: the attribute is set to anything but false."""
    negated: bool = False


@dataclass(frozen=True, slots=True)
class RelTerm:
    type: str
    """A relation type or ``*``."""
    role: str | None = None
    label: int | None = None
    negated: bool = False


@dataclass(frozen=True, slots=True)
class AgreementTerm:
    """``state:a,b``: spans of a or b in a given agreement state against the other's set."""

    state: str
    first: str
    second: str
    negated: bool = False


Term = TextTerm | ListTerm | PatternTerm | AttrTerm | RelTerm | AgreementTerm


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: its terms (all must hold) and the string it was read from."""

    source: str
    terms: tuple[Term, ...]

    @property
    def finds_spans(self) -> bool:
        """True when the hits are spans (the query names an annotation field), else places in texts."""
        return any(not isinstance(t, TextTerm) and _field(t) in SPAN_FIELDS for t in self.terms)

    def of(self, cls: type) -> list[Term]:
        return [t for t in self.terms if isinstance(t, cls)]

    def names(self, field: str) -> set[str]:
        """Every plain name (no wildcard) a positive list term of ``field`` gives."""
        return {v for t in self.terms if isinstance(t, ListTerm) and t.field == field and not t.negated
                for v in t.values if "*" not in v}  # fmt: skip

    def annotators(self) -> set[str]:
        """Every annotator the query names (``annotator:`` and agreement terms), ``gold`` included."""
        out = self.names("annotator")
        for t in self.terms:
            if isinstance(t, AgreementTerm):
                out |= {t.first, t.second}
        return out


def _field(t: Term) -> str:
    if isinstance(t, ListTerm | PatternTerm):
        return t.field
    if isinstance(t, AttrTerm):
        return "attr"
    if isinstance(t, RelTerm):
        return "rel"
    if isinstance(t, AgreementTerm):
        return t.state
    return ""


_FIELD_NAME = re.compile(r"([A-Za-z][A-Za-z-]*):(?=\S)")


class _Scanner:
    def __init__(self, source: str) -> None:
        self.s = source
        self.i = 0

    def fail(self, message: str, at: int | None = None) -> UsageError:
        at = self.i if at is None else at
        return UsageError(f"query {self.s!r}, at character {at + 1}: {message}")

    def skip_space(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def quoted(self) -> str:
        """A ``"..."`` string (``\\"`` and ``\\\\`` escape), the cursor on its opening quote."""
        start = self.i
        self.i += 1
        out: list[str] = []
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == "\\" and self.i + 1 < len(self.s) and self.s[self.i + 1] in '"\\':
                out.append(self.s[self.i + 1])
                self.i += 2
                continue
            if c == '"':
                self.i += 1
                return "".join(out)
            out.append(c)
            self.i += 1
        raise self.fail('a phrase is not closed (a " is missing)', start)

    def slashed(self) -> tuple[str, str]:
        """A ``/regex/flags``, the cursor on its opening slash; ``\\/`` is a slash in it."""
        start = self.i
        self.i += 1
        out: list[str] = []
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == "\\" and self.i + 1 < len(self.s):
                nxt = self.s[self.i + 1]
                out.append("/" if nxt == "/" else c + nxt)
                self.i += 2
                continue
            if c == "/":
                self.i += 1
                flags = ""
                while self.i < len(self.s) and not self.s[self.i].isspace():
                    flags += self.s[self.i]
                    self.i += 1
                if flags not in ("", "i"):
                    raise self.fail(f"unknown regex flag(s) {flags!r} (only i: ignore case)")
                return "".join(out), flags
            out.append(c)
            self.i += 1
        raise self.fail("a regex is not closed (a / is missing)", start)

    def bare(self) -> str:
        start = self.i
        while self.i < len(self.s) and not self.s[self.i].isspace():
            self.i += 1
        return self.s[start : self.i]

    def pattern(self) -> Pattern:
        """A word, prefix, phrase or regex at the cursor."""
        at = self.i
        if self.s[self.i] == '"':
            value = self.quoted()
            if not value.strip():
                raise self.fail("an empty phrase finds nothing", at)
            return phrase(value)
        if self.s[self.i] == "/":
            source, flags = self.slashed()
            try:
                return regex(source, ignore_case="i" in flags)
            except re.error as exc:
                raise self.fail(f"not a regular expression: {exc}", at) from None
        value = self.bare()
        if value.endswith("*") and len(value) > 1 and "*" not in value[:-1]:
            return prefix(value[:-1])
        if "*" in value:
            raise self.fail(f"{value!r}: a * may only end a word (a prefix), or use a /regex/", at)
        return word(value)


def parse(source: str) -> Query:
    """Read a query string (see the module docstring); a clear ``UsageError`` on anything else."""
    sc = _Scanner(source)
    terms: list[Term] = []
    while True:
        sc.skip_space()
        if sc.i >= len(source):
            break
        negated = False
        if source[sc.i] == "-" and sc.i + 1 < len(source) and not source[sc.i + 1].isspace():
            negated = True
            sc.i += 1
        m = _FIELD_NAME.match(source, sc.i)
        if m is not None:
            name = m.group(1).lower()
            name = ALIASES.get(name, name)
            if name in FIELDS:
                sc.i = m.end()
                terms.append(_field_term(sc, name, negated))
                continue
            if m.group(1).islower() or "-" in m.group(1):
                raise sc.fail(
                    f"unknown field {m.group(1)!r}: one of {', '.join(FIELDS)} (quote a word with a :)"
                )
        terms.append(TextTerm(sc.pattern(), negated))
    if not terms:
        raise UsageError("an empty query: give words, a phrase, a /regex/ or fields such as type:NAME")
    q = Query(source, tuple(terms))
    if not q.finds_spans and all(t.negated for t in terms):
        raise UsageError(f"query {source!r}: every word is negated; say what to find in the texts as well")
    return q


def _names(sc: _Scanner, field: str) -> tuple[str, ...]:
    at = sc.i
    raw = sc.quoted() if sc.s[sc.i] == '"' else sc.bare()
    values = tuple(v for v in raw.split(",") if v)
    if not values:
        raise sc.fail(f"{field}: needs a value", at)
    return values


def _field_term(sc: _Scanner, name: str, negated: bool) -> Term:
    at = sc.i
    if name in PATTERN_FIELDS:
        return PatternTerm(name, sc.pattern(), negated)
    values = _names(sc, name)
    if name in LIST_FIELDS:
        allowed = {"kind": KINDS, "status": STATUSES}.get(name)
        bad = [v for v in values if allowed and v not in allowed]
        if bad:
            raise sc.fail(f"{name}:{bad[0]} is none of {', '.join(allowed or ())}", at)
        return ListTerm(name, values, negated)
    if name in AGREEMENT_STATES:
        if len(values) != 2 or values[0] == values[1]:
            raise sc.fail(f"{name}: names two annotators (or one and gold): {name}:alice,bob", at)
        return AgreementTerm(name, values[0], values[1], negated)
    if name == "attr":
        attr, eq, value = ",".join(values).partition("=")
        return AttrTerm(attr, value if eq else None, negated)
    # rel:TYPE[.ROLE][=LABEL]
    spec, eq, label = ",".join(values).partition("=")
    rtype, dot, role = spec.partition(".")
    lab: int | None = None
    if eq:
        if label not in ("1", "0", "-1"):
            raise sc.fail(f"rel: a relation's label is 1, 0 or -1, not {label!r}", at)
        lab = int(label)
    return RelTerm(rtype or "*", role if dot and role else None, lab, negated)


def glob_regex(value: str) -> re.Pattern[str]:
    """A ``*`` glob as an anchored regex (exact otherwise)."""
    return re.compile("^" + ".*".join(re.escape(p) for p in value.split("*")) + "$", re.DOTALL)
