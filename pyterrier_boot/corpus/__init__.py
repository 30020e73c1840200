"""Corpus bootstrap (Cormack & Lynam 2006; Zobel & Rashidi 2020; ``pt_docs/corpus_bootstrap.md``).

Modules, one concept each:

* ``multiplicity``: drawing corpus images (counter-based Poisson(1), exact multinomial) and the
  delete-a-group jackknife's document groups.
* ``bootstrap``: :class:`CorpusBootstrap`, the engine evaluating runs on every image in batches.
* ``result``: :class:`CorpusBootstrapResult` and its tables, :class:`CorpusDifference`,
  :class:`~pyterrier_boot.stats.ranking.RankIntervals`.
* ``intervals``: percentile / normal / logit / BCa intervals and p-values on image distributions.
* ``small_r``: silver bullets and lead balloons (the small-R correction of AP intervals).
* ``empirical_bayes``: the empirical-Bayes per-topic variance of L-MAP and G-MAP (their default
  parametric interval).
* ``split``: the MD5 split of a corpus into halves A and B (and salted random splits).
* ``validation``: :func:`split_half_validation`, the split-half calibration check of every
  interval over many random splits.
* ``transformers``: :class:`CorpusImage` and :class:`CorpusSplit` (PyTerrier) and their twins.

Import the public names from ``pyterrier_boot`` (loaded lazily) or from these modules.
"""
