"""Input layer: runs, qrels and topics from files, frames, transformers and datasets, validated.

* :func:`read_run` / :func:`read_runs` / :class:`Runs`: TREC run files, PyTerrier result frames, transformers.
* :func:`read_qrels` / :class:`Qrels`: qrels files, frames, ir_datasets and PyTerrier datasets.
* :func:`read_topics`: topics files, frames and datasets, for running transformers.
"""
from .qrels import Qrels, read_qrels
from .runs import Runs, read_run, read_runs
from .topics import read_topics

__all__ = ["Qrels", "Runs", "read_qrels", "read_run", "read_runs", "read_topics"]
