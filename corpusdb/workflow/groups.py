"""Group keys and splits from a rule, for corpora whose documents are parts of larger units.

Why: a split is group-aware only if documents of one paper share a ``group_key``. Corpora rarely say so
in a field: GENIA 2011 names each full-text section ``PMC-<id>-<nn>-<section>``, so unless the key is
derived from the file name, sections of one paper land in train and test alike. And a corpus that
comes with its own train/devel/test split (its folders) should be releasable with that split.

Rules for ``set_group_keys``:

* ``re:<pattern>`` — a regular expression searched in the document id; the key is its first group
  (or the whole match when it has none), e.g. ``re:^(PMC-\\d+)-``;
* ``meta:<field>`` — the document metadata's field (``meta:pmid``);
* ``tsv:<file>`` — a file of ``document<TAB>group`` lines.

Documents the rule does not match keep their key (and are counted). Nothing is written with ``dry_run``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update

from corpusdb.basics.errors import FormatError, InvalidInput, Problem, UsageError
from corpusdb.services.base import ServiceBase
from corpusdb.store import tables

D = tables.document


@dataclass(frozen=True, slots=True)
class GroupReport:
    """What a rule did: keys set, documents changed, unmatched, and the groups made."""

    rule: str
    documents: int
    changed: int
    unmatched: tuple[str, ...]
    groups: dict[str, int]
    dry_run: bool

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "documents": self.documents, "changed": self.changed,
                "unmatched": list(self.unmatched), "groups": self.groups, "dry_run": self.dry_run}  # fmt: skip

    def summary(self) -> str:
        done = "would set" if self.dry_run else "set"
        text = f"{done} {self.changed} of {self.documents} documents; {len(self.groups)} groups"
        return text + (f"; {len(self.unmatched)} not matched (unchanged)" if self.unmatched else "")


def _rule(rule: str) -> Any:
    kind, _, arg = rule.partition(":")
    if kind == "re" and arg:
        try:
            pat = re.compile(arg)
        except re.error as err:
            raise UsageError(f"group rule {rule!r}: not a regular expression ({err})") from err

        def by_re(ext: str, _meta: dict[str, Any]) -> str | None:
            m = pat.search(ext)
            return None if m is None else (m.group(1) if pat.groups else m.group(0))

        return by_re
    if kind == "meta" and arg:
        return lambda _ext, meta: None if meta.get(arg) in (None, "") else str(meta[arg])
    if kind == "tsv" and arg:
        table: dict[str, str] = {}
        problems = []
        try:
            with open(arg, encoding="utf-8-sig") as fh:
                for n, line in enumerate(fh, 1):
                    cells = line.rstrip("\r\n").split("\t")
                    if not line.strip():
                        continue
                    if len(cells) != 2 or not all(cells):
                        problems.append(Problem(arg, n, "expected document<TAB>group"))
                    else:
                        table[cells[0]] = cells[1]
        except OSError as err:
            raise InvalidInput(f"{arg}: cannot read: {err.strerror or err}") from err
        if problems:
            raise FormatError(problems)
        return lambda ext, _meta: table.get(ext)
    raise UsageError(f"group rule {rule!r}: use re:PATTERN, meta:FIELD or tsv:FILE")


class GroupsMixin(ServiceBase):
    """Group keys from a rule, and splits from the corpus's own folders (leads)."""

    def set_group_keys(self, rule: str, *, dry_run: bool = False) -> GroupReport:
        """Set every document's ``group_key`` by ``rule`` (see the module docstring), in one transaction."""
        self._require("lead", doing="set group keys")
        key_of = _rule(rule)
        with self._write() as conn:
            rows = conn.execute(select(D.c.id, D.c.external_id, D.c.meta, D.c.group_key)
                                .where(D.c.project_id == self.project_id).order_by(D.c.id)).all()  # fmt: skip
            unmatched: list[str] = []
            new: dict[int, str] = {}
            groups: Counter[str] = Counter()
            for pk, ext, meta, old in rows:
                key = key_of(ext, meta or {})
                if key is None:
                    unmatched.append(ext)
                    if old is not None:
                        groups[old] += 1
                    continue
                groups[key] += 1
                if key != old:
                    new[pk] = key
            if not dry_run:
                for pk, key in new.items():
                    conn.execute(update(D).where(D.c.id == pk).values(group_key=key))
                self._audit(conn, "set_group_keys", rule, changed=len(new), unmatched=len(unmatched))
        return GroupReport(rule, len(rows), len(new), tuple(unmatched), dict(sorted(groups.items())), dry_run)

    def keep_source_splits(self, *, dry_run: bool = False) -> dict[str, int]:
        """Give every document the split of the folder it was imported from (brat ``train/``, ``devel/``...;
        BioC's ``split`` infon is kept at import already), so a release keeps the corpus's own split.
        Returns documents per split; documents read from no subfolder keep theirs."""
        from corpusdb.basics.records import Document
        from corpusdb.interchange.exporting import brat_folder

        self._require("lead", doing="set splits")
        out: Counter[str] = Counter()
        with self._write() as conn:
            rows = conn.execute(select(D.c.id, D.c.external_id, D.c.source, D.c.split)
                                .where(D.c.project_id == self.project_id)).all()  # fmt: skip
            changed = 0
            for pk, ext, source, split in rows:
                folder = brat_folder(Document(ext, "", source or ""))
                name = folder.rpartition("/")[2] if folder else None
                if name is None:
                    continue
                out[name] += 1
                if name != split and not dry_run:
                    conn.execute(update(D).where(D.c.id == pk).values(split=name))
                    changed += 1
            if not dry_run:
                self._audit(conn, "keep_source_splits", "", changed=changed, splits=dict(out))
        return dict(sorted(out.items()))


__all__ = ["GroupReport", "GroupsMixin"]
