"""Relevance judging as TREC 2004 Genomics did it: topics, runs, pools, blind judges, qrels, scores.

The judged unit is a (topic, document) pair, stored as an ordinary document of the project (external
id ``TOPIC+DOC``, metadata ``{"topic": ..., "doc": ...}``) with one annotation set per judge holding
the ``relevance`` document label (DR / PR / NR, schema ``trec-relevance``). So assignment, blindness,
submission, adjudication and label agreement apply unchanged, and nothing a judge can read says which
run retrieved a document or at which rank: that stays in the ``run`` tables, which only leads read.

Modules: ``topics`` (TREC XML / SGML text / TSV topic files), ``runs`` (TREC run files), ``qrels``
(qrels files and grade mappings), ``pooling`` (the seeded pool and the doubled subset, pure),
``scoring`` (trec_eval measures through ``ir-measures``), ``kappa`` (agreement on the doubled subset);
the ``Corpus`` mixin in three layers: ``catalog`` (topics, runs), ``judging`` (pool, judge) and
``service`` (agreement, qrels, scores; ``RelevanceMixin``, the one ``corpusdb.api`` mixes in).
"""
