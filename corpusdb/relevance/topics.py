"""Topic files: TREC Genomics XML (``<TOPIC><ID/><TITLE/><NEED/><CONTEXT/></TOPIC>``), the classic TREC
SGML text layout (``<top> <num> Number: 301 <title> ... <desc> Description: ... <narr> ...</top>``), and a
simple TSV (``id<TAB>title<TAB>need<TAB>context``, an optional header line starting with ``id``).

Why hand-written: the TREC text layout is not XML (unclosed tags), and no maintained package reads it
without pulling in a retrieval toolkit; the XML layout goes through the standard library's parser.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.names import name_problem
from corpusdb.relevance.records import Topic

_FIELDS = {"id": "id", "num": "id", "number": "id", "title": "title", "need": "need", "desc": "need",
           "description": "need", "context": "context", "narr": "context", "narrative": "context"}  # fmt: skip


def topic_id_problem(topic_id: str) -> str | None:
    """Why ``topic_id`` cannot name a topic (judged units are ``TOPIC+DOC``, and become file names),
    or None. One rule for the files read and the API."""
    if not topic_id or topic_id != topic_id.strip() or "+" in topic_id or "/" in topic_id:
        return f"topic id {topic_id!r} must be non-empty, without spaces around, '+' or '/'"
    return name_problem(topic_id, "topic id")


def read_topics(path: str | Path) -> list[Topic]:
    """Topics from a file in any of the three layouts (guessed from its first non-blank character)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError.single(p, None, f"cannot read the topic file: {exc}") from exc
    stripped = text.lstrip()
    if not stripped:
        raise FormatError.single(p, 1, "the topic file is empty")
    if stripped.startswith("<") and re.search(r"<top>", text, re.IGNORECASE) and "<num>" in text.lower():
        found = _sgml(p, text)
    elif stripped.startswith("<"):
        found = _xml(p, text)
    else:
        found = _tsv(p, text)
    seen: dict[str, int | None] = {}
    problems = []
    for t, line in found:
        bad = topic_id_problem(t.id)
        if bad is not None:
            problems.append(Problem(str(p), line, bad))
        elif t.id in seen:
            first = f" (first at line {seen[t.id]})" if seen[t.id] is not None else ""
            problems.append(Problem(str(p), line, f"topic {t.id!r} is given twice{first}"))
        seen.setdefault(t.id, line)
    if problems:
        raise FormatError(problems)
    return [t for t, _ in found]


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _xml(p: Path, text: str) -> list[tuple[Topic, int | None]]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if hasattr(exc, "position") else None
        raise FormatError.single(p, line, f"not well-formed XML: {exc}") from exc
    elems = [root] if root.tag.lower() == "topic" else [e for e in root.iter() if e.tag.lower() == "topic"]
    if not elems:
        raise FormatError.single(p, 1, "no <TOPIC> element (expected <TOPIC><ID>..</ID><TITLE>..</TITLE>...)")
    out = []
    for n, e in enumerate(elems, 1):
        vals: dict[str, str] = {}
        for child in e:
            key = _FIELDS.get(child.tag.lower())
            if key is not None:
                vals[key] = " ".join("".join(child.itertext()).split())
        if "id" in e.attrib or "number" in e.attrib:
            vals.setdefault("id", e.attrib.get("id") or e.attrib.get("number", ""))
        if not vals.get("id"):
            raise FormatError.single(p, None, f"topic number {n} has no <ID>")
        out.append(
            (Topic(vals["id"], vals.get("title", ""), vals.get("need", ""), vals.get("context", "")), None)
        )
    return out


_TAG = re.compile(r"<(num|title|desc|narr)>", re.IGNORECASE)
_LABEL = re.compile(r"^\s*(Number|Description|Narrative|Title)\s*:\s*", re.IGNORECASE)


def _sgml(p: Path, text: str) -> list[tuple[Topic, int | None]]:
    out = []
    for m in re.finditer(r"<top>(.*?)</top>", text, re.IGNORECASE | re.DOTALL):
        body, vals = m.group(1), {}
        tags = list(_TAG.finditer(body))
        for i, t in enumerate(tags):
            end = tags[i + 1].start() if i + 1 < len(tags) else len(body)
            vals[_FIELDS[t.group(1).lower()]] = " ".join(_LABEL.sub("", body[t.end() : end]).split())
        line = _line_of(text, m.start())
        if not vals.get("id"):
            raise FormatError.single(p, line, "a <top> without <num>")
        out.append(
            (Topic(vals["id"], vals.get("title", ""), vals.get("need", ""), vals.get("context", "")), line)
        )
    if not out:
        raise FormatError.single(p, 1, "no <top> ... </top> topic found")
    return out


def _tsv(p: Path, text: str) -> list[tuple[Topic, int | None]]:
    out: list[tuple[Topic, int | None]] = []
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if n == 1 and cols[0].strip().lower() in ("id", "topic", "topic_id"):
            continue  # a header
        if len(cols) > 4:
            problems.append(
                Problem(
                    str(p),
                    n,
                    f"expected at most 4 tab-separated columns (id, title, need, context), got {len(cols)}",
                )
            )
            continue  # fmt: skip
        if not cols[0].strip():
            problems.append(Problem(str(p), n, "empty topic id"))
            continue
        cols = [c.strip() for c in cols] + [""] * (4 - len(cols))
        out.append((Topic(*cols), n))
    if problems:
        raise FormatError(problems)
    if not out:
        raise FormatError.single(p, 1, "no topic found (TSV: id<TAB>title<TAB>need<TAB>context)")
    return out


def write_topics_tsv(topics: list[Topic]) -> str:
    """Topics as the TSV layout, with a header line."""
    rows = ["id\ttitle\tneed\tcontext"]
    rows += ["\t".join(" ".join(v.split()) for v in (t.id, t.title, t.need, t.context)) for t in topics]
    return "\n".join(rows) + "\n"
