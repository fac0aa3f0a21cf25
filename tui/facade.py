"""Everything the TUI asks of corpusdb, in one object built by one factory (the app and tests share it).

Why: the TUI is a thin layer over the Python API. Screens never touch the database or the tables;
they call this facade (from worker threads: every method here may block on the database), which
calls ``Corpus`` only, so blindness and locking hold on every path. Results are plain records.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

from corpusdb.basics.errors import CorpusError, DecidedMeanwhile, NotFound, UsageError
from corpusdb.basics.names import natural_key
from corpusdb.basics.records import Annotations, AnnotationSet, GuidelineInfo, ProjectInfo, SetInfo
from guidelines.schema import Schema
from guidelines.validate import Violation, validate

if TYPE_CHECKING:
    # Read when the project opens (``open_facade``, in a worker once the first screen is painted):
    # the API, the store and SQLAlchemy are most of what ``corpusdb tui`` loads (issue #25.11).
    from corpusdb.api import Corpus
    from corpusdb.workflow.status import StatusReport
    from tui.session import DocumentSession


@dataclass(frozen=True, slots=True)
class DocRow:
    """One of my documents in the list: where it stands and how much is done."""

    document: str
    set_id: int
    status: str
    version: int
    spans: int
    relations: int
    links: int
    labels: int
    updated: datetime
    skipped: bool = False
    """I flagged the document as irrelevant (``corpusdb.services.skips``)."""
    seeded: bool = False
    """Pre-annotated: a system's items were copied into my set (``assign --pre-annotate``)."""
    suggestions: int = 0
    """Open suggestions on my set (``corpusdb.recommend``): not my items until I accept them."""
    rank: int | None = None
    """Where ``assign --order`` put the document in my queue (1: first), if it did."""
    title: str = ""
    """The document's title (its metadata's ``title``), else the beginning of its text."""

    @property
    def todo(self) -> str:
        """What is left to do on the document for me, its annotator (the list's "to do" column)."""
        if self.status == "submitted":
            return "nothing (submitted)"
        if self.skipped:
            return "submit the skip (S)"
        left = [f"review {self.suggestions} suggestion(s)"] if self.suggestions else []
        items = self.spans + self.relations + self.links + self.labels
        if self.seeded and self.status == "assigned":
            left.insert(0, "check the pre-annotation")
        elif not items and self.status == "assigned":
            left.insert(0, "annotate")
        else:
            left.append("finish, submit (S)")
        return ", ".join(left)


@dataclass(frozen=True, slots=True)
class DocProgress:
    """One document in the lead's progress table: each annotator's status, and gold's."""

    document: str
    statuses: dict[str, str]
    gold: str | None


@dataclass(frozen=True, slots=True)
class TypeAgreement:
    """Span agreement for one entity type: counts pooled over pairs, F1 the mean over pairs."""

    type: str
    matched: int
    only_a: int
    only_b: int
    f1: float | None


@dataclass(frozen=True, slots=True)
class LeadAgreement:
    """What the lead view shows of agreement: the API's report bodies, unchanged.

    Why the JSON bodies (schema ``corpusdb.agreement/1``) and not TUI records: every figure on the
    screen is then the one ``corpusdb agree`` and ``Corpus.agreement`` give, never recomputed here."""

    layers: dict[str, dict[str, Any]]
    """Layer (``spans`` first, then ``relations``, ``links`` when the schema has them) -> report body."""
    errors: dict[str, str]
    """Layer -> why it has no report (e.g. nothing readable yet)."""
    conflicts: dict[str, Any]
    """Document -> the workflow's ``QueueEntry`` (conflicts, open) for documents ready to adjudicate."""
    bootstrap: int
    seed: int
    complete: bool = True
    """False after the first, quick part (spans only): the rest is computed next (``complete_lead``)."""


@dataclass(frozen=True, slots=True)
class LeadGroups:
    """The lead view's unitizing measures and agreement by group: the API's bodies, unchanged
    (``Corpus.unitizing_agreement``, schema ``corpusdb.unitizing/1``; ``Corpus.agreement_by``,
    ``corpusdb.agreement-by/1``), as ``corpusdb agree -m`` and ``agree --by`` give them."""

    unitizing: dict[str, dict[str, Any]]
    """``alpha_u`` and ``gamma`` -> report body (gamma on a seeded document sample: see its ``sample``)."""
    by: dict[str, dict[str, Any]]
    """``guideline``, ``split``, ``time`` -> grouped body."""
    errors: dict[str, str]
    """Measure or grouping -> why it has no figure."""


@dataclass(frozen=True, slots=True)
class Progress:
    report: StatusReport
    documents: tuple[DocProgress, ...]
    agreement: tuple[TypeAgreement, ...] = ()
    agreement_overall: TypeAgreement | None = None
    agreement_note: str = ""
    pairs: int = 0
    lead: LeadAgreement | None = None
    time: dict[str, Any] | None = None
    """``Corpus.time_report(agreement=False).to_dict()`` (active time, pace, projection); None for annotators."""


@dataclass
class Adjudication:
    """One document under adjudication: its conflicts (workflow records), gold so far, the sources."""

    document: str
    text: str
    conflicts: Any
    """``DocumentConflicts`` (None when the document has no source sets)."""
    gold: AnnotationSet | None = None
    sources: tuple[Any, ...] = ()
    """``SourceSet`` records, in the workflow's order (A, B, ...)."""
    source_sets: dict[int, Annotations] = field(default_factory=dict)
    """Set id -> content of each source (readable: every set of the document is submitted)."""


class TuiFacade:
    """The TUI's only door to corpusdb."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._merged: set[str] = set()
        """Documents whose agreed items this app merged into gold (merge once, when acting)."""
        self.labels: dict[str, str] = {}
        """Grounding id -> its knowledge-base label, for the documents opened (shown beside the id)."""
        self._recommenders: list[Any] | None = None
        """The project's recommenders as last read (``reload_recommenders``, in a worker)."""
        self.suggestion_poll = 30.0
        """Seconds between two checks, while a document is open, for recommenders added or
        retrained since (a lead's ``recommend add``/``train``, my own background training)."""

    # -- who and what -----------------------------------------------------------------------------
    @property
    def user(self) -> str:
        return self.corpus.actor.label

    @property
    def role(self) -> str:
        return self.corpus.actor.role

    @property
    def can_adjudicate(self) -> bool:
        return self.corpus.actor.can_adjudicate

    @cached_property
    def project(self) -> ProjectInfo:
        return self.corpus.info()

    @cached_property
    def schema(self) -> Schema:
        """The schema of the project's current guideline version."""
        return self.corpus.schema()

    def guideline(self) -> GuidelineInfo:
        return self.corpus.guideline()

    def has(self, method: str) -> bool:
        """Whether the API offers ``method`` (the workflow module may be absent in old builds)."""
        return callable(getattr(self.corpus, method, None))

    # -- annotator --------------------------------------------------------------------------------
    def my_documents(self) -> list[DocRow]:
        """My annotation sets with their item counts (only mine: the API enforces it)."""
        if self.corpus.actor.name is None:
            return []
        infos = self.corpus.sets(annotator=self.corpus.actor.name, kind="annotation")
        if not infos:
            return []
        contents = {a.info.id: a.annotations for a in self.corpus.read_sets([i.id for i in infos])}
        skipped = {k.set_id for k in self.corpus.skips()} if self.has("skips") else set()
        ids = [i.id for i in infos]
        open_ = (
            {k: v["open"] for k, v in self.corpus.suggestion_counts(ids).items()}
            if self.has("suggestion_counts")
            else {}
        )
        ranks = (
            {k: v[1] for k, v in self.corpus.queue_positions(ids).items()}
            if self.has("queue_positions")
            else {}
        )
        titles = self._titles([i.document_external_id for i in infos])
        rows = []
        for i in infos:
            ann = contents[i.id]
            rows.append(
                DocRow(
                    i.document_external_id,
                    i.id,
                    i.status,
                    i.version,
                    len(ann.spans),
                    len(ann.relations),
                    len(ann.links),
                    len(ann.labels),
                    i.updated,
                    i.id in skipped,
                    i.seeded_from is not None,
                    open_.get(i.id, 0),
                    ranks.get(i.id),
                    titles.get(i.document_external_id, ""),
                )
            )
        # the order ``assign --order`` handed them out in, the rest after; ids in natural order
        # (dev.2 before dev.10)
        rows.sort(key=lambda r: (r.rank is None, r.rank or 0, natural_key(r.document)))
        return rows

    PREVIEW = 120
    """Characters of a document's text read for the list's preview (the database cuts them)."""

    def _titles(self, documents: Sequence[str]) -> dict[str, str]:
        """Each document's title (metadata ``title``), else its text's beginning on one line."""
        out: dict[str, str] = {}
        for d in self.corpus.documents(external_ids=documents, head=self.PREVIEW):
            title = d.metadata.get("title") if d.metadata else None
            out[d.external_id] = " ".join(str(title or d.text).split())
        return out

    def open_document(self, document: str) -> DocumentSession:
        """My set on ``document``, ready to edit."""
        doc = self.corpus.document(document)
        aset = self.corpus.my_set(document)
        from tui.session import DocumentSession

        session = DocumentSession(self.corpus, doc, aset, self.schema)
        session.topic = self.topic_of(doc.metadata)
        if self.has("edit_history"):  # undo survives a restart: the store keeps the stacks
            session.restore_history(self.corpus.edit_history(aset.info.id))
        if self.has("skips"):
            found = [k for k in self.corpus.skips(document=document) if k.set_id == aset.info.id]
            session.skipped = found[0].reason if found else None
        if self.has("suggestions"):  # those stored; ``refresh_suggestions`` asks the models next
            session.suggestions = self.corpus.suggestions(document, refresh=False)
            self.reload_recommenders()  # in the worker, at each open: one added since is used at once
        self.learn_labels(aset.annotations)
        return session

    # -- suggestions (corpusdb.recommend) ---------------------------------------------------------
    def has_recommenders(self) -> bool:
        """Whether the project had recommenders when last read (read once if never: blocking)."""
        if not self.has("recommenders"):
            return False
        if self._recommenders is None:
            self.reload_recommenders()
        return bool(self._recommenders)

    def reload_recommenders(self) -> tuple[Any, ...]:
        """Read the project's recommenders again (blocking: a worker calls it); returns what
        identifies their models (name, version, last training), which changes when one is added,
        removed or retrained."""
        if not self.has("recommenders"):
            return ()
        self._recommenders = list(self.corpus.recommenders())
        return tuple((r.name, r.version, r.trained) for r in self._recommenders)

    def poll_suggestions(self, session: DocumentSession) -> list[Any] | None:
        """The periodic check while a document is open (blocking: a worker calls it): the
        recommenders read again and, when the project has some, my set's suggestions refreshed from
        their current models (a retrained shared part or my own, a recommender added since the TUI
        started). None when there is nothing to ask."""
        self.reload_recommenders()
        if not self.has_recommenders() or session.readonly:
            return None
        return self.refresh_suggestions(session)

    def refresh_suggestions(self, session: DocumentSession) -> list[Any]:
        """My set's suggestions, refreshed from the recommenders' models (blocking: a worker calls it;
        the first time a big string matcher builds its automaton)."""
        return list(self.corpus.suggestions(session.document.external_id))

    def warm_recommenders(self) -> None:
        """Build my recommenders' models now (blocking: a worker calls it while the list is shown), so
        the first document opens with its suggestions at once."""
        if self.has_recommenders():
            self.corpus.warm_recommenders()

    def suggestion_actions(self) -> Any:
        """The pure accept/reject changes (``corpusdb.recommend.actions``)."""
        from corpusdb.recommend import actions

        return actions

    def train_in_background(self) -> Any:
        """Retrain my own part of every recommender in a separate process (at most one at a time):
        the next documents I open get suggestions learned from what I just did."""
        proc = getattr(self, "_training", None)
        if proc is not None and proc.poll() is None:
            return proc
        if not self.has_recommenders() or self.corpus.actor.name is None:
            return None
        self._training = self.corpus.train_in_background(project=self.project.name)
        return self._training

    def learn_labels(self, *sets: Annotations) -> None:
        """Read the knowledge-base labels of these sets' groundings (schemas with knowledge bases)."""
        if not self.schema.knowledge_bases:
            return
        from corpusdb.basics.records import grounding_key

        keys = {grounding_key(g) for a in sets for x in (*a.spans, *a.entities) for g in x.groundings}
        if keys - set(self.labels):
            self.labels.update(self.corpus.grounding_labels(sorted(keys), self.schema))

    def label_picked(self, answer: str) -> None:
        """The knowledge-base picker answers ``"ID LABEL"``: the label is known from then on."""
        key, _, label = answer.partition(" ")
        if label:
            self.labels[key] = label

    def skip(self, session: DocumentSession, reason: str | None) -> None:
        """Flag my set's document as irrelevant with ``reason``, or lift the flag (None); blocking."""
        outcome = session.save_pending()
        if outcome.error:
            raise UsageError(f"not done: saving failed ({outcome.error})")
        if reason is None:
            self.corpus.unskip(session.set_id)
        else:
            self.corpus.skip(session.set_id, reason)
        session.skipped = reason

    def topic_of(self, metadata: Any) -> Any:
        """The topic a relevance unit is judged against (None for other documents): judges read it."""
        topic = metadata.get("topic") if metadata else None
        if topic is None or not self.has("topic"):
            return None
        try:
            return self.corpus.topic(str(topic))
        except CorpusError:
            return None

    # -- relevance judging (corpusdb.relevance) ----------------------------------------------------
    @property
    def judging(self) -> bool:
        """A relevance-judging project (``trec-relevance``-like: the first document label is what a
        judge grades): its annotators judge on the judging screen."""
        labels = self.schema.document_labels
        return (
            self.has("judgments")
            and bool(labels)
            and (labels[0].name == "relevance" or self.schema.name == "trec-relevance")
        )

    def grades(self) -> list[tuple[str, str, str | None]]:
        """(value, name, key) of each grade, in the schema's order (DR, PR, NR)."""
        labels = self.schema.document_labels
        return [(str(v.value), v.name, v.key) for v in labels[0].values] if labels else []

    def judging_round(self) -> tuple[list[Any], dict[str, Any]]:
        """My own units with my grades so far (``Corpus.judgments``, pool order: never anyone
        else's) and every topic by id."""
        units = list(self.corpus.judgments())  # type: ignore[attr-defined]
        topics = {t.id: t for t in self.corpus.topics()}  # type: ignore[attr-defined]
        return units, topics

    def unit_texts(self, units: Sequence[str]) -> dict[str, str]:
        """The text of each of my units (a unit's document holds its text)."""
        return {u: self.corpus.document(u).text for u in units}

    def judge(self, topic: str, doc: str, grade: str) -> Any:
        """Record my grade on my unit: ``Corpus.judge``, what `corpusdb judge` calls (blocking)."""
        return self.corpus.judge(topic, doc, grade)  # type: ignore[attr-defined]

    def submit_set(self, set_id: int) -> SetInfo:
        """Submit one of my sets (a judged unit): read-only afterwards, counted in qrels and kappa."""
        if not self.has("submit"):
            raise UsageError("this corpusdb has no workflow module: submission is not available")
        return self.corpus.submit(set_id)  # type: ignore[attr-defined,no-any-return]

    def violations(self, session: DocumentSession, annotations: Annotations | None = None) -> list[Violation]:
        """Schema violations of what the screen shows now (saved or not), or of ``annotations``
        (a version of the session's set handed to a worker)."""
        ann = session.annotations if annotations is None else annotations
        found = validate(session.schema, ann, session.text)
        return found + self.corpus.grounding_violations(ann, session.schema)

    def derived(self, session: DocumentSession) -> list[dict[str, object]]:
        """What the schema's rules derive from what the screen shows (saved or not), each marked
        with its rule: the submit check lists them apart, never as items of the set."""
        from guidelines.derive import derived_listing

        return derived_listing(session.schema, session.annotations)

    def submit(self, session: DocumentSession, *, force: bool = False) -> SetInfo:
        """Save what is queued, then submit (the workflow refuses on schema errors unless forced)."""
        outcome = session.save_pending()
        if outcome.error:
            raise UsageError(f"not submitted: saving failed ({outcome.error})")
        if not self.has("submit"):
            raise UsageError("this corpusdb has no workflow module: submission is not available")
        info: SetInfo = self.corpus.submit(session.set_id, force=force)  # type: ignore[attr-defined]
        session.info = info
        return info

    def document_targets(self) -> list[tuple[str, str, str]]:
        """(document, "annotate" | "adjudicate", help) for the command palette."""
        out = [(r.document, "annotate", f"my set: {r.status}, {r.spans} spans") for r in self.my_documents()]
        if self.can_adjudicate and self.has("adjudication_queue"):
            out += [
                (q.document, "adjudicate", f"{q.open} open conflict(s) of {q.conflicts}")
                for q in self.queue()
            ]
        return out

    # -- lead -------------------------------------------------------------------------------------
    def progress(self, *, with_agreement: bool = True, spans_first: bool = False) -> Progress:
        """Counts per annotator and per document, and span agreement per type where visible."""
        report = self.corpus.status()
        per_doc: dict[str, dict[str, str]] = defaultdict(dict)
        gold: dict[str, str] = {}
        for h in self.corpus.set_headers():
            if h.kind == "gold":
                gold[h.document_external_id] = h.status
            elif h.kind == "annotation" and h.annotator is not None:
                per_doc[h.document_external_id][h.annotator] = h.status
        docs = tuple(DocProgress(d, per_doc[d], gold.get(d)) for d in sorted(per_doc, key=natural_key))
        if self.role not in ("lead", "adjudicator"):
            return Progress(report, docs)
        time = self.corpus.time_report(agreement=False).to_dict()
        if not with_agreement:
            return Progress(report, docs, time=time)
        lead = (
            self.lead_agreement(layers=("spans",), conflicts=False) if spans_first else self.lead_agreement()
        )
        if "spans" not in lead.layers:
            return Progress(report, docs, agreement_note=f"no agreement yet: {lead.errors.get('spans', '')}",
                            lead=lead, time=time)  # fmt: skip
        rows, overall, note, pairs = self._agreement(lead.layers["spans"])
        return Progress(report, docs, rows, overall, note, pairs, lead, time)

    LEAD_BOOTSTRAP = 1000
    """Document-bootstrap resamples behind the lead view's CIs (seeded: the same figures each time)."""

    def lead_layers(self) -> list[str]:
        """The layers the lead view reports: spans, and relations and links when the schema has them."""
        return (
            ["spans"]
            + (["relations"] if self.schema.relations else [])
            + (["links"] if self.schema.links else [])
        )

    def lead_agreement(
        self,
        *,
        bootstrap: int | None = None,
        seed: int = 0,
        layers: Sequence[str] | None = None,
        conflicts: bool = True,
    ) -> LeadAgreement:
        """Agreement reports for the lead view: spans, and relations and links when the schema has
        them (exact boundaries, same type; seeded document-bootstrap CIs), plus each ready
        document's conflict counts. Only what this user may read (the API's blindness gate).
        ``layers``/``conflicts`` ask for part of it (the view shows spans first: ``complete_lead``)."""
        n = self.LEAD_BOOTSTRAP if bootstrap is None else bootstrap
        wanted = self.lead_layers() if layers is None else list(layers)
        done: dict[str, dict[str, Any]] = {}
        errors: dict[str, str] = {}
        todo = list(wanted)
        if any(x != "spans" for x in wanted):
            # Only the layers somebody annotated (a count in the database, through the blindness gate):
            # a relations or links report on none costs as much as the spans report (issue #15.5).
            items = self.corpus.agreement_items()
            for layer in wanted:
                if layer != "spans" and not items.get(layer):
                    todo.remove(layer)
                    errors[layer] = "none in the readable sets"
        try:  # one call: the layers after spans share one read of the sets
            reports = self.corpus.agreements(todo, criterion="exact", bootstrap=n, seed=seed)
            done.update((x, r.to_dict()) for x, r in reports.items())
        except CorpusError:  # say which layer fails, and why
            for layer in todo:
                try:
                    done[layer] = self.corpus.agreement(
                        layer, criterion="exact", bootstrap=n, seed=seed
                    ).to_dict()
                except CorpusError as exc:
                    errors[layer] = str(exc)
        counts: dict[str, Any] = {}
        if conflicts and self.can_adjudicate and self.has("adjudication_queue"):
            try:
                counts = {q.document: q for q in self.queue()}
            except CorpusError as exc:
                errors["conflicts"] = str(exc)
        complete = conflicts and set(self.lead_layers()) <= set(wanted)
        return LeadAgreement(done, errors, counts, n, seed, complete)

    GAMMA_DOCUMENTS = 10
    """gamma in the lead view: a seeded sample of at most this many documents (the alignment is an
    integer program per document; ``corpusdb agree -m gamma`` computes every one)."""
    GAMMA_SAMPLES = 10
    """gamma's random continua for the expected disorder in the lead view (stated on screen)."""
    BY_WINDOW = 10
    """Documents per window of the learning curve (``agree --by time --window``)."""

    def lead_groups(self, progress: Any = None, *, seed: int = 0) -> LeadGroups:
        """alpha_u and gamma over every annotator (corpus and per document), and span agreement by
        guideline version, by split and by annotator over time, for the lead view; what this user may
        read only. ``progress(done, total, what)`` is the API's callback (gamma is slow)."""
        from corpusdb.reports.unitized import GammaOptions

        unit: dict[str, dict[str, Any]] = {}
        by: dict[str, dict[str, Any]] = {}
        errors: dict[str, str] = {}
        for measure in ("alpha_u", "gamma"):
            try:
                unit[measure] = self.corpus.unitizing_agreement(
                    measure, seed=seed, progress=progress,
                    sample_documents=self.GAMMA_DOCUMENTS if measure == "gamma" else None,
                    gamma=GammaOptions(samples=self.GAMMA_SAMPLES),
                )  # fmt: skip
            except CorpusError as exc:
                errors[measure] = str(exc)
        for grouping in ("guideline", "split", "time"):
            if progress is not None:
                progress(0, None, f"agreement by {grouping}")
            try:
                by[grouping] = self.corpus.agreement_by(grouping, window=self.BY_WINDOW, criterion="exact")
            except CorpusError as exc:
                errors[grouping] = str(exc)
        return LeadGroups(unit, by, errors)

    def complete_lead(self, first: LeadAgreement) -> LeadAgreement:
        """The rest of the lead view's agreement after its quick first part (the other layers, the
        conflict counts), merged with it; the layers keep their order."""
        rest = [x for x in self.lead_layers() if x not in first.layers and x not in first.errors]
        more = self.lead_agreement(bootstrap=first.bootstrap, seed=first.seed, layers=rest)
        merged = {
            x: ({**first.layers, **more.layers})[x]
            for x in self.lead_layers()
            if x in first.layers or x in more.layers
        }
        return LeadAgreement(
            merged, {**first.errors, **more.errors}, more.conflicts, first.bootstrap, first.seed
        )

    def _agreement(
        self, report: dict[str, Any]
    ) -> tuple[tuple[TypeAgreement, ...], TypeAgreement | None, str, int]:
        """Span agreement per type from a ``Corpus.agreement`` body (exact boundaries, same type):
        mean pairwise F1 over the documents whose sets this user may read."""
        rows = tuple(
            TypeAgreement(r["name"], r["matched"], r["only_a"], r["only_b"], r["value"])
            for r in report["per_type"]["rows"]
        )
        summary = report["summary"]
        m, a, b = (sum(getattr(r, k) for r in rows) for k in ("matched", "only_a", "only_b"))
        overall = TypeAgreement("(all)", m, a, b, summary.get("value"))
        pairs = int(summary.get("n_pairs") or 0)
        note = (
            f"mean pairwise span F1 (exact, same type) · {pairs} pair(s) · "
            f"{len(report['documents'])} document(s)"
        )
        return rows, overall, note, pairs

    # -- adjudicator ------------------------------------------------------------------------------
    def queue(self) -> list[Any]:
        """Documents ready for adjudication with their conflict counts (workflow QueueEntry)."""
        self._need("adjudication_queue")
        queue = self.corpus.adjudication_queue()  # type: ignore[attr-defined]
        return sorted(queue, key=lambda e: natural_key(e.document))  # dev.2 before dev.10

    def open_adjudication(self, document: str) -> Adjudication:
        """The conflicts left and the gold set; an adjudicator's opening auto-merges agreed items first.

        Why not a lead's: a lead opens documents to look (the lead view's drill-down), and merging
        writes gold and unanimous decisions in their name (issue #15.7). A lead's first decision
        merges (``resolve``): gold is written when someone acts, never by looking."""
        self._need("merge", "conflicts", "gold")
        if self.role == "adjudicator":  # as before: every opening merges what became agreed
            self.corpus.merge(document)  # type: ignore[attr-defined]
            self._merged.add(document)
        return self.reload_adjudication(document)

    def _merge_once(self, document: str, expected_version: int | None = None) -> int | None:
        """Merge the agreed items before this app's first write on the document (a lead who only
        looked wrote nothing). Returns the gold version the write should expect: the merge's own
        version when the screen showed the gold as it was just before it (else the screen's, so a
        change by someone else is still refused as stale)."""
        if document in self._merged:
            return expected_version
        before = self._gold_version(document)
        self.corpus.merge(document)  # type: ignore[attr-defined]
        self._merged.add(document)
        if expected_version is not None and before == expected_version:
            return self._gold_version(document)
        return expected_version

    def gold_version(self, document: str) -> int | None:
        """The version of ``document``'s gold set now (None before any merge)."""
        return self._gold_version(document)

    def _gold_version(self, document: str) -> int | None:
        try:
            return self.corpus.gold(document).info.version  # type: ignore[attr-defined]
        except NotFound:
            return None

    def reload_adjudication(self, document: str) -> Adjudication:
        found = self.corpus.conflicts(document, include_resolved=True)  # type: ignore[attr-defined]
        dc = found[0] if found else None
        text = self.corpus.document(document).text
        try:
            gold = self.corpus.gold(document)  # type: ignore[attr-defined]
        except NotFound:
            gold = None
        sources = tuple(dc.sources) if dc else ()
        contents = {a.info.id: a.annotations for a in self.corpus.read_sets([s.set_id for s in sources])}
        self.learn_labels(*contents.values(), *([gold.annotations] if gold else []))
        return Adjudication(document, text, dc, gold, sources, contents)

    def resolve(
        self,
        document: str,
        key: str,
        *,
        take: str | int | None = None,
        item: Any = None,
        reject: bool = False,
        reason: str | None = None,
        expected_version: int | None = None,
        revise: bool = False,
    ) -> Any:
        """Decide one conflict (``revise``: one the screen showed decided, again); gold and its Decision
        are written in one transaction (after the agreed items are merged, when this app has not merged
        them yet: the first act writes gold). ``expected_version``: the gold version shown (StaleVersion
        if it moved on); a conflict shown open that someone decided since is refused (DecidedMeanwhile)."""
        self._need("resolve")
        merged_now = document not in self._merged
        expected_version = self._merge_once(document, expected_version)

        def decide(revise: bool) -> Any:
            return self.corpus.resolve(  # type: ignore[attr-defined]
                document, key, take=take, item=item, reject=reject, reason=reason or None,
                expected_version=expected_version, revise=revise,
            )  # fmt: skip

        try:
            return decide(revise)
        except DecidedMeanwhile as exc:
            if not (merged_now and exc.method == "unanimous"):
                raise
            # the merge this very act ran decided the agreed item the screen showed undecided (a
            # lead's first act): no one else's judgement is overwritten by deciding it
            return decide(True)

    def undo_decision(
        self, document: str, key: str, *, reason: str | None = None, expected_version: int | None = None
    ) -> Any:
        """Undo the decision on a conflict (open again; what rests on its gold item leaves too)."""
        self._need("undo_decision")
        expected_version = self._merge_once(document, expected_version)
        return self.corpus.undo_decision(  # type: ignore[attr-defined]
            document, key, reason=reason or None, expected_version=expected_version
        )

    def edit_gold(self, document: str, item_id: str, item: Any, *, reason: str | None = None,
                  expected_version: int | None = None) -> Any:  # fmt: skip
        """Replace one gold item, keeping its id (an ``edited`` decision with before and after)."""
        self._need("edit_gold")
        expected_version = self._merge_once(document, expected_version)
        return self.corpus.edit_gold(  # type: ignore[attr-defined]
            document, item_id, item, reason=reason or None, expected_version=expected_version
        )

    def add_gold(self, document: str, item: Any, *, reason: str | None = None,
                 expected_version: int | None = None) -> Any:  # fmt: skip
        """Put an item no annotator made into gold (an ``edited`` decision from no source)."""
        self._need("add_gold")
        expected_version = self._merge_once(document, expected_version)
        return self.corpus.add_gold(  # type: ignore[attr-defined]
            document, item, reason=reason or None, expected_version=expected_version
        )

    def remove_gold(self, document: str, item_id: str, *, kind: str | None = None, reason: str | None = None,
                    expected_version: int | None = None) -> Any:  # fmt: skip
        """Take one gold item out (and what rests on it), recorded as ``edited`` with no after."""
        self._need("remove_gold")
        expected_version = self._merge_once(document, expected_version)
        return self.corpus.remove_gold(  # type: ignore[attr-defined]
            document, item_id, kind=kind, reason=reason or None, expected_version=expected_version
        )

    def decisions(self, document: str) -> list[Any]:
        """Every decision on ``document``'s gold, oldest first: what ``corpusdb decisions`` lists."""
        self._need("decisions")
        return list(self.corpus.decisions(document))  # type: ignore[attr-defined]

    def check_gold(self, document: str) -> Any:
        """Whether the document's gold can be finished (GoldCheck); writes nothing."""
        self._need("check_gold")
        return self.corpus.check_gold(document)  # type: ignore[attr-defined]

    def finish_gold(self, document: str, *, force: bool = False) -> Any:
        """Finish the document's gold (refused while a conflict is open); decisions are frozen after."""
        self._need("finish_gold")
        self._merge_once(document)
        return self.corpus.finish_gold(document, force=force)  # type: ignore[attr-defined]

    # -- search -----------------------------------------------------------------------------------
    def search(self, query: str, *, document: str | None = None, set_id: int | None = None,
               limit: int | None = 500, context: int = 40) -> Any:  # fmt: skip
        """Hits of a query (``corpusdb.search``): the corpus, one document, or one set of it."""
        return self.corpus.search(query, limit=limit, context=context, document=document, set_id=set_id)

    def search_document(
        self, document: str, query: str, *, set_id: int | None = None
    ) -> list[tuple[int, int]]:
        """``(start, stop)`` of every hit of ``query`` in ``document``, in text order: places in its
        text, or the spans that match (a query with fields) of set ``set_id`` (the annotate screen:
        mine) or of every set I may read there (adjudication); one place once."""
        res = self.corpus.search(query, limit=None, context=None, document=document, set_id=set_id)
        return sorted({(h.start, h.stop) for h in res.hits})

    def search_annotate(self, query: str, type_: str) -> Any:
        return self.corpus.search_annotate(query, type_)

    def search_undo(self, bulk_id: str) -> Any:
        return self.corpus.search_undo(bulk_id)

    def search_correct(self, query: str, *, reason: str, set_type: str | None = None, delete: bool = False,
                       add_type: str | None = None) -> Any:  # fmt: skip
        return self.corpus.search_correct(
            query, reason=reason, set_type=set_type, delete=delete, add_type=add_type
        )

    def _need(self, *methods: str) -> None:
        missing = [m for m in methods if not self.has(m)]
        if missing:
            raise UsageError(f"this corpusdb has no workflow module ({', '.join(missing)} missing)")


def _type_row(name: str, c: Counter[str]) -> TypeAgreement:
    m, a, b = c["matched"], c["only_a"], c["only_b"]
    return TypeAgreement(name, m, a, b, (2 * m / (2 * m + a + b)) if (m + a + b) else None)


def open_facade(db: str | None = None, project: str | None = None, user: str | None = None) -> TuiFacade:
    """The one factory: the ``corpusdb tui`` command and the tests both build the app's facade here.

    The project and its schema are read now, before the app runs, so no screen ever reads them on
    the UI thread."""
    from corpusdb.api import Corpus
    from corpusdb.store.db import default_url

    facade = TuiFacade(Corpus.open(project, url=default_url(db), user=user))
    _ = facade.project, facade.schema
    return facade
