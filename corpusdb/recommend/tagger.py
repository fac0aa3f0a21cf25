"""The trainable tagger: a linear-chain CRF over tokens, BIO labels per entity type.

Why a CRF (sklearn-crfsuite): it trains in seconds to minutes on a CPU from a few hundred
documents, needs no model download and no GPU, gives per-token marginal probabilities (the score of
a suggestion, and the uncertainty active learning orders by), and its model is a few megabytes of
plain data. Training goes through ``sklearn_crfsuite.CRF`` (L-BFGS with L1 + L2 regularisation);
tagging opens the same model file with ``pycrfsuite.Tagger`` directly, because importing
scikit-learn (what sklearn-crfsuite's estimator needs) takes seconds and tagging at document open
must not.

Features of token ``i`` (``features``), all strings or booleans as crfsuite takes them:

* ``w``: the token lower-cased; ``shape``: its character classes collapsed (``IL-2`` -> ``X-d``,
  ``Bacillus`` -> ``Xx``); ``p2``/``p3``/``s2``/``s3``: its first and last two and three characters;
* ``upper``, ``title``, ``digit``, ``hasdigit``, ``alnum_mix`` (letters and digits), ``punct``,
  ``greek`` (alpha, beta, kappa... spelt out), ``len`` (1, 2-3, 4-6, 7+);
* the same ``w`` and ``shape`` of the tokens at -2, -1, +1, +2 (``-1:w``...), and ``BOS``/``EOS``
  at the document's first and last tokens;
* ``-1:w|w`` and ``w|+1:w``: the bigrams with each neighbour.

Labels: a token overlapping an item's fragments is ``B-TYPE`` (its first token) or ``I-TYPE``; an
item overlapping one already labelled (nested, crossing) is left out of training; everything else
is ``O``. A proposal is a maximal ``B I*`` run of one type; its score is the mean marginal
probability of its tokens' labels.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from corpusdb.recommend.matcher import Proposal
from corpusdb.recommend.tokens import Tokens, tokenize

GREEK = frozenset(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "xi",
        "omicron",
        "pi",
        "rho",
        "sigma",
        "tau",
        "upsilon",
        "phi",
        "chi",
        "psi",
        "omega",
    ]
)
_SHAPE = [(re.compile(r"[A-Z]+"), "X"), (re.compile(r"[a-z]+"), "x"), (re.compile(r"[0-9]+"), "d")]


def shape(word: str) -> str:
    out = word
    for rx, ch in _SHAPE:
        out = rx.sub(ch, out)
    return out[:8]


def _length(n: int) -> str:
    return "1" if n == 1 else "2-3" if n <= 3 else "4-6" if n <= 6 else "7+"


def features(words: Sequence[str]) -> list[dict[str, Any]]:
    """The feature dictionaries of a token sequence (see the module docstring)."""
    low = [w.lower() for w in words]
    shapes = [shape(w) for w in words]
    out = []
    n = len(words)
    for i, w in enumerate(words):
        f: dict[str, Any] = {
            "bias": 1.0,
            "w": low[i],
            "shape": shapes[i],
            "p2": low[i][:2],
            "p3": low[i][:3],
            "s2": low[i][-2:],
            "s3": low[i][-3:],
            "upper": w.isupper(),
            "title": w.istitle(),
            "digit": w.isdigit(),
            "hasdigit": any(c.isdigit() for c in w),
            "alnum_mix": any(c.isdigit() for c in w) and any(c.isalpha() for c in w),
            "punct": not any(c.isalnum() for c in w),
            "greek": low[i] in GREEK,
            "len": _length(len(w)),
        }
        for d in (-2, -1, 1, 2):
            j = i + d
            if 0 <= j < n:
                f[f"{d:+d}:w"] = low[j]
                f[f"{d:+d}:shape"] = shapes[j]
        if i == 0:
            f["BOS"] = True
        else:
            f["-1:w|w"] = f"{low[i - 1]}|{low[i]}"
        if i == n - 1:
            f["EOS"] = True
        else:
            f["w|+1:w"] = f"{low[i]}|{low[i + 1]}"
        out.append(f)
    return out


def labels(tokens: Tokens, items: Iterable[tuple[str, Sequence[Sequence[int]]]]) -> list[str]:
    """BIO labels of ``tokens`` for ``items`` ((type, fragments) pairs); see the module docstring."""
    out = ["O"] * len(tokens.spans)
    for typ, fragments in sorted(
        items, key=lambda it: (min(s for s, _ in it[1]), -sum(e - s for s, e in it[1]))
    ):
        idx = [i for i, (a, b) in enumerate(tokens.spans) if any(a < e and b > s for s, e in fragments)]
        if not idx or any(out[i] != "O" for i in idx):
            continue
        out[idx[0]] = f"B-{typ}"
        for i in idx[1:]:
            out[i] = f"I-{typ}"
    return out


@dataclass(frozen=True, slots=True)
class TaggerOptions:
    c1: float = 0.1
    c2: float = 0.05
    max_iterations: int = 100
    min_score: float = 0.5

    @classmethod
    def from_dict(cls, d: Any) -> TaggerOptions:
        known = {k: v for k, v in (d or {}).items() if k in cls.__dataclass_fields__}
        return cls(**known)


def train(
    examples: Iterable[tuple[str, Sequence[tuple[str, Sequence[Sequence[int]]]]]],
    options: TaggerOptions,
    progress: Callable[[int, int | None, str], None] | None = None,
) -> bytes:
    """A CRF model (crfsuite's file, as bytes) from (text, items) examples. ``progress(done, total,
    what)`` after each L-BFGS iteration (total: the most it may take; it stops earlier on convergence)."""
    import sklearn_crfsuite  # scikit-learn: seconds to import, so only where training happens

    xs, ys = [], []
    for text, items in examples:
        toks = tokenize(text)
        if not toks.spans:
            continue
        xs.append(features(toks.words))
        ys.append(labels(toks, items))
    if not xs:
        raise ValueError("no example with any token to train on")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.crfsuite")
        crf = sklearn_crfsuite.CRF(
            algorithm="lbfgs",
            c1=options.c1,
            c2=options.c2,
            max_iterations=options.max_iterations,
            all_possible_transitions=True,
            model_filename=path,
            **({"trainer_cls": _trainer_reporting(progress, options.max_iterations)} if progress else {}),
        )
        crf.fit(xs, ys)
        with open(path, "rb") as f:
            return f.read()


def _trainer_reporting(progress: Callable[[int, int | None, str], None], most: int) -> type:
    """A crfsuite trainer that calls ``progress`` after each iteration. Why not ``verbose``: that
    prints to stdout; crfsuite's log is parsed here instead (the model is the same byte for byte)."""
    import pycrfsuite

    class Reporting(pycrfsuite.Trainer):  # type: ignore[misc]
        def message(self, message: str) -> None:
            if self.logparser.feed(message) == "iteration":
                k = int(self.logparser.last_iteration.get("num", 0))
                progress(k, most, f"training: iteration {k} (at most {most})")

    return Reporting


class Tagger:
    """A trained model, open for tagging (python-crfsuite; no scikit-learn)."""

    def __init__(self, model: bytes, types: frozenset[str] | None = None, min_score: float = 0.5) -> None:
        import pycrfsuite

        self._model = model  # crfsuite reads the model where it lies: it must outlive the tagger
        self._tagger = pycrfsuite.Tagger()
        self._tagger.open_inmemory(self._model)
        self.types = types
        self.min_score = min_score

    def _run(self, text: str) -> tuple[Tokens, list[str], list[float]]:
        toks = tokenize(text)
        if not toks.spans:
            return toks, [], []
        self._tagger.set(features(toks.words))
        ys = self._tagger.tag()
        probs = [self._tagger.marginal(y, i) for i, y in enumerate(ys)]
        return toks, ys, probs

    def propose(self, text: str) -> list[Proposal]:
        toks, ys, probs = self._run(text)
        out: list[Proposal] = []
        i = 0
        while i < len(ys):
            y = ys[i]
            if y == "O":
                i += 1
                continue
            typ = y[2:]
            j = i + 1
            while j < len(ys) and ys[j] == f"I-{typ}":
                j += 1
            score = sum(probs[i:j]) / (j - i)
            start, end = toks.spans[i][0], toks.spans[j - 1][1]
            if (self.types is None or typ in self.types) and score >= self.min_score:
                out.append(Proposal(typ, ((start, end),), text[start:end], round(score, 4)))
            i = j
        return out

    def uncertainty(self, text: str) -> float:
        """Mean over tokens of 1 - the marginal probability of the label tagged (0: sure of every
        token; what ``assign --order uncertainty`` sorts by)."""
        _toks, _ys, probs = self._run(text)
        return (sum(1.0 - p for p in probs) / len(probs)) if probs else 0.0
