"""Writing a release's files into a folder: all of them or none, never a half-written folder.

Why: a release is committed in the database first, then written out; a crash (or a full disk) while
writing used to leave a folder without its manifest that looked like a release. The files are now
written into a temporary folder beside the target (same file system, so the final ``rename`` is
atomic) and renamed into place once complete. A crash leaves only a ``.<name>.incomplete-*`` folder
beside it, and ``corpusdb releases export VERSION FOLDER`` writes the release again.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from corpusdb.errors import Conflict, InvalidInput

INCOMPLETE = ".incomplete-"


def _release_of(folder: Path) -> str | None:
    """The version a folder's manifest names (None without a readable manifest)."""
    try:
        man = json.loads((folder / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    version = man.get("version") if isinstance(man, dict) else None
    return version if isinstance(version, str) else None


def write_folder(
    out: Path, files: Mapping[str, bytes], version: str, *, overwrite: bool = False
) -> list[Path]:
    """Write ``files`` (relative POSIX paths) as the folder ``out``, atomically.

    An existing ``out`` is replaced only when it is empty, holds only this release's files (an earlier
    or interrupted export of it), or ``overwrite`` is given; otherwise Conflict.
    """
    for rel in files:
        p = PurePosixPath(rel)
        if p.is_absolute() or not p.parts or any(x in ("", ".", "..") for x in p.parts):
            raise InvalidInput(f"release file {rel!r} would be written outside its folder")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise Conflict(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        held = {str(p.relative_to(out).as_posix()) for p in out.rglob("*") if p.is_file()}
        other = _release_of(out)
        if other is not None and other != version:
            raise Conflict(
                f"{out} already holds release {other}; choose another folder or pass --force to overwrite"
            )
        if not held <= set(files):
            raise Conflict(
                f"{out} already holds other files; choose an empty folder or pass --force to overwrite"
            )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}{INCOMPLETE}", dir=out.parent))
    try:
        for rel, data in sorted(files.items()):
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        if out.is_dir():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.replaced-", dir=out.parent))
            os.rename(out, old / "x")
            os.rename(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [out / rel for rel in sorted(files)]
