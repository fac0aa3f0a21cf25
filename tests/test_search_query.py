"""The search query language and what its words, phrases and regexes match (pure: no database).

The index-facing side (FTS5 tokens, LIKE literals) must be a superset of what the Python matcher
accepts, or a search would miss hits the text holds: checked against SQLite's own FTS5 tokenizer
on real sentences from ../shared/data when present, and on a fixed set of tricky ones always.
"""

from __future__ import annotations

import itertools
import random
import re
import sqlite3

import pytest

from corpusdb.basics.errors import UsageError
from corpusdb.search import kwic
from corpusdb.search.engine import Hit, agreement_states
from corpusdb.search.patterns import phrase, prefix, regex, word
from corpusdb.search.query import AgreementTerm, AttrTerm, ListTerm, PatternTerm, RelTerm, TextTerm, parse
from tests.conftest import SHARED_DATA

TRICKY = [
    "IL-2 binds the IL-2 receptor (IL-2R) in T cells; IL-2-dependent growth.",
    "Ca2+ and p53/p21 at 3.14 mM; the α-helix of NF-κB; x_y and kinase_1.",
    "KINASE kinases Kinase. akinase\nkinase\tkinase",
    "İstanbul strain İİ; café and cafe\u0301; ﬁne straße.",
    "tumor  necrosis\nfactor alpha (TNF-α) and tumor necrosis factors",
]


def spans(p, text):  # type: ignore[no-untyped-def]
    return [text[a:b] for a, b in p.finditer(text)]


def test_words_are_whole_and_case_insensitive() -> None:
    text = TRICKY[2]
    assert spans(word("kinase"), text) == ["KINASE", "Kinase", "kinase", "kinase"]
    assert spans(word("IL-2"), TRICKY[0]) == [
        "IL-2",
        "IL-2",
        "IL-2",
    ]  # not IL-2R; IL-2-dependent is IL-2 then -
    assert spans(word("kinase"), "kinase_1 x") == []  # _ joins a word
    assert spans(prefix("kin"), text) == ["KINASE", "kinases", "Kinase", "kinase", "kinase"]
    assert spans(phrase("tumor necrosis factor"), TRICKY[4]) == ["tumor  necrosis\nfactor"]  # not ...factors
    assert spans(phrase("necrosis factors"), TRICKY[4]) == ["necrosis factors"]


def test_offsets_are_code_points_even_where_lower_case_is_longer() -> None:
    text = TRICKY[3]
    assert "İ".lower() != "i" and len("İ".lower()) == 2
    got = list(word("strain").finditer(text))
    assert [text[a:b] for a, b in got] == ["strain"] and got[0][0] == text.index("strain")
    assert spans(word("straße"), text) == ["straße"]
    assert spans(word("cafe"), text) == []  # cafe + combining accent is another word
    assert spans(word("café"), text) == ["café"]


def test_regex_is_as_written_and_offers_its_mandatory_literals() -> None:
    r = regex(r"IL-\d+R?")
    assert spans(r, TRICKY[0]) == ["IL-2", "IL-2", "IL-2R", "IL-2"]
    assert "IL-" in r.literals
    assert regex(r"kinases?|phosphatase").literals == ()  # an alternative: nothing is mandatory
    assert spans(regex("kinase", ignore_case=True), TRICKY[2])[:2] == ["KINASE", "kinase"]
    assert regex("ß+", ignore_case=True).like_literals() == ()  # LIKE folds ASCII only


def _corpus_sentences(n: int = 300) -> list[str]:
    files = sorted(SHARED_DATA.rglob("*.txt"))[:200] if SHARED_DATA.exists() else []
    out = [s for f in files for s in re.split(r"(?<=[.;])\s+", f.read_text(encoding="utf-8")) if s.strip()]
    random.Random(3).shuffle(out)
    return TRICKY + out[:n]


def test_what_the_index_is_asked_holds_wherever_the_matcher_finds_a_hit() -> None:
    """For every word of real sentences (and a prefix and a two-word phrase from each), the FTS5
    phrase query matches the sentence and every LIKE literal is in it, case folded."""
    checked = 0
    for text in _corpus_sentences():
        words = re.findall(r"\S+", text)
        pats = [word(w.strip(".,;:()[]")) for w in words if w.strip(".,;:()[]")]
        pats += [prefix(w[:3]) for w in words if len(w) > 3 and w[:3].isalnum()]
        pats += [phrase(f"{a} {b}") for a, b in itertools.pairwise(words)]
        c = sqlite3.connect(":memory:")
        c.execute("CREATE VIRTUAL TABLE f USING fts5(t, tokenize='unicode61 remove_diacritics 0')")
        c.execute("INSERT INTO f VALUES (?)", (text,))
        for p in pats:
            if not p.found_in(text):
                continue
            checked += 1
            q = p.fts5()
            if q is not None:
                assert c.execute("SELECT count(*) FROM f WHERE f MATCH ?", (q,)).fetchone()[0] == 1, (
                    p.source,
                    text,
                )
            for lit in p.like_literals():
                assert c.execute("SELECT ? LIKE ?", (text, f"%{lit}%")).fetchone()[0] == 1, (lit, text)
    assert checked > 200


_TRICKY_CHARS = "aAiIkKsSnN-1 \u212a\u0130\u0131\u017f\u0307\u03b2\u00ef\u00df\u00e9\u00c9"
"""ASCII letters and their capitals beside KELVIN SIGN, İ, dotless ı, long ſ, a combining dot, β, ï,
ß, é, É: the characters whose case mapping could make a text match a word ASCII-case-insensitive
``LIKE`` would not find."""


def _ascii_fold(text: str) -> str:
    return text.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"))


def test_a_non_ascii_word_offers_the_ascii_runs_every_match_holds() -> None:
    """A word, prefix or phrase typed with letters past ASCII offers the ASCII runs of its
    lower-cased words as ``LIKE`` literals (so the trigram index narrows ``β-catenin``): each must be
    in every text the word matches, ASCII case folded (what ``LIKE`` / ``ILIKE`` fold at least),
    whatever the text's capitals, KELVIN SIGNs or dotted capital Is."""
    assert word("β-catenin").like_literals() == ("-catenin",)
    assert word("İstanbul").like_literals() == ("stanbul",)  # the i of "i̇" may be the text's İ
    assert word("naïve-kinase").like_literals() == ("inase", "ve-", "na")  # a k may be KELVIN SIGN
    rng = random.Random(29)
    checked = 0
    for _ in range(20_000):
        text = "".join(rng.choice(_TRICKY_CHARS) for _ in range(rng.randint(1, 12)))
        a = rng.randrange(len(text))
        typed = text[a : a + rng.randint(1, 6)]
        typed = typed.lower() if rng.random() < 0.3 else typed.upper() if rng.random() < 0.3 else typed
        if not typed.strip() or typed.isascii():
            continue
        for make in (word, prefix) if " " not in typed.strip() else (phrase,):
            try:
                p = make(typed)
            except (re.error, IndexError):
                continue
            if not p.found_in(text):
                continue
            checked += 1
            for lit in p.like_literals():
                assert _ascii_fold(lit) in _ascii_fold(text), (typed, lit, text)
    assert checked > 500


def test_query_fields_lists_negation_and_errors() -> None:
    q = parse('type:Habitat,Bac* -grounding:* "IL-2  receptor" attr:Negation=yes rel:Lives_In.Location=1 '
              "disagree-type:alice,bob label:gastric annotator:gold OBT:0001")  # fmt: skip
    t = q.terms
    assert t[0] == ListTerm("type", ("Habitat", "Bac*"))
    assert t[1] == ListTerm("grounding", ("*",), negated=True)
    assert isinstance(t[2], TextTerm) and t[2].pattern.kind == "phrase"
    assert t[3] == AttrTerm("Negation", "yes")
    assert t[4] == RelTerm("Lives_In", "Location", 1)
    assert t[5] == AgreementTerm("disagree-type", "alice", "bob")
    assert isinstance(t[6], PatternTerm) and t[6].field == "label"
    assert isinstance(t[8], TextTerm) and t[8].pattern.source == "OBT:0001"  # an id, not a field
    assert q.finds_spans and q.annotators() == {"gold", "alice", "bob"}
    assert not parse("kinase -inhibitor doc:PMID1*").finds_spans
    for bad, why in [
        ("typ:Habitat", "unknown field 'typ'"),
        ('"open phrase', "not closed"),
        ("/[unclosed/", "not a regular expression"),
        ("/x/g", "unknown regex flag"),
        ("status:done", "none of assigned"),
        ("disagree:alice", "names two annotators"),
        ("rel:bind=2", "1, 0 or -1"),
        ("-kinase", "every word is negated"),
        ("  ", "empty query"),
        ("ki*ase", "may only end a word"),
    ]:
        with pytest.raises(UsageError, match=re.escape(why)):
            parse(bad)


def test_agreement_states_by_hand() -> None:
    alice = [
        (1, 0, 4, "", "protein"),
        (2, 10, 14, "", "gene"),
        (3, 20, 25, "", "cell"),
        (4, 30, 33, "", "DNA"),
    ]
    bob = [(11, 0, 4, "", "protein"), (12, 10, 14, "", "protein"), (13, 21, 27, "", "cell")]
    got = agreement_states(alice, bob)
    assert got[1] == {"agree"}
    assert got[2] == {"disagree", "disagree-type"}
    assert got[3] == {"disagree", "disagree-span"}
    assert got[4] == {"disagree", "only"}
    assert agreement_states(bob, alice)[12] == {"disagree", "disagree-type"}


def test_kwic_line_names_document_offsets_and_labels() -> None:
    h = Hit("BTID-1", 10, 14, "soil", left="lives\nin the ", right=" of x", fragments=((10, 14),),
            set_id=3, annotator="gold", set_kind="gold", status="submitted", item="T2", type="Habitat",
            groundings=(("OBT:000427", "soil"), ("OBT:9", None)))  # fmt: skip
    line = kwic.line(h, 13)
    assert line == "BTID-1\t10-14\tgold T2 Habitat OBT:000427 (soil) OBT:9\tlives in the [soil] of x"
    assert kwic.line(Hit("d", 0, 2, "ab", fragments=((0, 1), (2, 3))), 0).split("\t")[1] == "0-1,2-3"
