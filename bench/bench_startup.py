"""Start-up of the ``corpusdb`` command, whole processes (run by hand; asserts nothing about time).

    .venv/bin/python bench/bench_startup.py [runs]

Each command runs ``runs`` times (default 7) as a fresh process, interleaved with the baselines so a
drift of the machine's speed hits all of them alike; the median is printed with its ratio to the
baseline measured in the same run: importing typer + rich + sqlalchemy (what any Typer CLI over
SQLAlchemy pays). Target (issue #14): every command within 2x of it. Also prints which heavy
libraries each command loaded. Python alone is enough (``hyperfine`` gives finer figures if
installed: ``hyperfine 'corpusdb --help'``).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HEAVY = ("numpy", "scipy", "statsmodels", "pandas", "matplotlib", "krippendorff", "textual", "alembic")
_PROBE = (
    "import sys, json\n"
    "from corpusdb.cli.main import main\n"
    "import contextlib, io\n"
    "with contextlib.redirect_stdout(io.StringIO()): code = main(sys.argv[1:])\n"
    f"sys.stderr.write(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))\n"
)


def _time(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=REPO)
    return time.perf_counter() - t0


def _loaded(args: list[str]) -> list[str]:
    res = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, cwd=REPO)
    try:
        return json.loads(res.stderr.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return [f"(failed: {res.stderr.strip()[-200:]})"]


def _project(tmp: Path) -> str:
    """A small real project: two annotators, 50 documents, submitted sets."""
    from corpusdb.api import Corpus
    from corpusdb.records import Annotations, Document, Span

    url = f"sqlite:///{tmp / 'startup.sqlite'}"
    corpus = Corpus.create("p", "bb-2011", url=url)
    corpus.add_annotator("alice")
    corpus.add_annotator("bob")
    text = "Bacillus subtilis lives in soil. " * 10
    corpus.add_documents(Document(f"D{i}", text) for i in range(50))
    for name in ("alice", "bob"):
        me = corpus.as_user(name)
        for i in range(50):
            info = corpus.create_set(f"D{i}", name)
            spans = (
                Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
                Span("T2", "Soil", ((27, 31),), "soil"),
            )
            me.replace_set(info.id, Annotations(spans=spans), expected_version=info.version)
            if i:
                me.submit(info.id)
    return url


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    exe = str(Path(sys.executable).with_name("corpusdb"))
    with tempfile.TemporaryDirectory() as tmp:
        url = _project(Path(tmp))
        db = ["--db", url]
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "import typer, rich, sqlalchemy (baseline)": [
                sys.executable,
                "-c",
                "import typer, rich, sqlalchemy",
            ],
            "corpusdb --help": [exe, "--help"],
            "corpusdb agree --help": [exe, "agree", "--help"],
            "corpusdb status": [exe, *db, "status"],
            "corpusdb --as alice status": [exe, *db, "--as", "alice", "status"],
            "corpusdb --as alice submit -d D0": [exe, *db, "--as", "alice", "submit", "-d", "D0"],
            "corpusdb agree (50 documents)": [exe, *db, "agree"],
        }
        times: dict[str, list[float]] = {k: [] for k in commands}
        alice_set = None
        for _ in range(runs):
            for name, argv in commands.items():
                if name.endswith("submit -d D0") and alice_set is not None:  # a lead reopens, untimed
                    subprocess.run(
                        [exe, *db, "reopen", str(alice_set), "--reason", "bench"],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        check=False,
                    )
                times[name].append(_time(argv))
                if name.endswith("submit -d D0") and alice_set is None:
                    from corpusdb.api import Corpus

                    alice_set = Corpus.open(url=url, user="alice").my_set("D0").info.id
        base = statistics.median(times["import typer, rich, sqlalchemy (baseline)"])
        print(f"start-up, median of {runs} fresh processes (ratio to the baseline of the same run):")
        for name, argv in commands.items():
            if not times[name]:
                continue
            med = statistics.median(times[name])
            heavy = ""
            if argv and argv[0] == exe:
                heavy = "  loads: " + (", ".join(_loaded(argv[1:])) or "none of " + "/".join(HEAVY))
            print(f"  {name:<44} {med * 1000:7.0f} ms  x{med / base:4.2f}{heavy}")


if __name__ == "__main__":
    main()
