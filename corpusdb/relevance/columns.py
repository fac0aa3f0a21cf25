"""Reading whitespace-separated TREC files (runs, qrels): one checked row per line, every problem listed.

Why one reader: both formats share the same rules — UTF-8 (a BOM allowed), blank lines skipped, a fixed
number of columns, a (topic, document) pair at most once — and their refusals must read alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from corpusdb.errors import FormatError, Problem


class Rows:
    """The lines of ``path`` as column lists; ``problems`` collects what the caller and the reader find."""

    def __init__(self, path: str | Path, what: str, header: str) -> None:
        self.path = Path(path)
        self.what = what
        self.header = header
        self.problems: list[Problem] = []
        self._seen: set[tuple[str, str]] = set()
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
        """False (and a problem) when ``doc`` was already ``verb`` for ``topic`` in this file."""
        if (topic, doc) in self._seen:
            self.problem(n, f"document {doc} is {verb} twice for topic {topic}")
            return False
        self._seen.add((topic, doc))
        return True

    def done(self, found: int) -> None:
        """Refuse the file with every problem, or when it holds no line."""
        if not self.problems and not found:
            self.problem(None, f"the {self.what} file holds no line")
        if self.problems:
            raise FormatError(self.problems)
