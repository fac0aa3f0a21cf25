"""``corpusdb split``, ``release`` and ``releases``: splitting gold and freezing it into releases."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import Interrupted, emit, err, out, state
from corpusdb.cli.workflow_common import bar, codes, fmt_float


def split(
    ctx: typer.Context,
    ratios: Annotated[str, typer.Option(help="Shares per split, e.g. 70/10/20.")] = "70/10/20",
    names: Annotated[str, typer.Option(help="Split names, e.g. train/dev/test.")] = "train/dev/test",
    seed: Annotated[int, typer.Option(help="Seed (same documents and seed: same splits).")] = 0,
    stratify: Annotated[
        list[str] | None,
        typer.Option(
            help="Balance over: entity, relation, relation_label, label or label:NAME (repeatable)."
        ),
    ] = None,
    reset: Annotated[bool, typer.Option(help="Re-split documents already split (they move!).")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the splits without saving them.")] = False,
) -> None:
    """Split documents into train/dev/test, group-aware and stratified; documents already split stay."""
    from rich.table import Table

    st = state(ctx)
    try:
        r = [float(x) for x in ratios.split("/")]
    except ValueError as exc:
        raise UsageError(f"--ratios takes numbers joined by '/', e.g. 70/10/20, not {ratios!r}") from exc
    rep = st.corpus().split(ratios=r, names=names.split("/"), seed=seed, stratify=stratify or (), reset=reset,
                            dry_run=dry_run)  # fmt: skip

    def render() -> None:
        t = Table("split", "documents", "groups", "share", "target", "distance", "distribution",
                  title=f"{rep.newly_assigned} document(s) newly assigned, {rep.kept} kept (seed {rep.seed})")  # fmt: skip
        for s in rep.splits:
            dist = ", ".join(f"{k} {v}" for k, v in s.distribution.items())
            t.add_row(s.name, str(s.documents), str(s.groups), f"{s.share:.3f}", f"{s.target:.3f}",
                      fmt_float(s.distance), dist)  # fmt: skip
        out.print(t)
        if rep.whole:
            out.print("whole: " + ", ".join(f"{k} {v}" for k, v in rep.whole.items()), markup=False)
        if dry_run:
            out.print("(dry run: nothing saved)")

    emit(st, rep.to_dict(), render)


def release(
    ctx: typer.Context,
    version: Annotated[str, typer.Argument(help="The new release's version, e.g. v1.")],
    outdir: Annotated[Path | None, typer.Option("--out", "-o", help="Also write its files here.")] = None,
    notes: Annotated[str, typer.Option(help="Release notes.")] = "",
    allow_open: Annotated[
        bool, typer.Option(help="Release even with unfinished gold (included as it stands).")
    ] = False,
    agreement: Annotated[bool, typer.Option(help="Compute the agreement summary.")] = True,
    blind: Annotated[
        str | None,
        typer.Option(
            "--blind",
            help="A split released blind: texts and the --give layers only; gold stays in the database.",
        ),
    ] = None,
    give: Annotated[
        str,
        typer.Option(
            "--give", help="Layers a blind split shows, comma-separated (e.g. spans); default: none."
        ),
    ] = "",
) -> None:
    """Freeze gold and its splits into an immutable release (JSON, brat, manifest, change log)."""
    st = state(ctx)
    layers = [g for g in give.split(",") if g.strip()]
    try:
        with bar("releasing") as cb:
            info = st.corpus().release(version, notes=notes, outdir=outdir, allow_open=allow_open,
                                       agreement=agreement, progress=cb, blind_split=blind, give=layers)  # fmt: skip
    except KeyboardInterrupt:
        raise Interrupted(_kept(st, version, outdir)) from None
    left_out = info.counts.get("standoff_left_out") or {}
    if left_out:  # the JSON (and BioRelEx) files hold them whole; brat/ could not: say so, counted
        from importers.standoff import left_out_notes

        for line in left_out_notes(left_out):
            err.print(
                f"release {info.version} brat/: {line}; release.json has them", markup=False, soft_wrap=True
            )

    for fmt, n in (info.counts.get("derived_not_written") or {}).items():  # marked derived nowhere there
        where = "brat/" if fmt == "standoff" else f"{fmt}/"
        err.print(f"release {info.version} {where}: {n} derived relation(s) not written ({where.rstrip('/')} cannot "
                  "mark an item derived); derived.json has them, with their rules", markup=False, soft_wrap=True)  # fmt: skip

    def render() -> None:
        cnt = info.counts
        n = len(info.files) + 1
        out.print(f"release {info.version}: {cnt.get('documents', 0)} documents, {cnt.get('spans', 0)} spans, "
                  f"{cnt.get('relations', 0)} relations, {cnt.get('entities', 0)} entities (clusters), "
                  f"{n} files", markup=False)  # fmt: skip
        s = info.changelog.get("summary", {})
        out.print(
            f"since {info.previous or 'nothing'}: " + ", ".join(f"{k} {v}" for k, v in s.items()),
            markup=False,
        )
        if blind is not None:
            out.print(f"split {blind} released blind: texts and {', '.join(layers) or 'no layer'} given, the rest "
                      "withheld (its gold stays in the database); participants/ is the participants' package",
                      markup=False)  # fmt: skip
        if outdir is not None:
            out.print(f"written to {outdir}", markup=False)
        else:  # stored in the database only: say how to get the files
            out.print(f"its {n} files are stored in the database, not written (no --out): "
                      f"`corpusdb releases export {info.version} FOLDER` writes them", markup=False)  # fmt: skip

    emit(st, info.to_dict(), render)


def _kept(st: Any, version: str, outdir: Path | None) -> str:
    """What an interrupted ``release`` kept, as found afterwards: stored or not, its folder or not."""
    import json

    stored = any(r.version == version for r in st.corpus().releases())
    try:
        written = (
            outdir is not None
            and json.loads((outdir / "manifest.json").read_text("utf-8"))["version"] == version
        )
    except (OSError, ValueError, KeyError, TypeError):
        written = False
    if not stored:
        folder = f"; {outdir} holds it nonetheless: delete it" if written else ""
        return f"release {version} was not made: nothing of it was stored{folder}"
    if outdir is None or written:
        return f"release {version} was stored whole" + (f" and written to {outdir}" if written else "")
    return f"release {version} was stored, but not written to {outdir}: `corpusdb releases export {version} {outdir}` writes it"


releases_app = typer.Typer(help="Releases: list (default), show, export.", invoke_without_command=True)


@releases_app.callback()
def releases(ctx: typer.Context) -> None:
    """List the releases, oldest first (also `releases list`)."""
    if ctx.invoked_subcommand is None:
        releases_list(ctx)


@releases_app.command("list", epilog=codes("5 not a lead or adjudicator"))
def releases_list(ctx: typer.Context) -> None:
    """List the releases, oldest first."""
    st = state(ctx)
    res = st.corpus().releases()
    emit(st, [{"version": r.version, "created": r.created.isoformat(), "previous": r.previous, "notes": r.notes,
               "counts": dict(r.counts)} for r in res],
         lambda: [out.print(f"{r.version}\t{r.created:%Y-%m-%d %H:%M}\t{r.counts.get('documents', 0)} documents"
                            f"\t{r.notes}", markup=False) for r in res])  # fmt: skip


@releases_app.command("show", epilog=codes("5 not a lead or adjudicator"))
def releases_show(
    ctx: typer.Context, version: Annotated[str, typer.Argument(help="Release version.")]
) -> None:
    """A release's counts, files (sha256) and change log."""
    st = state(ctx)
    found = [r for r in st.corpus().releases() if r.version == version]
    if not found:
        from corpusdb.basics.errors import NotFound

        raise NotFound(f"no release {version!r} in this project")
    r = found[0]

    def render() -> None:
        out.print(
            f"release {r.version} ({r.created:%Y-%m-%d %H:%M}), previous {r.previous or '-'}", markup=False
        )
        out.print("counts: " + ", ".join(f"{k} {v}" for k, v in r.counts.items()), markup=False)
        for p, f in r.files.items():
            out.print(f"  {f['sha256'][:16]}  {f['bytes']:>9}  {p}", markup=False)
        if r.changelog:
            from corpusdb.workflow.changelog import markdown

            out.print("", markup=False)
            out.print(markdown(r.version, r.changelog).rstrip("\n"), markup=False)

    emit(st, r.to_dict(), render)


@releases_app.command(
    "export",
    epilog=codes(
        "5 not a lead or adjudicator",
        "6 a file would differ from the manifest, or the folder holds another release (--overwrite)",
    ),
)
def releases_export(
    ctx: typer.Context,
    version: Annotated[str, typer.Argument(help="Release version.")],
    outdir: Annotated[Path, typer.Argument(help="Folder to write the files into.")],
    force: Annotated[
        bool,
        typer.Option("--overwrite", help="Write into a folder that holds another release or other files."),
    ] = False,
) -> None:
    """Write a release's files again, byte for byte (checked against its manifest)."""
    st = state(ctx)
    paths = st.corpus().export_release(version, outdir, force=force)
    emit(
        st, [str(p) for p in paths], lambda: out.print(f"wrote {len(paths)} files to {outdir}", markup=False)
    )


def register(app: typer.Typer) -> None:
    app.command("split", epilog=codes("5 not a lead"))(split)
    app.command("release", epilog=codes("4 invalid version", "5 not a lead",
                                        "6 version exists, nothing to release, or open conflicts"))(release)  # fmt: skip
    app.add_typer(releases_app, name="releases", epilog=codes("5 not a lead or adjudicator"))
