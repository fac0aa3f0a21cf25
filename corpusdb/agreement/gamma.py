"""Mathet, Widlöcher & Métivier's (2015) gamma for unitizing + categorising, two or more annotators.

gamma = 1 - disorder(best alignment) / expected disorder. Why hand-written: the reference
implementation (pygamma-agreement) pulls in numba, cvxpy, GLPK and pyannote; here the best
alignment is the same integer program solved with ``scipy.optimize.milp`` (HiGHS):

* a unitary alignment takes at most one unit (or the empty unit) from each annotator; its
  disorder is the mean over annotator pairs of d(u, v) = alpha * d_pos + beta * d_cat with
  d_pos = ((|s_u - s_v| + |e_u - e_v|) / (l_u + l_v))^2, d_cat = 0/1, and d(u, empty) =
  d(empty, empty) = delta_empty (pygamma-agreement's convention: a unit left alone costs delta_empty
  whatever the number of annotators; counting empty pairs as 0 gave a lower, wrong disorder from
  three annotators on);
* the best alignment covers every unit exactly once at least total disorder; its disorder is that
  total divided by the mean number of units per annotator.

Candidates are all unitary alignments, pruned exactly: one with k real units and disorder above
k delta_empty is beaten by its k singletons, and the search stops early (``_disorders``). Fine for a
document of a few hundred units, not for a corpus in one continuum (compute per document).

The expected disorder is the mean best-alignment disorder of ``n_samples`` random continua drawn
with the statistical sampler of Mathet et al. (the model of pygamma's default sampler: normal
numbers of units, gaps and lengths, categories by frequency). It is stochastic (seeded with
numpy's ``default_rng``, not pygamma's global seed), so gamma agrees with pygamma within sampling
noise only; the best-alignment disorder is exact.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np

from corpusdb.agreement.results import AgreementInputError, _ToDict

GammaUnit = tuple[Hashable, float, float, str]
"""(annotator, start, end, category)."""

MAX_CANDIDATES = 2_000_000


@dataclass(frozen=True, slots=True)
class GammaResult(_ToDict):
    gamma: float | None
    best_alignment_disorder: float
    expected_disorder: float | None
    n_samples: int
    seed: int | None
    note: str = ""


def _disorders(
    units: list[GammaUnit], annotators: list[Hashable], alpha: float, beta: float, delta_empty: float
) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Candidate unitary alignments (unit index per annotator, -1 = empty) and their disorders.

    Enumerated depth first, one annotator after the other, with an exact bound instead of the full
    product (which is astronomical on a real document): an alignment of k real units is kept only
    when its disorder is at most that of its k singletons (``allowance``); a partial alignment whose sum already exceeds that allowance
    for the most units it can still reach is abandoned. The alignments kept are the same as the
    product's after the same test (so the best alignment is unchanged), and far from all are visited.
    """
    n = len(annotators)
    by = [[i for i, u in enumerate(units) if u[0] == a] for a in annotators]
    s = np.array([u[1] for u in units], dtype=float)
    e = np.array([u[2] for u in units], dtype=float)
    codes = {c: k for k, c in enumerate(dict.fromkeys(u[3] for u in units))}
    cat = np.array([codes[u[3]] for u in units])
    pos = (
        (np.abs(s[:, None] - s[None, :]) + np.abs(e[:, None] - e[None, :]))
        / ((e - s)[:, None] + (e - s)[None, :])
    ) ** 2
    d = alpha * pos + beta * (cat[:, None] != cat[None, :])
    pairs = n * (n - 1) / 2

    def empties(k: int) -> float:
        """The empty-unit cost of an alignment of k real units: every pair with an empty unit costs
        delta_empty, two empty units included (pygamma-agreement's convention, so a singleton costs
        delta_empty whatever the number of annotators)."""
        return (k * (n - k) + (n - k) * (n - k - 1) / 2) * delta_empty

    def allowance(k: int) -> float:
        """The most sum of d over real pairs an alignment of k real units may have and still cost no
        more than its k singletons (k * delta_empty); it grows with k."""
        return k * delta_empty * pairs - empties(k) + 1e-12

    cap = allowance(n)
    near = d <= cap  # a pair beyond the largest allowance is in no kept alignment
    level_of = np.empty(len(units), dtype=int)
    for lv, b in enumerate(by):
        level_of[b] = lv
    nbr: list[list[list[int]]] = [[[] for _ in range(n)] for _ in units]
    for x, y in zip(*np.nonzero(near), strict=True):
        nbr[int(x)][int(level_of[y])].append(int(y))
    cands: list[tuple[int, ...]] = []
    costs: list[float] = []
    combo = [-1] * n

    def visit(level: int, real: list[int], sum_d: float) -> None:
        if len(cands) > MAX_CANDIDATES:
            raise AgreementInputError(
                f"more than {MAX_CANDIDATES} candidate alignments: too many for one continuum; "
                "compute gamma per document"
            )
        k = len(real)
        if sum_d > allowance(k + (n - level)):
            return
        if level == n:
            if k == 0 or (k > 1 and sum_d > allowance(k)):
                return  # nothing, or its singletons are cheaper
            cands.append(tuple(combo))
            costs.append((sum_d + empties(k)) / pairs)
            return
        combo[level] = -1
        visit(level + 1, real, sum_d)
        for x in nbr[real[0]][level] if real else by[level]:
            if all(near[x, y] for y in real[1:]):
                combo[level] = x
                visit(level + 1, [*real, x], sum_d + float(sum(d[x, y] for y in real)))
        combo[level] = -1

    visit(0, [], 0.0)
    return cands, np.asarray(costs)


def best_alignment_disorder(
    units: Iterable[GammaUnit],
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    delta_empty: float = 1.0,
    annotators: list[Hashable] | None = None,
) -> float:
    """The disorder of the best (least disorder) alignment, by integer programming."""
    us = list(units)
    anns = annotators if annotators is not None else sorted({u[0] for u in us}, key=repr)
    if len(anns) < 2:
        raise AgreementInputError("gamma needs at least two annotators")
    if not us:
        return 0.0
    for u in us:
        if u[2] <= u[1]:
            raise AgreementInputError(f"unit {u!r} has no length")
    cands, costs = _disorders(us, anns, alpha, beta, delta_empty)
    rows, cols = [], []
    for k, combo in enumerate(cands):
        for x in combo:
            if x >= 0:
                rows.append(x)
                cols.append(k)
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    a = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(us), len(cands)))
    res = milp(
        costs, constraints=LinearConstraint(a, 1, 1), integrality=np.ones(len(cands)), bounds=Bounds(0, 1)
    )
    if not res.success:  # pragma: no cover - the singletons are always feasible
        raise AgreementInputError(f"no alignment found: {res.message}")
    mean_units = len(us) / len(anns)
    return float(res.fun / mean_units)


def _sample_continuum(
    units: list[GammaUnit], anns: list[Hashable], rng: np.random.Generator
) -> list[GammaUnit]:
    """One random continuum from the observed statistics (Mathet et al.'s statistical sampler, as
    pygamma's ``StatisticalContinuumSampler``): per annotator a normal number of units, each after a
    normal gap from the previous one, with a normal (absolute) length and a category drawn by
    frequency."""
    gaps: list[float] = []
    for a in anns:
        mine = sorted((u[1], u[2]) for u in units if u[0] == a)
        gaps.extend(mine[i][0] - mine[i - 1][1] for i in range(1, len(mine)))
        if mine and mine[0][0] > 0:
            gaps.append(mine[0][0])
    lengths = np.array([u[2] - u[1] for u in units], dtype=float)
    counts = np.array([sum(1 for u in units if u[0] == a) for a in anns], dtype=float)
    cats, freq = np.unique([u[3] for u in units], return_counts=True)
    gap_mu, gap_sd = (float(np.mean(gaps)), float(np.std(gaps))) if gaps else (0.0, 0.0)
    out: list[GammaUnit] = []
    for a in anns:
        last = 0.0
        for _ in range(max(1, int(rng.normal(counts.mean(), counts.std())))):
            start = last + rng.normal(gap_mu, gap_sd)
            end = start + abs(rng.normal(lengths.mean(), lengths.std()))
            if end > start:
                out.append((a, start, end, str(rng.choice(cats, p=freq / freq.sum()))))  # type: ignore[arg-type]
            last = end
    return out


def gamma_agreement(
    units: Iterable[GammaUnit],
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    delta_empty: float = 1.0,
    n_samples: int = 30,
    seed: int | None = 0,
) -> GammaResult:
    """Gamma of ``(annotator, start, end, category)`` units (one continuum, e.g. one document)."""
    us = list(units)
    anns = sorted({u[0] for u in us}, key=repr)
    best = best_alignment_disorder(us, alpha=alpha, beta=beta, delta_empty=delta_empty, annotators=anns)
    if n_samples < 1:
        raise AgreementInputError("n_samples must be at least 1")
    rng = np.random.default_rng(seed)
    exp = []
    for _ in range(n_samples):
        sample = _sample_continuum(us, anns, rng)
        if sample:
            exp.append(
                best_alignment_disorder(
                    sample, alpha=alpha, beta=beta, delta_empty=delta_empty, annotators=anns
                )
            )
    expected = float(np.mean(exp)) if exp else None
    if not expected:
        return GammaResult(
            None, best, expected, n_samples, seed, note="expected disorder is 0: gamma undefined"
        )
    return GammaResult(1 - best / expected, best, expected, n_samples, seed)
