"""One-to-one span matching between two annotation sets of the same documents, and its agreement.

Criteria (a pair of spans is *eligible* when):

``exact``          same fragments (a discontinuous span: the same fragment set)
``left``/``right`` same start / same end
``left_or_right``  either
``approximate``    one span's characters contain the other's
``overlap``        any character in common, full credit (formerly ``partial``, still accepted: not
                   SemEval-2013's half-credit partial, which :func:`semeval_counts` gives)
``fragment``       the same set of tokens covered (token level; needs the document texts)
``jaccard``        characters in common / characters in either >= the threshold

Types are ``required`` (equal), ``ignored``, or ``merged`` (equal after mapping the user's classes,
e.g. protein+DNA+RNA -> macromolecule). Discontinuous spans are compared on the characters their
fragments cover. Spans without fragments (a name without a mention) are left out and counted.

Matching (:func:`match_pairs`): a maximum-cardinality one-to-one matching of eligible pairs that
prefers high scores (Jaccard overlap, plus a bonus for equal types). Candidates come from a
sort-based interval join (``numpy.searchsorted``: no O(n^2) loop). A vectorised greedy by
descending score (deterministic tie-break) matches almost everything; the only components of the
candidate graph where a larger matching could exist (an unmatched span on each side) are then
re-solved exactly with ``scipy.optimize.linear_sum_assignment``. The result is deterministic, has
maximum cardinality, and is score-optimal where it was re-solved, greedy elsewhere.

One-sided spans (``policy``): a span of A without a partner is ``only_a`` (a miss with A as the
reference), one of B is ``only_b``; P/R/F1 use them, the kappa/alpha on types use matched pairs
only (a one-sided span has no type to compare: chance agreement on "presence" is undefined).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from corpusdb.agreement.coefficients import cohen_kappa, krippendorff_alpha_table, scott_pi
from corpusdb.agreement.results import PRF, AgreementInputError, Coefficient, _ToDict
from corpusdb.basics.records import Span

Criterion = Literal[
    "exact", "left", "right", "left_or_right", "approximate", "overlap", "partial", "fragment", "jaccard"
]
CRITERIA: tuple[str, ...] = (
    "exact",
    "left",
    "right",
    "left_or_right",
    "approximate",
    "overlap",
    "fragment",
    "jaccard",
)
OLD_NAMES = {"partial": "overlap"}
"""Old criterion names, still accepted: ``partial`` gave full credit to any overlap, which SemEval-2013's
(and nervaluate's) ``partial`` does not (half credit); ours is named ``overlap`` so it cannot be mistaken."""


def canonical_criterion(criterion: str) -> str:
    """A criterion under its current name (``partial`` -> ``overlap``)."""
    return OLD_NAMES.get(criterion, criterion)


TypeMode = Literal["required", "ignored", "merged"]
TYPE_MODES: tuple[str, ...] = ("required", "ignored", "merged")

POLICY = (
    "one-to-one matching; an unmatched span of A counts as only_a (false negative, A = reference), "
    "of B as only_b (false positive); type kappa/alpha over matched pairs only"
)

DocumentSpans = Mapping[str, tuple[Sequence[Span], Sequence[Span]]]


def _merge_fragments(frags: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for s, e in sorted(frags):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return tuple((s, e) for s, e in out)


class _Side:
    """One annotator's spans of all documents as flat arrays."""

    def __init__(self, per_doc: Sequence[Sequence[Span]], type_codes: dict[str, int]) -> None:
        flat = [sp for spans in per_doc for sp in spans]
        doc_all = np.repeat(
            np.arange(len(per_doc), dtype=np.int32),
            np.fromiter((len(x) for x in per_doc), dtype=np.int64, count=len(per_doc)),
        )
        frs = [sp.fragments for sp in flat]
        nfr = np.fromiter((len(f) for f in frs), dtype=np.int64, count=len(frs))
        keep = nfr > 0
        self.excluded = int((~keep).sum())
        if not keep.all():
            idx = np.flatnonzero(keep)
            flat = [flat[i] for i in idx]
            frs = [frs[i] for i in idx]
            doc_all, nfr = doc_all[idx], nfr[idx]
        n = len(flat)
        self._ids: list[str] | None = [sp.id for sp in flat]
        for sp in flat:
            if sp.type not in type_codes:
                type_codes[sp.type] = len(type_codes)
        # int32 everywhere it fits: at 10^6 spans every byte per candidate pair counts
        self.type = np.fromiter((type_codes[sp.type] for sp in flat), dtype=np.int32, count=n)
        self.doc = doc_all.astype(np.int32)
        self.start = np.fromiter((f[0][0] for f in frs), dtype=np.int32, count=n)
        self.end = np.fromiter((f[0][1] for f in frs), dtype=np.int32, count=n)
        self.disc: dict[int, tuple[tuple[int, int], ...]] = {}
        for i in np.flatnonzero(nfr > 1).tolist():
            m = _merge_fragments(frs[i])
            self.start[i], self.end[i] = m[0][0], m[-1][1]
            if len(m) > 1:
                self.disc[i] = m
        self.is_disc = np.zeros(n, dtype=bool)
        if self.disc:
            self.is_disc[list(self.disc)] = True

    @classmethod
    def from_columns(cls, cols: SpanColumns, docs: Sequence[str], type_codes: dict[str, int]) -> _Side:
        """The same side from columns (no records): the documents ``docs``, in that order. A
        document the rater has no set on has no spans (an unanswered document counted as misses)."""
        self = cls.__new__(cls)
        pos = {d: i for i, d in enumerate(cols.doc_ids)}
        di = np.fromiter((pos.get(d, -1) for d in docs), dtype=np.int64, count=len(docs))
        have = di >= 0
        lo = np.where(have, cols.offsets[np.where(have, di, 0)], 0)
        hi = np.where(have, cols.offsets[np.where(have, di + 1, 0)], 0)
        owner, rows = _expand(lo, hi)
        empty = [r for r, f in cols.fragments.items() if not f]
        self.excluded = 0
        if empty:
            drop = np.zeros(len(cols.type), dtype=bool)
            drop[empty] = True
            keep = ~drop[rows]
            self.excluded = int((~keep).sum())
            owner, rows = owner[keep], rows[keep]
        n = len(rows)
        self._ids = None  # read from the columns when asked (alignment): 10^6 strings otherwise
        self._ids_from = (cols.ids, rows)
        local = cols.type[rows]
        # codes in order of first appearance, as the record path assigns them
        uniq, first = _first_seen(local, len(cols.type_names))
        lut = np.zeros(max(len(cols.type_names), 1), dtype=np.int32)
        for c in uniq[np.argsort(first, kind="stable")].tolist():
            lut[c] = type_codes.setdefault(cols.type_names[c], len(type_codes))
        self.type = lut[local]
        self.doc = owner.astype(np.int32)
        self.start = cols.start[rows].astype(np.int32)
        self.end = cols.end[rows].astype(np.int32)
        self.disc = {}
        self.is_disc = np.zeros(n, dtype=bool)
        several = [r for r, f in cols.fragments.items() if len(f) > 1]
        if several:
            at = np.full(len(cols.type), -1, dtype=np.int64)
            at[rows] = np.arange(n)
            for r in several:
                i = int(at[r])
                if i < 0:  # a document not compared
                    continue
                m = _merge_fragments(cols.fragments[r])
                self.start[i], self.end[i] = m[0][0], m[-1][1]
                if len(m) > 1:
                    self.disc[i] = m
            if self.disc:
                self.is_disc[list(self.disc)] = True
        return self

    @property
    def ids(self) -> list[str]:
        """The spans' ids (``Span.id``), in the side's order."""
        if self._ids is None:
            src, rows = self._ids_from
            self._ids = [src[r] for r in rows.tolist()]
        return self._ids

    def __len__(self) -> int:
        return len(self.type)

    def fragments(self, i: int) -> tuple[tuple[int, int], ...]:
        return self.disc.get(i, ((int(self.start[i]), int(self.end[i])),))


@dataclass(frozen=True, slots=True)
class SpanColumns:
    """One rater's spans over many documents as columns: what a store can read for agreement
    without building a record per span (at 10^6 spans the records cost more than the matching).

    The spans of document ``doc_ids[i]`` are rows ``offsets[i]:offsets[i + 1]``, in the order the
    document's records list them. ``start``/``end`` hold a span's one fragment; ``fragments`` maps
    each row with any other number of fragments (several, or none: a name without a mention) to them.
    """

    doc_ids: tuple[str, ...]
    offsets: np.ndarray
    ids: Sequence[str]
    type_names: tuple[str, ...]
    type: np.ndarray
    """Codes into ``type_names``."""
    start: np.ndarray
    end: np.ndarray
    fragments: Mapping[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def spans(self, i: int) -> tuple[Span, ...]:
        """The records of document ``i`` (for callers that need them; the report does not)."""
        out = []
        for r in range(int(self.offsets[i]), int(self.offsets[i + 1])):
            frags = self.fragments.get(r, ((int(self.start[r]), int(self.end[r])),))
            out.append(Span(self.ids[r], self.type_names[int(self.type[r])], frags, ""))
        return tuple(out)


def _token_bounds(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the tokens of ``text``: runs of word characters (``str.isalnum`` or
    ``_``, as ``re``'s ``\\w``) and single other non-space characters, i.e. ``\\w+|[^\\w\\s]``."""
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    present = np.zeros(int(cps.max(initial=0)) + 1, dtype=bool)
    present[cps] = True
    uniq = np.flatnonzero(present)
    chars = [chr(c) for c in uniq.tolist()]
    word_t = np.zeros(len(present), dtype=bool)
    space_t = np.zeros(len(present), dtype=bool)
    word_t[uniq] = [c.isalnum() or c == "_" for c in chars]
    space_t[uniq] = [c.isspace() for c in chars]
    word, other = word_t[cps], ~word_t[cps] & ~space_t[cps]
    del cps
    start = word.copy()
    start[1:] &= ~word[:-1]
    end = word.copy()
    end[:-1] &= ~word[1:]
    return np.flatnonzero(start | other), np.flatnonzero(end | other) + 1


def _first_seen(codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(codes, return_index=True)`` for small non-negative codes: one comparison pass per
    code present instead of a sort of 10^6 rows (a corpus has a few dozen types at most)."""
    present = np.flatnonzero(np.bincount(codes, minlength=n_codes)) if len(codes) else np.zeros(0, np.int64)
    if len(present) > 64:
        return np.unique(codes, return_index=True)
    first = np.fromiter(
        (int(np.argmax(codes == c)) for c in present.tolist()), dtype=np.int64, count=len(present)
    )
    return present, first


def _expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ranges [lo_i, hi_i): (owner i, position) of every element."""
    cnt = np.maximum(hi - lo, 0)
    total = int(cnt.sum())
    owner = np.repeat(np.arange(len(lo)), cnt)
    shift = lo - (np.cumsum(cnt) - cnt)  # two repeats, not three: this runs on 10^6 ranges
    return owner, np.arange(total) + shift[owner]


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """``argsort(keys, kind="stable")``, without the sort when the keys are already in order (spans
    are usually stored by position, so at 10^6 spans this saves most of the candidate join's sorting)."""
    if len(keys) < 2 or bool((keys[1:] >= keys[:-1]).all()):
        return np.arange(len(keys))
    return np.argsort(keys, kind="stable")


class PreparedSpans:
    """Spans of two annotators, flattened once and joined into candidate (overlapping) pairs.

    Build it once and compare under many criteria: ``compare_spans(prepared, ...)``.
    """

    def __init__(self, documents: DocumentSpans, texts: Mapping[str, str] | None = None) -> None:
        self.doc_ids = list(documents)
        type_codes: dict[str, int] = {}
        self.a = _Side([documents[d][0] for d in self.doc_ids], type_codes)
        self.b = _Side([documents[d][1] for d in self.doc_ids], type_codes)
        self._finish(type_codes, texts)

    @classmethod
    def from_columns(
        cls,
        a: SpanColumns,
        b: SpanColumns,
        docs: Sequence[str],
        texts: Mapping[str, str] | None = None,
        *,
        exact_only: bool = False,
    ) -> PreparedSpans:
        """The same preparation from two raters' columns, on the documents ``docs`` (in that order; a
        document a rater has no set on has no spans): equal, field for field, to building it from
        the records. ``exact_only``: join only the pairs with the same bounds, all that criterion
        ``exact`` looks at (the same comparisons, about half the join's time); other criteria refuse."""
        self = cls.__new__(cls)
        self.doc_ids = list(docs)
        type_codes: dict[str, int] = {}
        self.a = _Side.from_columns(a, self.doc_ids, type_codes)
        self.b = _Side.from_columns(b, self.doc_ids, type_codes)
        self._finish(type_codes, texts, exact_only)
        return self

    def _finish(
        self, type_codes: dict[str, int], texts: Mapping[str, str] | None, exact_only: bool = False
    ) -> None:
        self.type_names = [t for t, _ in sorted(type_codes.items(), key=lambda kv: kv[1])]
        self.texts = texts
        self.exact_only = exact_only
        if exact_only:
            self._exact_candidates()
        else:
            self._candidates()

    def _exact_candidates(self) -> None:
        """Candidate pairs with the same document, start and end (a subset of the overlapping
        pairs, in the same order): every pair criterion ``exact`` can match."""
        a, b = self.a, self.b
        big = int(max(a.end.max(initial=0), b.end.max(initial=0))) + 2
        ka = a.doc.astype(np.int64) * big + a.start
        kb = b.doc.astype(np.int64) * big + b.start
        ob = _stable_order(kb)
        skb = kb[ob]
        ai, pos = _expand(np.searchsorted(skb, ka, side="left"), np.searchsorted(skb, ka, side="right"))
        bi = ob[pos]
        same_end = a.end[ai] == b.end[bi]
        ai, bi = ai[same_end].astype(np.int32), bi[same_end].astype(np.int32)
        order = _stable_order(ai.astype(np.int64) * max(len(b), 1) + bi)
        self.pa, self.pb = ai[order], bi[order]
        self._features()

    def _candidates(self) -> None:
        a, b = self.a, self.b
        big = int(max(a.end.max(initial=0), b.end.max(initial=0))) + 2
        # zero-length spans get a one-character extent so that they meet their neighbours
        a_end = np.maximum(a.end, a.start + 1)
        b_end = np.maximum(b.end, b.start + 1)
        a_doc, b_doc = a.doc.astype(np.int64), b.doc.astype(np.int64)
        ka, kb = a_doc * big + a.start, b_doc * big + b.start
        oa, ob = _stable_order(ka), _stable_order(kb)
        ska, skb = ka[oa], kb[ob]
        # B spans starting inside A (b.start in [a.start, a.end)), then A spans starting strictly
        # inside B: together every overlapping pair exactly once, with no false candidates.
        lo = np.searchsorted(skb, ka, side="left")
        hi = np.searchsorted(skb, a_doc * big + a_end, side="left")
        ai1, pos = _expand(lo, hi)
        bi1 = ob[pos]
        lo = np.searchsorted(ska, kb, side="right")
        hi = np.searchsorted(ska, b_doc * big + b_end, side="left")
        bi2, pos = _expand(lo, hi)
        ai2 = oa[pos]
        ai = np.concatenate([ai1, ai2]).astype(np.int32)
        bi = np.concatenate([bi1, bi2]).astype(np.int32)
        del ai1, ai2, bi1, bi2, pos, lo, hi, ka, kb, ska, skb
        # pairs are unique: one sort of the combined key orders them as lexsort((bi, ai)), faster
        order = _stable_order(ai.astype(np.int64) * max(len(b), 1) + bi)
        self.pa, self.pb = ai[order], bi[order]
        del ai, bi, order
        self._features()

    def _features(self) -> None:
        a, b, pa, pb = self.a, self.b, self.pa, self.pb
        sa, ea, sb, eb = a.start[pa], a.end[pa], b.start[pb], b.end[pb]
        inter = np.maximum(0, np.minimum(ea, eb) - np.maximum(sa, sb))
        la, lb = ea - sa, eb - sb
        self.same_start = sa == sb
        self.same_end = ea == eb
        self.exact = self.same_start & self.same_end
        union = la + lb - inter
        del la, lb
        self.contains = ((sa <= sb) & (eb <= ea)) | ((sb <= sa) & (ea <= eb))
        del sa, ea, sb, eb
        disc = np.nonzero(a.is_disc[pa] | b.is_disc[pb])[0]
        for k in disc:  # few: compare the covered character sets fragment by fragment
            fa, fb = a.fragments(int(pa[k])), b.fragments(int(pb[k]))
            it = sum(max(0, min(e1, e2) - max(s1, s2)) for s1, e1 in fa for s2, e2 in fb)
            l1, l2 = sum(e - s for s, e in fa), sum(e - s for s, e in fb)
            self.exact[k] = fa == fb
            inter[k] = it
            union[k] = l1 + l2 - it
            self.contains[k] = it in (l1, l2)
        self.overlap = (inter > 0) | self.exact
        self.jaccard = np.where(union > 0, inter / np.maximum(union, 1), self.exact * 1.0)

    def _same_type(self, mode: str, tmap: np.ndarray) -> np.ndarray:
        """Whether each candidate pair's (mapped) types are equal; cached per mode and mapping."""
        key = (mode, tmap.tobytes())
        cache = self.__dict__.setdefault("_same_cache", {})
        if key not in cache:
            cache[key] = tmap[self.a.type[self.pa]] == tmap[self.b.type[self.pb]]
        return cache[key]

    def _tokenize(self) -> None:
        """Tokens (``\\w+`` runs and single other non-space characters) of all documents,
        vectorised over the code points of the concatenated texts (a few MB at a time)."""
        if self.texts is None:
            raise AgreementInputError("criterion 'fragment' needs the document texts (texts={doc_id: text})")
        missing = [d for d in self.doc_ids if d not in self.texts]
        if missing:
            raise AgreementInputError(f"no text given for document {missing[0]!r}")
        texts = [self.texts[d] for d in self.doc_ids]
        lengths = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
        self._doc_start = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        starts: list[np.ndarray] = []
        ends: list[np.ndarray] = []
        i = 0
        while i < len(texts):  # a few million characters at a time keeps the temporaries small
            j, size = i, 0
            while j < len(texts) and (size < 1_000_000 or j == i):
                size += len(texts[j]) + 1
                j += 1
            s_, e_ = _token_bounds("\n".join(texts[i:j]) + "\n")
            starts.append(s_ + self._doc_start[i])
            ends.append(e_ + self._doc_start[i])
            i = j
        self._tok_start = np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)
        self._tok_end = np.concatenate(ends) if ends else np.zeros(0, dtype=np.int64)
        if len(self._tok_end) and self._tok_end[-1] < 2**31:
            self._tok_start = self._tok_start.astype(np.int32)
            self._tok_end = self._tok_end.astype(np.int32)

    def token_ranges(self, side: _Side) -> tuple[np.ndarray, np.ndarray]:
        """(first, last) global token index covered by each span of a side; first > last if none."""
        if not hasattr(self, "_tok_start"):
            self._tokenize()
        base = self._doc_start[side.doc]
        first = np.searchsorted(self._tok_end, base + side.start, side="right")
        last = np.searchsorted(self._tok_start, base + side.end, side="left") - 1
        return first, last

    def token_sets_equal(self) -> np.ndarray:
        """Whether each candidate pair covers the same tokens (cached: both type modes ask)."""
        if not hasattr(self, "_tokens_equal"):
            self._tokens_equal = self._token_sets_equal()
        return self._tokens_equal.copy()

    def _token_sets_equal(self) -> np.ndarray:
        fa, la = self.token_ranges(self.a)
        fb, lb = self.token_ranges(self.b)
        pa, pb = self.pa, self.pb
        eq = (fa[pa] == fb[pb]) & (la[pa] == lb[pb]) & (fa[pa] <= la[pa])
        disc = np.nonzero(self.a.is_disc[pa] | self.b.is_disc[pb])[0]
        if len(disc):
            ts, te = self._tok_start, self._tok_end

            def toks(side: _Side, i: int) -> frozenset[int]:
                out: set[int] = set()
                base = self._doc_start[side.doc[i]]
                for s, e in side.fragments(i):
                    f = np.searchsorted(te, base + s, side="right")
                    last = np.searchsorted(ts, base + e, side="left") - 1
                    out.update(range(int(f), int(last) + 1))
                return frozenset(out)

            for k in disc:
                x, y = toks(self.a, int(pa[k])), toks(self.b, int(pb[k]))
                eq[k] = bool(x) and x == y
        return eq


def _type_map(
    prepared: PreparedSpans, types: TypeMode | str, type_classes: Mapping[str, Iterable[str]] | None
) -> np.ndarray:
    """Code -> merged code (identity unless types == 'merged')."""
    names = prepared.type_names
    if types not in TYPE_MODES:
        raise AgreementInputError(f"types must be one of {', '.join(TYPE_MODES)}, got {types!r}")
    if types != "merged":
        return np.arange(len(names), dtype=np.int32)
    if not type_classes:
        raise AgreementInputError(
            "types='merged' needs type_classes, e.g. {'macromolecule': ['protein', 'DNA']}"
        )
    member: dict[str, str] = {}
    for cls, members in type_classes.items():
        for m in members:
            if m in member and member[m] != cls:
                raise AgreementInputError(f"type {m!r} is in two classes: {member[m]!r} and {cls!r}")
            member[m] = cls
    merged_names = sorted({member.get(n, n) for n in names})
    idx = {n: i for i, n in enumerate(merged_names)}
    prepared._merged_names = merged_names  # type: ignore[attr-defined]
    return np.array([idx[member.get(n, n)] for n in names], dtype=np.int32)


def eligible_pairs(prepared: PreparedSpans, criterion: Criterion | str, jaccard: float = 0.5) -> np.ndarray:
    """Boolean mask over the candidate pairs for a criterion (types not yet considered)."""
    p = prepared
    if getattr(p, "exact_only", False) and criterion != "exact":
        raise AgreementInputError(f"these spans were prepared for criterion 'exact' only, not {criterion!r}")
    if criterion == "exact":
        return p.exact.copy()
    if criterion == "left":
        return p.same_start.copy()
    if criterion == "right":
        return p.same_end.copy()
    if criterion == "left_or_right":
        return p.same_start | p.same_end
    if criterion == "approximate":
        return p.contains & p.overlap
    if criterion in ("overlap", "partial"):
        return p.overlap.copy()
    if criterion == "fragment":
        return p.token_sets_equal()
    if criterion == "jaccard":
        if not 0.0 < jaccard <= 1.0:
            raise AgreementInputError(f"the Jaccard threshold must be in (0, 1], got {jaccard}")
        return p.jaccard >= jaccard - 1e-12
    raise AgreementInputError(f"unknown criterion {criterion!r}; expected one of {', '.join(CRITERIA)}")


def _greedy(pa: np.ndarray, pb: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Greedy matching in rank order (0 = best), vectorised: every round accepts the pairs that are
    the best remaining pair of both their spans; this equals the sequential greedy on a total order."""
    na, nb = int(pa.max()) + 1, int(pb.max()) + 1
    active = np.arange(len(pa))
    chosen = []
    big = np.iinfo(np.int64).max
    while len(active):
        ra, rb, rr = pa[active], pb[active], rank[active]
        best_a = np.full(na, big)
        best_b = np.full(nb, big)
        np.minimum.at(best_a, ra, rr)
        np.minimum.at(best_b, rb, rr)
        win = (best_a[ra] == rr) & (best_b[rb] == rr)
        chosen.append(active[win])
        used_a = np.zeros(na, dtype=bool)
        used_b = np.zeros(nb, dtype=bool)
        used_a[ra[win]] = True
        used_b[rb[win]] = True
        active = active[~(used_a[ra] | used_b[rb])]
    return np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)


def match_pairs(pa: np.ndarray, pb: np.ndarray, score: np.ndarray) -> np.ndarray:
    """One-to-one matching of candidate pairs: maximum cardinality, then high summed score.

    0. A pair whose two spans have no other candidate is taken as is.
    1. Greedy by descending score (ties: lower A index, then lower B index), vectorised.
    2. Repair: a larger matching exists only through an augmenting path, which needs an unmatched
       span on *each* side of one connected component of the candidate graph. Only those
       components are re-solved exactly with ``linear_sum_assignment`` (weight K + score with K
       above the component's total score, so more matches always win). Deterministic.

    Returns the chosen positions in ``pa``/``pb``, sorted.
    """
    if len(pa) == 0:
        return np.zeros(0, dtype=np.int64)
    na, nb = int(pa.max()) + 1, int(pb.max()) + 1
    single = (np.bincount(pa, minlength=na)[pa] == 1) & (np.bincount(pb, minlength=nb)[pb] == 1)
    rest = np.flatnonzero(~single)
    out = [np.flatnonzero(single)]
    if len(rest):
        ra, rb, rs = pa[rest], pb[rest], score[rest]
        rank = np.empty(len(rest), dtype=np.int64)
        rank[np.lexsort((rb, ra, -rs))] = np.arange(len(rest))
        chosen = _greedy(ra, rb, rank)
        free_a = np.ones(na, dtype=bool)
        free_b = np.ones(nb, dtype=bool)
        free_a[ra[chosen]] = False
        free_b[rb[chosen]] = False
        if free_a[ra].any() and free_b[rb].any():
            from scipy.optimize import linear_sum_assignment  # heavy: only when a repair is needed
            from scipy.sparse import coo_matrix
            from scipy.sparse.csgraph import connected_components

            g = coo_matrix((np.ones(len(rest), dtype=np.int8), (ra, na + rb)), shape=(na + nb, na + nb))
            _, lab = connected_components(g, directed=False)
            comp = lab[ra]
            ncomp = int(lab.max()) + 1
            has_a = np.zeros(ncomp, dtype=bool)
            has_b = np.zeros(ncomp, dtype=bool)
            has_a[comp[free_a[ra]]] = True
            has_b[comp[free_b[rb]]] = True
            redo = has_a & has_b
            chosen = chosen[~redo[comp[chosen]]]
            sel = np.flatnonzero(redo[comp])
            order = sel[np.argsort(comp[sel], kind="stable")]
            bounds = np.flatnonzero(np.diff(comp[order])) + 1
            for grp in np.split(order, bounds) if len(order) else []:
                _, ra_i = np.unique(ra[grp], return_inverse=True)
                _, rb_i = np.unique(rb[grp], return_inverse=True)
                k = 2.0 * (len(grp) + 1) + 2.0
                w = np.zeros((ra_i.max() + 1, rb_i.max() + 1))
                w[ra_i, rb_i] = k + rs[grp]
                where = np.full(w.shape, -1, dtype=np.int64)
                where[ra_i, rb_i] = grp
                r, c = linear_sum_assignment(w, maximize=True)
                ok = w[r, c] > 0
                out.append(rest[where[r[ok], c[ok]]])
        out.append(rest[chosen])
    return np.sort(np.concatenate(out))


@dataclass(frozen=True, slots=True)
class SpanComparison(_ToDict):
    """The outcome of one criterion and type mode over all documents.

    ``per_type`` keys are (merged) types: a matched pair counts for A's type (with types
    ``ignored`` the two may differ), only_a for A's type, only_b for B's type.
    ``type_agreement`` (types ``ignored`` only) holds Cohen's kappa, Scott's pi and Krippendorff's
    alpha on the types of matched pairs.
    """

    criterion: str
    types: str
    overall: PRF
    per_type: Mapping[str, PRF]
    type_agreement: Mapping[str, Coefficient] | None
    n_documents: int
    excluded_a: int
    excluded_b: int
    policy: str
    jaccard_threshold: float | None = None
    type_table: tuple[tuple[int, ...], ...] | None = None
    type_labels: tuple[str, ...] = ()
    per_document: np.ndarray | None = field(default=None, repr=False, compare=False, metadata={"json": False})
    """(documents, 3) int array: matched, only_a, only_b per document (for the bootstrap)."""
    per_document_types: np.ndarray | None = field(
        default=None, repr=False, compare=False, metadata={"json": False}
    )
    """(documents, T, 3) int array: matched, only_a, only_b per document and (merged) type."""
    per_document_type_tables: np.ndarray | None = field(
        default=None, repr=False, compare=False, metadata={"json": False}
    )
    """(documents, T, T) tables of matched pairs' types (types ``ignored``), for the bootstrap."""
    _alignment: Any = field(default=None, repr=False, compare=False, metadata={"json": False})
    """(prepared spans, bit-packed mask of the matched candidate pairs): compact at 10^6 spans."""

    def matched_indices(self) -> tuple[np.ndarray, np.ndarray]:
        """Matched pairs as indices into the prepared A and B span arrays."""
        prep, packed = self._alignment
        mask = np.unpackbits(packed, count=len(prep.pa)).astype(bool)
        return prep.pa[mask], prep.pb[mask]

    def alignment(self) -> dict[str, dict[str, str]]:
        """Per document, A span id -> matched B span id."""
        prep = self._alignment[0]
        ma, mb = self.matched_indices()
        out: dict[str, dict[str, str]] = {d: {} for d in prep.doc_ids}
        for d, x, y in zip(prep.a.doc[ma].tolist(), ma.tolist(), mb.tolist(), strict=True):
            out[prep.doc_ids[d]][prep.a.ids[x]] = prep.b.ids[y]
        return out


def compare_spans(
    documents: DocumentSpans | PreparedSpans,
    criterion: Criterion | str = "exact",
    *,
    types: TypeMode | str = "required",
    type_classes: Mapping[str, Iterable[str]] | None = None,
    jaccard: float = 0.5,
    texts: Mapping[str, str] | None = None,
) -> SpanComparison:
    """Match A's and B's spans under one criterion and type mode and count the agreement.

    ``documents`` maps a document id to ``(spans of A, spans of B)`` (or pass a
    :class:`PreparedSpans` to reuse the candidate join across criteria).

    >>> from corpusdb.basics.records import Span
    >>> a = [Span("T1", "Protein", ((0, 4),), "IL-2"), Span("T2", "Cell", ((10, 15),), "Tcell")]
    >>> b = [Span("T1", "Protein", ((0, 4),), "IL-2"), Span("T5", "Cell", ((9, 15),), "-Tcell")]
    >>> compare_spans({"d1": (a, b)}, "exact").overall.f1
    0.5
    >>> compare_spans({"d1": (a, b)}, "overlap").overall.f1
    1.0
    """
    criterion = canonical_criterion(criterion)
    prep = documents if isinstance(documents, PreparedSpans) else PreparedSpans(documents, texts)
    tmap = _type_map(prep, types, type_classes)
    names = prep._merged_names if types == "merged" else prep.type_names  # type: ignore[attr-defined]
    elig = eligible_pairs(prep, criterion, jaccard)
    same = prep._same_type(types, tmap)
    if types != "ignored":
        elig &= same
    sel = np.nonzero(elig)[0]
    score = prep.jaccard[sel] + 0.5 * same[sel]
    pick = sel[match_pairs(prep.pa[sel], prep.pb[sel], score)]
    return _summarise(prep, criterion, types, pick, tmap, names, jaccard if criterion == "jaccard" else None)


def _summarise(
    prep: PreparedSpans,
    criterion: str,
    types: str,
    pick: np.ndarray,
    tmap: np.ndarray,
    names: list[str],
    jacc: float | None,
) -> SpanComparison:
    a, b = prep.a, prep.b
    ma, mb = prep.pa[pick], prep.pb[pick]
    mask = np.zeros(len(prep.pa), dtype=bool)
    mask[pick] = True
    nd, nt = len(prep.doc_ids), len(names)
    in_a = np.zeros(len(a), dtype=bool)
    in_a[ma] = True
    in_b = np.zeros(len(b), dtype=bool)
    in_b[mb] = True
    # Every count is one bincount over (document, type): per document and per type are its sums
    # (integers: the same figures as counting each on its own, at a third of the passes over 10^6 rows).
    ta_all, tb_all = tmap[a.type].astype(np.int64), tmap[b.type].astype(np.int64)
    a_doc, b_doc = a.doc.astype(np.int64), b.doc.astype(np.int64)
    ta_m, ad_m = ta_all[ma], a_doc[ma]
    only_a, only_b = np.flatnonzero(~in_a), np.flatnonzero(~in_b)
    per_doc_type = np.zeros((nd, nt, 3), dtype=np.int32)
    for k, key in enumerate(
        (ad_m * nt + ta_m, a_doc[only_a] * nt + ta_all[only_a], b_doc[only_b] * nt + tb_all[only_b])
    ):
        per_doc_type[:, :, k] = np.bincount(key, minlength=nd * nt).reshape(nd, nt)
    per_doc = per_doc_type.sum(axis=1, dtype=np.int64).astype(np.int32)
    m_t, oa_t, ob_t = per_doc_type.sum(axis=0, dtype=np.int64).T
    per_type = {names[t]: PRF.from_counts(int(m_t[t]), int(oa_t[t]), int(ob_t[t])) for t in range(nt)}
    tot = per_doc.sum(axis=0)
    overall = PRF.from_counts(int(tot[0]), int(tot[1]), int(tot[2]))
    agreement = None
    table_t = None
    doc_tables = None
    if types == "ignored":
        flat = ad_m * nt * nt + ta_m * nt + tb_all[mb]
        doc_tables = np.bincount(flat, minlength=nd * nt * nt).reshape(nd, nt, nt).astype(np.int32)
        table = doc_tables.sum(axis=0)
        table_t = tuple(tuple(int(x) for x in row) for row in table)
        agreement = {
            "cohen_kappa": cohen_kappa(table),
            "scott_pi": scott_pi(table),
            "krippendorff_alpha": krippendorff_alpha_table(table),
        }
    return SpanComparison(
        criterion=criterion,
        types=types,
        overall=overall,
        per_type=per_type,
        type_agreement=agreement,
        n_documents=nd,
        excluded_a=a.excluded,
        excluded_b=b.excluded,
        policy=POLICY,
        jaccard_threshold=jacc,
        type_table=table_t,
        type_labels=tuple(names),
        per_document=per_doc,
        per_document_types=per_doc_type,
        per_document_type_tables=doc_tables,
        _alignment=(prep, np.packbits(mask)),
    )


@dataclass(frozen=True, slots=True)
class SpanReport(_ToDict):
    """Every requested criterion x type mode, keyed ``"criterion/types"``."""

    comparisons: Mapping[str, SpanComparison]
    semeval: Mapping[str, Mapping[str, float | int | None]] | None = None


def span_report(
    documents: DocumentSpans | PreparedSpans,
    *,
    criteria: Sequence[str] = CRITERIA,
    types: Sequence[str] = ("required", "ignored"),
    type_classes: Mapping[str, Iterable[str]] | None = None,
    jaccard: float = 0.5,
    texts: Mapping[str, str] | None = None,
    semeval: bool = True,
) -> SpanReport:
    """All criteria and type modes at once (the candidate join is shared). ``fragment`` is skipped
    when no texts are given; ``merged`` needs ``type_classes``."""
    prep = documents if isinstance(documents, PreparedSpans) else PreparedSpans(documents, texts)
    out: dict[str, SpanComparison] = {}
    for crit in criteria:
        if crit == "fragment" and prep.texts is None:
            continue
        for mode in types:
            out[f"{crit}/{mode}"] = compare_spans(
                prep, crit, types=mode, type_classes=type_classes, jaccard=jaccard
            )
    return SpanReport(out, semeval_counts(prep) if semeval else None)


def semeval_counts(documents: DocumentSpans | PreparedSpans) -> dict[str, dict[str, float | int | None]]:
    """SemEval-2013 task 9.1 / MUC counts and P/R/F1 (``strict``, ``exact``, ``partial``, ``ent_type``).

    One overlap matching with types ignored (preferring identical boundaries, then equal types)
    classifies each pair: strict COR needs same boundaries and type, exact same boundaries, partial
    counts a non-exact overlap as PAR (half credit), ent_type needs the same type. Unmatched A spans
    are MIS, unmatched B spans SPU; A is the gold side. Agrees with ``nervaluate``.
    """
    prep = documents if isinstance(documents, PreparedSpans) else PreparedSpans(documents)
    if getattr(prep, "exact_only", False):
        raise AgreementInputError("SemEval counts need every overlapping pair: prepare without exact_only")
    elig = np.nonzero(prep.overlap)[0]
    same = prep.a.type[prep.pa[elig]] == prep.b.type[prep.pb[elig]]
    score = prep.exact[elig] * 1.0 + 0.5 * same
    idx = elig[match_pairs(prep.pa[elig], prep.pb[elig], score)]
    ma, mb = prep.pa[idx], prep.pb[idx]
    exact = prep.exact[idx]
    same_t = prep.a.type[ma] == prep.b.type[mb]
    mis = len(prep.a) - len(ma)
    spu = len(prep.b) - len(mb)
    out: dict[str, dict[str, float | int | None]] = {}
    for scheme, cor_mask, par_mask in (
        ("strict", exact & same_t, np.zeros_like(exact)),
        ("exact", exact, np.zeros_like(exact)),
        ("partial", exact, ~exact),
        ("ent_type", same_t, np.zeros_like(exact)),
    ):
        cor, par = int(cor_mask.sum()), int(par_mask.sum())
        inc = len(ma) - cor - par
        pos, act = cor + inc + par + mis, cor + inc + par + spu
        credit = cor + 0.5 * par
        prec = credit / act if act else None
        rec = credit / pos if pos else None
        f1 = (
            2 * prec * rec / (prec + rec)
            if prec is not None and rec is not None and prec + rec > 0
            else (0.0 if prec is not None and rec is not None else None)
        )
        out[scheme] = {
            "COR": cor,
            "INC": inc,
            "PAR": par,
            "MIS": mis,
            "SPU": spu,
            "POS": pos,
            "ACT": act,
            "precision": prec,
            "recall": rec,
            "f1": f1,
        }
    return out
