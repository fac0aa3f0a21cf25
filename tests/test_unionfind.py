"""The one union-find every cluster computation uses (corpusdb.basics.unionfind)."""

from __future__ import annotations

import pytest

from corpusdb.basics.unionfind import UnionFind


def test_groups_are_the_transitive_closure_and_roots_follow_the_rule() -> None:
    edges = [("T3", "T1"), ("T2", "T3"), ("T5", "T4")]
    for root, expect in (("first", {"T3", "T5"}), ("min", {"T1", "T4"}), ("repr", {"T1", "T4"})):
        uf = UnionFind(["T3", "T2", "T1", "T5", "T4", "T6"], root=root)
        for a, b in edges:
            uf.union(a, b)
        assert {uf.find(x) for x in ("T1", "T2", "T3", "T4", "T5")} == expect, root
        assert sorted(map(sorted, uf.groups())) == [["T1", "T2", "T3"], ["T4", "T5"], ["T6"]]
        assert uf.find("T7") == "T7"  # an unseen node is a group of its own, added


def test_first_seen_root_keeps_the_reading_order_in_groups() -> None:
    uf = UnionFind(root="first")
    for a, b in [("b", "a"), ("c", "a")]:
        uf.union(a, b)
    assert uf.groups() == [["b", "a", "c"]]


def test_min_root_is_the_smallest_and_repr_any_node() -> None:
    uf = UnionFind(root="min")
    uf.union(10, 2)
    uf.union(2, 7)
    assert uf.find(7) == 2
    mixed = UnionFind()  # repr: nodes that do not compare still get a stable root
    mixed.union(("span", 1), "x")
    assert mixed.find(("span", 1)) == "x"  # repr "'x'" sorts before "('span', 1)"


def test_a_root_rule_that_does_not_exist_is_refused() -> None:
    with pytest.raises(ValueError, match="root must be"):
        UnionFind(root="last")
