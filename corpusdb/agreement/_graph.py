"""A tiny union-find for span clusters (transitive closure of symmetric links)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable


class UnionFind:
    """Disjoint sets over hashable nodes; ``find`` gives a deterministic representative."""

    def __init__(self, nodes: Iterable[Hashable] = ()) -> None:
        self.parent: dict[Hashable, Hashable] = {}
        for n in nodes:
            self.add(n)

    def add(self, x: Hashable) -> None:
        self.parent.setdefault(x, x)

    def find(self, x: Hashable) -> Hashable:
        self.add(x)
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, x: Hashable, y: Hashable) -> None:
        rx, ry = self.find(x), self.find(y)
        if rx != ry:
            lo, hi = sorted((rx, ry), key=repr)
            self.parent[hi] = lo

    def groups(self) -> list[list[Hashable]]:
        out: dict[Hashable, list[Hashable]] = {}
        for n in self.parent:
            out.setdefault(self.find(n), []).append(n)
        return [sorted(g, key=repr) for g in out.values()]
