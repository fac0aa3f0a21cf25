"""The pure agreement engine: coefficients, span/relation/link matching, bootstrap (no database).

Depends only on :mod:`corpusdb.basics` (``records``, ``errors``, ``lazy``), numpy, scipy, statsmodels and
``krippendorff``. Every result is a frozen dataclass with ``to_dict()`` (stable JSON keys) so a
report can render it. Degenerate inputs give ``value=None`` and a ``note``; malformed input raises
:class:`AgreementInputError` (both ``InvalidInput`` and ``ValueError``).

Modules, one job each: ``coefficients`` (two raters, from a table), ``multirater`` (Fleiss, AC1,
Brennan-Prediger, Conger; missing ratings), ``alpha`` (Krippendorff's alpha, SE, per category, at
scale), ``weights``, ``unitizing`` (unitizing alpha), ``gamma`` (Mathet et al.'s gamma),
``bootstrap`` (document bootstrap), ``spans`` (matching), ``entities`` (clusters of mentions and
names, aligned across sets), ``relations``, ``links`` (pairwise co-reference, MUC, B-cubed, CEAF-e),
``groundings`` (per span, per document, per database), ``labels``.
"""

from typing import TYPE_CHECKING

from corpusdb.basics.lazy import lazy_names

if TYPE_CHECKING:  # what the names are, for type checkers and IDEs; at run time they load lazily
    from corpusdb.agreement.alpha import krippendorff_alpha, krippendorff_alpha_counts, per_category_alpha
    from corpusdb.agreement.bootstrap import (
        bootstrap_alpha,
        bootstrap_prf,
        bootstrap_table,
        bootstrap_units,
        cluster_bootstrap,
    )
    from corpusdb.agreement.coefficients import (
        bennett_s,
        cohen_kappa,
        contingency_table,
        gwet_ac1,
        krippendorff_alpha_table,
        per_category_kappa,
        percent_agreement,
        scott_pi,
        specific_agreement,
    )
    from corpusdb.agreement.gamma import gamma_agreement
    from corpusdb.agreement.groundings import GroundingComparison, compare_groundings
    from corpusdb.agreement.labels import (
        LabelAgreement,
        PairwiseMatrix,
        label_agreement,
        label_ratings,
        pairwise_matrix,
    )
    from corpusdb.agreement.links import ClusterScore, LinkComparison, compare_links
    from corpusdb.agreement.multirater import (
        brennan_prediger,
        conger_kappa,
        fleiss_kappa,
        gwet_ac,
        per_category_fleiss,
        ratings_to_counts,
    )
    from corpusdb.agreement.relations import RelationComparison, compare_relations
    from corpusdb.agreement.results import PRF, AgreementInputError, BootstrapCI, Coefficient
    from corpusdb.agreement.spans import (
        CRITERIA,
        PreparedSpans,
        SpanComparison,
        SpanReport,
        compare_spans,
        semeval_counts,
        span_report,
    )
    from corpusdb.agreement.tokens import token_codes
    from corpusdb.agreement.unitizing import UnitizingAlpha, unitizing_alpha, unitizing_alpha_spans
    from corpusdb.agreement.weights import agreement_weights

# Why lazy (PEP 562): importing one engine module (``corpusdb.agreement.relations``, as the workflow
# does) must not load every other one with scipy, statsmodels and krippendorff; the CLI starts fast
# only if nothing it loads to parse its arguments imports them (issue #14).
_LAZY: dict[str, str] = {
    "AgreementInputError": "results",
    "BootstrapCI": "results",
    "CRITERIA": "spans",
    "ClusterScore": "links",
    "Coefficient": "results",
    "GroundingComparison": "groundings",
    "LabelAgreement": "labels",
    "LinkComparison": "links",
    "PRF": "results",
    "PairwiseMatrix": "labels",
    "PreparedSpans": "spans",
    "RelationComparison": "relations",
    "SpanComparison": "spans",
    "SpanReport": "spans",
    "UnitizingAlpha": "unitizing",
    "agreement_weights": "weights",
    "bennett_s": "coefficients",
    "bootstrap_alpha": "bootstrap",
    "bootstrap_prf": "bootstrap",
    "bootstrap_table": "bootstrap",
    "bootstrap_units": "bootstrap",
    "brennan_prediger": "multirater",
    "cluster_bootstrap": "bootstrap",
    "cohen_kappa": "coefficients",
    "compare_groundings": "groundings",
    "compare_links": "links",
    "compare_relations": "relations",
    "compare_spans": "spans",
    "conger_kappa": "multirater",
    "contingency_table": "coefficients",
    "fleiss_kappa": "multirater",
    "gamma_agreement": "gamma",
    "gwet_ac": "multirater",
    "gwet_ac1": "coefficients",
    "krippendorff_alpha": "alpha",
    "krippendorff_alpha_counts": "alpha",
    "krippendorff_alpha_table": "coefficients",
    "label_agreement": "labels",
    "label_ratings": "labels",
    "pairwise_matrix": "labels",
    "per_category_alpha": "alpha",
    "per_category_fleiss": "multirater",
    "per_category_kappa": "coefficients",
    "percent_agreement": "coefficients",
    "ratings_to_counts": "multirater",
    "scott_pi": "coefficients",
    "semeval_counts": "spans",
    "span_report": "spans",
    "specific_agreement": "coefficients",
    "token_codes": "tokens",
    "unitizing_alpha": "unitizing",
    "unitizing_alpha_spans": "unitizing",
}


__all__ = [
    "CRITERIA",
    "PRF",
    "AgreementInputError",
    "BootstrapCI",
    "ClusterScore",
    "Coefficient",
    "GroundingComparison",
    "LabelAgreement",
    "LinkComparison",
    "PairwiseMatrix",
    "PreparedSpans",
    "RelationComparison",
    "SpanComparison",
    "SpanReport",
    "UnitizingAlpha",
    "agreement_weights",
    "bennett_s",
    "bootstrap_alpha",
    "bootstrap_prf",
    "bootstrap_table",
    "bootstrap_units",
    "brennan_prediger",
    "cluster_bootstrap",
    "cohen_kappa",
    "compare_groundings",
    "compare_links",
    "compare_relations",
    "compare_spans",
    "conger_kappa",
    "contingency_table",
    "fleiss_kappa",
    "gamma_agreement",
    "gwet_ac",
    "gwet_ac1",
    "krippendorff_alpha",
    "krippendorff_alpha_counts",
    "krippendorff_alpha_table",
    "label_agreement",
    "label_ratings",
    "pairwise_matrix",
    "per_category_alpha",
    "per_category_fleiss",
    "per_category_kappa",
    "percent_agreement",
    "ratings_to_counts",
    "scott_pi",
    "semeval_counts",
    "span_report",
    "specific_agreement",
    "token_codes",
    "unitizing_alpha",
    "unitizing_alpha_spans",
]

__getattr__, __dir__ = lazy_names(__name__, globals(), _LAZY)
