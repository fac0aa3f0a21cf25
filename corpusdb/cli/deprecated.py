"""Old spellings of options, kept working for one version with a one-line note (the CLI grammar):
renamed options, comma lists now repeated, and the ``-d DOC`` option of single-document commands,
now their first argument.

Why an argv rewrite and not hidden Click options: the old spelling then reaches the command as the
new one (one code path), the note is said once before anything runs, and the whole list of what goes
next version is this table. The grammar itself is in docs/cli/index.md and tests/test_cli_grammar.py.
"""

from __future__ import annotations

import sys

# command (its first word, or "group sub") -> {old option: new option}
RENAMED: dict[str, dict[str, str]] = {
    "import": {"--force": "--store-invalid"},
    "export": {"--force": "--overwrite"},
    "releases export": {"--force": "--overwrite"},
    "submit": {"--force": "--ignore-schema"},
    "adjudicate": {"--force": "--ignore-schema"},
    "agree": {"--annotators": "--annotator", "--documents": "--document"},
    # -t is --types (or --type, one annotation type) everywhere; it meant --topic and --task here
    "pool": {"-t": "--topic"},
    "task": {"-t": "--task"},
}
# command -> {(option spellings): {old value: new value}}: values renamed (``agree -c partial`` gave
# full credit to any overlap, which SemEval-2013's and nervaluate's "partial" does not: it is "overlap")
_CRITERION = {("-c", "--criterion"): {"partial": "overlap"}}
RENAMED_VALUES: dict[str, dict[tuple[str, ...], dict[str, str]]] = {
    "agree": _CRITERION,
    "evaluate ner": _CRITERION,
    "conflicts": {("--criterion",): {"partial": "overlap"}},
    "adjudicate": {("--criterion",): {"partial": "overlap"}},
}
WHY = {"partial": "any overlap, full credit: not SemEval-2013's half-credit partial"}
# options that took a comma-separated list and now take one value, repeated
ONE_VALUE: dict[str, tuple[str, ...]] = {"agree": ("-a", "--annotator", "-d", "--document")}
# single-document commands whose document was an option and is now their first argument
POSITIONAL: dict[str, tuple[str, ...]] = {
    "recommend suggestions": ("-d", "--document"),
    "recommend accept": ("-d", "--document"),
    "recommend reject": ("-d", "--document"),
}


def _note(message: str, said: set[str]) -> None:
    """One line on stderr, once per command line however often the old spelling occurs in it."""
    if message not in said:
        said.add(message)
        sys.stderr.write(f"corpusdb: note: {message}\n")


def rewrite(args: list[str], start: int) -> list[str]:
    """``args`` with the old spellings after the command (at ``args[start]``) replaced by the new."""
    if start >= len(args):
        return args
    words = args[start : start + 2]
    pair = " ".join(words)
    if pair in POSITIONAL:
        return _to_argument(args, start + 2, POSITIONAL[pair], pair)
    key = pair if pair in RENAMED or pair in RENAMED_VALUES else words[0]
    renamed, one_value = RENAMED.get(key, {}), ONE_VALUE.get(key, ())
    values = {opt: table for opts, table in RENAMED_VALUES.get(key, {}).items() for opt in opts}
    if not renamed and not one_value and not values:
        return args
    out, said = args[:start], set[str]()
    i = start
    while i < len(args):
        tok = args[i]
        if tok == "--":
            out.extend(args[i:])
            break
        name, eq, value = tok.partition("=")
        if name in renamed:
            _note(f"{name} is deprecated here and goes in the next version; use {renamed[name]}", said)
            name = renamed[name]
            tok = name + eq + value
        if name in values and (eq or i + 1 < len(args)):
            value = value if eq else args[i + 1]
            if value in values[name]:
                new = values[name][value]
                why = f" ({WHY[value]})" if value in WHY else ""
                _note(
                    f"{name} {value} is deprecated and goes in the next version; use {name} {new}{why}", said
                )
                out += [name, new]
                i += 1 if eq else 2
                continue
        if name in one_value and (eq or i + 1 < len(args)):
            value = value if eq else args[i + 1]
            if "," in value:
                _note(f"{name} takes one value now; repeat it ({name} {value.split(',')[0]} ...)", said)
                for part in filter(None, value.split(",")):
                    out += [name, part]
                i += 1 if eq else 2
                continue
        out.append(tok)
        i += 1
    return out


def _to_argument(args: list[str], at: int, names: tuple[str, ...], command: str) -> list[str]:
    """``args`` with the old ``-d DOC`` option (``names``) of a single-document command moved to its
    first argument, right after the command's words (at ``args[at]``): ``recommend accept 3 4 -d D1``
    becomes ``recommend accept D1 3 4``."""
    out, moved, said = args[:at], list[str](), set[str]()
    i = at
    while i < len(args):
        tok = args[i]
        if tok == "--":
            out.extend(args[i:])
            break
        name, eq, value = tok.partition("=")
        if name in names and (eq or i + 1 < len(args)):
            _note(f"{name} is deprecated here and goes in the next version; "
                  f"name the document first: corpusdb {command} DOCUMENT ...", said)  # fmt: skip
            moved.append(value if eq else args[i + 1])
            i += 1 if eq else 2
            continue
        out.append(tok)
        i += 1
    return out[:at] + moved + out[at:]
