"""The rules of making and editing entities, without a terminal (tui/clusters.py, items.delete_span)."""

from __future__ import annotations

import pytest

from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations, Argument, Entity, Note, Relation, Span
from corpusdb.services.edits import Put, Remove, apply_changes
from guidelines.schema import load_schema
from tui import clusters as cl
from tui import items as it

BX = load_schema("biorelex-1.0")
BB = load_schema("bb-2011")
READ = {"cluster": 0, "name": 0, "mention": 0, "cluster_mentioned": True, "name_mentioned": True}
ANN = Annotations(
    spans=(
        Span("T1", "protein", ((0, 4),), "IL-2", extra=READ),
        Span("T2", "protein", ((10, 14),), "CD25"),
        Span("T3", "gene", ((20, 24),), "STAT"),
    ),
    relations=(Relation("R1", "bind", (Argument("Arg1", "C1"), Argument("Arg2", "C1"))),),
    notes=(Note("#1", "AnnotatorNotes", "C2", "why"),),
    entities=(Entity("C1", "protein", ("T1",), extra={"cluster": 0}), Entity("C2", "protein", ("T2",))),
)


def test_leaving_drops_the_read_in_placement_and_an_empty_entity_with_its_notes() -> None:
    t2 = ANN.span("T2")
    assert cl.leave(ANN, t2) == [Remove("note", "#1"), Remove("entity", "C2")]
    new, undo = apply_changes(ANN, cl.leave(ANN, t2))
    assert new.entities == (ANN.entities[0],) and new.notes == ()
    assert apply_changes(new, undo)[0] == ANN  # the inverse restores it exactly


def test_an_entity_a_relation_points_at_is_not_emptied() -> None:
    with pytest.raises(InvalidInput, match="R1"):
        cl.leave(ANN, ANN.span("T1"))
    with pytest.raises(InvalidInput, match="R1"):
        cl.join(ANN, ANN.span("T1"), "C2")  # moving out of it empties it too


def test_joining_takes_the_entity_type_and_forgets_the_old_cluster() -> None:
    new, _ = apply_changes(ANN, cl.join(ANN, ANN.span("T3"), "C2"))
    assert new.entities[1].members == ("T2", "T3") and new.span("T3").type == "protein"
    moved = Annotations(spans=ANN.spans, entities=ANN.entities)  # no relation: T1 may leave C1
    new, _ = apply_changes(moved, cl.join(moved, moved.span("T1"), "C2"))
    assert [e.id for e in new.entities] == ["C2"] and new.entities[0].members == ("T2", "T1")
    assert new.span("T1").extra == {"name_mentioned": True}  # not regrouped by its old index on export
    with pytest.raises(InvalidInput, match="already"):
        cl.join(ANN, ANN.span("T2"), "C2")


def test_new_entity_of_free_spans_only() -> None:
    entity, changes = cl.new_entity(ANN, [ANN.span("T3")])
    assert entity == Entity("C3", "gene", ("T3",)) and changes == [Put(entity)]
    with pytest.raises(InvalidInput, match="already in an entity"):
        cl.new_entity(ANN, [ANN.span("T3"), ANN.span("T2")])


def test_relation_arguments_are_entities_only_where_the_schema_says_so() -> None:
    assert BX.rules.relations_join_entities and not BB.rules.relations_join_entities
    assert cl.relation_ref(ANN, BX, "T1") == "C1" and cl.relation_ref(ANN, BX, "T3") == "T3"
    assert cl.relation_ref(ANN, BB, "T1") == "T1"


def test_deleting_the_last_member_removes_the_entity_and_what_points_at_it() -> None:
    changes = it.delete_span(ANN, "T1")
    assert changes == [Remove("relation", "R1"), Remove("entity", "C1"), Remove("span", "T1")]
    new, undo = apply_changes(ANN, changes)
    assert [e.id for e in new.entities] == ["C2"] and new.relations == ()
    assert apply_changes(new, undo)[0] == ANN


def test_dissolving_keeps_the_members_and_takes_what_points_at_the_entity() -> None:
    gone, changes = cl.dissolve(ANN, "C1")
    assert gone == ["R1"]
    new, undo = apply_changes(ANN, changes)
    assert [e.id for e in new.entities] == ["C2"] and new.relations == () and new.spans[1:] == ANN.spans[1:]
    assert new.span("T1").extra == {"name_mentioned": True}  # free of the cluster it was read in
    assert apply_changes(new, undo)[0] == ANN
    gone, changes = cl.dissolve(ANN, "C2")
    assert gone == ["#1"] and apply_changes(ANN, changes)[0].notes == ()  # its note goes too
    with pytest.raises(InvalidInput):
        cl.dissolve(ANN, "C9")


def test_moving_to_a_new_entity_of_its_own() -> None:
    two = Annotations(spans=ANN.spans, entities=(Entity("C1", "protein", ("T1", "T2")),))
    entity, changes = cl.move_to_new(two, two.span("T1"))
    new, undo = apply_changes(two, changes)
    assert entity == Entity("C2", "protein", ("T1",)) and new.entities == (
        Entity("C1", "protein", ("T2",)),
        entity,
    )
    assert new.span("T1").extra == {"name_mentioned": True}
    assert apply_changes(new, undo)[0] == two
    with pytest.raises(InvalidInput, match="alone"):
        cl.move_to_new(ANN, ANN.span("T2"))  # alone already: nothing to move
    with pytest.raises(InvalidInput):
        cl.move_to_new(ANN, ANN.span("T3"))  # in no entity
