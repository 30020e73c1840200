"""The statistics core: topic-bootstrap intervals, significance tests, corrections, Tukey HSD, power.

A functional core on numpy arrays (systems x topics score matrices), usable without PyTerrier.
Modules, one concept each:

* ``resampling``: the shared topic-resample plan (:class:`ResamplePlan`) and sign-flip plan.
* ``aggregates``: mean, Sakai's geometric mean, L-MAP (logit mean), median, callables.
* ``intervals``: :func:`bootstrap_ci` (percentile, basic, BCa, studentized, normal, t, z).
* ``standardization``: :func:`standardize` and :func:`portable_report` (Park 2010, §5-6).
* ``significance``: paired/unpaired bootstrap, randomisation, t, Wilcoxon and sign tests.
* ``registry``: the tests by name (aliases, label, core, the interval each inverts), used by
  ``compare``, ``discriminative_power``, ``Experiment``, the command line and the report.
* ``correction``: :func:`correct_pvalues` (statsmodels ``multipletests``).
* ``tukey``: :func:`tukey_hsd` (topics as blocks) and :func:`randomized_tukey_hsd`.
* ``power``: effect size, power of a paired design, topics needed (Kanoulas).
* ``comparison``: :func:`compare`, the long table over systems and measures.
* ``letters``: :func:`compact_letter_display`, groups of systems the all-pairs tests cannot tell apart.

Import the public names from ``pyterrier_boot`` (loaded lazily) or from these modules.
"""
