"""Writing a release's files into a folder: all of them or none, never a half-written folder.

Why: a release used to be committed in the database first and written out afterwards, so a folder that
could not be written (read-only, a file in the way, a full disk) left a release stored without its files,
and a crash left a folder without its manifest that looked like a release. Now:

* :func:`check_target` says, before anything is stored, whether ``out`` can take the release (not a
  file, not another release's or other files, a parent in which a folder can be made: probed for real);
* :func:`stage` writes every file into a temporary folder beside the target (same file system, so the
  final ``rename`` is atomic); the caller stores the release only once that worked, then
  :meth:`Staged.publish` renames the folder into place (or :meth:`Staged.discard` removes it).

Every failure removes what was made (the temporary folder, and a replaced folder is put back), so
only a crash of the process itself (``kill -9``) can leave a ``.<name>.incomplete-*`` folder behind;
``corpusdb releases export VERSION FOLDER`` writes the release again.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from corpusdb.basics.errors import Conflict, InvalidInput

INCOMPLETE = ".incomplete-"


def _release_of(folder: Path) -> str | None:
    """The version a folder's manifest names (None without a readable manifest)."""
    try:
        man = json.loads((folder / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    version = man.get("version") if isinstance(man, dict) else None
    return version if isinstance(version, str) else None


def remove_tree(path: Path) -> bool:
    """Remove ``path`` and everything in it, read-only folders included; whether it is gone.

    Why not ``shutil.rmtree(ignore_errors=True)``: a folder made read-only (a release someone protected,
    then exported again with --force) made it fail silently and leave megabytes behind."""

    def writable_then_retry(func: object, p: str, _exc: object) -> None:
        parent = os.path.dirname(p)
        for folder in (parent, p):
            with contextlib.suppress(OSError):
                os.chmod(folder, os.stat(folder).st_mode | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
        func(p)  # type: ignore[operator]

    try:
        if sys.version_info >= (3, 12):
            shutil.rmtree(path, onexc=writable_then_retry)
        else:  # Python 3.11 calls the same handler onerror
            shutil.rmtree(path, onerror=writable_then_retry)
    except OSError:
        pass
    return not os.path.lexists(path)


def check_target(
    out: Path, version: str, *, overwrite: bool = False, files: Mapping[str, bytes] | None = None
) -> None:
    """Raise (Conflict, OSError) unless ``out`` can take release ``version``; writes nothing that stays.

    An existing ``out`` is replaced only when it is empty, holds only this release's files (an earlier
    or interrupted export of it), or ``overwrite`` is given. ``files``: the release's files when known
    (without them, a non-empty folder must hold this release already)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise Conflict(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        other = _release_of(out)
        if other is not None and other != version:
            raise Conflict(f"{out} already holds release {other}; choose another folder or pass --overwrite")
        held = {str(p.relative_to(out).as_posix()) for p in out.rglob("*") if p.is_file()}
        if (files is not None and not held <= set(files)) or (files is None and other != version):
            raise Conflict(f"{out} already holds other files; choose an empty folder or pass --overwrite")
    # the nearest folder that exists must let us make one in it (the parents are made later): try it
    base = out.parent
    while not base.exists():
        if base.parent == base:
            break
        base = base.parent
    if not base.is_dir():
        raise Conflict(f"{base} is not a folder: cannot write {out}")
    probe = Path(tempfile.mkdtemp(prefix=f".{out.name}.probe-", dir=base))  # OSError when not writable
    remove_tree(probe)


@dataclass
class Staged:
    """A release's files written in full into ``tmp``, waiting to become ``out``."""

    out: Path
    tmp: Path
    names: list[str]

    def publish(self) -> list[Path]:
        """Rename the staged folder into place (a folder already there is replaced, and put back if the
        rename fails); the temporary folder never stays behind."""
        out, tmp = self.out, self.tmp
        try:
            if out.is_dir():
                old = Path(tempfile.mkdtemp(prefix=f".{out.name}.replaced-", dir=out.parent))
                os.rename(out, old / "x")
                try:
                    os.rename(tmp, out)
                except BaseException:
                    os.rename(old / "x", out)  # the folder that was there comes back
                    remove_tree(old)
                    raise
                remove_tree(old)
            else:
                os.rename(tmp, out)
        except BaseException:
            self.discard()
            raise
        return [out / rel for rel in self.names]

    def discard(self) -> None:
        remove_tree(self.tmp)


class Staging:
    """``with Staging() as s, <transaction>:`` — a folder staged inside the transaction (``s.staged``)
    is removed when the block fails, the commit included (it exits after the transaction)."""

    def __init__(self) -> None:
        self.staged: Staged | None = None

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if kind is not None and self.staged is not None:
            self.staged.discard()
            self.staged = None


def stage(out: Path, files: Mapping[str, bytes], version: str, *, overwrite: bool = False) -> Staged:
    """Check ``out`` and write ``files`` (relative POSIX paths) into a temporary folder beside it."""
    for rel in files:
        p = PurePosixPath(rel)
        if p.is_absolute() or not p.parts or any(x in ("", ".", "..") for x in p.parts):
            raise InvalidInput(f"release file {rel!r} would be written outside its folder")
    out = Path(out)
    check_target(out, version, overwrite=overwrite, files=files)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}{INCOMPLETE}", dir=out.parent))
    try:
        for rel, data in sorted(files.items()):
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
    except BaseException:
        remove_tree(tmp)
        raise
    return Staged(out, tmp, sorted(files))


def write_folder(
    out: Path, files: Mapping[str, bytes], version: str, *, overwrite: bool = False
) -> list[Path]:
    """Write ``files`` (relative POSIX paths) as the folder ``out``, atomically (see :func:`stage`)."""
    return stage(out, files, version, overwrite=overwrite).publish()
