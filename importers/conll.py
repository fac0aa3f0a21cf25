"""CoNLL-style token files with IOB2 tags, for training NER taggers, and back.

Why hand-written: the format is one token and one tag per line; what matters is the stated tokenisation
and the rule for what token tags cannot express, which no library decides for us.

Writing
-------
* Tokenisation (stated in every export's notes): ``words`` (default) = runs of letters/digits/underscore
  and single other non-space characters (``\\w+|[^\\w\\s]``, Unicode); ``whitespace`` = runs of
  non-space characters; ``re:<pattern>`` = the matches of your own regular expression.
* Each line of the text is a sentence; sentences are separated by a blank line; each document starts
  with ``-DOCSTART- <id>`` (the line CoNLL-2003 readers skip) and a blank line.
* A line is ``token<TAB>tag``; with ``offsets`` it is ``token<TAB>start<TAB>end<TAB>tag`` (code points
  into the document), which lets the reader rebuild the text's spacing.
* The rule for what IOB2 cannot express, every case counted in the notes:
  - overlapping or nested spans: the longest span wins (then the earliest; ``nested="inner"``: the
    shortest); spans sharing a token with a span already written are left out; ``types`` keeps only
    spans of the types named (BB's ``Title``/``Paragraph`` spans would otherwise cover everything);
  - a discontinuous span is written as one chunk per fragment;
  - a span whose boundary falls inside a token tags the whole token;
  - a span over a line break is split into one chunk per sentence;
  - a span that covers no token (only spaces) is left out; relations, links and labels are left out.

Reading
-------
``-DOCSTART-`` lines start documents (their id after it, else ``doc<n>``); without them the whole file
is one document named after the file. The tag is the last column; ``B-X``/``I-X``/``O`` (IOB2; an
``I-X`` that follows ``O`` or another type starts a chunk, as IOB1 has it). Without offsets the text is
the tokens joined by single spaces, sentences by line breaks; with them, the tokens at their offsets
(gaps filled with spaces, a line break between sentences).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence

from corpusdb.basics.errors import UsageError
from corpusdb.basics.records import Annotations, Document, Span
from importers.common import MAX_TEXT, Collector, offset, read_text, strict
from importers.standoff import ReadResult

__all__ = ["format_conll", "read_conll", "read_conll_lenient", "tokenize"]

TOKENIZERS = {"words": r"\w+|[^\w\s]", "whitespace": r"\S+"}


def _pattern(tokenizer: str) -> re.Pattern[str]:
    if tokenizer in TOKENIZERS:
        return re.compile(TOKENIZERS[tokenizer])
    if tokenizer.startswith("re:"):
        try:
            return re.compile(tokenizer[3:])
        except re.error as err:
            raise UsageError(f"tokenizer {tokenizer!r}: not a regular expression ({err})") from err
    raise UsageError(f"tokenizer is words, whitespace or re:<pattern>, not {tokenizer!r}")


def tokenize(text: str, tokenizer: str = "words") -> list[tuple[int, int, int]]:
    """``(start, end, sentence)`` of every token; sentences are the text's lines."""
    pat = _pattern(tokenizer)
    out: list[tuple[int, int, int]] = []
    pos = 0
    for k, line in enumerate(text.split("\n")):
        out += [(pos + m.start(), pos + m.end(), k) for m in pat.finditer(line) if m.end() > m.start()]
        pos += len(line) + 1
    return out


def _tags(
    ann: Annotations, toks: list[tuple[int, int, int]], lost: Counter[str], *, nested: str = "outer",
    types: frozenset[str] | None = None,
) -> list[str]:  # fmt: skip
    tags = ["O"] * len(toks)
    owner: list[str | None] = [None] * len(toks)
    starts = [t[0] for t in toks]
    import bisect

    chosen = [s for s in ann.spans if types is None or s.type in types]
    spans = [s for s in chosen if s.fragments]
    lost["names without a mention (left out)"] += len(chosen) - len(spans)
    sign = -1 if nested == "outer" else 1
    spans.sort(key=lambda s: (sign * sum(b - a for a, b in s.fragments), s.start, s.id))
    for s in spans:
        chunks: list[list[int]] = []
        inside = False
        for a, b in sorted(s.fragments):
            i = max(bisect.bisect_right(starts, a) - 1, 0)
            idx = [j for j in range(i, len(toks)) if toks[j][0] < b and toks[j][1] > a]
            if not idx:
                continue
            if toks[idx[0]][0] < a or toks[idx[-1]][1] > b:
                inside = True
            chunk = [idx[0]]
            for j in idx[1:]:
                if toks[j][2] != toks[chunk[-1]][2]:
                    chunks.append(chunk)
                    chunk = []
                chunk.append(j)
            chunks.append(chunk)
        if not chunks:
            lost["spans that cover no token (left out)"] += 1
            continue
        if any(owner[j] is not None for c in chunks for j in c):
            lost[
                f"nested or overlapping spans (left out: the {'longest' if sign < 0 else 'shortest'} wins)"
            ] += 1
            continue
        if len(s.fragments) > 1:
            lost["discontinuous spans (one chunk per fragment)"] += 1
        elif len(chunks) > 1:
            lost["spans over a line break (one chunk per sentence)"] += 1
        if inside:
            lost["spans with a boundary inside a token (whole token tagged)"] += 1
        for c in chunks:
            for n, j in enumerate(c):
                tags[j] = ("B-" if n == 0 else "I-") + s.type
                owner[j] = s.id
    return tags


def format_conll(
    items: Sequence[tuple[Document, Annotations]], *, tokenizer: str = "words", scheme: str = "IOB2",
    offsets: bool = False, nested: str = "outer", types: Sequence[str] | None = None,
) -> tuple[str, list[str]]:  # fmt: skip
    """The CoNLL text of these documents and the notes: the tokenisation used and every count of what
    IOB2 could not express. ``nested``: ``outer`` (the longest span wins) or ``inner`` (the shortest);
    ``types``: only spans of these types (e.g. leave out BB's Title/Paragraph section spans)."""
    if nested not in ("outer", "inner"):
        raise UsageError(f"nested is outer or inner, not {nested!r}")
    wanted = frozenset(types) if types else None
    if scheme != "IOB2":
        raise UsageError(f"tag scheme {scheme!r}: only IOB2 is written")
    lost: Counter[str] = Counter()
    out: list[str] = []
    for doc, ann in items:
        toks = tokenize(doc.text, tokenizer)
        tags = _tags(ann, toks, lost, nested=nested, types=wanted)
        lost["relations (left out)"] += len(ann.relations)
        lost["links (left out)"] += len(ann.links)
        lost["document labels (left out)"] += len(ann.labels)
        out.append(f"-DOCSTART- {doc.external_id}\n\n")
        sent = None
        for (a, b, k), tag in zip(toks, tags, strict=True):
            if sent is not None and k != sent:
                out.append("\n")
            sent = k
            tok = doc.text[a:b].replace("\t", " ")
            out.append(f"{tok}\t{a}\t{b}\t{tag}\n" if offsets else f"{tok}\t{tag}\n")
        out.append("\n")
    notes = [
        f"tokenisation: {tokenizer} ({TOKENIZERS.get(tokenizer, tokenizer[3:])}), sentences = lines, IOB2 tags"
    ]
    notes += [f"IOB2 cannot express {n} {what}" for what, n in sorted(lost.items()) if n]
    return "".join(out), notes


def _rebuild(
    sentences: list[list[tuple[str, int | None, int | None]]],
) -> tuple[str, list[list[tuple[int, int]]]]:
    text = ""
    places: list[list[tuple[int, int]]] = []
    for k, sent in enumerate(sentences):
        if k:
            text += "\n"
        row: list[tuple[int, int]] = []
        for i, (tok, a, _b) in enumerate(sent):
            if a is not None and a >= len(text):
                text += " " * (a - len(text))
            elif i:
                text += " "
            row.append((len(text), len(text) + len(tok)))
            text += tok
        places.append(row)
    return text, places


def _chunks(
    text: str,
    sents: list[list[tuple[str, int | None, int | None, str, int]]],
    places: list[list[tuple[int, int]]],
) -> tuple[list[Span], list[str]]:
    """Spans from IOB tags (an I- after O or another type starts a chunk, as in IOB1)."""
    spans: list[Span] = []
    errors: list[str] = []
    end = ("", None, None, "O", 0), (0, 0)
    for s, row in zip(sents, places, strict=True):
        open_: tuple[str, int, int] | None = None  # type, start, end
        for (_tok, _a, _b, tag, n), (a, b) in [*zip(s, row, strict=True), end]:
            m = re.fullmatch(r"([BI])-(.+)", tag)
            if tag != "O" and m is None:
                errors.append(f"line {n}: tag {tag!r} is not O, B-TYPE or I-TYPE")
                continue
            if m is not None and m.group(1) == "I" and open_ is not None and open_[0] == m.group(2):
                open_ = (open_[0], open_[1], b)
                continue
            if open_ is not None:
                typ, x, y = open_
                spans.append(Span(f"T{len(spans) + 1}", typ, ((x, y),), text[x:y]))
            open_ = (m.group(2), a, b) if m is not None else None
    return spans, errors


def read_conll_lenient(path: str | os.PathLike[str], *, column: int = -1) -> ReadResult:
    """Read a CoNLL/IOB2 file (tag in ``column``, default the last); keep the valid documents."""
    file = os.fspath(path)
    out = Collector(file)
    docs: list[tuple[str, int, list[list[tuple[str, int | None, int | None, str, int]]]]] = []
    cur: list[list[tuple[str, int | None, int | None, str, int]]] | None = None
    stem = os.path.basename(file).rsplit(".", 1)[0]
    for n, raw in enumerate(read_text(file).split("\n"), 1):
        line = raw.removesuffix("\r")
        if line.startswith("-DOCSTART-"):
            name = line[len("-DOCSTART-") :].split()
            cur = []
            docs.append(
                (name[0] if name and not re.fullmatch(r"-X-|O", name[0]) else f"doc{len(docs) + 1}", n, cur)
            )
            continue
        if not line.strip():
            if cur is not None and cur and cur[-1]:
                cur.append([])
            continue
        if cur is None:
            cur = []
            docs.append((stem, n, cur))
        if not cur:
            cur.append([])
        cols = line.split("\t") if "\t" in line else line.split()
        if len(cols) < 2:
            out.error(n, f"a token line needs a token and a tag, got {line!r}")
            continue
        if not -len(cols) <= column < len(cols):
            out.error(n, f"no column {column} for the tag: the line has {len(cols)}")
            continue
        tag = cols[column]
        a, b = (offset(cols[1]), offset(cols[2])) if len(cols) >= 4 else (None, None)
        if a is None or b is None:
            a = b = None
        elif max(a, b) > MAX_TEXT:
            out.error(
                n,
                f"offsets {cols[1][:20]}-{cols[2][:20]}: a text longer than {MAX_TEXT:,} characters is refused",
            )
            continue
        cur[-1].append((cols[0], a, b, tag, n))
    for ext, line0, sents in docs:
        sents = [s for s in sents if s]
        text, places = _rebuild([[(t, a, b) for t, a, b, _tag, _n in s] for s in sents])
        spans, errors = _chunks(text, sents, places)
        out.add(
            Document(ext, text, metadata={"conll": os.path.basename(file)}),
            Annotations(tuple(spans)),
            line0,
            errors,
        )
    return out.result()


read_conll = strict(read_conll_lenient)
