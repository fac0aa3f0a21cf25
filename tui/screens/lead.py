"""The lead's view: progress per annotator and per document; agreement per layer and type with its
CIs, the annotator x annotator matrix as a heat map, and every document lowest agreement first, from
which Enter opens that document's conflicts (read-only: looking writes nothing).

Every agreement figure shown is read from the API's report body (``Corpus.agreement(...).to_dict()``,
through ``TuiFacade.lead_agreement``), never recomputed here: the screen and ``corpusdb agree`` agree.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Container, Vertical
from textual.widgets import DataTable, Header, Static, TabbedContent, TabPane

from corpusdb.basics.errors import CorpusError
from tui import keymap
from tui.facade import LeadAgreement, LeadGroups, Progress
from tui.screens.base import ReloadingScreen
from tui.widgets.footer import Footer
from tui.widgets.tables import fill_table, heat

BLOCKS = " ▏▎▍▌▋▊▉█"
STATUS_MARK = {"assigned": "·", "in_progress": "…", "submitted": "✓"}
TABS = ("tab-annotators", "tab-documents", "tab-agreement", "tab-pairs", "tab-by-document", "tab-groups")
AGREEMENT_TABS = TABS[2:5]
GROUPS_TAB = "tab-groups"
"""alpha_u, gamma and agreement by group: computed when the tab is first opened (gamma is slow)."""
WIDE = 140
"""From this many columns the lead view puts its tables side by side (the room of 160x50)."""

MEASURES = (
    ("spans", "f1", "span F1"),
    ("spans", "type_kappa", "span type κ"),
    ("relations", "f1", "relation F1"),
    ("relations", "label_kappa", "relation label κ"),
    ("links", "f1", "link F1"),
)
"""The pair matrix's measures, in the order ``m`` cycles through them (those the report has)."""
COEFFICIENT_NAMES = {
    "fleiss_kappa": "Fleiss' κ",
    "krippendorff_alpha": "Krippendorff's α",
    "gwet_ac1": "Gwet's AC1",
}


def bar(fraction: float | None, width: int = 12) -> str:
    """A horizontal bar of ``width`` cells for a fraction in [0, 1], in eighths of a cell."""
    if fraction is None:
        return ""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (BLOCKS[part] if part else "")).ljust(width)


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _ci(ci: dict[str, Any] | None) -> str:
    """A CI as ``low–high`` (two decimals), ``—`` when the report has none."""
    if not ci or ci.get("ci_low") is None or ci.get("ci_high") is None:
        return "—"
    return f"{ci['ci_low']:.2f}–{ci['ci_high']:.2f}"


def _how(ci: dict[str, Any] | None, method: str) -> str:
    """The CI's method when there is a CI (a bootstrap over one document gives none: say so)."""
    if _ci(ci) != "—":
        return method
    return (ci or {}).get("note", "")[:24] if ci else ""


def _boot_method(ci: dict[str, Any]) -> str:
    return f"document bootstrap ({ci['method']}, {ci['n_resamples']} resamples, seed {ci['seed']})"


def pair_kappa(pair: dict[str, Any], layer: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None, str]:
    """A pair's Cohen's kappa (types of matched spans, or labels of matched relations), its CI and
    the CI's method: the document bootstrap when the report ran one, else the coefficient's own."""
    coeffs = pair.get("label_agreement" if layer == "relations" else "type_agreement") or {}
    kappa = coeffs.get("cohen_kappa")
    boot = (pair.get("ci") or {}).get("type_kappa")
    if boot:
        return kappa, boot, "bootstrap"
    if kappa and kappa.get("ci_low") is not None:
        return kappa, kappa, f"normal ({kappa.get('details', {}).get('se_method', 'asymptotic se')})"
    return kappa, None, ""


def measure_rows(layers: dict[str, dict[str, Any]]) -> list[tuple[str, ...]]:
    """(layer, measure, value, 95% CI, method, n) for each layer's headline and coefficients."""
    rows: list[tuple[str, ...]] = []
    for layer, body in layers.items():
        s = body["summary"]
        ci = s.get("ci")
        rows.append((layer, "mean pairwise F1", _f(s.get("value")), _ci(ci), _how(ci, "bootstrap"),
                     f"{s.get('n_pairs', 0)} pairs · {len(body['documents'])} docs"))  # fmt: skip
        multi = body.get("multirater")
        if multi and multi.get("coefficients"):
            boots = multi.get("bootstrap") or {}
            for key, c in multi["coefficients"].items():
                b = boots.get(key)
                rows.append((layer, COEFFICIENT_NAMES.get(key, key), _f(c.get("value")), _ci(b or c),
                             _how(b, "bootstrap") if b else _how(c, c.get("details", {}).get("ci", "")), f"{multi['units']} units"))  # fmt: skip
        elif len(body["pairs"]) == 1:
            p = body["pairs"][0]
            kappa, kci, how = pair_kappa(p, layer)
            if kappa is not None:
                what = "label κ (matched relations)" if layer == "relations" else "type κ (matched spans)"
                rows.append((layer, what, _f(kappa.get("value")), _ci(kci), _how(kci, how.split(" ")[0]),
                             f"{kappa.get('n', 0)} matched"))  # fmt: skip
    return rows


class LeadScreen(ReloadingScreen):
    """Where the project stands, how well the annotators agree, and where they disagree most."""

    HELP = (
        "Progress per annotator and per document. Agreement (computed when one of its tabs is first "
        "opened): mean pairwise F1 per layer with 95% CIs (document bootstrap), per type; Pairs: the "
        "annotator x annotator matrix coloured red (0) to green (1), M changes the measure; By document: "
        "lowest agreement first, Enter shows that document's conflicts (read-only: nothing is written). "
        "Groups: Krippendorff's alpha_u and Mathet's gamma over every annotator at once (the corpus and "
        "each document, lowest first; click a column to sort by it) and agreement by guideline version, "
        "split and annotator over time (corpusdb agree -m, --by)."
    )

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("lead")

    def __init__(self) -> None:
        super().__init__()
        self.with_agreement = False
        """Agreement is computed once one of its tabs is first opened, not before the first paint:
        it is the one costly read of this screen (numpy and the agreement engine; issue #14)."""
        self.progress: Progress | None = None
        self.measure = 0
        """Index in :data:`MEASURES` of the pair matrix's measure."""
        self.doc_order: list[str] = []
        self._open_when_shown = False
        """Enter came while the agreement was being computed: open the lowest document once shown."""
        self.groups: LeadGroups | None = None
        self._groups_started = False
        self._unit_sort = ("alpha_u", False)
        """The per-document unitizing table's order: (column key, descending)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Loading…", id="summary", markup=False)
        with TabbedContent(id="lead-tabs"):
            with TabPane("Annotators", id="tab-annotators"):
                yield DataTable(id="annotators", cursor_type="row")
                yield Static("", id="time-note", markup=False)
                yield DataTable(id="time", cursor_type="row")
            with TabPane("Documents", id="tab-documents"):
                yield DataTable(id="documents", cursor_type="row")
            with TabPane("Agreement", id="tab-agreement"):
                yield Static("", id="agreement-note", markup=False)
                with Container(classes="split"):
                    yield DataTable(id="measures", cursor_type="row")
                    yield DataTable(id="agreement", cursor_type="row")
            with TabPane("Pairs", id="tab-pairs"):
                yield Static("", id="pairs-note", markup=False)
                with Container(classes="split"):
                    with Vertical(id="pairs-left"):
                        yield DataTable(id="matrix", cursor_type="cell")
                        yield DataTable(id="raters", cursor_type="row")
                    yield DataTable(id="pairs", cursor_type="row")
            with TabPane("By document", id="tab-by-document"):
                yield Static("", id="doc-note", markup=False)
                yield DataTable(id="doc-agreement", cursor_type="row")
            with TabPane("Groups", id=GROUPS_TAB):
                yield Static("", id="groups-note", markup=False)
                with Container(classes="split"):
                    with Vertical(id="groups-left"):
                        yield DataTable(id="unitizing", cursor_type="row")
                        yield DataTable(id="grouped", cursor_type="row")
                    yield DataTable(id="unit-docs", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Project progress"
        self.sub_title = f"{self.facade.user} ({self.facade.role}) · {self.facade.project.name}"

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width >= WIDE, "wide")

    LOADING = "read progress"

    def fetch(self) -> Any:
        return self.facade.progress(with_agreement=self.with_agreement, spans_first=True)

    @work(thread=True, exclusive=True, group="lead-rest")
    def _complete(self, p: Progress) -> None:
        """The other layers and the conflict counts, after spans are on screen (they cost as much)."""
        assert p.lead is not None
        try:
            lead = self.facade.complete_lead(p.lead)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "cannot read agreement")
            return
        self.app.call_from_thread(self.show, replace(p, lead=lead))

    @on(TabbedContent.TabActivated, "#lead-tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()
        self._want_agreement(str(event.pane.id))
        self._want_groups(str(event.pane.id))
        self._focus_tab_table()

    def _want_agreement(self, tab: str) -> None:
        """Start computing agreement when one of its tabs is opened (once; R reads it again)."""
        if tab in AGREEMENT_TABS and not self.with_agreement:
            self.with_agreement = True
            for note in ("#agreement-note", "#pairs-note", "#doc-note"):
                self.query_one(note, Static).update("Computing agreement…")
            self.action_reload()

    def action_reload(self) -> None:
        """R: read progress and agreement again, and the Groups tab's figures when it is open."""
        super().action_reload()
        if self._groups_started and self.query_one("#lead-tabs", TabbedContent).active == GROUPS_TAB:
            self._load_groups()

    def _want_groups(self, tab: str) -> None:
        """Compute alpha_u, gamma and the groupings when their tab is first opened (R: again)."""
        if tab == GROUPS_TAB and not self._groups_started:
            self._groups_started = True
            self.query_one("#groups-note", Static).update("Computing alpha_u, gamma and agreement by group…")
            self._load_groups()

    @work(thread=True, exclusive=True, group="lead-groups")
    def _load_groups(self) -> None:
        """In a worker: the API's progress callback says on screen how far gamma is."""
        note = self.query_one("#groups-note", Static)

        def step(done: int, total: int | None, what: str) -> None:
            shown = f"{what} ({done}/{total})" if total else what
            self.app.call_from_thread(note.update, f"Computing… {shown}")

        try:
            groups = self.facade.lead_groups(step)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "cannot compute agreement by group")
            return
        self.app.call_from_thread(self.show_groups, groups)

    def _focus_tab_table(self) -> None:
        """The active tab's main table takes the keys (Enter on a document), once it has rows."""
        main = {"tab-by-document": "#doc-agreement", "tab-pairs": "#matrix", "tab-agreement": "#measures",
                GROUPS_TAB: "#unitizing"}  # fmt: skip
        tab = self.query_one("#lead-tabs", TabbedContent).active
        table = self.query_one(main.get(tab, "#" + tab.removeprefix("tab-")), DataTable)
        if table.row_count:
            table.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        tab = self.query_one("#lead-tabs", TabbedContent).active
        if action == "next_measure":
            return tab == "tab-pairs"
        if action == "open_document":
            return tab == "tab-by-document"
        return True

    # -- showing ----------------------------------------------------------------------------------
    def show(self, p: Progress) -> None:
        self.progress = p
        r = p.report
        self.query_one("#summary", Static).update(
            f"{r.project} · schema {r.schema} · guidelines v{r.guideline_version} · {r.documents} documents · "
            f"{r.documents_ready} ready for adjudication · {r.documents_with_gold} with gold"
            + _skipped_lines(r.skipped)
        )
        ann_rows = []
        for a in r.annotators:
            done = a.submitted / a.total if a.total else None
            ann_rows.append(
                (
                    a.name,
                    a.role,
                    str(a.assigned),
                    str(a.in_progress),
                    str(a.submitted),
                    Text(bar(done, 10) + (f" {done:.0%}" if done is not None else ""), style="green"),
                )
            )
        fill_table(
            self.query_one("#annotators", DataTable),
            ("annotator", "role", "assigned", "in prog.", "submitted", "done"),
            ann_rows,
        )
        self._show_time(p.time)
        names = sorted({n for d in p.documents for n in d.statuses})
        fill_table(
            self.query_one("#documents", DataTable),
            ("document", *names, "gold"),
            [
                (d.document, *(STATUS_MARK.get(d.statuses.get(n, ""), "") for n in names), d.gold or "")
                for d in p.documents
            ],
        )
        if not self.with_agreement:
            return
        lead = p.lead
        self._show_agreement(p, lead)
        if lead is not None:
            self._show_pairs(lead)
            self._show_documents(lead)
        self._focus_tab_table()
        if lead is not None and not lead.complete:
            self._complete(p)
        if self._open_when_shown:
            self._open_when_shown = False
            self.action_open_document()

    def _show_time(self, t: dict[str, Any] | None) -> None:
        """Active time and pace (``corpusdb status --time``'s figures, read from the API's report)."""
        if t is None:
            return
        from corpusdb.reports.progress_html import hms

        rate = lambda v: "—" if v is None else f"{v:.1f}"  # noqa: E731
        fill_table(
            self.query_one("#time", DataTable),
            ("annotator", "active", "docs", "items/h", "docs/h"),
            [(r["annotator"], hms(r["active_seconds"]), str(r["documents"]), rate(r["items_per_hour"]),
              rate(r["documents_per_hour"])) for r in t["by_annotator"]],
        )  # fmt: skip
        pj = t["projection"]
        when = f"done by {pj['date']}" if pj["date"] else "no completion date yet (no recent pace)"
        self.query_one("#time-note", Static).update(
            f"Active time (idle gaps over {t['idle_seconds']:g} s not counted) · finished {pj['done']}/"
            f"{pj['documents']} at {pj['pace_per_day']:g}/day: {when}"
        )

    def _show_agreement(self, p: Progress, lead: LeadAgreement | None) -> None:
        layers = lead.layers if lead else {}
        fill_table(self.query_one("#measures", DataTable), ("layer", "measure", "value", "95% CI", "CI", "n"),
                   measure_rows(layers))  # fmt: skip
        rows: list[tuple[str | Text, ...]] = []
        for layer, body in layers.items():
            suffix = "" if layer == "spans" else f" ({layer})"
            for t in body["per_type"]["rows"]:
                rows.append((t["name"] + suffix, str(t.get("n", "")), str(t["matched"]), str(t["only_a"]),
                             str(t["only_b"]), _f(t["value"]), Text(bar(t["value"]), style="cyan")))  # fmt: skip
            if layer == "spans" and p.agreement_overall is not None:
                t0 = p.agreement_overall
                rows.append(("(all)", "", str(t0.matched), str(t0.only_a), str(t0.only_b), _f(t0.f1),
                             Text(bar(t0.f1), style="cyan")))  # fmt: skip
        fill_table(self.query_one("#agreement", DataTable), ("type", "n", "matched", "only A", "only B", "F1", " "),
                   rows)  # fmt: skip
        note = p.agreement_note or "span F1 per type"
        if lead is not None:
            spans = lead.layers.get("spans")
            ci = spans["summary"].get("ci") if spans else None
            if ci:
                note += f" · 95% CIs: {_boot_method(ci)}"
            note += "".join(f" · {k}: {v}" for k, v in lead.errors.items() if k != "spans")
            if not lead.complete:
                note += " · other layers and conflicts: computing…"
        self.query_one("#agreement-note", Static).update(note)

    def _measures(self, lead: LeadAgreement) -> list[tuple[str, str, str]]:
        return [m for m in MEASURES if m[0] in lead.layers and m[1] in lead.layers[m[0]]["matrices"]]

    def _show_pairs(self, lead: LeadAgreement) -> None:
        available = self._measures(lead)
        note = self.query_one("#pairs-note", Static)
        matrix, pairs = self.query_one("#matrix", DataTable), self.query_one("#pairs", DataTable)
        if not available:
            fill_table(matrix, (), [])
            fill_table(pairs, (), [])
            note.update(f"no pair to compare yet: {lead.errors.get('spans', 'no readable sets')}")
            return
        layer, key, label = available[self.measure % len(available)]
        body = lead.layers[layer]
        m = body["matrices"][key]
        names = m["names"]
        rows = [
            (n, *(Text("  ·  ") if i == j else heat(v, f" {_f(v)} ") for j, v in enumerate(vals)))
            for i, (n, vals) in enumerate(zip(names, m["values"], strict=True))
        ]
        fill_table(matrix, ("", *names), rows, keys=names)
        prow = []
        method = ""
        for pr in body["pairs"]:
            o = pr["overall"]
            kappa, kci, how = pair_kappa(pr, layer)
            method = method or how
            prow.append((pr["a"], pr["b"], heat(o["f1"], _f(o["f1"])), _ci((pr.get("ci") or {}).get("f1")),
                         _f(kappa.get("value") if kappa else None), _ci(kci), str(pr["documents"]),
                         str(o["matched"]), str(o["only_a"]), str(o["only_b"])))  # fmt: skip
        fill_table(
            pairs, ("A", "B", "F1", "F1 95% CI", "κ", "κ 95% CI", "docs", "agreed", "only A", "only B"), prow
        )
        self._show_raters(body)
        ci = body["summary"].get("ci")
        note.update(
            f"{label} (m: next of {len(available)}) · row A × column B · red 0 → green 1"
            + (f" · 95% CIs: {_boot_method(ci)}" if ci else "")
            + (f"; κ CI: {method}" if method and method != "bootstrap" else "")
        )

    def _show_raters(self, body: dict[str, Any]) -> None:
        """Who is the outlier: each annotator's mean F1 against the others (the HTML report's table)."""
        per = body.get("per_rater") or {"rows": []}
        rows = sorted(per["rows"], key=lambda r: (r["mean_f1"] is None, r["mean_f1"] or 0.0, r["name"]))
        fill_table(
            self.query_one("#raters", DataTable),
            ("annotator", "mean F1", "min F1", "pairs", "items", "one-sided", "suggested"),
            [
                (r["name"] + (" (lowest)" if r["outlier"] else ""), heat(r["mean_f1"], _f(r["mean_f1"])),
                 _f(r["min_f1"]), str(r["n_pairs"]), str(r["items"]),
                 "—" if r["one_sided"] is None else str(r["one_sided"]), str(r.get("from_suggestions", 0)))
                for r in rows
            ],
        )  # fmt: skip

    def _show_documents(self, lead: LeadAgreement) -> None:
        spans = lead.layers.get("spans")
        table = self.query_one("#doc-agreement", DataTable)
        note = self.query_one("#doc-note", Static)
        if spans is None:
            fill_table(table, (), [])
            self.doc_order = []
            note.update(f"no agreement yet: {lead.errors.get('spans', '')}")
            return
        rel = (
            {r["document"]: r for r in lead.layers["relations"]["per_document"]["rows"]}
            if "relations" in lead.layers
            else None
        )
        docs = sorted(spans["per_document"]["rows"],
                      key=lambda r: (r["value"] is None, r["value"] if r["value"] is not None else 0.0, r["document"]))  # fmt: skip
        self.doc_order = [r["document"] for r in docs]
        cols = ["document", "F1", "min", "n", "unmatched", *(["rel. F1"] if rel is not None else []), "conflicts",
                "gold", "lowest pair"]  # fmt: skip
        rows = []
        for r in docs:
            q = lead.conflicts.get(r["document"])
            low = r.get("lowest_pair")
            rows.append((r["document"], heat(r["value"], _f(r["value"])), _f(r["min"]), str(r.get("n", "")),
                         str(r["only_a"] + r["only_b"]),
                         *([_f((rel.get(r["document"]) or {}).get("value"))] if rel is not None else []),
                         f"{q.open}/{q.conflicts}" if q else "—", (q.gold_status or "none") if q else "—",
                         f"{low['a']}–{low['b']}" if low else ""))  # fmt: skip
        keep = table.cursor_row
        fill_table(table, cols, rows, keys=self.doc_order)
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))
        note.update(
            f"{len(docs)} document(s), lowest span F1 first · n: items · unmatched: one-sided over pairs · "
            "conflicts: open/all · Enter: its conflicts (read-only)"
        )

    def show_groups(self, g: LeadGroups) -> None:
        """alpha_u and gamma (corpus and per document, every annotator at once) and agreement by
        guideline version, split and annotator over time: the API's bodies, as ``agree -m``/``--by``."""
        self.groups = g
        unit_rows = []
        for measure, label in (("alpha_u", "Krippendorff's α_u"), ("gamma", "Mathet's γ")):
            body = g.unitizing.get(measure)
            if body is None:
                unit_rows.append((label, "—", "", "", g.errors.get(measure, "")))
                continue
            o = body["options"]
            how = (f"{o['samples']} random continua, seed {body['sample']['seed'] if body.get('sample') else 0}"
                   if measure == "gamma" else o["continuum"])  # fmt: skip
            docs = f"{len(body['documents'])}" + (" (seeded sample)" if body.get("sample") else "")
            unit_rows.append((label, _f(body["value"]), str(len(body["raters"])), docs, how))
        fill_table(
            self.query_one("#unitizing", DataTable), ("measure", "value", "raters", "docs", "how"), unit_rows
        )
        grouped_rows: list[tuple[str | Text, ...]] = []
        for by, res in g.by.items():
            for r in res["rows"]:
                if by == "time":
                    group = f"{r['annotator']} · window {r['window']}" + (
                        f" ({r['first']}–{r['last']})" if r.get("first") else ""
                    )
                else:
                    group = f"v{r['group']}" if by == "guideline" else str(r["group"])
                grouped_rows.append((by, group, str(r["documents"]), heat(r["value"], _f(r["value"])),
                                     _ci(r.get("ci"))))  # fmt: skip
        fill_table(
            self.query_one("#grouped", DataTable), ("by", "group", "docs", "F1", "95% CI"), grouped_rows
        )
        self._show_unit_docs()
        rule = g.by.get("guideline", {}).get("rule")
        errors = "".join(f" · {k}: {v}" for k, v in g.errors.items())
        self.query_one("#groups-note", Static).update(
            "α_u and γ over every annotator at once (corpusdb agree -m); per document lowest α_u first, "
            "click a column to sort · agreement by group: mean pairwise span F1 (agree --by"
            + (f"; {rule}" if rule else "")
            + f"; time: windows of {self.facade.BY_WINDOW} documents)"
            + errors
        )
        self._focus_tab_table()

    def _show_unit_docs(self) -> None:
        g = self.groups
        if g is None:
            return
        gam = {r["document"]: r for r in (g.unitizing.get("gamma") or {}).get("per_document", [])}
        rows = [
            (r["document"], r["value"], gam.get(r["document"], {}).get("value"), r["units"])
            for r in (g.unitizing.get("alpha_u") or {}).get("per_document", [])
        ]
        col, desc = self._unit_sort
        index = {"document": 0, "alpha_u": 1, "gamma": 2, "units": 3}[col]
        rows.sort(
            key=lambda r: (r[index] is None, r[index] if r[index] is not None else 0, r[0]), reverse=desc
        )
        if desc:  # undefined values stay last
            rows.sort(key=lambda r: r[index] is None)
        fill_table(
            self.query_one("#unit-docs", DataTable),
            ("document", "α_u (all)", "γ (all)", "units"),
            [(d, heat(a, _f(a)), "—" if c is None else heat(c, _f(c)), str(n)) for d, a, c, n in rows],
            keys=[r[0] for r in rows],
        )

    @on(DataTable.HeaderSelected, "#unit-docs")
    def _sort_unit_docs(self, event: DataTable.HeaderSelected) -> None:
        """A click on a column of the per-document table sorts by it (again: the other way)."""
        col = {"document": "document", "α_u (all)": "alpha_u", "γ (all)": "gamma", "units": "units"}.get(
            str(event.column_key.value), "alpha_u"
        )
        self._unit_sort = (col, not self._unit_sort[1] if self._unit_sort[0] == col else False)
        self._show_unit_docs()

    # -- actions ----------------------------------------------------------------------------------
    @on(DataTable.RowSelected, "#doc-agreement")
    def _document_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_conflicts(str(event.row_key.value))

    def action_open_document(self) -> None:
        """Enter on the By document tab: the highlighted document's conflicts (the lowest first)."""
        table = self.query_one("#doc-agreement", DataTable)
        if not self.doc_order:
            self._open_when_shown = self.with_agreement
            return
        row = table.cursor_row if 0 <= table.cursor_row < len(self.doc_order) else 0
        self.open_conflicts(self.doc_order[row])

    def open_conflicts(self, document: str) -> None:
        """A document's conflicts, read-only: a lead looking writes no gold (issue #15.7)."""
        from tui.screens.lead_conflicts import LeadConflictsScreen

        self.app.push_screen(LeadConflictsScreen(document))

    def action_next_measure(self) -> None:
        p = self.progress
        if p is None or p.lead is None:
            return
        self.measure = (self.measure + 1) % max(1, len(self._measures(p.lead)))
        self._show_pairs(p.lead)

    def action_adjudicate(self) -> None:
        self.corpus_app.show_queue()

    def action_tab(self, index: int) -> None:
        self._want_agreement(TABS[index])  # at once, not a few messages later: the worker starts now
        self._want_groups(TABS[index])
        self.query_one("#lead-tabs", TabbedContent).active = TABS[index]

    def action_next_tab(self) -> None:
        active = self.query_one("#lead-tabs", TabbedContent).active
        self.action_tab((TABS.index(active) + 1) % len(TABS) if active in TABS else 0)


def _skipped_lines(skipped: Any) -> str:
    """Documents skipped as irrelevant, under the summary: the first three, then how many more."""
    lines = "".join(
        f"\nskipped as irrelevant: {k.document} by {k.annotator} ({k.reason})" for k in skipped[:3]
    )
    more = len(skipped) - 3
    return lines + (f"\n… and {more} more skipped (corpusdb status lists them all)" if more > 0 else "")
