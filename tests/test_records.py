"""Records: the positional makers used on hot paths build exactly what the dataclasses build."""

from __future__ import annotations

import dataclasses

import pytest

from corpusdb.basics.records import (
    Argument,
    Grounding,
    Relation,
    Span,
    make_argument,
    make_relation,
    make_span,
)


def test_makers_equal_the_dataclass_constructors() -> None:
    g = (Grounding("uniprot:P60568", "IL2", "N1"),)
    assert make_span("T1", "Protein", ((0, 4), (9, 12)), "IL-2 Ra", {"mutant": True}, g, {"ws": "x"}) == Span(
        "T1", "Protein", ((0, 4), (9, 12)), "IL-2 Ra", {"mutant": True}, g, {"ws": "x"}
    )
    args = (make_argument("Theme", "T1"), make_argument("Cause", "E2"))
    assert args == (Argument("Theme", "T1"), Argument("Cause", "E2"))
    made = make_relation("E1", "Binding", args, -1, ("hypothesis",), {}, "T3", "event", {})
    assert made == Relation("E1", "Binding", args, -1, ("hypothesis",), {}, "T3", "event", {})
    assert hash(made.args) == hash(args)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.type = "Other"  # type: ignore[misc]


@pytest.mark.parametrize("cls", [Span, Argument, Relation])
def test_records_built_positionally_have_no_post_init(cls: type) -> None:
    """The makers skip ``__init__``: a record class that gains a ``__post_init__`` (validation,
    normalisation) must not be built by them any more."""
    assert not hasattr(cls, "__post_init__")
