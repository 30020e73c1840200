"""Several runs per system (training seeds, folds, checkpoints): seed variance in every interval.

A functional core on numpy arrays; ``Experiment``, the leaderboard and the command line route to
it. Modules, one concept each:

* ``anova``: the mean squares of one system's runs x topics table (two-way ANOVA, crossed design).
* ``variance``: the variance of a mean and of a paired difference, with Satterthwaite's degrees
  of freedom, for ``seeds="random"`` (a new seed) or ``seeds="fixed"`` (these runs).
* ``inference``: the t interval and the test it inverts, from an estimated variance.
* ``scores``: :class:`RunScores`, every run's per-topic scores grouped into systems.
* ``intervals``: intervals and tests of each system's mean and of pairs of systems.

Method and validation: ``pt_docs/seeds_and_collections.md``.
"""
