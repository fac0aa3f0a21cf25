"""Token-level units: each token gets the type of the span covering it (or 0 = outside), for
token-level kappa/alpha at corpus scale (10^7 tokens stay a few int arrays).

Overlapping spans: the innermost (shortest) span covering a token wins, ties by start order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from corpusdb.agreement.results import AgreementInputError
from corpusdb.basics.records import Span

TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str) -> np.ndarray:
    """(tokens, 2) start/end offsets of word and punctuation tokens (``\\w+|[^\\w\\s]``)."""
    return np.array([(m.start(), m.end()) for m in TOKEN_RE.finditer(text)], dtype=np.int64).reshape(-1, 2)


def token_codes(spans: Sequence[Span], tokens: np.ndarray, type_index: Mapping[str, int]) -> np.ndarray:
    """Code of each token: ``type_index[span.type]`` (>= 1) of the innermost covering span, else 0.

    A token is covered when it overlaps a fragment of the span.
    """
    tok = np.asarray(tokens, dtype=np.int64).reshape(-1, 2)
    if any(v < 1 for v in type_index.values()):
        raise AgreementInputError("type codes must be >= 1 (0 means outside every span)")
    starts, ends, codes, lengths = [], [], [], []
    for sp in spans:
        if sp.type not in type_index:
            raise AgreementInputError(f"span type {sp.type!r} has no code in type_index")
        length = sum(e - s for s, e in sp.fragments)
        for s, e in sp.fragments:
            starts.append(s)
            ends.append(e)
            codes.append(type_index[sp.type])
            lengths.append(length)
    out = np.zeros(len(tok), dtype=np.int64)
    if not starts:
        return out
    s_arr, e_arr = np.asarray(starts), np.asarray(ends)
    first = np.searchsorted(tok[:, 1], s_arr, side="right")
    last = np.searchsorted(tok[:, 0], e_arr, side="left")
    # priority: longer spans first, so inner spans overwrite them
    order = np.lexsort((np.arange(len(s_arr))[::-1], -np.asarray(lengths)))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(1, len(order) + 1)
    cnt = np.maximum(last - first, 0)
    idx = np.repeat(first, cnt) + (np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt))
    prio = np.zeros(len(tok), dtype=np.int64)
    np.maximum.at(prio, idx, np.repeat(rank, cnt))
    code_of_rank = np.concatenate([[0], np.asarray(codes)[order]])
    return code_of_rank[prio]
