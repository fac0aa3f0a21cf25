"""Readers and writers of corpus formats (brat/BioNLP standoff, BioRelEx JSON, BioC, PubTator, CoNLL,
WebAnno TSV, competitors' exports, spaCy, relevance judgments, interaction networks).

Pure: files in, plain records out, and back; no database. Why: a format is then tested on its own
files, byte for byte, and a participant can read or check files without a project. They import
nothing of corpusdb but the basics every layer shares (records, errors, names, gcpause), as the
import contracts in ``pyproject.toml`` check; ``corpusdb.interchange`` puts what they read into
the store.
"""
