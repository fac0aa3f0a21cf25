"""The README's first lines are the two set-up commands, and CI runs the test one verbatim."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("```"), "the README must open with the two commands"
    end = lines.index("```", 1)
    return [ln for ln in lines[1:end] if ln.strip()]


def test_readme_opens_with_two_commands() -> None:
    main_job, tests = readme_commands()
    assert main_job.startswith("python3 -m venv .venv") and main_job.endswith("corpusdb demo")
    assert tests.startswith("python3 -m venv .venv") and "pytest" in tests


def test_ci_runs_the_readme_test_command() -> None:
    _, tests = readme_commands()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci.splitlines()


def test_readme_python_example_runs(tmp_path: Path) -> None:
    """The Python API tour in the README runs as written (in a scratch directory)."""
    import contextlib
    import io
    import os

    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("```python\n") + len("```python\n")
    code = text[start : text.index("```", start)]
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert "Bacillus subtilis" in buf.getvalue() and (tmp_path / "bb.sqlite").exists()


def test_readme_figure_lines_link_to_their_benchmark_sections() -> None:
    """The README gives the recommenders' and the knowledge bases' headline figures in a line each
    and links to the sections of docs/benchmarks.md that hold them (issues 24 and 29)."""
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    bench = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in re.findall(r"^## (.+)$", bench, re.M)
    }
    for anchor, figure in (("recommenders", "F1 0.80"), ("knowledge-bases", "p95 per keystroke")):
        line = next(ln for ln in readme.splitlines() if f"docs/benchmarks.md#{anchor}" in ln)
        assert anchor in anchors
        section = readme[: readme.index(line) + len(line)].rsplit("## ", 1)[1]
        assert figure in section, (anchor, section)
