"""``corpusdb validate``: check a shared-task submission without a database and without gold.

A thin layer over :func:`guidelines.submission.check_submission` (the organizer's intake runs the same
function). One line per problem on stdout (``file:line: severity: message``), a one-line summary on
stderr; exit 0 when there is no error, 4 otherwise. ``--task`` names a participants' package (the
folder a blind release writes, holding ``schema.json`` and ``texts/``) or a shipped schema.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from corpusdb.basics.errors import InvalidInput, UsageError
from corpusdb.cli.common import Format, err, state

PACKAGE_SCHEMA = "schema.json"
"""The schema file of a participants' package (``Schema.to_dict``)."""


def _schema_and_texts(
    task: str | None, schema: Path | None, texts: Path | None
) -> tuple[object, Path | None]:
    from guidelines.schema import load_schema, schema_from_dict

    if (task is None) == (schema is None):
        raise UsageError("give --task NAME (a participants' package or a shipped schema) or --schema FILE")
    if schema is not None:
        if schema.suffix == ".json":
            try:
                return schema_from_dict(json.loads(schema.read_text(encoding="utf-8"))), texts
            except (OSError, ValueError, TypeError, KeyError) as exc:
                raise InvalidInput(f"{schema}: not a schema JSON file ({exc})") from exc
        return load_schema(schema), texts
    assert task is not None
    package = Path(task)
    if (package / PACKAGE_SCHEMA).is_file():
        data = json.loads((package / PACKAGE_SCHEMA).read_text(encoding="utf-8"))
        if texts is None and (package / "texts").is_dir():
            texts = package / "texts"
        return schema_from_dict(data), texts
    return load_schema(task), texts


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate(
        ctx: typer.Context,
        submission: Annotated[list[Path], typer.Argument(help="Submission files or folders (.a1/.a2/.ann).")],
        task: Annotated[
            str | None,
            typer.Option(
                "--task", help="A participants' package folder (from a blind release) or a shipped schema."
            ),
        ] = None,
        schema: Annotated[
            Path | None, typer.Option("--schema", help="A schema file (.toml or .json).")
        ] = None,
        texts: Annotated[
            Path | None,
            typer.Option("--texts", help="Folder of the texts (and given layers) the submission annotates."),
        ] = None,
    ) -> None:
        """Check a submission's format, offsets, schema, ids and duplicates; one line per problem, exit 0/4.
        Needs no database and no gold: participants run it before submitting."""
        from guidelines.submission import check_submission

        sch, txt = _schema_and_texts(task, schema, texts)
        result = check_submission(sch, submission, txt)  # type: ignore[arg-type]
        st = state(ctx)
        if st.format == Format.json:
            body = {
                "ok": result.ok,
                "documents": len(result.documents),
                "problems": [
                    {"file": p.file, "line": p.line, "severity": p.severity, "message": p.message}
                    for p in result.problems
                ],
            }
            sys.stdout.write(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
        else:
            for p in result.problems:
                sys.stdout.write(f"{p}\n")
        n_err = len(result.errors)
        n_warn = len(result.problems) - n_err
        err.print(
            f"{len(result.documents)} document(s) checked against schema {sch.name}: "  # type: ignore[attr-defined]
            f"{n_err} error(s), {n_warn} warning(s)"
        )
        if n_err:
            raise typer.Exit(4)
