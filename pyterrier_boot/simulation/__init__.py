"""Simulation with known truth: TREC-like collections and score matrices from documented models.

Used by ``pyterrier-boot demo`` (no network, no files), by tests of interval coverage and Type I
error, and by validation scripts. Modules, one concept each:

* ``model``: :class:`CollectionModel`, the generative model of a collection, and its draws.
* ``collection``: :func:`simulate_collection` and :class:`SimulatedCollection` (runs, pooled
  qrels, topics; Monte Carlo population values ``truth`` and ``topic_truth``; fresh replicates).
* ``truth``: the Monte Carlo evaluation by ``ir_measures`` behind ``truth`` and ``topic_truth``.
* ``scores``: :func:`simulate_scores` / :func:`simulate_null_scores`, systems x topics score
  matrices with exactly known population means.

Import the public names from ``pyterrier_boot`` (loaded lazily) or from here.
"""
from .collection import SimulatedCollection, simulate_collection
from .model import CollectionModel
from .scores import SimulatedScores, simulate_null_scores, simulate_scores

__all__ = ["CollectionModel", "SimulatedCollection", "SimulatedScores", "simulate_collection",
           "simulate_null_scores", "simulate_scores"]
