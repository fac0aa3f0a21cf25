"""corpusdb against bratiaa and nervaluate on the same generated corpus, in the same run (by hand).

    .venv/bin/python bench/bench_compare.py [--docs 10000] [--per-doc 100] [--keep DIR]

One two-annotator brat project is generated (``--docs`` documents of 2,000 characters with
``--per-doc`` spans each for annotator A; B copies A with shifted boundaries, changed types, misses
and extra overlapping spans) and imported into a corpusdb SQLite file (untimed). Then each tool runs
in its own fresh process, so that its wall time includes its start-up and its peak RSS is its own:

* ``corpusdb agree`` (the command a lead runs, default report: exact span + type F1, per type, per
  document, type kappa), reading the sets from the store;
* corpusdb, all eight criteria x types required/ignored plus SemEval counts (``span_report``) on
  spans read from the store through the report's column reader;
* ``bratiaa.compute_f1_agreement`` on the brat folders (exact span + type F1, reads its files);
* ``nervaluate.Evaluator`` on the same spans read from the ``.ann`` files (SemEval-2013 schemes).

Printed: wall seconds, seconds inside the tool (after imports), CPU seconds of the whole process
(user + system: the figure to read on a shared machine), peak RSS, each tool's headline
figure (so the speed is compared on the same answer), and the ratios to ``corpusdb agree``.
Nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

TYPES = ("Protein", "DNA", "RNA", "Cell_line", "Cell_type", "Chemical", "Species", "Disease")


def _peak_mb() -> float:
    """This process's peak RSS. Why not ``ru_maxrss``: Linux carries a parent's peak into a child
    across ``exec`` (the first run after generating the corpus showed the generator's 513 MB as
    ``corpusdb agree``'s); ``VmHWM`` is the peak of this program's own memory."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    """User + system CPU seconds of this whole process: less sensitive than wall time to a machine
    shared with other jobs (the figure to read when the load average is high)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# -- the corpus -------------------------------------------------------------------------------


def generate(root: Path, n_docs: int, per_doc: int) -> None:
    from bench_agreement import make_corpus

    docs, texts = make_corpus(n_docs * per_doc, per_doc=per_doc, seed=1, texts=True)
    root.mkdir(parents=True, exist_ok=True)
    (root / "annotation.conf").write_text(
        "[entities]\n" + "\n".join(TYPES) + "\n[relations]\n[events]\n[attributes]\n", encoding="utf-8"
    )
    for who, side in (("A", 0), ("B", 1)):
        (root / who).mkdir(parents=True)
        for d, pair in docs.items():
            text = texts[d]
            (root / who / f"{d}.txt").write_text(text, encoding="utf-8")
            ok = [s for s in pair[side] if s.start < s.end]  # a shifted start may pass a short span's end
            lines = (
                f"T{i + 1}\t{s.type} {s.start} {s.end}\t{text[s.start : s.end]}\n" for i, s in enumerate(ok)
            )
            (root / who / f"{d}.ann").write_text("".join(lines), encoding="utf-8")


def load_store(root: Path, url: str) -> None:
    from corpusdb.api import Corpus

    corpus = Corpus.create("compare", "ge-2011", url=url)
    for who in ("A", "B"):
        corpus.import_brat(root / who, who, allow_unknown=True)  # the generated types are not ge-2011's


# -- one tool per process -----------------------------------------------------------------------


def child(tool: str, root: Path, url: str) -> None:
    """Run one tool; print one JSON line: seconds inside the tool, peak RSS, headline figure."""
    t0 = time.perf_counter()
    figure: dict[str, object] = {}
    if tool == "corpusdb-agree":
        import contextlib
        import io

        from corpusdb.cli.main import main

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["--db", url, "agree", "-c", "exact", "-f", "json"])
        body = json.loads(buf.getvalue())
        figure = {
            "exit": code,
            "f1": body["summary"]["value"],
            "type_kappa": body["pairs"][0]["type_agreement"]["cohen_kappa"]["value"],
        }
    elif tool == "corpusdb-all":
        from corpusdb.agreement.spans import PreparedSpans, span_report
        from corpusdb.api import Corpus
        from corpusdb.reports.columns import read_raters_columns

        corpus = Corpus.open(url=url)
        texts = {d.external_id: d.text for d in corpus.documents(with_text=True)}
        with corpus.engine.connect() as conn:  # what ``agree`` reads, for both raters at once
            a, b = read_raters_columns(conn, [corpus.set_headers(annotator=who) for who in ("A", "B")])
        docs = sorted(set(a.doc_ids) & set(b.doc_ids))
        rep = span_report(PreparedSpans.from_columns(a, b, docs, texts))
        figure = {
            "combinations": len(rep.comparisons),
            "f1": rep.comparisons["exact/required"].overall.f1,
            "strict_f1": (rep.semeval or {})["strict"]["f1"],
        }
    elif tool == "bratiaa":
        import bratiaa

        f1 = bratiaa.compute_f1_agreement(str(root)).mean_sd_total()[0]
        figure = {"f1": float(f1)}
    elif tool == "nervaluate":
        from nervaluate import Evaluator

        def read(who: str) -> list[list[dict[str, object]]]:
            out = []
            for f in sorted((root / who).glob("*.ann")):
                spans = []
                for line in f.read_text(encoding="utf-8").splitlines():
                    _, mid, _ = line.split("\t")
                    typ, s, e = mid.split(" ")
                    spans.append({"label": typ, "start": int(s), "end": int(e) - 1})
                out.append(spans)
            return out

        ev = Evaluator(read("A"), read("B"), tags=list(TYPES), loader="dict").evaluate()["overall"]
        figure = {"strict_f1": ev["strict"].f1, "exact_f1": ev["exact"].f1}
    print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": _cpu_s(), "peak_mb": _peak_mb(), **figure}))


def run(tool: str, root: Path, url: str) -> dict[str, float]:
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, __file__, "--child", tool, "--root", str(root), "--url", url],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"{tool} failed:\n{res.stderr[-2000:]}")
    return {"wall": wall, **json.loads(res.stdout.strip().splitlines()[-1])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--per-doc", type=int, default=100)
    ap.add_argument("--keep", type=Path, help="generate into (or reuse) this folder")
    ap.add_argument("--tools", default="corpusdb-agree,corpusdb-all,bratiaa,nervaluate")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.root, args.url)
        return
    tmp = None
    if args.keep is None:
        tmp = tempfile.mkdtemp(prefix="corpusdb-compare-")
        base = Path(tmp)
    else:
        base = args.keep
    root, dbfile = base / "brat", base / "compare.sqlite"
    url = f"sqlite:///{dbfile}"
    try:
        if not dbfile.exists():
            t0 = time.perf_counter()
            generate(root, args.docs, args.per_doc)
            t1 = time.perf_counter()
            load_store(root, url)
            print(
                f"corpus: generated in {t1 - t0:.1f} s, imported into corpusdb in {time.perf_counter() - t1:.1f} s"
            )
        n_a = sum(1 for f in (root / "A").glob("*.ann") for _ in f.open(encoding="utf-8"))
        n_b = sum(1 for f in (root / "B").glob("*.ann") for _ in f.open(encoding="utf-8"))
        print(
            f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, {platform.processor() or platform.machine()}, "
            f"{_cpus()} CPUs, load average {os.getloadavg()[0]:.1f}; {args.docs:,} documents, {n_a:,} spans (A), "
            f"{n_b:,} spans (B)"
        )
        results = {}
        for tool in args.tools.split(","):
            results[tool] = r = run(tool, root, url)
            shown = {
                k: (round(v, 4) if isinstance(v, float) else v)
                for k, v in r.items()
                if k not in ("wall", "seconds", "cpu", "peak_mb")
            }
            print(
                f"  {tool:<15} wall {r['wall']:6.2f} s  inside {r['seconds']:6.2f} s  cpu {r['cpu']:6.2f} s  "
                f"peak {r['peak_mb']:6.0f} MB  {shown}"
            )
        ref = results.get("corpusdb-agree")
        if ref:
            print("ratios to `corpusdb agree` (wall time; > 1: corpusdb is faster):")
            for tool, r in results.items():
                if tool != "corpusdb-agree":
                    print(
                        f"  {tool:<15} x{r['wall'] / ref['wall']:.2f} time (x{r['cpu'] / ref['cpu']:.2f} CPU), "
                        f"x{r['peak_mb'] / ref['peak_mb']:.2f} memory"
                    )
        print(f"load average at the end: {os.getloadavg()[0]:.1f} (2-core figures above ~2 mean shared CPUs)")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _cpus() -> int:
    return os.cpu_count() or 0


if __name__ == "__main__":
    main()
