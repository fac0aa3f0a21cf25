"""Start-up of the ``corpusdb`` command, whole processes (run by hand; asserts nothing about time).

    .venv/bin/python bench/bench_startup.py [runs] [--against DIR] [--sets N]

Every ordinary command (``--help``, ``status``, ``annotator list``, ``submit``, ``assign``,
``conflicts``, ``decisions``, ``sets``, the import of a small brat file, an export) runs ``runs`` times
(default 7) as a fresh process on a small real project, interleaved with the baselines so that a drift
of the machine's speed hits all of them alike; the median is printed with its ratio to the baseline
measured in the same run: importing typer + rich + sqlalchemy (what any Typer CLI over SQLAlchemy
pays). Targets (issue #26): every ordinary command within 1.5x of it, and ``status`` on a project of
20,000 annotation sets (``--sets``) within 2x. Also prints which heavy libraries each command loaded,
and refuses to report a command that failed (a fast error is no start-up figure).

The 20,000-set project: 10,000 documents, 8 annotators, two sets a document (70% submitted, 20% in
progress, 10% assigned), 2,000 gold sets (half finished) and 100 skips. Its first set is made through
the API and the others are rows copied from it by SQL: assigning 20,000 sets through the API takes
minutes, and how the rows got there does not change what ``status`` reads.

``--against DIR`` times another checkout in the same run, interleaved (e.g. the tree before a change:
``git archive REV | tar -x -C DIR``), each tree on its own copy of the projects. Both trees are
byte-compiled first, as an installed corpusdb is (``PYTHONDONTWRITEBYTECODE`` or a fresh checkout
would otherwise time the compiler). Python alone is enough (``hyperfine`` gives finer figures if
installed: ``hyperfine 'corpusdb --help'``).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HEAVY = (
    "numpy", "scipy", "statsmodels", "pandas", "matplotlib", "krippendorff", "textual", "alembic",
    "sqlmodel", "pydantic",
)  # fmt: skip
BASELINE = "import typer, rich, sqlalchemy (baseline)"
ORDINARY = (
    "--help", "agree --help", "status", "--as alice status", "annotator list", "--as alice submit -d D0",
    "assign", "conflicts D1", "decisions", "sets", "import brat (1 document)", "export brat (alice, 50)",
)  # fmt: skip
"""The commands the 1.5x target is about (``agree`` computes: it loads numpy and the engine)."""
BIG = "status (20,000 sets)"
"""``status`` on the big project: its own target, 2x (issue #26)."""
TARGET, BIG_TARGET = 1.5, 2.0

# The console script's entry point, run from the tree under test (its cwd and PYTHONPATH).
_RUN = "import sys; sys.argv[0] = 'corpusdb'; from corpusdb.cli.main import run; run()"
_PROBE = (
    "import sys, json\n"
    "from corpusdb.cli.main import main\n"
    "import contextlib, io\n"
    "with contextlib.redirect_stdout(io.StringIO()): code = main(sys.argv[1:])\n"
    f"sys.stderr.write(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))\n"
)

ANN = "T1\tBacterium 0 17\tBacillus subtilis\nT2\tSoil 27 31\tsoil\n"
TEXT = "Bacillus subtilis lives in soil. " * 10


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)  # that checkout's packages first (this venv holds an editable install)
    return env


def _time(argv: list[str], tree: Path) -> tuple[float, float, int, str]:
    """Wall time, CPU time (user + system: less sensitive to a machine shared with other jobs),
    exit code and the end of stderr of one process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tree, env=_env(tree))
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, res.returncode, res.stderr.decode(errors="replace").strip()[-300:]


def _loaded(args: list[str], tree: Path) -> str:
    res = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, cwd=tree, env=_env(tree)
    )
    try:
        return ", ".join(json.loads(res.stderr.strip().splitlines()[-1])) or "none of the heavy ones"
    except (ValueError, IndexError):
        return f"(failed: {res.stderr.strip()[-200:]})"


def _project(path: Path) -> str:
    """A small real project: alice and bob each annotated 50 documents (submitted but D0), gold for
    D40-D49 adjudicated, carol (nothing assigned yet) and dave (who imports) as annotators."""
    from corpusdb.api import Corpus
    from corpusdb.basics.records import Annotations, Document, Span

    url = f"sqlite:///{path}"
    corpus = Corpus.create("p", "bb-2011", url=url)
    for name in ("alice", "bob", "carol", "dave"):
        corpus.add_annotator(name)
    corpus.add_documents(Document(f"D{i}", TEXT) for i in range(200))
    for name in ("alice", "bob"):
        me = corpus.as_user(name)
        for i in range(50):
            info = corpus.create_set(f"D{i}", name)
            bact = ((0, 17),) if name == "alice" or i % 2 else ((0, 8),)  # bob differs on even ones
            spans = (
                Span("T1", "Bacterium", bact, TEXT[bact[0][0] : bact[0][1]]),
                Span("T2", "Soil", ((27, 31),), "soil"),
            )
            me.replace_set(info.id, Annotations(spans=spans), expected_version=info.version)
            if i:
                me.submit(info.id)
    for i in range(40, 50):
        corpus.merge(f"D{i}")
    return url


def _big_project(path: Path, sets: int) -> str:
    """``sets`` annotation sets on ``sets // 2`` documents (see the module's docstring)."""
    from sqlalchemy import insert, select

    from corpusdb.api import Corpus
    from corpusdb.basics.records import Document
    from corpusdb.store import db, tables

    url = f"sqlite:///{path}"
    corpus = Corpus.create("p", "bb-2011", url=url)
    names = [f"ann{i}" for i in range(8)]
    for name in names:
        corpus.add_annotator(name)
    corpus.add_annotator("alice")
    corpus.add_documents(Document(f"D{i:05d}", TEXT) for i in range(sets // 2))
    corpus.assign(["D00000"], names[:2])
    S, D, A, K = tables.annotation_set, tables.document, tables.annotator, tables.set_skip
    with db.make_engine(url).begin() as conn:
        proto = {k: v for k, v in conn.execute(select(S).limit(1)).mappings().one().items() if k != "id"}
        docs = [r[0] for r in conn.execute(select(D.c.id).order_by(D.c.external_id))][1:]
        ann = dict(conn.execute(select(A.c.name, A.c.id)).all())
        rows = []
        for k, doc in enumerate(docs):
            for j in range(2):
                status = ("submitted",) * 7 + ("in_progress",) * 2 + ("assigned",)
                rows.append({**proto, "document_id": doc, "annotator_id": ann[names[(2 * k + j) % 8]],
                             "status": status[(k + j) % 10]})  # fmt: skip
            if k < 2000:
                gold = "submitted" if k % 2 else "in_progress"
                rows.append(
                    {**proto, "document_id": doc, "annotator_id": None, "kind": "gold", "status": gold}
                )
        conn.execute(insert(S), rows)
        skipped = conn.execute(select(S.c.id).where(S.c.kind == "annotation").limit(100)).scalars().all()
        conn.execute(
            insert(K), [{"set_id": i, "reason": "off topic", "created": proto["created"]} for i in skipped]
        )
    return url


def _commands(
    url: str, tree: Path, work: Path, big: str
) -> dict[str, tuple[list[str], Callable[[int], None] | None]]:
    """name -> (argv, an untimed step before run k: reopen a set, write the file to import)."""
    run = [sys.executable, "-c", _RUN, "--db", url]
    inbox = work / "inbox"

    def reopen(_k: int) -> None:
        subprocess.run(
            [*run, "reopen", _set_id(url, tree), "--reason", "bench"],
            capture_output=True,
            cwd=tree,
            env=_env(tree),
        )

    def new_file(k: int) -> None:
        shutil.rmtree(inbox, ignore_errors=True)
        inbox.mkdir()
        (inbox / f"N{k}.txt").write_text(TEXT, encoding="utf-8")
        (inbox / f"N{k}.ann").write_text(ANN, encoding="utf-8")

    return {
        "--help": ([*run[:3], "--help"], None),
        "agree --help": ([*run[:3], "agree", "--help"], None),
        "status": ([*run, "status"], None),
        "--as alice status": ([*run, "--as", "alice", "status"], None),
        "annotator list": ([*run, "annotator", "list"], None),
        "--as alice submit -d D0": ([*run, "--as", "alice", "submit", "-d", "D0"], reopen),
        "assign": ([*run, "assign", "-a", "carol", "-d", "{D}"], None),
        "conflicts D1": ([*run, "conflicts", "D2"], None),
        "decisions": ([*run, "decisions"], None),
        "sets": ([*run, "sets"], None),
        "import brat (1 document)": ([*run, "import", "brat", str(inbox), "-a", "dave"], new_file),
        "export brat (alice, 50)": (
            [*run, "export", "brat", str(work / "out"), "-a", "alice", "--force"],
            None,
        ),
        "agree (50 documents)": ([*run, "agree"], None),
        BIG: ([*run[:3], "--db", big, "status"], None),
    }


def _set_id(url: str, tree: Path) -> str:
    res = subprocess.run(
        [sys.executable, "-c", _RUN, "--db", url, "--format", "json", "sets", "D0", "-a", "alice"],
        capture_output=True, text=True, cwd=tree, env=_env(tree), check=True,
    )  # fmt: skip
    return str(json.loads(res.stdout)[0]["id"])


def _build(tree: Path, small: Path, big: Path, sets: int) -> None:
    """Both projects, made by ``tree``'s own corpusdb in a process of its own (each tree's database
    is at its own schema revision: another tree's may refuse it)."""
    code = (
        "import sys; from pathlib import Path\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_startup as b\n"
        f"sys.path[:] = [p for p in sys.path if p != str(b.REPO)]; sys.path.insert(0, {str(tree)!r})\n"
        f"b._project(Path({str(small)!r})); b._big_project(Path({str(big)!r}), {sets})\n"
        f"import corpusdb; assert corpusdb.__file__.startswith({str(tree)!r}), corpusdb.__file__\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=tree, env=_env(tree), check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="?", type=int, default=7)
    ap.add_argument("--against", type=Path, help="another checkout, timed in the same run")
    ap.add_argument("--sets", type=int, default=20_000, help="annotation sets of the big project")
    args = ap.parse_args()
    trees = [("", REPO)] + ([(f"{args.against.name}: ", args.against.resolve())] if args.against else [])
    for _, tree in trees:
        for pkg in ("corpusdb", "tui", "guidelines", "importers"):
            compileall.compile_dir(tree / pkg, quiet=2)
    with tempfile.TemporaryDirectory() as tmp:
        plans = {}
        for i, (label, tree) in enumerate(trees):
            work = Path(tmp) / f"tree{i}"
            work.mkdir()
            _build(tree, work / "p.sqlite", work / "big.sqlite", args.sets)
            plans[label] = (
                tree,
                _commands(f"sqlite:///{work / 'p.sqlite'}", tree, work, f"sqlite:///{work / 'big.sqlite'}"),
            )
        base_cmds = {
            "python -c pass": [sys.executable, "-c", "pass"],
            BASELINE: [sys.executable, "-c", "import typer, rich, sqlalchemy"],
        }
        times: dict[str, list[float]] = {}
        cpus: dict[str, list[float]] = {}
        failed: dict[str, str] = {}
        for k in range(args.runs):
            for name, argv in base_cmds.items():
                dt, cpu, _, _ = _time(argv, REPO)
                times.setdefault(name, []).append(dt)
                cpus.setdefault(name, []).append(cpu)
            for name in plans[""][1]:
                for label, (tree, cmds) in plans.items():
                    argv, before = cmds[name]
                    if before is not None:
                        before(k)
                    argv = [a.replace("{D}", f"D{100 + k}") for a in argv]
                    dt, cpu, code, err = _time(argv, tree)
                    times.setdefault(label + name, []).append(dt)
                    cpus.setdefault(label + name, []).append(cpu)
                    if code != 0:
                        failed[label + name] = f"exit {code}: {err}"
        base = statistics.median(times[BASELINE])
        base_cpu = statistics.median(cpus[BASELINE])
        print(f"start-up, median of {args.runs} fresh processes (ratio to the baseline of the same run):")
        print(f"  {'':<52} {'wall':>9}  {'ratio':>5}  {'CPU':>9}  {'ratio':>5}")

        def row(name: str, extra: str = "") -> tuple[float, float]:
            wall, cpu = statistics.median(times[name]), statistics.median(cpus[name])
            print(
                f"  {name:<52} {wall * 1000:6.0f} ms  x{wall / base:4.2f}  {cpu * 1000:6.0f} ms  x{cpu / base_cpu:4.2f}{extra}"
            )
            return wall / base, cpu / base_cpu

        for name in base_cmds:
            row(name)
        worst = [0.0, 0.0]
        big_ratios = [0.0, 0.0]
        for name in plans[""][1]:
            for label, (tree, cmds) in plans.items():
                if label + name in failed:
                    print(f"  {label + name:<52} FAILED ({failed[label + name]})")
                    continue
                argv = [a.replace("{D}", "D199") for a in cmds[name][0][3:]]
                heavy = f"  {_loaded(argv, tree)}" if not label else ""
                ratios = row(label + name, heavy)
                if not label and name in ORDINARY:
                    worst = [max(w, r) for w, r in zip(worst, ratios, strict=True)]
                if not label and name == BIG:
                    big_ratios = list(ratios)
        print(
            f"worst ordinary command (this tree): x{worst[0]:.2f} the baseline's wall time, x{worst[1]:.2f} its CPU "
            f"(target <= {TARGET})"
        )
        print(
            f"{BIG} (this tree): x{big_ratios[0]:.2f} the baseline's wall time, x{big_ratios[1]:.2f} its CPU "
            f"(target <= {BIG_TARGET})"
        )


if __name__ == "__main__":
    main()
