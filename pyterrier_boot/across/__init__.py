"""The same systems on several test collections (:func:`across_collections`): what holds for
these collections, and what should hold for a new one.

* :mod:`.inputs`: the collections read and checked at the door (results, or runs and qrels);
* :mod:`.effects`: each collection's means and pairwise differences with their standard errors,
  from :meth:`ExperimentResult.estimates <pyterrier_boot.ExperimentResult.estimates>` (with each
  system's seed variance where systems are given as several runs, ``seeds="random"``); standardised effects;
* :mod:`.average`: the average over these collections (BEIR's), topics resampled within each;
* :mod:`.pooled`: the random-effects mean over a population of collections, the prediction
  interval of a new collection, ``τ²`` and ``I²`` (on :mod:`pyterrier_boot.meta.random_effects`);
* :mod:`.result`: :class:`AcrossCollections`; :mod:`.board`: the leaderboard over collections;
* :mod:`.display`: readable tables (HTML, LaTeX, Markdown); :mod:`.storage`: save and load;
* :mod:`.analysis`: :func:`across_collections`, the door.

The forest plot is :func:`pyterrier_boot.meta.plots.plot_forest`.
"""
from .analysis import across_collections
from .board import CollectionsBoard
from .result import AcrossCollections

__all__ = ["across_collections", "AcrossCollections", "CollectionsBoard"]
