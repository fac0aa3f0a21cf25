"""BioNLP-ST 2016 Bacteria Biotope categorization (BB-cat): normalisation to OntoBiotope and the NCBI
Taxonomy, scored as the task's official evaluation service did (Deléger et al. 2016, "Overview of
the Bacteria Biotope Task at BioNLP Shared Task 2016", BioNLP Shared Task workshop, pp. 12-22; the
definition below follows the evaluation code the organisers published, ``bionlp-st-core``'s
``task-definition.xml`` task ``BB-cat``, ``WangSimilarity``, ``NormalizationJaccard``).

Entities are given (the ``.a1`` file), so every reference ``Habitat`` and ``Bacteria`` entity is
paired with the same entity in the prediction (the same boundaries and type); its similarity ``S``:

* **Habitat** (OntoBiotope concepts): the semantic similarity of Wang et al. (2007) ("A new method
  to measure the semantic similarity of GO terms", Bioinformatics 23(10):1274-1281), on ``is_a``
  edges only, with the edge weight ``w = 0.65`` the task chose so that an ancestor or descendant is
  credited more than a sibling. For a concept ``A``, the S-value of each ancestor ``t`` (``A``
  included) is ``S_A(A) = 1`` and ``S_A(t) = max over children t' of t on a path from A of
  w x S_A(t')``; ``sim(A, B) = sum over common ancestors t of (S_A(t) + S_B(t)) / (SV(A) + SV(B))``
  with ``SV(X)`` the sum of X's S-values. An entity with several concepts: the best-match average,
  ``(sum_a max_b sim(a, b) + sum_b max_a sim(a, b)) / (|A| + |B|)``.
* **Bacteria** (NCBI Taxonomy ids): exact match, as the official ``NormalizationJaccard`` computes
  it: ``|A ∩ B| / (|A| + |A \\ B|)`` (1 for the same taxon, 0 otherwise; with two reference taxa
  and one of them predicted, 1/3: the official code's own arithmetic, kept so figures compare).

**Precision** (the task's ranking measure, "Main scoring") = sum of S / number of entities paired.
Also given: *Habitats only* (Wang), *Habitats exact* (the exact measure on OntoBiotope ids) and
*Bacteria only*. In :class:`Score` terms tp = ΣS, fp = fn = entities - ΣS (every reference entity is
paired), so P = R = F = the precision above. Where both sides have no concept for an entity, S = 1
(the official code would divide 0 by 0; the task's reference always has one).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from functools import lru_cache

from corpusdb.basics.records import Annotations, Grounding, Span
from corpusdb.evaluation.counts import Score

WANG_WEIGHT = 0.65
HABITAT_DATABASES = ("OntoBiotope", "OBT")
BACTERIA_DATABASES = ("NCBI_Taxonomy", "NCBITaxon", "taxon")


class Wang:
    """Wang et al. (2007) semantic similarity over an ``is_a`` graph (``child -> parents``)."""

    def __init__(self, parents: Mapping[str, Sequence[str]], weight: float = WANG_WEIGHT) -> None:
        if not 0 < weight < 1:
            raise ValueError(f"Wang's edge weight must be in (0, 1), not {weight}")
        self.parents = parents
        self.weight = weight
        self.s_values = lru_cache(maxsize=None)(self._s_values)

    def _s_values(self, concept: str) -> Mapping[str, float]:
        """``S_A(t)`` for ``A = concept`` and each of its ancestors ``t`` (``A`` itself: 1)."""
        out: dict[str, float] = {}
        stack = [(concept, 1.0)]
        while stack:
            node, s = stack.pop()
            if out.get(node, -1.0) >= s:
                continue  # reached before by a path at least as short: nothing better above
            out[node] = s
            stack += [(p, s * self.weight) for p in self.parents.get(node, ())]
        return out

    def similarity(self, a: str, b: str) -> float:
        if a == b:
            return 1.0
        sa, sb = self.s_values(a), self.s_values(b)
        common = sa.keys() & sb.keys()
        if not common:
            return 0.0
        return sum(sa[t] + sb[t] for t in common) / (sum(sa.values()) + sum(sb.values()))

    def set_similarity(self, a: Collection[str], b: Collection[str]) -> float:
        """Best-match average of two sets of concepts (as the official ``compute``)."""
        if not a and not b:
            return 1.0
        best_a = sum(max((self.similarity(x, y) for y in b), default=0.0) for x in a)
        best_b = sum(max((self.similarity(x, y) for y in a), default=0.0) for x in b)
        return (best_a + best_b) / (len(a) + len(b))


def exact(reference: Collection[str], predicted: Collection[str]) -> float:
    """The official ``NormalizationJaccard``: ``|A ∩ B| / (|A| + |A \\ B|)`` (see module docstring)."""
    if not reference and not predicted:
        return 1.0
    inter = sum(1 for x in reference if x in predicted)
    union = len(reference) + sum(1 for x in reference if x not in predicted)
    return inter / union if union else 0.0


def concept(g: Grounding) -> str:
    """A grounding's concept id: the referent of a BioNLP-ST line (``OBT:000965``, ``210``), the
    accession of a brat ``NCBITaxon:210``, the whole ref of a brat ``OBT:000965`` (OBO ids are CURIEs)."""
    if g.extra.get("st"):
        return g.ref
    db, _, acc = g.ref.partition(":")
    return acc if db in BACTERIA_DATABASES and acc else g.ref


def _database(g: Grounding) -> str:
    return g.kind if g.extra.get("st") else g.ref.partition(":")[0]


def concepts(
    span: Span, databases: Collection[str], resolve: Callable[[Grounding], str] = concept
) -> frozenset[str]:
    return frozenset(resolve(g) for g in span.groundings if _database(g) in databases)


def _pairs(ref: Annotations, pred: Annotations, types: Collection[str]) -> list[tuple[Span, Span | None]]:
    """Each reference entity of ``types`` with the prediction's entity of the same type and
    boundaries (the given ``.a1`` entity), or None."""
    by_key: dict[tuple[str, tuple[tuple[int, int], ...]], list[Span]] = {}
    for s in pred.spans:
        by_key.setdefault((s.type, tuple(sorted(s.fragments))), []).append(s)
    out: list[tuple[Span, Span | None]] = []
    for r in ref.spans:
        if r.type not in types:
            continue
        cands = by_key.get((r.type, tuple(sorted(r.fragments))), [])
        same = next((c for c in cands if c.id == r.id), cands[0] if cands else None)
        if same is not None:
            cands.remove(same)
        out.append((r, same))
    return out


def score_bb_norm(
    reference: Mapping[str, Annotations],
    predicted: Mapping[str, Annotations],
    wang: Wang,
    *,
    answered_only: bool = False,
    resolve: Callable[[Grounding], str] = concept,
    habitat: str = "Habitat",
    bacteria: str = "Bacteria",
) -> dict[str, Score]:
    """BB-cat 2016 scores: ``all`` (the task's main score), ``Habitat`` (Wang), ``Habitat exact``,
    ``Bacteria``; a document without prediction scores 0 for each of its entities."""
    names = ("all", "Habitat", "Habitat exact", "Bacteria")
    notes = {
        "all": f"Wang w={wang.weight} for {habitat}, exact for {bacteria} (BB-cat 2016 main score)",
        "Habitat": f"Wang et al. 2007, is_a, w={wang.weight}",
        "Habitat exact": "exact OntoBiotope ids",
        "Bacteria": "exact NCBI Taxonomy ids",
    }
    scores = {n: Score(n, note=notes[n]) for n in names}
    for doc, ref in reference.items():
        if answered_only and doc not in predicted:
            continue
        pred = predicted.get(doc, Annotations())
        for r, p in _pairs(ref, pred, (habitat, bacteria)):
            if r.type == habitat:
                a = concepts(r, HABITAT_DATABASES, resolve)
                b = concepts(p, HABITAT_DATABASES, resolve) if p is not None else frozenset()
                sims = {"Habitat": wang.set_similarity(a, b), "Habitat exact": exact(a, b)}
                sims["all"] = sims["Habitat"]
            else:
                a = concepts(r, BACTERIA_DATABASES, resolve)
                b = concepts(p, BACTERIA_DATABASES, resolve) if p is not None else frozenset()
                sims = {"Bacteria": exact(a, b)}
                sims["all"] = sims["Bacteria"]
            for name, s in sims.items():
                scores[name].add(doc, s, 1 - s, 1 - s)
    return scores
