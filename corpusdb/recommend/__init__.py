"""Suggestions while annotating: recommenders, their training, and the suggestions they make.

Why a package: a recommender is a system with a lifecycle (added, trained, evaluated, removed) whose
output is a layer of its own (``suggestion`` rows), never an annotator's items until she accepts one.
One module per job:

* ``tokens``: the tokenisation both models share (word boundaries, tagger features);
* ``matcher``: the string matcher (pyahocorasick; pure, no database);
* ``tagger``: the trainable CRF tagger (sklearn-crfsuite to train, python-crfsuite to tag; pure);
* ``models``: what a trained model is, serialised into the store, and a cache of loaded ones;
* ``sources``: where names come from besides annotations: TSV dictionaries, and a hook for
  knowledge bases;
* ``training``: the examples a recommender learns from, under blindness (gold of adjudicated
  documents and the served annotator's own sets, never a colleague's unadjudicated work);
* ``store``: suggestion rows (read, refresh, status changes inside an edit);
* ``actions``: the changes accepting or rejecting makes (pure; the API and the TUI share them);
* ``manage``, ``learning``, ``suggest``: the API's mixins (recommenders; training and a system's
  predictions offered; an annotator's suggestions), assembled in ``service.RecommendMixin``, the
  part of ``corpusdb.api.Corpus`` the CLI and the TUI call;
* ``evaluation``: P/R/F on a held-out split with ``corpusdb.evaluation.ner``;
* ``ordering``: active learning orders for ``assign`` (uncertainty, disagreement);
* ``background``: training in a separate ``corpusdb`` process, so no annotator waits for it.

Nothing here imports scikit-learn, crfsuite or pyahocorasick at module level: they load when a
model is trained or used.
"""
