"""brat standoff (``.txt`` + ``.ann``) and BioNLP Shared Task (``.txt`` + ``.a1``/``.a2``) reader and writer.

Why our own parser: the PyPI brat parsers, checked on the real corpora in ``../shared/data``, each
silently drop or corrupt line types that occur there (events whose arguments are events, ``*``
Equiv/Alias sets, ``N`` and ``M`` lines, relation roles other than ``Arg1``/``Arg2``, spans of three or
more fragments), or renumber ids, or validate discontinuous spans wrongly. corpusdb promises that
nothing is dropped in silence and that writing what was read gives the same bytes, so the format layer
is ours: a small line parser that splits on the first two tabs, as brat does.

Mapping to records
------------------
* ``T`` -> :class:`Span` (every ``;`` fragment kept; ``text`` = the text field as written).
* ``R`` -> :class:`Relation` ``kind="relation"``, roles in order (``Arg1``, ``Former``, ``Bacteria``...).
* ``E`` -> :class:`Relation`: ``kind="relation"`` when trigger-less with two arguments that are both
  entities (BioNLP-ST 2011 Bacteria Biotope ``E1\\tPartOf Host:T17 Part:T18``; ``extra["prefix"] = "E"``
  so it is written back as an ``E`` line), otherwise ``kind="event"`` with ``trigger`` = the ``T`` id or
  None; arguments may point at entities or events; numbered roles (``Theme2``) are kept as written.
* ``A``/``M`` -> ``attributes[name]`` of the target span or relation: ``True`` for a binary attribute,
  the value string for a valued one.
* ``N`` -> :class:`Grounding` on the span (``ref`` = ``db:id``, ``text``, ``source_id``, ``kind``).
* ``*`` -> :class:`Link` of the line's type (``Equiv``, ``Alias``...), a star from the first member to
  each other member, members in the original order; all links of one line share ``group`` (``*<n>``,
  n counting ``*`` lines) and have ids ``*<n>.<k>``.
* ``#`` -> :class:`Note` (id ``#1``, type ``AnnotatorNotes``/``Lemma``..., text verbatim, leading
  spaces included).

Extras layout (all JSON-serialisable; keys absent when they hold their default)
-------------------------------------------------------------------------------
``Document.metadata``: ``{"bom": true}`` when the ``.txt`` started with a byte order mark.

``Annotations.extra["standoff"]``::

    {"files": {"a1": {}, "a2": {"newline": "\\r\\n", "bom": true, "final_newline": false}},
     "verbatim": [["a1", 8, "W1\\tWord 0 5\\tThese"], ...]}

``files`` lists the annotation files read, in order (``ann``, or ``a1`` and/or ``a2``), each with its
non-default layout: ``newline`` (``"\\n"`` by default), ``bom``, ``final_newline`` (true by default for
a non-empty file). ``verbatim`` holds lines kept as they were: blank lines, and with
``keep_unknown=True`` lines that are not brat (see below), each as ``[extension, line number, text]``.

Item ``extra`` (spans, relations, groundings, the first link of a ``*`` line, notes)::

    {"file": "a2", "line": 12,          # where the line was, only if needed (see below)
     "ws": "Process:T20 ",              # the second field verbatim when not in canonical spacing
     "tail": "",                        # a third field on R/E/A/M/* lines (brat's trailing tab)
     "notext": true,                    # a T line without a text field
     "prefix": "E",                     # a trigger-less binary relation written as an E line
     "attrs": {"Negation": {"id": "M1", "file": "a2", "line": 30}}}   # the A/M lines of the item

``attrs`` entries may carry ``ws``/``tail`` too; the line's letter (``A`` or ``M``) is its id's first
character. The writer uses ``ws`` only while it still tokenises like the item's current content, so an
edited item is written canonically, never with stale spacing.

``file`` alone (no ``line``: adjudicated gold keeps its sources' files) puts the line in that file among
the lines without a position. ``file``/``line`` (extension, 1-based line number) are stored only when the document's lines are not
in the writer's canonical order, and then on every item (and ``attrs`` entry) of the document. In
canonical order the writer puts every line back where it was without them, so a canonical document
has none (an extra left with nothing is ``{}``): no dict per span in the reader, no JSON value per row
in the store. Canonical order: spans in the first annotation file (``.ann``, ``.a1``), except event
triggers, which go with every other line in the last one (``.ann``, ``.a2``); in each file the T
lines, then R/E, A/M, N, ``*`` and ``#`` lines (:data:`_RANK`), each group in the order of its records
(spans, relations, ``*`` lines and notes as read; A/M lines by owner, the spans' in span order then
the relations', each owner's in attribute order; N lines by span); and no blank or verbatim line.
The reader decides exactly (:func:`_in_writer_order`), so dropping positions never changes a byte
written. After an edit, lines without a position take their canonical place: in a canonical document
a new span is written after the last T line and a removed relation leaves no gap; in a document with
positions new lines go after the existing lines of their file.

Decisions
---------
* **Encoding**: UTF-8 only; other bytes are an error naming the file, line and byte offset. Offsets are
  Unicode code points of the text as stored (characters outside the BMP count one).
* **BOM**: a leading U+FEFF in the ``.txt`` or an annotation file is removed (offsets count from the
  first character after it, as editors show the text), remembered (``metadata["bom"]``,
  ``files[ext]["bom"]``) so it is written back, and reported as a warning.
* **CRLF**: the ``.txt`` is kept exactly as stored, ``\\r`` included, so offsets count each ``\\r`` as
  brat does (it reads texts without newline translation); a warning says so and text-field mismatch
  errors in such a document carry that hint. An annotation file with CRLF endings is read line by
  line without the ``\\r`` and written back with CRLF; mixed LF/CRLF endings are an error.
* **Unknown lines** (BioNLP-ST 2011 Bacteria Gene Interactions: ``W`` token lines and role-less
  dependency lines ``R1\\tmod_att:N-N W17 W16``): refused by default, one error per line. With
  ``keep_unknown=True`` they are kept verbatim in ``extra["standoff"]["verbatim"]`` (never parsed,
  never mangled) and written back at their place; lines that refer to such a line's id are kept
  verbatim with them; one warning per file gives the count. Blank lines are always kept verbatim.
* **Text fields**: the ``T`` text field must equal the document slice (fragments joined by one
  space); a difference in whitespace only (NBSP vs space, newline vs space) is a warning.
* **Writing** items without standoff extras (made in the TUI, or imported from BioRelEx): valid brat
  ids are kept, missing/invalid/colliding ones are replaced by the next free ``T<n>``/``R<n>``/...
  (references follow), and lines without a position go after the positioned lines of their file (all
  of them, in a document read in canonical order), ordered T, R/E, A/M, N, ``*``, ``#`` and within
  each letter in record order. New spans go to ``.a1`` (or to ``.a2`` when used as a trigger),
  everything else to ``.a2``. A relation's ``label`` and ``tags`` are written as attributes (``label`` valued, each tag
  binary). Newlines inside text fields become spaces. Spans without fragments and document labels
  cannot be written and are refused (:class:`InvalidInput`).

Modules (the package re-exports their public names)
---------------------------------------------------
* ``layout``: Where each standoff line goes: the annotation files, and the canonical order of their lines.
* ``lines``: One standoff line's text: second fields in canonical or kept spacing, tails, one-line texts.
* ``parser``: The line parser of one document's annotation files: every line checked, every problem listed.
* ``reader``: Reading standoff documents: files found, bytes decoded, documents parsed; strict and lenient.
* ``writer``: Writing standoff: records to the annotation files' text and to files, byte-identical for what was read.
"""

from importers.standoff.layout import ANN_EXTENSIONS
from importers.standoff.reader import (
    DocumentFiles,
    ReadResult,
    find_documents,
    read_directory,
    read_directory_lenient,
    read_document,
    read_documents,
)
from importers.standoff.writer import (
    ENTITY_LINK_TYPE,
    expressible,
    format_annotations,
    format_document,
    left_out_notes,
    mention_level,
    write_document,
)

__all__ = [
    "ANN_EXTENSIONS",
    "ENTITY_LINK_TYPE",
    "DocumentFiles",
    "ReadResult",
    "expressible",
    "find_documents",
    "format_annotations",
    "format_document",
    "left_out_notes",
    "mention_level",
    "read_directory",
    "read_directory_lenient",
    "read_document",
    "read_documents",
    "write_document",
]
