"""The HTML agreement report for leads: per-rater summary, every document, one-sided items, per-type n.

Three annotators on two copies of one BB 2011 sentence, figures worked out by hand below. The page
is parsed with the standard library's ``html.parser`` and each table is checked row by row.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.reports import raters as raters_mod
from corpusdb.reports.html import render_html

TEXT = "Bacillus subtilis lives in soil and in the gut of chickens."
BAC = Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis")
SOIL = Span("T2", "Soil", ((27, 31),), "soil")
GUT = Span("T3", "HostPart", ((43, 46),), "gut")
CHICKENS = Span("T4", "Host", ((50, 58),), "chickens")
ENV = Span("T2", "Environment", ((27, 31),), "soil")
SPANS = {
    ("alice", "d1"): (BAC, SOIL, GUT),
    ("alice", "d2"): (BAC, SOIL, GUT),
    ("bob", "d1"): (BAC, SOIL, CHICKENS),
    ("bob", "d2"): (BAC, SOIL, CHICKENS),
    ("carol", "d1"): (BAC, ENV),
    ("carol", "d2"): (BAC, ENV, CHICKENS),
}


class Tables(HTMLParser):
    """Section title (h2) -> (table class, header cells, body rows of cell texts)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, tuple[str, list[str], list[list[str]]]] = {}
        self.scripts = 0
        self._title = ""
        self._in: str | None = None
        self._text = ""
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts += 1
        if tag == "table":
            self.tables[self._title] = (dict(attrs).get("class") or "", [], [])
        elif tag == "tr":
            self._row = []
        elif tag in ("h2", "td", "th"):
            self._in, self._text = tag, ""

    def handle_data(self, data: str) -> None:
        if self._in:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2" and self._in == "h2":
            self._title = self._text
        elif tag in ("td", "th") and self._row is not None:
            self._row.append(self._text)
        elif tag == "tr" and self._row is not None:
            _, head, rows = self.tables[self._title]
            if head:
                rows.append(self._row)
            else:
                head.extend(self._row)
            self._row = None
        if tag == self._in:
            self._in = None


@pytest.fixture
def corpus(sqlite_url: str) -> Corpus:
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    for n in ("alice", "bob", "carol"):
        c.add_annotator(n)
    c.add_documents([Document("d1", TEXT), Document("d2", TEXT)])
    c.assign(["d1", "d2"], ["alice", "bob", "carol"])
    for (who, doc), spans in SPANS.items():
        me = c.as_user(who)
        s = me.my_set(doc).info
        me.replace_set(s.id, Annotations(spans), expected_version=s.version)
        me.submit(s.id)
    return c


def _page(c: Corpus) -> Tables:
    p = Tables()
    p.feed(render_html(c.agreement("spans", types="required").to_dict(), pictures=False))
    return p


def test_per_rater_summary_names_the_outlier(corpus: Corpus) -> None:
    # pair F1 (types required): alice-bob 4/6, alice-carol 2*2/11, bob-carol 2*3/11
    ab, ac, bc = 4 / 6, 4 / 11, 6 / 11
    cls, head, rows = _page(corpus).tables["Per rater"]
    assert cls == "sortable"
    assert head == ["rater", "mean F1", "min F1", "pairs", "items", "one-sided", "from suggestions"]
    assert rows == [  # lowest mean first
        ["carol (lowest)", f"{(ac + bc) / 2:.3f}", f"{ac:.3f}", "2", "5", "0", "0"],
        ["alice", f"{(ab + ac) / 2:.3f}", f"{ac:.3f}", "2", "6", "2", "0"],
        ["bob", f"{(ab + bc) / 2:.3f}", f"{bc:.3f}", "2", "6", "1", "0"],
    ]


def test_every_document_one_sided_items_and_per_type_n(corpus: Corpus) -> None:
    page = _page(corpus)
    assert page.scripts == 1  # the inline sorter, nothing linked
    cls, head, rows = page.tables["Every document (2)"]
    assert cls == "sortable" and head[0] == "document" and head[4] == "pairs"
    assert [(r[0], r[4]) for r in rows] == [("d1", "3"), ("d2", "3")]
    # d1, matched pairs pooled over the three pairs: Bacterium in each, Soil for alice-bob
    assert rows[0][5] == "4"
    _, head, rows = page.tables["One-sided items (3)"]
    assert head == ["document", "rater", "type", "text", "offsets"]
    # gut: only alice (both documents); chickens: only bob on d1 (carol marked it on d2)
    assert rows == [
        ["d1", "alice", "HostPart", "gut", "43-46"],
        ["d1", "bob", "Host", "chickens", "50-58"],
        ["d2", "alice", "HostPart", "gut", "43-46"],
    ]
    _, head, rows = page.tables["Per type"]
    assert head[-1] == "n"
    assert {r[0]: r[-1] for r in rows} == {"Bacterium": "6", "Environment": "2", "Host": "3", "HostPart": "2",
                                           "Soil": "4"}  # fmt: skip


def test_one_sided_list_is_capped_with_the_total(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(raters_mod, "ONE_SIDED_CAP", 2)
    body = corpus.agreement("spans").to_dict()
    assert body["one_sided"]["total"] == 3 and len(body["one_sided"]["rows"]) == 2
    p = Tables()
    p.feed(render_html(body, pictures=False))
    _, _, rows = p.tables["One-sided items (3)"]
    assert len(rows) == 2
    assert "the first 2 of 3" in render_html(body, pictures=False)


def test_per_document_rows_carry_their_items_n(corpus: Corpus) -> None:
    """``n`` of a per-document row: every rater's items on it (d1: 3 + 3 + 2, d2: 3 + 3 + 3), what a
    low per-document F1 rests on (the TUI lead view shows it beside the F1)."""
    rows = corpus.agreement("spans", types="required").to_dict()["per_document"]["rows"]
    assert {r["document"]: r["n"] for r in rows} == {
        d: sum(len(SPANS[(who, d)]) for who in ("alice", "bob", "carol")) for d in ("d1", "d2")
    }
    assert {r["document"]: r["n"] for r in rows} == {"d1": 8, "d2": 9}
