"""``Corpus.agreement``: the DB-facing side of agreement reports (a mixin of ``corpusdb.api.Corpus``).

Why a thin layer: choosing documents and raters and reading their sets (through the blindness
gate, in one bulk read) is all the database does here; everything else is the pure engine in
``corpusdb.agreement`` and the aggregation in this package.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from corpusdb.basics.errors import InvalidInput, NotFound
from corpusdb.services.base import ServiceBase

if TYPE_CHECKING:  # the engine (numpy, scipy, statsmodels) loads on first use, not with corpusdb.api
    from corpusdb.reports.options import AgreementOptions, Rater
    from corpusdb.reports.report import AgreementReport, Progress


class AgreementMixin(ServiceBase):
    """Inter-annotator agreement reports over the sets the acting user may read."""

    def agreement(
        self,
        layer: str = "spans",
        *,
        raters: Sequence[str] | None = None,
        gold: bool = False,
        predictions: bool = False,
        criterion: str = "exact",
        jaccard: float = 0.5,
        types: str | None = None,
        merges: Iterable[str] | Mapping[str, Iterable[str]] | None = None,
        relation_mode: str = "strict",
        label: str | None = None,
        ordinal: bool = False,
        level: str | None = None,
        split: str | None = None,
        documents: Sequence[str] | None = None,
        bootstrap: int = 0,
        seed: int = 0,
        confidence: float = 0.95,
        lowest: int = 5,
        unanswered: str = "misses",
        exclude_suggested: bool = False,
        semantic: str | None = None,
        semantic_weight: float = 0.65,
        derived: str = "exclude",
        options: AgreementOptions | None = None,
        progress: Progress | None = None,
    ) -> AgreementReport:
        """Agreement between raters on one layer (``spans``, ``relations``, ``links``, ``labels``).

        ``raters``: annotator names, ``"gold"``, or a system's name (its prediction sets); None means
        every annotator whose sets you may read (plus gold / predictions when asked). ``merges``:
        ``["protein,DNA,RNA=macromolecule"]`` or ``{"macromolecule": ["protein", "DNA", "RNA"]}``
        (implies ``types="merged"``). ``documents``/``split`` restrict the documents (both: the
        intersection). ``bootstrap`` > 0 adds document-bootstrap CIs (seeded by ``seed``). ``unanswered``:
        when gold is one side, a document gold has and the other rater has no set for counts as
        ``"misses"`` (default) or is ``"skipped"`` (the answered documents only). ``exclude_suggested``:
        leave out items accepted from suggestions (the report always counts them per rater). ``semantic``
        (layer groundings): a loaded ontology's name; near concepts then earn partial credit, Wang et al.
        (2007) similarity on its is_a graph with edge weight ``semantic_weight``, beside exact match.
        ``derived`` (layer relations): ``include`` adds the relations the schema's rules derive to every
        rater's sets before comparing; ``exclude`` (default) compares annotated relations; the report's
        settings say which.
        ``level`` (labels): the label values' level of measurement, ``nominal`` (default), ``ordinal``
        (schema order; the same as ``ordinal=True``), ``interval`` or ``ratio`` (numeric values:
        Krippendorff's alpha at that level, with a document-bootstrap CI when ``bootstrap`` > 0).

        >>> corpus.agreement(criterion="exact").matrix("f1")  # doctest: +SKIP
        """
        from corpusdb.reports.loading import load_raters
        from corpusdb.reports.options import AgreementOptions

        if options is None:
            extra: dict[str, Any] = {"types": types} if types is not None else {}
            if level is not None:
                extra["level"] = level
            options = AgreementOptions.build(
                layer=layer, raters=raters, gold=gold, predictions=predictions, criterion=criterion,
                jaccard=jaccard, merges=merges, relation_mode=relation_mode, label=label, ordinal=ordinal,
                split=split, documents=documents, bootstrap=bootstrap, seed=seed, confidence=confidence,
                lowest=lowest, unanswered=unanswered, exclude_suggested=exclude_suggested, semantic=semantic,
                semantic_weight=semantic_weight, derived=derived, **extra)  # fmt: skip
        doc_ids = self._report_documents(options)
        with self._read() as conn:
            skipped, excluded = self._skipped(conn)
            raters_ = load_raters(conn, self.project_id, self.actor, options, doc_ids, exclude=skipped)
        return self._build_report(options, raters_, progress, excluded)

    def agreements(
        self, layers: Sequence[str], *, options: AgreementOptions | None = None, **kwargs: Any
    ) -> dict[str, AgreementReport]:
        """The agreement reports of several layers with the same settings (``agreement``'s keyword
        arguments; ``options`` gives them at once, its layer ignored), in the order asked.

        Why not ``agreement`` once per layer: the span-like layers other than spans (relations, links,
        groundings) read the same full records, here read once and shared; the reports are those
        ``agreement`` gives layer by layer. Raises the first layer's error."""
        from dataclasses import replace

        from corpusdb.reports.loading import load_raters
        from corpusdb.reports.options import AgreementOptions

        if options is None:
            options = AgreementOptions.build(layer=layers[0] if layers else "spans", **kwargs)
        doc_ids = self._report_documents(options)
        out: dict[str, AgreementReport] = {}
        shared: list[Rater] | None = None
        with self._read() as conn:
            skipped, excluded = self._skipped(conn)
            loaded: dict[str, list[Rater]] = {}
            for layer in dict.fromkeys(layers):
                opts = replace(options, layer=layer)
                if layer in ("spans", "labels"):  # their own narrow reads (columns, document labels)
                    loaded[layer] = load_raters(
                        conn, self.project_id, self.actor, opts, doc_ids, exclude=skipped
                    )
                else:
                    if shared is None:
                        shared = load_raters(
                            conn, self.project_id, self.actor, opts, doc_ids, exclude=skipped
                        )
                    loaded[layer] = shared
        for layer, raters_ in loaded.items():
            out[layer] = self._build_report(replace(options, layer=layer), raters_, None, excluded)
        return out

    def unitizing_agreement(
        self,
        measure: str = "alpha_u",
        *,
        raters: Sequence[str] | None = None,
        split: str | None = None,
        documents: Sequence[str] | None = None,
        sample_documents: int | None = None,
        seed: int = 0,
        gamma: Any = None,
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        """Krippendorff's alpha_u or Mathet's gamma over the spans of the documents every rater has a
        visible set for (``corpusdb.reports.unitized``); the JSON body, schema ``corpusdb.unitizing/1``.
        ``gamma``: a ``GammaOptions``; ``sample_documents``: a seeded sample of that many documents."""
        from corpusdb.reports import unitized
        from corpusdb.reports.loading import load_raters
        from corpusdb.reports.options import AgreementOptions

        # layer "relations" reads full records (the spans with all their fragments) through the gate
        options = AgreementOptions.build(layer="relations", raters=raters, split=split, documents=documents)
        doc_ids = self._report_documents(options)
        with self._read() as conn:
            skipped, _ = self._skipped(conn)
            raters_ = load_raters(conn, self.project_id, self.actor, options, doc_ids, exclude=skipped)
        wanted = unitized.shared_documents(raters_)
        lengths = {d.external_id: len(d.text) for d in self.documents(external_ids=wanted)}  # type: ignore[attr-defined]
        body = unitized.compute(measure, raters_, lengths, gamma=gamma, sample_documents=sample_documents,
                                seed=seed, progress=progress)  # fmt: skip
        return {"project": self.info().name, "actor": self.actor.label, "layer": "spans", **body}  # type: ignore[attr-defined]

    def agreement_by(self, by: str, *, window: int = 10, **kwargs: Any) -> dict[str, Any]:
        """Agreement per guideline version, per split, or per annotator over time (``by`` = guideline,
        split, time; ``corpusdb.reports.grouped``): one ``agreement`` report (``kwargs``) per group."""
        from sqlalchemy import select

        from corpusdb.basics.errors import InvalidInput
        from corpusdb.reports import grouped
        from corpusdb.services import access
        from corpusdb.store import tables

        if by not in grouped.BY:
            raise InvalidInput(f"--by must be one of {', '.join(grouped.BY)}, not {by!r}")
        if window < 1:
            raise InvalidInput("--window must be 1 or more documents")
        kwargs.pop("documents", None)

        def report(docs: Sequence[str]) -> dict[str, Any]:
            return self.agreement(documents=docs, **kwargs).body

        with self._read() as conn:
            headers = [
                h for h in access.set_headers(conn, self.project_id, self.actor) if h.kind == "annotation"
            ]
            stamps = dict(
                conn.execute(
                    select(tables.annotation_set.c.id, tables.annotation_set.c.submitted).where(
                        tables.annotation_set.c.id.in_([h.id for h in headers] or [-1])
                    )
                ).all()
            )
        out: dict[str, Any] = {"schema": grouped.SCHEMA_ID, "project": self.info().name, "by": by,  # type: ignore[attr-defined]
                               "measure": "mean_pairwise_f1"}  # fmt: skip
        if by == "time":
            submitted: dict[str, list[tuple[Any, str]]] = {}
            for h in headers:
                if h.annotator and stamps.get(h.id) is not None:
                    submitted.setdefault(h.annotator, []).append((stamps[h.id], h.document_external_id))
            out["window"] = window
            out["measure"] = "the annotator's mean F1 against every other rater"
            out["rows"] = grouped.learning_curve(submitted, report, window)
            return out
        splits = {d.external_id: d.split for d in self.documents(with_text=False)}  # type: ignore[attr-defined]
        groups, mixed = grouped.group_documents(headers, by, splits)
        out["rows"] = grouped.by_groups(groups, report)
        if by == "guideline":
            out["mixed_documents"] = mixed
            out["rule"] = "a document counts under the highest guideline version of its annotation sets"
        return out

    def agreement_items(self) -> dict[str, int]:
        """How many items each agreement layer has in the annotation sets this user may read:
        ``spans``, ``relations``, ``links`` (links and entity clusters), ``labels`` (document labels).

        Why: a cheap check (counts in the database, nothing loaded) so a view computes only the layers
        somebody annotated. It passes the blindness gate: an annotator's counts are of their own sets."""
        from corpusdb.reports.loading import layer_items

        with self._read() as conn:
            return layer_items(conn, self.project_id, self.actor)

    def _semantic(self, options: AgreementOptions) -> Any:
        """The groundings layer's partial-credit measure: Wang et al. (2007) on the ``is_a`` graph of
        the knowledge base ``options.semantic`` (``corpusdb.evaluation.bb2016_norm.Wang``), over the
        groundings whose database the schema maps to it."""
        if options.semantic is None:
            return None
        from corpusdb.agreement.groundings import Semantic, database
        from corpusdb.basics.records import split_key
        from corpusdb.evaluation.bb2016_norm import Wang

        kb = options.semantic
        schema = self.schema()  # type: ignore[attr-defined]
        refs = [r for r in schema.knowledge_bases if r.kb == kb]
        if not refs:
            names = ", ".join(sorted({r.kb for r in schema.knowledge_bases})) or "none"
            raise InvalidInput(
                f"--semantic {kb}: the schema maps no grounding database to it (its knowledge bases: {names})"
            )
        parents = self.kb_parents(kb)  # type: ignore[attr-defined]
        known = set(parents) | {p for ps in parents.values() for p in ps}
        wang = Wang(parents, options.semantic_weight)
        dbs = {n.casefold() for r in refs for n in r.names()}

        def concept(ref: str) -> str:
            return ref if ref in known else split_key(ref)[1]

        return Semantic(
            measure=f"Wang et al. 2007 on {kb} (is_a, w={options.semantic_weight:g})",
            in_scope=lambda ref: database(ref).casefold() in dbs,
            similarity=lambda a, b: wang.set_similarity([concept(x) for x in a], [concept(y) for y in b]),
        )

    def _report_documents(self, options: AgreementOptions) -> list[int] | None:
        """The ids of the documents the options restrict a report to (None: all)."""
        if options.split is None and options.documents is None:
            return None
        chosen = self.documents(
            split=options.split,
            external_ids=options.documents,  # type: ignore[attr-defined]
            with_text=False,
        )
        if not chosen:
            raise NotFound(f"no documents in split {options.split!r}" if options.split else "no documents")
        return [d.id for d in chosen]

    def _skipped(self, conn: Any) -> tuple[set[int], list[Any]]:
        """Documents skipped as irrelevant (issue #15.7): left out of agreement, listed with reasons."""
        from corpusdb.services import skips

        skipped = skips.skipped_document_ids(conn, self.project_id, self.actor)
        return set(skipped), skips.excluded_list(conn, self.project_id, skipped)

    def _build_report(
        self, options: AgreementOptions, raters_: list[Rater], progress: Progress | None, excluded: list[Any]
    ) -> AgreementReport:
        from corpusdb.reports.report import build_report

        if options.layer == "relations":  # derived relations: in or out, as the options say
            from dataclasses import replace

            from guidelines.derive import with_derived, without_derived

            schema = self.schema()  # type: ignore[attr-defined]
            keep = (
                (lambda a: with_derived(schema, without_derived(a)))
                if options.derived == "include"
                else without_derived
            )
            raters_ = [replace(r, sets={d: keep(a) for d, a in r.sets.items()}) for r in raters_]
        texts = None
        if options.criterion == "fragment" and options.layer != "labels":
            wanted = sorted({d for r in raters_ for d in r.sets})
            texts = {d.external_id: d.text for d in self.documents(external_ids=wanted)}  # type: ignore[attr-defined]
        report = build_report(
            project=self.info().name,  # type: ignore[attr-defined]
            actor=f"{self.actor.label} ({self.actor.role})",
            schema=self.schema(),  # type: ignore[attr-defined]
            raters=raters_,
            opts=options,
            texts=texts,
            fetch_texts=lambda ids: {d.external_id: d.text for d in self.documents(external_ids=ids)},  # type: ignore[attr-defined]
            progress=progress,
            semantic=self._semantic(options),
        )
        if excluded:
            report.body["excluded_documents"] = excluded
        return report
