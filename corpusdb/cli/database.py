"""``corpusdb db``: the database schema (migrations)."""

from __future__ import annotations

import typer

from corpusdb.cli.common import emit, out, state

db_app = typer.Typer(help="The database itself: schema version and upgrades.", no_args_is_help=True)


@db_app.command("upgrade")
def upgrade(ctx: typer.Context) -> None:
    """Bring the database to the schema this corpusdb uses (creates it when empty)."""
    from corpusdb.store import db, migrate

    st = state(ctx)
    engine = db.make_engine(st.url)
    before, after = migrate.upgrade(engine)
    emit(
        st,
        {"before": before, "after": after, "url": engine.url.render_as_string()},
        lambda: out.print(
            f"database at revision {after} (was {before or 'empty'})"
            if before != after
            else f"already at {after}"
        ),
    )


@db_app.command("current")
def current(ctx: typer.Context) -> None:
    """Show the database's schema revision and the newest this corpusdb knows."""
    from corpusdb.store import db, migrate

    st = state(ctx)
    engine = db.make_engine(st.url)
    rev, head = migrate.current(engine), migrate.head()
    emit(
        st,
        {"current": rev, "head": head, "up_to_date": rev == head},
        lambda: out.print(
            f"current {rev or '(empty)'}; head {head}"
            + ("" if rev == head else " - run `corpusdb db upgrade`")
        ),
    )


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
