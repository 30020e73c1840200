"""Reproducibility with uncertainty: did a reproduction find what the original experiment found?

* ``measures``: Breuer et al.'s (2020) measures as plain functions on rankings and numpy arrays:
  Kendall's tau Union, rank-biased overlap, RMSE, Effect Ratio, Delta Relative Improvement.
* ``intervals``: percentile topic-bootstrap intervals of those measures from a shared
  :class:`~pyterrier_boot.ResamplePlan`, on per-topic arrays.
* ``analysis``: :func:`reproducibility`, the measures for original and reproduced runs with
  topic-bootstrap intervals, t-test p-values and TOST equivalence tests
  (:mod:`pyterrier_boot.stats.equivalence`), as a :class:`ReproducibilityResult`.

Import the public names from ``pyterrier_boot`` (loaded lazily) or from these modules.
"""
