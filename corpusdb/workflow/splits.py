"""Train/dev/test splits: stratified, group-aware, seeded, reproducible and stable.

Algorithm (why): documents are gathered into groups (same ``group_key``, e.g. the PMID of the paper a
sentence comes from; a document without one is its own group), so a group never crosses splits.
Documents that already have a split never move (that is what makes adding documents later safe), and
a new document whose group is already placed joins that split. The remaining groups are placed one by
one, largest first (a seeded shuffle orders groups of equal size), each into the split where it most
reduces the squared distance between every split's counts and its target share of the whole — the
counts being documents plus the label distribution the user names (entity types, relation labels
1/0/-1, relation types, document labels). This greedy is the usual one for stratified group splits
(e.g. scikit-learn's ``StratifiedGroupKFold``); with the same documents and seed it gives the same
splits.

Labels come from each document's gold set (a document without gold counts as a document only).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import select, update

from corpusdb.basics.errors import UsageError
from corpusdb.basics.names import check_name
from corpusdb.basics.records import Annotations
from corpusdb.services import access
from corpusdb.services.base import ServiceBase
from corpusdb.services.sets import read_contents
from corpusdb.store import tables
from corpusdb.workflow.types import SplitReport, SplitStats

D = tables.document
DEFAULT_RATIOS = (0.7, 0.1, 0.2)
DEFAULT_NAMES = ("train", "dev", "test")
STRATA = ("entity", "relation", "relation_label", "label", "label:NAME")


@dataclass(frozen=True, slots=True)
class DocFeatures:
    external_id: str
    group: str | None
    split: str | None
    counts: Mapping[str, int]


def features(ann: Annotations, stratify: Sequence[str]) -> Counter[str]:
    """The label counts of one document for the named strata."""
    c: Counter[str] = Counter()
    for st in stratify:
        if st == "entity":
            c.update(f"entity:{s.type}" for s in ann.spans)
        elif st == "relation":
            c.update(f"relation:{r.type}" for r in ann.relations)
        elif st == "relation_label":
            c.update(f"relation_label:{'none' if r.label is None else r.label}" for r in ann.relations)
        elif st == "label":
            c.update(f"label:{lb.name}={lb.value}" for lb in ann.labels)
        elif st.startswith("label:"):
            c.update(f"{st}={lb.value}" for lb in ann.labels if lb.name == st[6:])
        else:
            raise UsageError(f"cannot stratify over {st!r}; use {', '.join(STRATA)}")
    return c


def plan(
    docs: Sequence[DocFeatures], names: Sequence[str], ratios: Sequence[float], seed: int
) -> dict[str, str]:
    """The split of every document in scope (those without one, or with one of ``names``)."""
    scope = [d for d in docs if d.split is None or d.split in names]
    groups: dict[str, list[DocFeatures]] = defaultdict(list)
    for d in scope:
        groups[d.group if d.group is not None else f"\0{d.external_id}"].append(d)
    dims = sorted({k for d in scope for k in d.counts})
    total = {"#": float(len(scope)), **{k: float(sum(d.counts.get(k, 0) for d in scope)) for k in dims}}
    weight = {"#": 1.0, **{k: 1.0 / len(dims) for k in dims}}
    target = [{k: r * v for k, v in total.items()} for r in ratios]
    cur = [dict.fromkeys(total, 0.0) for _ in names]
    out: dict[str, str] = {}

    def put(i: int, members: list[DocFeatures]) -> None:
        for d in members:
            out[d.external_id] = names[i]
            cur[i]["#"] += 1
            for k, v in d.counts.items():
                cur[i][k] += v

    free: list[tuple[str, list[DocFeatures]]] = []
    for key in sorted(groups):
        members = groups[key]
        placed = Counter(d.split for d in members if d.split is not None)
        if placed:
            home = max(names, key=lambda n: (placed.get(n, 0), -names.index(n)))
            for d in members:
                put(names.index(d.split) if d.split is not None else names.index(home), [d])
        else:
            free.append((key, members))
    rng = random.Random(seed)
    rng.shuffle(free)
    free.sort(key=lambda g: -len(g[1]))
    for _key, members in free:
        v: Counter[str] = Counter({"#": len(members)})
        for d in members:
            v.update(d.counts)

        def delta(i: int, v: Counter[str] = v) -> tuple[float, float]:
            cost = 0.0
            for k, x in v.items():
                t = max(total[k], 1.0)
                cost += (
                    weight[k] * ((cur[i][k] + x - target[i][k]) ** 2 - (cur[i][k] - target[i][k]) ** 2) / t**2
                )
            return cost, cur[i]["#"] - target[i]["#"]

        best = min(range(len(names)), key=lambda i: (*delta(i), i))
        put(best, members)
    return out


def stats(docs: Sequence[DocFeatures], assignment: Mapping[str, str], names: Sequence[str],
          ratios: Sequence[float]) -> tuple[list[SplitStats], dict[str, int]]:  # fmt: skip
    whole: Counter[str] = Counter()
    per: dict[str, Counter[str]] = {n: Counter() for n in names}
    n_docs: Counter[str] = Counter()
    grp: dict[str, set[str]] = defaultdict(set)
    for d in docs:
        s = assignment.get(d.external_id)
        if s not in per:
            continue
        whole.update(d.counts)
        per[s].update(d.counts)
        n_docs[s] += 1
        grp[s].add(d.group if d.group is not None else f"\0{d.external_id}")
    total_docs = sum(n_docs.values())
    w_total = sum(whole.values())
    out = []
    for n, r in zip(names, ratios, strict=True):
        c = per[n]
        s_total = sum(c.values())
        dist = None
        if w_total and s_total:
            dist = 0.5 * sum(abs(c.get(k, 0) / s_total - whole[k] / w_total) for k in whole)
        out.append(SplitStats(n, n_docs[n], len(grp[n]), n_docs[n] / total_docs if total_docs else 0.0, r,
                              dict(sorted(c.items())), dist))  # fmt: skip
    return out, dict(sorted(whole.items()))


class SplitsMixin(ServiceBase):
    """Assigning documents to train/dev/test (leads)."""

    def split(
        self,
        *,
        ratios: Sequence[float] = DEFAULT_RATIOS,
        names: Sequence[str] = DEFAULT_NAMES,
        seed: int = 0,
        stratify: Sequence[str] = (),
        reset: bool = False,
        dry_run: bool = False,
    ) -> SplitReport:
        """Give every document without a split one of ``names`` (``reset``: re-split everything).

        Documents already split keep their split; groups never cross splits. Returns the
        distribution per split and its distance from the whole (``dry_run``: nothing is written).
        """
        self._require("lead", doing="split the corpus")
        names, ratios = list(names), [float(r) for r in ratios]
        for name in names:
            check_name(name, "split name")  # it becomes a release folder
        if len(names) != len(ratios) or len(set(names)) != len(names) or not names:
            hint = {2: "train/test", 3: "train/dev/test"}.get(
                len(ratios), "/".join(f"s{i + 1}" for i in range(len(ratios)))
            )
            raise UsageError(
                f"{len(ratios)} ratios but {len(names)} split names ({'/'.join(names)}): "
                f"give one name per ratio, distinct, e.g. --names {hint}"
            )
        if any(r < 0 for r in ratios) or sum(ratios) <= 0:
            raise UsageError(f"ratios must be non-negative and not all zero, got {ratios}")
        ratios = [r / sum(ratios) for r in ratios]
        with self._write() as conn:
            rows = conn.execute(
                select(D.c.id, D.c.external_id, D.c.group_key, D.c.split).where(
                    D.c.project_id == self.project_id
                )
            ).all()
            golds = access.visible_sets(conn, self.project_id, self.actor, kind="gold")
            by_doc = (
                {s.info.document_id: s.annotations for s in read_contents(conn, golds)} if stratify else {}
            )
            docs = [
                DocFeatures(ext, grp, None if reset and sp in names else sp, features(by_doc.get(pk, Annotations()), stratify))
                for pk, ext, grp, sp in rows
            ]  # fmt: skip
            before = {ext: sp for _, ext, _, sp in rows}
            assignment = plan(docs, names, ratios, seed)
            changed = {e: s for e, s in assignment.items() if before.get(e) != s}
            if not dry_run and changed:
                ids = {ext: pk for pk, ext, _, _ in rows}
                for name in names:
                    pks = [ids[e] for e, s in changed.items() if s == name]
                    for i in range(0, len(pks), 500):
                        conn.execute(update(D).where(D.c.id.in_(pks[i : i + 500])).values(split=name))
                self._audit(conn, "split", "", seed=seed, ratios=dict(zip(names, ratios, strict=True)),
                            stratify=list(stratify), assigned=len(changed), reset=reset)  # fmt: skip
        per, whole = stats(docs, assignment, names, ratios)
        return SplitReport(seed, dict(zip(names, ratios, strict=True)), tuple(stratify), len(changed),
                           len(assignment) - len(changed), tuple(per), whole)  # fmt: skip
