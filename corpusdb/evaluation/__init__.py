"""The pure evaluation engine: a system's output scored against a reference, with each shared task's
own definition (no database: records or plain data in, figures out, like :mod:`corpusdb.agreement`).

Agreement compares people; evaluation scores a system against a reference (gold, a release split, or
files) and counts unanswered documents as misses unless asked otherwise.

Modules, one job each (each scorer's official definition is in its docstring): ``counts`` (tp/fn/fp
per document, P/R/F), ``biorelex`` (BioRelEx 1.0), ``bb2011`` (BioNLP-ST 2011 BB and Rename), ``ner``
(bio-NER criteria with partial credit), ``documents`` (triage, ranked items, AUC iP/R, TREC 2004
utility), ``significance`` (document bootstrap CIs, paired tests), ``adapters`` (records -> BioRelEx
input types), ``tsv`` (document-level files), ``report`` (the ``corpusdb.evaluation/1`` body) and
``render`` (text, Markdown). The JSON schema is in ``corpusdb/evaluation/README.md``.
"""
