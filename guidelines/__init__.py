"""Annotation schemas and guideline texts: what may be annotated, as data files and their loader.

``schemas/*.toml`` (entity, link and relation types, labels, tags, attributes, document labels,
validation rules; the format is in ``README.md``), ``texts/*.md`` (the versioned guideline texts),
``schema`` (load and check a schema), ``validate`` (an annotation set against its schema). Pure, as
the importers are: the store keeps a copy of the schema per guideline version.
"""
