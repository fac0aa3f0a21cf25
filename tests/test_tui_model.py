"""The TUI's pure parts: layout, boundaries, paint, item changes, the editing session (no terminal)."""

from __future__ import annotations

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Argument, Relation, Span
from corpusdb.services.edits import Put, Remove
from guidelines.schema import load_schema
from tui import items as it
from tui.adjudication import to_gold_refs
from tui.colours import faint
from tui.facade import open_facade
from tui.paint import SpanPaint, split_runs
from tui.sample import TEXTS, build_sample, long_document, span
from tui.textmodel import Boundaries, TextLayout, trim

SCHEMA = load_schema("biorelex-1.0")


def test_layout_wraps_at_words_and_maps_offsets_both_ways() -> None:
    text = "alpha beta gamma delta\nepsilon\n\nzeta"
    lay = TextLayout(text, 12)
    assert [text[s:e] for s, e in lay.lines] == ["alpha beta ", "gamma delta", "epsilon", "", "zeta"]
    for off in range(len(text) + 1):
        line = lay.line_of(off)
        assert lay.offset_at(line, lay.x_of(off)) == off
    assert lay.line_of(text.index("\n")) == 1  # the newline shows at the end of its line


def test_layout_breaks_long_words_and_counts_wide_characters() -> None:
    assert [e - s for s, e in TextLayout("x" * 25, 10).lines] == [9, 9, 7]
    lay = TextLayout("蛋白质 binds", 8)
    assert lay.x_of(3) == 6 and lay.offset_at(0, 2) == 1


def test_words_keep_hyphens_and_sentences_split_at_capitals() -> None:
    b = Boundaries(TEXTS["d1"])
    t = TEXTS["d1"]
    assert b.word_at(0) == (0, 4)  # IL-2 is one word
    assert b.next_word(0) == t.index("binds")
    assert b.next_sentence(0) == t.index("Mutant")
    assert b.next_sentence(t.index("Mutant")) == t.index("STAT5")
    assert b.prev_sentence(t.index("STAT5")) == t.index("Mutant")
    assert trim("  IL-2 ", 0, 7) == (2, 6)


def test_paint_innermost_span_wins_and_nesting_is_marked() -> None:
    outer = Span("T1", "protein-complex", ((0, 10),), "")
    inner = Span("T2", "protein", ((2, 4),), "")
    disc = Span("T3", "gene", ((12, 14), (16, 18)), "")
    paint = SpanPaint(20, [outer, inner, disc], SCHEMA.colors())
    assert paint.styles[paint.codes[3]].bgcolor.name == SCHEMA.colors()["protein"]  # type: ignore[union-attr]
    assert paint.styles[paint.codes[3]].underline and not paint.styles[paint.codes[0]].underline
    assert paint.styles[paint.codes[12]].italic and not paint.styles[paint.codes[15]].italic
    # the outer span is overlined all along (around its inner span too); the gap between the
    # discontinuous span's fragments is a faint band of its colour (issue #25.6)
    assert all(paint.styles[paint.codes[i]].overline for i in range(10))
    assert not paint.styles[paint.codes[12]].overline
    assert paint.styles[paint.codes[15]].bgcolor.name == faint(SCHEMA.colors()["gene"])  # type: ignore[union-attr]
    assert [s.id for s in paint.covering(3)] == ["T2", "T1"]
    assert paint.runs(0, 5) == [(0, 2, paint.codes[0]), (2, 4, paint.codes[2]), (4, 5, paint.codes[4])]
    assert split_runs([(0, 5, 1)], [2, 3]) == [(0, 2, 1), (2, 3, 1), (3, 5, 1)]


def test_paint_updated_after_edits_is_the_paint_of_the_new_spans() -> None:
    """An edit repaints only around the spans it changed (``SpanPaint.updated``): after adding,
    removing, retyping, nesting and fragmenting spans the styles are those of a paint from scratch."""
    import random

    text, spans = long_document(3000, 300)
    colors = SCHEMA.colors()
    paint = SpanPaint(len(text), spans, colors)
    rng = random.Random(3)
    current = list(spans)
    types = ("protein", "gene", "chemical", "DNA")
    for step in range(60):
        k = rng.randrange(len(current))
        sp = current[k]
        a, b = sp.fragments[0]
        what = step % 5
        if what == 0:  # a new span inside another: the outer one is overlined from now on
            current.append(Span(f"N{step}", types[step % 4], ((a, a + max(1, (b - a) // 2)),), ""))
        elif what == 1:  # removed: its parent loses its overline, its gap its band
            current.pop(k)
        elif what == 2:  # retyped (a new object with the same id)
            current[k] = Span(sp.id, types[step % 4], sp.fragments, sp.text)
        elif what == 3:  # a fragment added far away: discontinuous, a band between
            c = min(len(text) - 5, b + 40 + rng.randrange(100))
            current[k] = Span(sp.id, sp.type, (*sp.fragments, (c, c + 4)), sp.text)
        else:  # a long span over several others
            c = rng.randrange(len(text) - 200)
            current.insert(rng.randrange(len(current)), Span(f"L{step}", "cell", ((c, c + 150),), ""))
        paint = paint.updated(current)
        fresh = SpanPaint(len(text), current, colors)
        assert [paint.styles[c] for c in paint.codes] == [fresh.styles[c] for c in fresh.codes], step
        assert [s.id for s in paint.covering(a)] == [s.id for s in fresh.covering(a)]


def test_item_changes() -> None:
    text = TEXTS["d1"]
    a, b = span(text, "T1", "protein", "IL-2"), span(text, "T2", "protein", "CD25")
    rel = Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), 1)
    ann = Annotations(spans=(a, b), relations=(rel,))
    assert it.delete_span(ann, "T2") == [Remove("relation", "R1"), Remove("span", "T2")]
    new = it.new_span(ann, text, 16, 18, "cell")
    assert (new.id, new.text) == ("T3", "in")
    frag = it.add_fragment(a, text, 11, 15)
    assert frag.fragments == ((0, 4), (11, 15)) and frag.text == "IL-2 CD25"
    assert it.remove_fragment(frag, text, 12) == a
    assert it.toggle_attribute(it.toggle_attribute(a, "mutant", True), "mutant", True).attributes == {}
    assert [g.ref for g in it.toggle_grounding(a, "uniprot:P60568").groundings] == ["uniprot:P60568"]
    assert it.check_grounding(SCHEMA, "uniprot:P1") is None
    assert "not a database" in (it.check_grounding(SCHEMA, "foo:1") or "")
    assert "db:id" in (it.check_grounding(SCHEMA, "P60568") or "")
    changes, _ = it.set_doc_label(Annotations(), "relevance", "DR")
    assert changes[0] == Put(it.DocLabel("relevance", "DR"))  # type: ignore[attr-defined]
    triage = load_schema("trec-relevance")
    assert it.doc_label_keys(triage)["3"] == ("relevance", "NR", "not relevant")
    assert it.item_ranges(ann, "relation", "R1") == [(0, 4), (11, 15)]


def test_edited_relation_points_at_gold_spans() -> None:
    text = TEXTS["d1"]
    src = Annotations(spans=(span(text, "T7", "protein", "IL-2"), span(text, "T8", "protein", "CD25")))
    gold = Annotations(spans=(span(text, "T1", "protein", "CD25"), span(text, "T2", "gene", "IL-2")))
    rel = Relation("R4", "bind", (Argument("Arg1", "T7"), Argument("Arg2", "T8")), 0)
    moved = to_gold_refs(rel, src, gold)
    assert isinstance(moved, Relation) and [a.ref for a in moved.args] == ["T2", "T1"]
    assert isinstance(to_gold_refs(rel, src, Annotations()), str)


def test_session_saves_in_order_undoes_and_survives_a_stale_version(sqlite_url: str) -> None:
    build_sample(sqlite_url)
    session = open_facade(sqlite_url, "demo", "alice").open_document("d1")
    text = session.text
    session.act([Put(span(text, "T1", "protein", "IL-2"))], "one")
    session.act([Put(span(text, "T2", "protein", "CD25"))], "two")
    assert session.dirty
    out = session.save_pending()
    assert (out.saved, out.error, session.version) == (2, None, 3)
    assert session.undo() == "two" and session.save_pending().saved == 1
    assert session.redo() == "two" and session.save_pending().saved == 1
    alice = Corpus.open("demo", url=sqlite_url, user="alice")
    assert [s.id for s in alice.my_set("d1").annotations.spans] == ["T1", "T2"]
    # Someone else (alice in another window) writes: the next save is refused and the set reloaded.
    alice.edit_set(session.set_id, [Remove("span", "T1")], expected_version=session.version)
    session.act([Put(span(text, "T3", "protein", "STAT5"))], "three")
    out = session.save_pending()
    assert out.stale and out.error and out.reloaded is not None
    session.adopt(out.reloaded)
    assert [s.id for s in session.annotations.spans] == ["T2"] and session.undo_stack == []


def test_long_document_fixture_is_dense() -> None:
    text, spans = long_document()
    assert len(text) == 2000 and len(spans) == 300
    assert any(len(s.fragments) > 1 for s in spans)
    assert all(s.text == " ".join(text[a:b] for a, b in s.fragments) for s in spans)
