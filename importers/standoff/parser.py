"""The line parser of one document's annotation files: every line checked, every problem listed."""

from __future__ import annotations

import re
from dataclasses import fields
from itertools import islice, pairwise
from typing import Any

from corpusdb.basics.errors import Problem
from corpusdb.basics.records import (
    Annotations,
    Argument,
    Grounding,
    Link,
    Note,
    Relation,
    RelationKind,
    Span,
    make_argument,
    make_relation,
    make_span,
)
from importers.standoff.layout import _NO_LINES, _in_writer_order
from importers.standoff.lines import _KNOWN_PREFIXES, _attr_line, _norm_line, _note_line, _star_line

# Records are built positionally on the hot path (``make_span``...): guard the field order.
_SPAN_FIELDS = ("id", "type", "fragments", "text", "attributes", "groundings", "extra")
_RELATION_FIELDS = ("id", "type", "args", "label", "tags", "attributes", "trigger", "kind", "extra")
for _cls, _names in ((Span, _SPAN_FIELDS), (Relation, _RELATION_FIELDS), (Argument, ("role", "ref"))):
    if tuple(f.name for f in fields(_cls)) != _names:  # pragma: no cover - guards the positional calls
        raise ImportError(
            f"importers.standoff builds {_cls.__name__} positionally and expects fields {_names}"
        )
_FAST_T = re.compile(r"(T[0-9A-Za-z]+)\t([!-~]+) (0|[1-9][0-9]{0,17}) (0|[1-9][0-9]{0,17})\t(.*)", re.DOTALL)
"""The common ``T`` line, as one C call: ASCII id and type, one fragment, offsets without leading zeros,
a text field. Anything else takes the general path, which checks and reports every detail."""
_SET_GROUNDINGS = Span.groundings.__set__  # type: ignore[attr-defined]
"""Sets a span's groundings before the record is handed out (records are made as their line is read)."""
_KEEP_HINT = "; pass keep_unknown=True to keep such lines verbatim"


def _cycles(graph: dict[str, list[str]]) -> dict[str, str]:
    """Relations/events whose arguments lead back to themselves -> the cycle (``E1 -> E2 -> E1``).

    Iterative depth-first search (an event chain may be long; recursion would be bounded by Python's)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    out: dict[str, str] = {}
    for root in graph:
        if root in state:
            continue
        path: list[str] = [root]
        its = [iter(graph[root])]
        state[root] = 1
        while its:
            nxt = next(its[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                its.pop()
                continue
            if state.get(nxt) == 1:
                loop = [*path[path.index(nxt) :], nxt]
                for x in loop[:-1]:
                    out.setdefault(x, " -> ".join(loop))
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                its.append(iter(graph.get(nxt, ())))
    return out


def _is_offset(s: str) -> bool:
    return s.isdigit() and s.isascii()


def _diff(field: str, doc: str) -> str:
    """Where a text field and the document slice first differ, shortly (texts can be abstracts)."""
    i = next(
        (k for k, (a, b) in enumerate(zip(field, doc, strict=False)) if a != b), min(len(field), len(doc))
    )
    lo = max(0, i - 15)
    return f"field has {field[lo : i + 15]!r}, document has {doc[lo : i + 15]!r} (character {i})"


class _Parser:
    """Parses the annotation files of one document; collects every problem instead of stopping."""

    def __init__(self, text: str, keep_unknown: bool) -> None:
        self.text = text
        self.tlen = len(text)
        self.keep_unknown = keep_unknown
        self.crlf_hint = " (the .txt has CRLF line endings: offsets count each \\r)" if "\r" in text else ""
        self.problems: list[Problem] = []
        self.ids: dict[str, tuple[str, int]] = {}
        # parsed lines, in file order
        self.spans: dict[str, Span] = {}
        """id -> its record, made as the line is read (one pass over the spans, not two). Why a record
        before the references are checked: it is not handed out before :meth:`resolve` has set what
        later lines add (attributes, groundings) and its position: a span of the fast path starts with
        an empty ``extra``, given ``file``/``line`` there only if the positions are kept (its line is in
        ``ids``); a span of the general path starts with its ``loc``, positions dropped there if not."""
        self.general: list[Span] = []
        """the spans of the general path (:meth:`parse_t`), whose ``extra`` holds their position"""
        self.files: list[tuple[str, str, tuple[int, ...], bool]] = []
        """per file read: extension, path, how many lines of each kind of :data:`_KINDS` were parsed
        up to its end, and whether its lines are in rank order (see :meth:`end_file`)"""
        self.ext_of: dict[str, str] = {}
        """path -> extension"""
        self.triggers: set[str] = set()
        """the ids of event triggers (set by :meth:`resolve`)"""
        self.rels: dict[str, dict[str, Any]] = {}
        self.attrs: list[dict[str, Any]] = []
        self.norms: list[dict[str, Any]] = []
        self.stars: list[dict[str, Any]] = []
        self.notes: list[dict[str, Any]] = []
        self.verbatim: list[list[Any]] = []
        self.unknown_ids: set[str] = set()
        self.invalid: set[str] = set()
        self.kept: dict[str, list[tuple[int, str]]] = {}

    def err(self, file: str, line: int, msg: str) -> None:
        self.problems.append(Problem(file, line, msg))

    def warn(self, file: str, line: int, msg: str) -> None:
        self.problems.append(Problem(file, line, msg, "warning"))

    def keep(self, ext: str, file: str, line: int, raw: str) -> None:
        self.verbatim.append([ext, line, raw])
        self.kept.setdefault(file, []).append((line, raw))
        ident = raw.split("\t", 1)[0].split(" ", 1)[0]
        if ident:
            self.unknown_ids.add(ident)

    def claim(self, ident: str, file: str, line: int) -> bool:
        if not ident or ident != ident.strip() or " " in ident:
            self.err(file, line, f"malformed id {ident!r}")
            return False
        prev = self.ids.get(ident)
        if prev is not None:
            self.err(file, line, f"duplicate id {ident} (first defined at {prev[0]}:{prev[1]})")
            return False
        self.ids[ident] = (file, line)
        return True

    # -- first pass: one line at a time --------------------------------------------------------

    def parse_file(self, ext: str, file: str, lines: list[str]) -> None:
        text, tlen, ids, spans = self.text, self.tlen, self.ids, self.spans
        self.ext_of[file] = ext
        fast = _FAST_T.fullmatch
        for n, raw in enumerate(lines, 1):
            m = fast(raw)
            if m is not None:  # fast path: a contiguous span in canonical spacing whose text matches
                ident, type_, s, e, f3 = m.groups()
                if ident not in ids:
                    si = int(s)
                    ei = int(e)
                    if si <= ei <= tlen and f3 == text[si:ei]:
                        ids[ident] = (file, n)
                        spans[ident] = make_span(ident, type_, ((si, ei),), f3, {}, (), {})
                        continue
            parts = raw.split("\t", 2)
            ident = parts[0]
            p = ident[:1]
            if not raw.strip():
                self.verbatim.append([ext, n, raw])
                continue
            if p not in _KNOWN_PREFIXES or len(parts) < 2:
                if self.keep_unknown:
                    self.keep(ext, file, n, raw)
                elif p not in _KNOWN_PREFIXES:
                    self.err(
                        file,
                        n,
                        f"unknown line type {p!r} in {raw[:40]!r} (brat lines start with "
                        f"T, R, E, A, M, N, * or #){_KEEP_HINT}",
                    )
                else:
                    self.err(file, n, f"line has no tab after its id: {raw[:40]!r}")
                continue
            f2 = parts[1]
            f3 = parts[2] if len(parts) == 3 else None
            loc = {"file": ext, "line": n}
            if p == "T":
                self.parse_t(ident, f2, f3, loc, file, n)
            elif p == "R" or p == "E":
                self.parse_rel(p, ident, f2, f3, loc, file, n, raw, ext)
            elif p == "A" or p == "M":
                self.parse_attr(ident, f2, f3, loc, file, n)
            elif p == "N":
                self.parse_norm(ident, f2, f3, loc, file, n)
            elif p == "*":
                self.parse_star(ident, f2, f3, loc, file, n)
            else:
                self.parse_note(ident, f2, f3, loc, file, n)
        self.end_file(ext, file)

    def end_file(self, ext: str, file: str) -> None:
        """Records, for :func:`_in_writer_order`, how many lines of each kind of :data:`_KINDS` were
        parsed up to the end of the file, and whether the file's lines are in rank order. Each line
        became a record of its kind (or a problem, or a verbatim line: then no position is dropped)
        and each kind's records are in file order, so they are when, kind after kind by rank, each
        kind's last line is the number of lines of that kind and the kinds before (the kind then
        holds exactly the lines after theirs). Done here, while the records are in the cache."""
        spans, rels, attrs, norms, stars, notes = (
            self.spans,
            self.rels,
            self.attrs,
            self.norms,
            self.stars,
            self.notes,
        )
        ends = (len(spans), len(rels), len(attrs), len(norms), len(stars), len(notes))
        s0, r0, a0, n0, st0, nt0 = self.files[-1][2] if self.files else _NO_LINES
        s1, r1, a1, n1, st1, nt1 = ends
        lines = s1 - s0
        ordered = (self.ids[next(reversed(spans))][1] if lines else 0) == lines
        if r1 > r0:
            lines += r1 - r0
            ordered = ordered and next(reversed(rels.values()))["n"] == lines
        if a1 > a0:
            lines += a1 - a0
            ordered = ordered and attrs[-1]["loc"]["line"] == lines
        if n1 > n0:
            lines += n1 - n0
            ordered = ordered and norms[-1]["loc"]["line"] == lines
        if st1 > st0:
            lines += st1 - st0
            ordered = ordered and stars[-1]["n"] == lines
        if nt1 > nt0:
            lines += nt1 - nt0
            ordered = ordered and notes[-1]["loc"]["line"] == lines
        self.files.append((ext, file, ends, ordered))

    def parse_t(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        type_, _, offs = f2.partition(" ")
        frags: list[tuple[int, int]] = []
        ok = bool(type_) and bool(offs)
        if not ok:
            self.err(file, n, f"T line needs 'TYPE START END[;START END...]', got {f2!r}")
        else:
            for piece in offs.split(";"):
                se = piece.split()
                if len(se) != 2:
                    self.err(file, n, f"fragment {piece!r} of {ident} is not 'START END'")
                    ok = False
                    continue
                s, e = se
                if not (_is_offset(s) and _is_offset(e)):
                    self.err(file, n, f"offsets {piece.strip()!r} of {ident} are not non-negative integers")
                    ok = False
                    continue
                if max(len(s), len(e)) > 18:  # (int() refuses 4,300+ digits; no text is that long)
                    self.err(
                        file,
                        n,
                        f"offsets {piece.strip()[:40]!r} of {ident} are beyond the text ({self.tlen})",
                    )
                    ok = False
                    continue
                si, ei = int(s), int(e)
                if ei < si:
                    self.err(file, n, f"{ident}: end {ei} before start {si}")
                    ok = False
                elif ei > self.tlen:
                    self.err(
                        file,
                        n,
                        f"{ident}: offsets {si}-{ei} beyond the end of the text ({self.tlen} characters)",
                    )
                    ok = False
                frags.append((si, ei))
        if not self.claim(ident, file, n):
            return
        if not ok:
            self.invalid.add(ident)
            return
        if len(frags) > 1 and any(b[0] < a[1] for a, b in pairwise(frags)):
            # brat draws such a span but its own tools emit fragments in text order: say so, keep them
            self.warn(file, n, f"{ident}: fragments {offs.strip()!r} are out of text order or overlap")
        type_ = type_.strip()
        canon = type_ + " " + ";".join(f"{s} {e}" for s, e in frags)
        if canon != f2:
            loc["ws"] = f2
        text = self.text
        if len(frags) == 1:
            s, e = frags[0]
            expected = text[s:e]
        else:
            expected = " ".join(text[s:e] for s, e in frags)
        if f3 is None:
            loc["notext"] = True
            self.warn(file, n, f"{ident} has no text field; the document slice is used")
            f3 = expected
        elif f3 != expected:
            if f3.split() == expected.split():
                self.warn(
                    file,
                    n,
                    f"{ident}: text field differs from the document only in whitespace: {_diff(f3, expected)}",
                )
            else:
                self.err(
                    file,
                    n,
                    f"{ident}: text field does not match the document at "
                    f"{';'.join(f'{s} {e}' for s, e in frags)}: {_diff(f3, expected)}{self.crlf_hint}",
                )
                self.invalid.add(ident)
                return
        span = make_span(ident, type_, tuple(frags), f3, {}, (), loc)
        self.spans[ident] = span
        self.general.append(span)

    def parse_rel(
        self,
        p: str,
        ident: str,
        f2: str,
        f3: str | None,
        loc: dict[str, Any],
        file: str,
        n: int,
        raw: str,
        ext: str,
    ) -> None:
        toks = f2.split()
        if toks and p == "R" and self.keep_unknown and any(":" not in t for t in toks[1:]):
            self.keep(ext, file, n, raw)
            return
        if not self.claim(ident, file, n):
            return
        if not toks:
            self.invalid.add(ident)
            self.err(file, n, f"{ident} has no type")
            return
        head = toks[0]
        trigger: str | None = None
        if p == "E" and ":" in head:
            type_, _, trigger = head.rpartition(":")
            if not type_ or not trigger:
                self.invalid.add(ident)
                self.err(file, n, f"{ident}: malformed 'TYPE:TRIGGER' {head!r}")
                return
        else:
            type_ = head
        args: list[tuple[str, str]] = []
        bad: list[str] = []
        for tok in toks[1:]:
            role, _, ref = tok.rpartition(":")
            if role and ref:
                args.append((role, ref))
            else:
                bad.append(tok)
        if bad:
            self.invalid.add(ident)
            extra_hint = " (a dependency line, not brat)" if p == "R" else ""
            self.err(
                file,
                n,
                f"{ident}: argument {bad[0]!r} is not ROLE:ID{extra_hint}" + (_KEEP_HINT if p == "R" else ""),
            )
            return
        if p == "R" and not args:
            self.invalid.add(ident)
            self.err(file, n, f"{ident}: a relation needs arguments 'ROLE:ID'")
            return
        canon = " ".join(toks)
        if canon != f2:
            loc["ws"] = f2
        if f3 is not None:
            loc["tail"] = f3
        self.rels[ident] = {
            "p": p,
            "type": type_,
            "trigger": trigger,
            "args": args,
            "extra": loc,
            "file": file,
            "n": n,
            "raw": raw,
            "ext": ext,
        }

    def parse_attr(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        toks = f2.split()
        if len(toks) not in (2, 3):
            self.err(file, n, f"{ident}: attribute line needs 'NAME TARGET [VALUE]', got {f2!r}")
            return
        if not self.claim(ident, file, n):
            return
        if " ".join(toks) != f2:
            loc["ws"] = f2
        if f3 is not None:
            loc["tail"] = f3
        value: bool | str = toks[2] if len(toks) == 3 else True
        self.attrs.append({"id": ident, "name": toks[0], "target": toks[1], "value": value, "loc": loc})

    def parse_norm(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        toks = f2.split()
        if len(toks) != 3:
            self.err(file, n, f"{ident}: normalisation line needs 'KIND TARGET DB:ID', got {f2!r}")
            return
        if not self.claim(ident, file, n):
            return
        if " ".join(toks) != f2:
            loc["ws"] = f2
        target, ref = _st_norm(toks[1], toks[2], loc)
        self.norms.append(
            {"id": ident, "kind": toks[0], "target": target, "ref": ref, "text": f3, "loc": loc}
        )

    def parse_star(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        toks = f2.split()
        if ident != "*":
            self.err(file, n, f"malformed id {ident!r} (an equivalence line starts with '*' and a tab)")
            return
        if len(toks) < 3:
            self.err(file, n, f"equivalence line needs a type and at least two members, got {f2!r}")
            return
        if " ".join(toks) != f2:
            loc["ws"] = f2
        if f3 is not None:
            loc["tail"] = f3
        self.stars.append({"type": toks[0], "members": toks[1:], "loc": loc, "file": file, "n": n})

    def parse_note(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        toks = f2.split()
        if len(toks) != 2:
            self.err(file, n, f"{ident}: note line needs 'TYPE TARGET', got {f2!r}")
            return
        if not self.claim(ident, file, n):
            return
        if " ".join(toks) != f2:
            loc["ws"] = f2
        if f3 is None:
            loc["notext"] = True
            f3 = ""
        self.notes.append({"id": ident, "type": toks[0], "target": toks[1], "text": f3, "loc": loc})

    # -- second pass: references -----------------------------------------------------------

    def _ref_problem(self, ref: str) -> str:
        if ref in self.invalid:
            return f"{ref} is invalid (see its own error)"
        if ref in self.ids:
            return f"{ref} is not an entity, relation or event"
        return f"unknown id {ref}"

    def resolve(self, set_extra: dict[str, Any]) -> Annotations:
        """The records, references checked (problems collected); ``set_extra`` is the set's extra."""
        spans, rels, unknown = self.spans, self.rels, self.unknown_ids
        # Lines referring to lines kept verbatim are kept verbatim too (only with keep_unknown).
        if unknown:
            changed = True
            while changed:
                changed = False
                for rid, r in list(rels.items()):
                    refs = [ref for _, ref in r["args"]] + ([r["trigger"]] if r["trigger"] else [])
                    if any(ref in unknown for ref in refs):
                        del rels[rid]
                        self.keep(r["ext"], r["file"], r["n"], r["raw"])
                        changed = True
        relations: list[Relation] = []
        rel_extra: dict[str, dict[str, Any]] = {}
        rel_attrs: dict[str, dict[str, Any]] = {}
        triggers: set[str] = set()
        # only relations with a relation among their arguments can be on a cycle (the rest: no edge)
        graph = {
            rid: refs for rid, r in rels.items() if (refs := [ref for _, ref in r["args"] if ref in rels])
        }
        cyclic = _cycles(graph) if graph else {}
        for rid, r in rels.items():
            file, n = r["file"], r["n"]
            if rid in cyclic:
                self.err(
                    file,
                    n,
                    f"{rid}: its arguments lead back to itself ({cyclic[rid]}): events cannot be cyclic",
                )
                continue
            ok = True
            trig = r["trigger"]
            if trig is not None:
                triggers.add(trig)
                if trig not in spans:
                    self.err(file, n, f"{rid}: trigger {self._ref_problem(trig)}")
                    ok = False
            to_span = True
            for role, ref in r["args"]:
                if ref in spans:
                    continue
                to_span = False
                if ref not in rels:
                    self.err(file, n, f"{rid}: argument {role}:{ref}: {self._ref_problem(ref)}")
                    ok = False
            if not ok:
                continue
            rextra = r["extra"]
            kind: RelationKind
            if r["p"] == "E" and trig is None and len(r["args"]) == 2 and to_span:
                kind = "relation"
                rextra["prefix"] = "E"
            elif r["p"] == "E":
                kind = "event"
            else:
                kind = "relation"
            rel_extra[rid] = rextra
            relations.append(  # positionally, as spans below (fields checked at import)
                make_relation(
                    rid,
                    r["type"],
                    tuple([make_argument(role, ref) for role, ref in r["args"]]),
                    None,
                    (),
                    rel_attrs.setdefault(rid, {}),
                    trig,
                    kind,
                    rextra,
                )
            )
        # In the writer's canonical order every line goes back where it was without its position:
        # then no item keeps one (module docstring, "Extras layout").
        canonical = self._positions_redundant(triggers)
        if canonical:
            for s in self.general:
                _without_position(s.extra)
            for loc in rel_extra.values():
                del loc["file"], loc["line"]
            for items in (self.attrs, self.norms, self.stars, self.notes):
                for item in items:
                    loc = item["loc"]
                    del loc["file"], loc["line"]
        else:  # the fast path's spans get their position (the general path's have it)
            ids = self.ids
            values = iter(spans.values())
            done = 0
            for ext, _, counts, _ in self.files:  # counts[0]: spans up to the file's end
                for s in islice(values, counts[0] - done):
                    extra = s.extra
                    if not extra:
                        extra["file"] = ext
                        extra["line"] = ids[s.id][1]
                done = counts[0]
        for a in self.attrs:
            tgt = a["target"]
            loc = a["loc"]
            file_n = self.ids[a["id"]]
            if tgt in unknown:
                self._demote(a["id"], loc, self._line_attr(a))
                continue
            if tgt in spans:
                span = spans[tgt]
                values, owner = span.attributes, span.extra
            elif tgt in rel_extra:
                values, owner = rel_attrs[tgt], rel_extra[tgt]
            else:
                self.err(*file_n, f"{a['id']}: target {self._ref_problem(tgt)}")
                continue
            meta = owner.setdefault("attrs", {})
            name = a["name"]
            if name in values:
                first = meta[name]
                self.err(*file_n, f"{a['id']}: attribute {name} of {tgt} already set by {first['id']}")
                continue
            values[name] = a["value"]
            entry = {"id": a["id"], **loc}
            meta[name] = entry
        groundings: dict[str, list[Grounding]] = {}
        for g in self.norms:
            tgt, loc = g["target"], g["loc"]
            if tgt in unknown:
                self._demote(g["id"], loc, self._line_norm(g))
                continue
            if tgt not in spans:
                msg = (
                    "a normalisation must target a T entity"
                    if tgt in rels
                    else f"target {self._ref_problem(tgt)}"
                )
                self.err(*self.ids[g["id"]], f"{g['id']}: {msg}")
                continue
            groundings.setdefault(tgt, []).append(
                Grounding(ref=g["ref"], text=g["text"], source_id=g["id"], kind=g["kind"], extra=loc)
            )
        links: list[Link] = []
        for k, st in enumerate(self.stars, 1):
            members = st["members"]
            if any(m in unknown for m in members):
                self.keep(st["loc"]["file"], st["file"], st["n"], self._line_star(st))
                continue
            bad = [m for m in members if m not in spans]
            if bad:
                self.err(st["file"], st["n"], f"{st['type']} member {bad[0]}: must be a T entity")
                continue
            group = f"*{k}"
            for j, tgt in enumerate(members[1:], 1):
                links.append(
                    Link(
                        id=f"{group}.{j}",
                        type=st["type"],
                        source=members[0],
                        target=tgt,
                        group=group,
                        extra=st["loc"] if j == 1 else {},
                    )
                )
        notes: list[Note] = []
        for nt in self.notes:
            tgt, loc = nt["target"], nt["loc"]
            if tgt in unknown:
                self._demote(nt["id"], loc, self._line_note(nt))
                continue
            if tgt not in spans and tgt not in rel_extra:
                self.err(*self.ids[nt["id"]], f"{nt['id']}: target {self._ref_problem(tgt)}")
                continue
            notes.append(Note(id=nt["id"], type=nt["type"], target=tgt, text=nt["text"], extra=loc))
        set_groundings = _SET_GROUNDINGS
        for sid, found in groundings.items():  # (records made as read: the groundings come after)
            set_groundings(spans[sid], tuple(found))
        for file, kept in self.kept.items():
            line, raw = min(kept)
            self.warn(
                file,
                line,
                f"kept {len(kept)} non-brat line(s) verbatim (first: {raw[:40]!r}); they are written back "
                "unchanged but not imported as annotations",
            )
        return Annotations(
            spans=tuple(spans.values()),
            relations=tuple(relations),
            links=tuple(links),
            notes=tuple(notes),
            extra=set_extra,
        )

    def _positions_redundant(self, triggers: set[str]) -> bool:
        """Whether the writer puts every line where it is without its position, so positions can be
        dropped: :func:`_in_writer_order` with what :meth:`end_file` recorded (no look-up per line).
        What that function cannot see holds here: records are in file order; relations have no
        label or tags; every ``*`` line is one link group; any line kept verbatim is answered here."""
        if self.verbatim:
            return False  # (as is every line referring to an unknown id: rels, attrs... are whole)
        self.triggers = triggers
        return _in_writer_order(
            self.files,
            len(triggers),
            self._trigger_spans,
            self._owner_keys if len(self.attrs) > 1 or len(self.norms) > 1 else None,
        )

    def _trigger_spans(self, f: int) -> int:
        """How many spans of the ``f``-th file are some event's trigger."""
        spans = self.spans
        start = self.files[f - 1][2][0] if f else 0
        end = self.files[f][2][0]
        ids = islice(reversed(spans), end - start) if end == len(spans) else islice(spans, start, end)
        return len(self.triggers.intersection(ids))

    def _owner_keys(self) -> tuple[list[Any], list[Any]]:
        """Keys that sort the owners of the A/M lines and the targets of the N lines (in file order)
        in record order: spans, then relations, each in file order. Asked once all else holds, so
        every relation is in the last file after its T lines: (file, line) of the owner will do."""
        ids = self.ids
        unknown = ("", 0)  # an error anyway
        attr_keys = [ids.get(a["target"], unknown) for a in self.attrs]
        norm_keys = [ids.get(g["target"], unknown) for g in self.norms]
        paths = [path for _, path, _, _ in self.files]
        if paths != sorted(paths):  # files not in name order (given so): by their index
            order = {path: k for k, path in enumerate(paths)}
            attr_keys = [(order.get(path, -1), n) for path, n in attr_keys]
            norm_keys = [(order.get(path, -1), n) for path, n in norm_keys]
        return attr_keys, norm_keys

    # helpers to keep a dependent line verbatim (keep_unknown mode), reconstructing its exact text
    def _file_of(self, ident: str) -> str:
        return self.ids[ident][0]

    def _demote(self, ident: str, loc: dict[str, Any], raw: str) -> None:
        self.keep(loc["file"], self._file_of(ident), loc["line"], raw)

    @staticmethod
    def _line_attr(a: dict[str, Any]) -> str:
        return _attr_line(a["id"], a["name"], a["target"], a["value"], a["loc"])

    @staticmethod
    def _line_norm(g: dict[str, Any]) -> str:
        return _norm_line(g["id"], g["kind"], g["target"], g["ref"], g["text"], g["loc"])

    @staticmethod
    def _line_star(st: dict[str, Any]) -> str:
        return _star_line(st["type"], st["members"], st["loc"])

    @staticmethod
    def _line_note(nt: dict[str, Any]) -> str:
        return _note_line(nt["id"], nt["type"], nt["target"], nt["text"], nt["loc"])


def _without_position(extra: dict[str, Any]) -> dict[str, Any]:
    """``extra`` without its ``file`` and ``line`` keys (removed in place)."""
    extra.pop("file", None)
    extra.pop("line", None)
    return extra


def _st_norm(target: str, ref: str, loc: dict[str, Any]) -> tuple[str, str]:
    """The target and reference of an ``N`` line. BioNLP-ST writes normalisations as
    ``N1\tOntoBiotope Annotation:T3 Referent:OBT:000965`` (BB 2016, several per span), brat as
    ``N1\tReference T3 db:id``: the BioNLP-ST form is read as the same grounding (target ``T3``,
    ref ``OBT:000965``, kind ``OntoBiotope``) marked ``st`` in its extra, and written back in its
    own form (``lines._norm_line``)."""
    if target.startswith("Annotation:") and ref.startswith("Referent:") and len(target) > 11 and len(ref) > 9:
        loc["st"] = True
        return target[11:], ref[9:]
    return target, ref
