"""``SuggestionsMixin``: the suggestions on an annotator's own set, refreshed from the models she may
use (shared, her own, and the names already in the set), and accepted or rejected as edits.

Suggestions are stored so that accepting one is an edit naming it (``accept_suggestions``,
``reject_suggestions``: one action, one transaction, one undo step each, through ``edit_set``).
Models are loaded once per version and process (``corpusdb.recommend.models``): a document opens in
milliseconds once a matcher's automaton is built (``warm_recommenders`` builds it beforehand).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, select

from corpusdb.basics.errors import InvalidInput, NotFound, PermissionDenied
from corpusdb.recommend.manage import RC, RM, TRAINABLE, RecommendersMixin
from corpusdb.services import access, content
from corpusdb.store import tables

if TYPE_CHECKING:
    from corpusdb.recommend.matcher import Proposal
    from corpusdb.recommend.records import Suggestion
    from corpusdb.services.sets import EditResult

D = tables.document


@dataclass(frozen=True, slots=True)
class _Own:
    """An annotator's own part of a recommender, as far as choosing a model needs (no blob)."""

    version: int
    base_version: int
    trained: Any


class SuggestionsMixin(RecommendersMixin):
    """An annotator's suggestions: read, refreshed, accepted, rejected."""

    # -- suggestions ------------------------------------------------------------------------------
    def suggestions(self, document: str | int, *, refresh: bool = True) -> list[Suggestion]:
        """The suggestions on my own set of ``document`` (every status), refreshed first from every
        span recommender I may use, unless the set is submitted or ``refresh`` is False."""
        from corpusdb.recommend import store as sstore

        if self.actor.name is None:
            raise InvalidInput("the database owner has no sets of their own: act as an annotator (--as NAME)")
        with self._read() as conn:
            info = self._my_annotation_set(conn, document)
            if not refresh or info.status == "submitted":
                return sstore.read(conn, [info.id])
            recs = conn.execute(
                select(RC.c.id, RC.c.name, RC.c.kind, RC.c.options, RC.c.version, RC.c.trained)
                .where(RC.c.project_id == self.project_id, RC.c.kind.in_(TRAINABLE))
                .order_by(RC.c.name)
            ).all()
            own = {
                int(r.recommender_id): _Own(int(r.version), int(r.base_version), r.trained)
                for r in conn.execute(
                    select(RM.c.recommender_id, RM.c.version, RM.c.base_version, RM.c.trained).where(
                        RM.c.annotator_id == self.actor.id
                    )
                )
            }
            ann = content.load_many(conn, [info.id])[info.id]
            text = str(conn.execute(select(D.c.text).where(D.c.id == info.document_id)).scalar_one())
            stored = sstore.read(conn, [info.id])
        proposals: dict[int, tuple[str, list[Proposal]]] = {}
        relations: dict[int, tuple[str, list[dict[str, Any]]]] = {}
        have = {(sp.type, tuple(sp.fragments)) for sp in ann.spans}
        for r in recs:
            found = self._proposals_of(r, own.get(int(r.id)), text, ann)
            if found is None:
                continue
            if r.kind == "relation":  # between my own spans, those I have not related yet
                relations[int(r.id)] = found  # type: ignore[assignment]
            else:  # what the set already has as an item is not proposed
                proposals[int(r.id)] = (found[0], [p for p in found[1] if (p.type, p.fragments) not in have])
        if not self._would_change(stored, recs, proposals, relations):
            return stored
        with self._write() as conn:
            self._my_annotation_set(conn, document)  # still mine (not deleted meanwhile)
            for rid, (version, props) in proposals.items():
                sstore.refresh(conn, info.id, rid, version, props)
            for rid, (version, rels) in relations.items():
                sstore.refresh_relations(conn, info.id, rid, version, rels)
            return sstore.read(conn, [info.id])

    def warm_recommenders(self) -> int:
        """Load the models my suggestions use into this process, so that the first document I open
        does not wait for them (a string matcher's automaton over 10^5 names takes a second or more to
        build). Returns how many recommenders have a model for me. The TUI calls it in a worker."""
        from corpusdb.basics.records import Annotations

        if self.actor.name is None:
            return 0
        with self._read() as conn:
            recs = conn.execute(
                select(RC.c.id, RC.c.name, RC.c.kind, RC.c.options, RC.c.version, RC.c.trained).where(
                    RC.c.project_id == self.project_id, RC.c.kind.in_(TRAINABLE)
                )
            ).all()
            own = {
                int(r.recommender_id): _Own(int(r.version), int(r.base_version), r.trained)
                for r in conn.execute(
                    select(RM.c.recommender_id, RM.c.version, RM.c.base_version, RM.c.trained).where(
                        RM.c.annotator_id == self.actor.id
                    )
                )
            }
        return sum(self._proposals_of(r, own.get(int(r.id)), "", Annotations()) is not None for r in recs)

    def _would_change(
        self,
        stored: Sequence[Suggestion],
        recs: Sequence[Any],
        proposals: Mapping[int, tuple[str, list[Proposal]]],
        relations: Mapping[int, tuple[str, list[dict[str, Any]]]] = {},
    ) -> bool:
        """Whether ``refresh`` would write anything (a document opened again writes nothing)."""
        from corpusdb.recommend.store import relation_key, span_key

        names = {int(r.id): str(r.name) for r in recs}
        for rid, (version, rels) in relations.items():
            mine_r = {relation_key(s.type, (s.payload or {}).get("args") or ()): s for s in stored
                      if s.recommender == names[rid] and s.kind == "relation"}  # fmt: skip
            want_r = {relation_key(r["type"], r["args"]): r for r in rels}
            for k, s in mine_r.items():
                if s.status == "open" and (
                    k not in want_r or s.version != version or s.score != float(want_r[k]["score"])
                ):
                    return True
            if any(k not in mine_r for k in want_r):
                return True
        for rid, (version, props) in proposals.items():
            mine = {span_key(s.type, s.fragments): s for s in stored if s.recommender == names[rid]}
            want = {span_key(p.type, p.fragments): p for p in props}
            for k, s in mine.items():
                if s.status == "open" and (k not in want or s.version != version or s.score != want[k].score):
                    return True
            if any(k not in mine for k in want):
                return True
        return False

    def _my_annotation_set(self, conn: Connection, document: str | int) -> Any:
        from corpusdb.services.sets import document_id

        doc = document_id(conn, self.project_id, document)
        found = access.visible_sets(
            conn,
            self.project_id,
            self.actor,
            document_ids=[doc],
            kind="annotation",
            annotator=self.actor.name,
        )
        if not found:
            raise NotFound(f"{self.actor.label} has no annotation set on document {document!r}")
        return found[0]

    def _proposals_of(
        self, r: Any, own: _Own | None, text: str, ann: Any
    ) -> tuple[str, list[Proposal]] | None:
        """(version label, proposals) of one recommender on one document, or None when it has no
        model for me yet."""
        from corpusdb.recommend import models
        from corpusdb.recommend.matcher import MatcherOptions, StringMatcher, count_names, propose
        from corpusdb.recommend.tagger import TaggerOptions

        opts = dict(r.options or {})
        types = frozenset(opts["types"]) if opts.get("types") is not None else None
        url = self.engine.url.render_as_string(hide_password=True)
        if r.kind == "relation":
            return self._relations_of(r, own, text, ann, types, url)  # type: ignore[return-value]
        if r.kind == "string":
            mopts = MatcherOptions.from_dict(opts)
            matchers = []
            if r.version:
                key = ("string", url, int(r.id), int(r.version), str(r.trained))
                matchers.append(
                    models.cached(
                        key, lambda: StringMatcher(self._load_payload(int(r.id))["names"], mopts, types)
                    )
                )
            if own is not None:
                key = ("string-own", url, int(r.id), self.actor.id, own.version, str(own.trained))
                matchers.append(
                    models.cached(
                        key, lambda: StringMatcher(self._load_own(int(r.id))["names"], mopts, types)
                    )
                )
            here = count_names((sp.text, sp.type) for sp in ann.spans if len(sp.fragments) == 1)
            if here:  # the names of this very set: every other occurrence in the document at once
                matchers.append(StringMatcher(here, mopts, types))
            version = f"{r.version}" + (f".{own.version}" if own is not None else "")
            return version, propose(text, matchers) if matchers else []
        from corpusdb.recommend.tagger import Tagger

        topts = TaggerOptions.from_dict(opts)
        if own is not None and own.version:
            key = ("tagger-own", url, int(r.id), self.actor.id, own.version, str(own.trained))
            tagger = models.cached(
                key,
                lambda: Tagger(models.decode_bytes(self._load_own(int(r.id))["crf"]), types, topts.min_score),
            )
            version = f"{own.base_version}.{own.version}"
        elif r.version:
            key = ("tagger", url, int(r.id), int(r.version), str(r.trained))
            tagger = models.cached(
                key,
                lambda: Tagger(
                    models.decode_bytes(self._load_payload(int(r.id))["crf"]), types, topts.min_score
                ),
            )
            version = f"{r.version}"
        else:
            return None
        return version, tagger.propose(text)

    def _relations_of(
        self, r: Any, own: _Own | None, text: str, ann: Any, types: frozenset[str] | None, url: str
    ) -> tuple[str, list[dict[str, Any]]] | None:
        """A relation recommender's proposals between my own spans: its shared counts (gold) plus
        my own part's (my sets), or None before either is trained."""
        from corpusdb.recommend import models
        from corpusdb.recommend.cooccur import Counts, Mention, RelationModel, RelationOptions

        rid = int(r.id)
        parts = []
        if r.version:
            key = ("relation", url, rid, int(r.version), str(r.trained))
            parts.append(models.cached(key, lambda: Counts.from_json(self._load_payload(rid)["counts"])))
        if own is not None and own.version:
            key = ("relation-own", url, rid, self.actor.id, own.version, str(own.trained))
            parts.append(models.cached(key, lambda: Counts.from_json(self._load_own(rid)["counts"])))
        if not parts:
            return None
        counts = parts[0] if len(parts) == 1 else parts[0] + parts[1]
        model = RelationModel(counts, RelationOptions.from_dict(dict(r.options or {})), types)
        mentions = [
            Mention(sp.id, sp.type, tuple((int(a), int(b)) for a, b in sp.fragments), sp.text)
            for sp in ann.spans
            if sp.fragments
        ]
        existing = [(x.type, x.args[0].ref, x.args[1].ref) for x in ann.relations if len(x.args) == 2]
        version = f"{r.version}" + (f".{own.version}" if own is not None else "")
        return version, model.propose(text, mentions, existing)

    def _load_payload(self, rec_id: int) -> dict[str, Any]:
        with self._read() as conn:
            payload = self._shared_payload(conn, rec_id)
        if payload is None:
            raise NotFound("the recommender has no trained model")
        return payload

    def _load_own(self, rec_id: int) -> dict[str, Any]:
        from corpusdb.recommend import models

        with self._read() as conn:
            blob = conn.execute(
                select(RM.c.model).where(RM.c.recommender_id == rec_id, RM.c.annotator_id == self.actor.id)
            ).scalar()
        if not blob:
            raise NotFound("no model of your own for this recommender")
        return models.unpack(blob, "your own part of the recommender")

    def set_suggestions(self, set_id: int, *, status: str | None = None) -> list[Suggestion]:
        """The suggestions of a set this user may read (its annotator; adjudicators and leads once
        the document is complete), without refreshing them."""
        from corpusdb.recommend import store as sstore

        with self._read() as conn:
            access.readable_set(conn, self.project_id, self.actor, set_id)
            return sstore.read(conn, [set_id], status=status)

    def suggestion_counts(self, set_ids: Sequence[int]) -> dict[int, dict[str, int]]:
        """Per readable set: how many suggestions are open, accepted, rejected (what a document list
        shows beside each document)."""
        from corpusdb.recommend import store as sstore

        with self._read() as conn:
            ok = [i.id for i in access.visible_sets(conn, self.project_id, self.actor, set_ids=list(set_ids))]
            return sstore.counts(conn, ok)

    def queue_positions(self, set_ids: Sequence[int]) -> dict[int, tuple[str, int, float]]:
        """Per readable set handed out by ``assign --order``: (order, rank, score)."""
        q_ = tables.queue_position
        with self._read() as conn:
            ok = [i.id for i in access.visible_sets(conn, self.project_id, self.actor, set_ids=list(set_ids))]
            out: dict[int, tuple[str, int, float]] = {}
            for k in range(0, len(ok), 500):
                rows = conn.execute(
                    select(q_.c.set_id, q_.c.ordering, q_.c.rank, q_.c.score).where(
                        q_.c.set_id.in_(ok[k : k + 500])
                    )
                )
                out.update({int(r[0]): (str(r[1]), int(r[2]), float(r[3])) for r in rows})
        return out

    def accept_suggestions(
        self, set_id: int, ids: Sequence[int], *, expected_version: int, same_name: bool = False
    ) -> EditResult:
        """Accept suggestions of my set as my items (one action, one undo step); ``same_name``: every
        open suggestion of the first one's name and type in the document."""
        from corpusdb.recommend import actions

        ann, text, chosen, everything = self._picked_suggestions(set_id, ids)
        if same_name:
            chosen = actions.same_name(everything, chosen[0])
        changes, description = actions.accept(ann, text, chosen, everything)
        return self.edit_set(
            set_id,
            changes,
            expected_version=expected_version,
            history="do",  # type: ignore[attr-defined]
            description=description,
        )

    def reject_suggestions(self, set_id: int, ids: Sequence[int], *, expected_version: int) -> EditResult:
        """Reject suggestions of my set: never proposed to me again (one action, one undo step)."""
        from corpusdb.recommend import actions

        _ann, _text, chosen, _all = self._picked_suggestions(set_id, ids)
        changes, description = actions.reject(chosen)
        return self.edit_set(
            set_id,
            changes,
            expected_version=expected_version,
            history="do",  # type: ignore[attr-defined]
            description=description,
        )

    def _picked_suggestions(
        self, set_id: int, ids: Sequence[int]
    ) -> tuple[Any, str, list[Suggestion], list[Suggestion]]:
        from corpusdb.recommend import store as sstore

        if not ids:
            raise InvalidInput("name at least one suggestion")
        with self._read() as conn:
            info = access.readable_set(conn, self.project_id, self.actor, set_id)
            if info.annotator != self.actor.name:
                raise PermissionDenied(
                    f"set {set_id} is not yours: only its annotator accepts or rejects its suggestions"
                )
            ann = content.load_many(conn, [set_id])[set_id]
            text = str(conn.execute(select(D.c.text).where(D.c.id == info.document_id)).scalar_one())
            everything = sstore.read(conn, [set_id])
        by_id = {s.id: s for s in everything}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise NotFound(f"set {set_id} has no suggestion {missing[0]}")
        return ann, text, [by_id[i] for i in ids], everything
