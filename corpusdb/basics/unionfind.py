"""One union-find (disjoint sets) for every cluster computation: entities from symmetric links in the
store and the importers (``corpusdb.basics.clusters``), and co-reference chains in the agreement engine.

Why hand-written: a dozen lines; networkx or scipy's ``DisjointSet`` would add an import (and, for
scipy, ~0.1 s of start-up) to commands that only group a few hundred spans.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any


def _itself(x: Any) -> Any:
    return x


class UnionFind:
    """Disjoint sets over hashable nodes, with a deterministic representative.

    ``root``: which member represents a group — ``"first"`` (the first added: clusters keep the order
    in which their members were read), ``"min"`` (the smallest, for comparable nodes) or ``"repr"``
    (the smallest ``repr``: independent of order, for any nodes).
    """

    def __init__(self, nodes: Iterable[Hashable] = (), *, root: str = "repr") -> None:
        if root not in ("first", "min", "repr"):
            raise ValueError(f"root must be 'first', 'min' or 'repr', not {root!r}")
        self.parent: dict[Hashable, Hashable] = {}
        self._seen: dict[Hashable, int] = {}
        self._key: Callable[[Any], Any] = {"first": self._seen.__getitem__, "min": _itself, "repr": repr}[
            root
        ]
        for n in nodes:
            self.add(n)

    def add(self, x: Hashable) -> None:
        if x not in self.parent:
            self.parent[x] = x
            self._seen[x] = len(self._seen)

    def find(self, x: Hashable) -> Hashable:
        self.add(x)
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:  # path compression
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, x: Hashable, y: Hashable) -> None:
        rx, ry = self.find(x), self.find(y)
        if rx != ry:
            lo, hi = sorted((rx, ry), key=self._key)
            self.parent[hi] = lo

    def groups(self) -> list[list[Hashable]]:
        """Every group, its members sorted by the same rule as the representative."""
        out: dict[Hashable, list[Hashable]] = {}
        for n in self.parent:
            out.setdefault(self.find(n), []).append(n)
        return [sorted(g, key=self._key) for g in out.values()]
