"""Reading whitespace-separated TREC files (runs, qrels): one checked row per line, every problem listed.

Why one reader: both formats share the same rules — UTF-8 (a BOM allowed), blank lines skipped, a fixed
number of columns, a (topic, document) pair at most once — and their refusals must read alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.names import MAX_NAME_BYTES, name_problem
from corpusdb.relevance.topics import topic_id_problem


class Rows:
    """The lines of ``path`` as column lists; ``problems`` collects what the caller and the reader find."""

    def __init__(self, path: str | Path, what: str, header: str) -> None:
        self.path = Path(path)
        self.what = what
        self.header = header
        self.problems: list[Problem] = []
        self._seen: set[tuple[str, str]] = set()
        self._topics: dict[str, int] = {}
        self._docs: dict[str, int] = {}
        """Topic ids and document ids found valid, with their size in bytes."""
        try:
            self._text = self.path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise FormatError.single(self.path, None, f"cannot read the {what} file: {exc}") from exc

    def __iter__(self) -> Iterator[tuple[int, list[str]]]:
        width = len(self.header.split())
        for n, line in enumerate(self._text.splitlines(), 1):
            if not line.strip():
                continue
            cols = line.split()
            if len(cols) != width:
                self.problem(n, f"expected {width} columns '{self.header}', got {len(cols)}")
                continue
            yield n, cols

    def problem(self, line: int | None, text: str) -> None:
        self.problems.append(Problem(str(self.path), line, text))

    def first_time(self, n: int, topic: str, doc: str, verb: str) -> bool:
        """False (and a problem) when ``doc`` was already ``verb`` for ``topic`` in this file, or when
        the two cannot name a topic and a document (a judged unit ``TOPIC+DOC`` becomes a file name)."""
        bad = self._id_problem(topic, doc)
        if bad is not None:
            self.problem(n, bad)
            return False
        if (topic, doc) in self._seen:
            self.problem(n, f"document {doc} is {verb} twice for topic {topic}")
            return False
        self._seen.add((topic, doc))
        return True

    def _id_problem(self, topic: str, doc: str) -> str | None:
        # each topic and document checked once (a run repeats them: 10^6 lines, 50 topics)
        size = self._topics.get(topic)
        if size is None:
            bad = topic_id_problem(topic)
            if bad is not None:
                return bad
            size = self._topics[topic] = len(topic.encode("utf-8"))
        doc_size = self._docs.get(doc)
        if doc_size is None:
            bad = name_problem(doc, "document id")
            if bad is not None:
                return bad
            doc_size = self._docs[doc] = len(doc.encode("utf-8"))
        if size + 1 + doc_size > MAX_NAME_BYTES:
            return (
                f"topic {topic} and document {doc[:40]!r} make a judged unit id (TOPIC+DOC) longer than "
                f"{MAX_NAME_BYTES} bytes"
            )
        return None

    def integer(self, n: int, value: str, what: str) -> int | None:
        """``value`` as a 64-bit integer (the store's), or None and a problem."""
        try:
            number = int(value)
        except ValueError:
            self.problem(n, f"{what} {value!r} is not an integer")
            return None
        if not -(2**63) <= number < 2**63:
            self.problem(n, f"{what} {value[:30]!r} is beyond 64 bits")
            return None
        return number

    def done(self, found: int) -> None:
        """Refuse the file with every problem, or when it holds no line."""
        if not self.problems and not found:
            self.problem(None, f"the {self.what} file holds no line")
        if self.problems:
            raise FormatError(self.problems)
