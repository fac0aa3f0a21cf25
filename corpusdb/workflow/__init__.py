"""The life of a corpus: assignment, submission, conflicts, adjudication, corrections, splits, releases.

Every method below is on ``corpusdb.api.Corpus`` (mixed in from this package); each opens one short
transaction; reads of annotation content go through ``corpusdb.access`` (blindness). Records come
from ``corpusdb.workflow.types`` (frozen dataclasses with ``to_dict()``); nothing returns ORM rows.

API summary (for the CLI and the TUI)
-------------------------------------
Assignment (lead)::

    assign(documents=None, annotators=None, *, per_document=None, seed=0, only_unassigned=False,
           seed_from=None) -> Assignment
        # explicit: every listed annotator gets every listed document (None = all documents);
        # per_document=N: N annotators per document in all, drawn evenly (least loaded first, seeded);
        # seed_from="tagger": copy that system's prediction set into each new set (SetInfo.seeded_from)

Submission (the set's own annotator; reopening: a lead)::

    validate_set(set_id) -> list[Violation]        # what the TUI lists before submitting
    submit(set_id, *, force=False) -> SetInfo       # raises SubmissionRefused(.violations) (exit 4)
    reopen(set_id, *, reason) -> SetInfo            # recorded in the audit trail with the reason

Conflicts and adjudication (adjudicator or lead; only documents whose annotation sets are all
submitted — naming another document raises PermissionDenied)::

    adjudication_queue(*, criterion="exact", types="ignored") -> list[QueueEntry]
        # every ready document: sets, conflicts, open conflicts, has_gold, gold_status
    conflicts(document=None, *, criterion="exact", types="ignored", sources=None,
              include_resolved=False) -> list[DocumentConflicts]
        # .conflicts: list[Conflict] with a stable .key ("span:12-19",
        # "relation:bind(span:0-4,span:12-19)", "link:synonym(span:0-4,span:6-9)", "label:relevance"),
        # .kind, .differs, .variants (Variant: item or None = absent, sources, display), .decision,
        # .blocked (why it cannot be taken yet); .counts per kind, .open, .agreed
    merge(document=None, *, threshold=None, criterion="exact", types="ignored", sources=None,
          progress=None) -> list[MergeResult]
        # builds/extends gold: unanimous items (or >= threshold of n agreeing: "majority") go in
        # automatically; decisions already made are kept on every re-run; all or nothing
    resolve(document, key, *, take=None, item=None, reject=False, reason=None,
            criterion="exact", types="ignored", sources=None) -> Resolution
        # take = annotator name, "name:localid" or set id; item = an edited Span/Relation/Link/DocLabel
        # (relation arguments and link ends name *gold* span ids); reject=True: none of them.
        # Agreed relations/links whose spans are now decided follow into gold in the same transaction.
    resolve_bulk(document, *, take, item_type=None, reason=None, criterion="exact", types="ignored",
                 sources=None) -> list[BulkResolution]
        # take one source's version of every open conflict (of one type); one transaction per
        # document; .taken, .refused, .followed, .skipped (key + why: a blocked argument), .open
    decisions(document=None) -> list[DecisionInfo]   # provenance; item_id "" records a refusal
    gold(document) -> AnnotationSet                  # the gold set (NotFound before any merge)

Sources: by default the submitted annotation sets of the document; ``sources=[...]`` names sets
(annotator names or set ids), which may include a system's prediction set (BioCreative II.5).

Corrections and review (lead or adjudicator)::

    correct(document, *, action, reason, item=None, key=None, kind=None, author=None) -> CorrectionInfo
        # action "add" | "change" | "delete"; item: the new Span/Relation/Link/DocLabel; key: the gold
        # local id (or label name) to change/delete; checked against the schema; recorded as a
        # Decision "corrected" and listed in the next release's change log
    corrections(document=None) -> list[CorrectionInfo]
    review(*, min_sources=2, criterion="exact", types="ignored", predictions=True) -> list[Suspect]

Splits and releases (lead; reading releases: adjudicators too)::

    split(*, ratios=(0.7, 0.1, 0.2), names=("train", "dev", "test"), seed=0, stratify=(),
          reset=False, dry_run=False) -> SplitReport
        # stratify: "entity", "relation", "relation_label", "label" or "label:NAME"
    release(version, *, notes="", outdir=None, agreement=True, allow_open=False, progress=None)
        -> ReleaseInfo
    releases() -> list[ReleaseInfo]
    export_release(version, outdir) -> list[Path]     # byte-identical re-export, checked by sha256

Release format: documented in ``corpusdb.workflow.releases``.
Validation, for any caller: ``guidelines.validate.validate(schema, annotations, text) -> list[Violation]``.
"""

from __future__ import annotations

from corpusdb.workflow.adjudication import AdjudicationMixin
from corpusdb.workflow.assignment import AssignmentMixin
from corpusdb.workflow.bulk import BulkAdjudicationMixin
from corpusdb.workflow.conflicts import ConflictsMixin
from corpusdb.workflow.corrections import CorrectionsMixin
from corpusdb.workflow.releases import ReleasesMixin
from corpusdb.workflow.review import ReviewMixin
from corpusdb.workflow.splits import SplitsMixin
from corpusdb.workflow.submission import SubmissionMixin
from corpusdb.workflow.types import SubmissionRefused


class WorkflowMixin(
    ReleasesMixin,
    SplitsMixin,
    ReviewMixin,
    CorrectionsMixin,
    BulkAdjudicationMixin,
    AdjudicationMixin,
    ConflictsMixin,
    SubmissionMixin,
    AssignmentMixin,
):
    """Everything above, mixed into ``corpusdb.api.Corpus``."""


__all__ = ["SubmissionRefused", "WorkflowMixin"]
