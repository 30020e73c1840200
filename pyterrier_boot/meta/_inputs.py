"""Inputs shared by the meta-evaluation functions (private).

Meta-evaluation compares measures on the same systems and topics: every function reads per-topic
scores of several measures with :func:`~pyterrier_boot._scores.as_measure_scores` (which refuses
measures that cover different systems or topics) and compares systems pair by pair.
"""
import numpy as np

from .._scores import MIN_SYSTEMS, MeasureScores, as_measure_scores

__all__ = ["MIN_SYSTEMS", "MeasureScores", "as_measure_scores", "pair_indices", "pair_labels"]


def pair_indices(n_systems):
    """All pairs ``i < j`` of system positions: two int arrays."""
    return np.triu_indices(n_systems, k=1)


def pair_labels(systems, a, b):
    return [systems[i] for i in a], [systems[j] for j in b]
