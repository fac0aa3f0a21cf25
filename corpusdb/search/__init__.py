"""Search across a corpus: words, phrases and regexes in the texts, and spans by annotation.

One module per job: ``query`` (the query language: a string in, terms out), ``patterns`` (what a
word, phrase or regex matches, and what an index may be asked for it), ``index`` (the databases'
own full-text indexes, kept in the same transaction as the texts), ``engine`` (a query run for one
actor, through the blindness gate: hits and counts), ``kwic`` (hits as keyword-in-context lines),
``bulk`` (acting on every hit: an annotator's bulk annotation, a lead's bulk gold correction),
``service`` (the ``Corpus`` methods the CLI and the TUI call).
"""
