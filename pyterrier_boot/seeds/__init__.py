"""Several runs per system (training seeds, folds, checkpoints): seed variance in every interval.

A functional core on numpy arrays; ``Experiment``, ``evaluate``, the leaderboard and the command
line route to it (``pyterrier_boot.experiment.several_runs``). Modules, one concept each:

* ``groups``: which runs make up which system (lists of runs in Python; a regular expression or a
  mapping file on the command line).
* ``scores``: :class:`RunScores`, every run's per-topic scores grouped into systems.
* ``anova``: the mean squares of one system's runs x topics table (two-way ANOVA, crossed design).
* ``variance``: the variance of a mean and of a paired difference, with Satterthwaite's degrees
  of freedom, for ``seeds="random"`` (a new seed) or ``seeds="fixed"`` (these runs).
* ``inference``: the t interval and the test it inverts, from an estimated variance.
* ``intervals``: t intervals and tests of each system's mean and of pairs of systems.
* ``fiducial``: generalized pivotal quantities (fiducial draws) of the seed term.
* ``bootstrap``: a mean's interval, the bootstrap-t over topics with a seed term.
* ``replicates``: replicates of every mean with seed draws, for rank intervals.
* ``comparison``: a comparison table's p-values and intervals replaced by the seed-variance test.
* ``components``: each system's variance components and the seeds' share (``variance_components``).

Method and validation: ``pt_docs/seeds_and_collections.md``.
"""
from .components import variance_components
from .groups import GroupedRuns, RunGroups, group_names, read_group_file
from .intervals import difference_inference, mean_inference
from .scores import RunScores

__all__ = ["GroupedRuns", "RunGroups", "RunScores", "difference_inference", "group_names", "mean_inference",
           "read_group_file", "variance_components"]
