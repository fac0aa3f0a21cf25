"""The life of a corpus: assignment, submission, conflicts, adjudication, corrections, splits, releases.

Every method below is on ``corpusdb.api.Corpus`` (mixed in from this package); each opens one short
transaction; reads of annotation content go through ``corpusdb.services.access`` (blindness). Records come
from ``corpusdb.workflow.types`` (frozen dataclasses with ``to_dict()``); nothing returns ORM rows.

API summary (for the CLI and the TUI)
-------------------------------------
Assignment (lead)::

    assign(documents=None, annotators=None, *, per_document=None, seed=0, only_unassigned=False,
           seed_from=None, as_suggestions=False, order=None, limit=None, order_by=None) -> Assignment
        # explicit: every listed annotator gets every listed document (None = all documents);
        # per_document=N: N annotators per document in all, drawn evenly (least loaded first, seeded);
        # seed_from="tagger": copy that system's prediction set into each new set (SetInfo.seeded_from),
        #   or with as_suggestions=True offer it as suggestions (corpusdb.recommend);
        # order="uncertainty"|"disagreement": hand documents out in that order (seeded; limit=N: the
        #   first N), each set's rank kept (Assignment.order says the rule, .ranks the ranks)

Submission (the set's own annotator; reopening: a lead)::

    validate_set(set_id) -> list[Violation]        # what the TUI lists before submitting
    submit(set_id, *, force=False) -> SetInfo       # raises SubmissionRefused(.violations) (exit 4)
    reopen(set_id, *, reason) -> SetInfo            # recorded in the audit trail with the reason

Conflicts and adjudication (adjudicator or lead; only documents whose annotation sets are all
submitted — naming another document raises PermissionDenied)::

    adjudication_queue(*, criterion="exact", types="required") -> list[QueueEntry]
        # every ready document: sets, conflicts, open conflicts, has_gold, gold_status
    conflicts(document=None, *, criterion="exact", types="required", sources=None,
              include_resolved=False) -> list[DocumentConflicts]
        # .conflicts: list[Conflict] with a stable .key ("span:12-19",
        # "relation:bind(span:0-4,span:12-19)", "link:synonym(span:0-4,span:6-9)", "label:relevance"),
        # .kind, .differs, .variants (Variant: item or None = absent, sources, display), .decision,
        # .blocked (why it cannot be taken yet); .counts per kind, .open, .agreed
    merge(document=None, *, threshold=None, criterion="exact", types="required", sources=None,
          progress=None) -> list[MergeResult]
        # builds/extends gold: unanimous items (or >= threshold of n agreeing: "majority") go in
        # automatically; decisions already made are kept on every re-run; all or nothing
    resolve(document, key, *, take=None, item=None, reject=False, reason=None,
            criterion="exact", types="required", sources=None, expected_version=None) -> Resolution
        # take = annotator name, "name:localid" or set id; item = an edited Span/Relation/Link/DocLabel
        # (relation arguments and link ends name *gold* span ids; with take: edited from that source;
        # method "edited" with before/after unless it equals a version: "adjudicated"); reject=True:
        # none of them. A decided key is decided again (revision; old decision kept, superseded)
        # until gold is finished. Agreed relations/links whose spans are now decided follow into gold.
    undo_decision(document, key, *, reason=None, ..., expected_version=None) -> Resolution
        # the conflict is open again; what rests on its item leaves gold too (Resolution.undone)
    edit_gold(document, item_id, item, *, reason=None, expected_version=None) -> Resolution
    add_gold(document, item, *, reason=None, expected_version=None) -> Resolution
    remove_gold(document, item_id, *, kind=None, reason=None, expected_version=None) -> Resolution
        # gold items by hand, each an "edited" decision with before/after (add: before None)
    check_gold(document) -> GoldCheck   # .ok, .open, .blocked, .violations, .summary()
    finish_gold(document, *, force=False, expected_version=None) -> GoldCheck
        # raises GoldNotFinished(.check) while a conflict is open or gold breaks the schema (force:
        # schema errors allowed); finished gold (status "submitted") is frozen: `correct`, or a lead
        # reopen(gold set id) makes it revisable again. Only finished gold is released.
    resolve_bulk(document, *, take, item_type=None, reason=None, criterion="exact", types="required",
                 sources=None) -> list[BulkResolution]
        # take one source's version of every open conflict (of one type); one transaction per
        # document; .taken, .refused, .followed, .skipped (key + why: a blocked argument), .open
    decisions(document=None) -> list[DecisionInfo]   # provenance; item_id "" records a refusal;
        # the whole history: .superseded_by (revised/undone), .before/.after (edited), .in_force
    gold(document) -> AnnotationSet                  # the gold set (NotFound before any merge)

Sources: by default the submitted annotation sets of the document; ``sources=[...]`` names sets
(annotator names or set ids), which may include a system's prediction set (BioCreative II.5).

Corrections and review (lead or adjudicator)::

    correct(document, *, action, reason, item=None, key=None, kind=None, author=None) -> CorrectionInfo
        # action "add" | "change" | "delete"; item: the new Span/Relation/Link/DocLabel; key: the gold
        # local id (or label name) to change/delete; checked against the schema; recorded as a
        # Decision "corrected" and listed in the next release's change log
    corrections(document=None) -> list[CorrectionInfo]
    review(*, min_sources=2, criterion="exact", types="required", predictions=True) -> list[Suspect]

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
from corpusdb.workflow.revise import RevisionMixin
from corpusdb.workflow.splits import SplitsMixin
from corpusdb.workflow.submission import SubmissionMixin
from corpusdb.workflow.types import SubmissionRefused


class WorkflowMixin(
    ReleasesMixin,
    SplitsMixin,
    ReviewMixin,
    CorrectionsMixin,
    BulkAdjudicationMixin,
    RevisionMixin,
    AdjudicationMixin,
    ConflictsMixin,
    SubmissionMixin,
    AssignmentMixin,
):
    """Everything above, mixed into ``corpusdb.api.Corpus``."""


__all__ = ["SubmissionRefused", "WorkflowMixin"]
