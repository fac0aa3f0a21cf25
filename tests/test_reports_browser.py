"""The HTML reports looked at in a real browser (headless Chromium): every figure is laid out with a
non-zero size (presence, not pixels), and no report names a local path. Skips without Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpusdb.cli.main import app
from tests.test_reports_time import project  # noqa: F401 - the fixture (edit history with known gaps)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BRATIAA = Path(__file__).resolve().parents[1] / "corpusdb" / "sample" / "bratiaa"
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (serve installs it)")

PROBE = """<script>window.addEventListener('load', function(){var out=[];
document.querySelectorAll('svg, img').forEach(function(e){if(e.closest('svg')!==e&&e.tagName==='svg'&&e.parentElement.closest('svg'))return;
var r=e.getBoundingClientRect(); out.push([e.tagName, Math.round(r.width), Math.round(r.height)]);});
var p=document.createElement('pre'); p.id='probe'; p.textContent=JSON.stringify(out); document.body.appendChild(p);});</script>"""


def figure_sizes(page: Path, tmp: Path) -> list[tuple[str, int, int]]:
    """(tag, width, height) of every top-level svg/img as Chromium lays the page out."""
    probed = tmp / f"probed-{page.name}"
    probed.write_text(
        page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
         "--window-size=1280,2000", "--dump-dom", probed.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    start = dom.index('<pre id="probe">') + len('<pre id="probe">')
    raw = dom[start : dom.index("</pre>", start)].replace("&quot;", '"')
    return [tuple(x) for x in json.loads(raw)]  # type: ignore[misc]


def _assert_figures(page: Path, tmp: Path, at_least: int) -> None:
    sizes = figure_sizes(page, tmp)
    top = [s for s in sizes if s[0].lower() in ("svg", "img")]
    assert len(top) >= at_least, sizes
    assert all(w > 50 and h > 50 for _, w, h in top[:at_least]), sizes
    assert str(tmp) not in page.read_text(encoding="utf-8")


def test_progress_report_in_chromium(project, sqlite_url: str, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "progress.html"
    r = CliRunner().invoke(app, ["--db", sqlite_url, "status", "--time", "--html", str(out)])
    assert r.exit_code == 0, r.output
    _assert_figures(out, tmp_path, 2)


def test_agree_and_evaluate_reports_in_chromium(sqlite_url: str, tmp_path: Path) -> None:
    from corpusdb.demo import build_demo

    build_demo(sqlite_url)
    agree = tmp_path / "agree.html"
    r = CliRunner().invoke(app, ["--db", sqlite_url, "agree", "--html", str(agree)])
    assert r.exit_code == 0, r.output
    _assert_figures(agree, tmp_path, 2)
    ev = tmp_path / "evaluate.html"
    r = CliRunner().invoke(
        app, ["evaluate", "ner", str(BRATIAA / "Lisa"), str(BRATIAA / "Max"), "--html", str(ev)]
    )
    assert r.exit_code == 0, r.output
    assert ev.exists() and str(BRATIAA) not in ev.read_text(encoding="utf-8")
    _assert_figures(ev, tmp_path, 1)


def test_by_group_and_unitizing_reports_in_chromium(sqlite_url: str, tmp_path: Path) -> None:
    """Issue 27: the ``--by`` page and alpha_u's per-document page, laid out with their figures."""
    from corpusdb.demo import build_demo

    build_demo(sqlite_url)
    by = tmp_path / "by.html"
    r = CliRunner().invoke(
        app, ["--db", sqlite_url, "agree", "--by", "time", "--window", "2", "--html", str(by)]
    )
    assert r.exit_code == 0, r.output
    _assert_figures(by, tmp_path, 1)
    au = tmp_path / "alpha_u.html"
    r = CliRunner().invoke(app, ["--db", sqlite_url, "agree", "-m", "alpha_u", "--html", str(au)])
    assert r.exit_code == 0, r.output
    _assert_figures(au, tmp_path, 1)
