"""Leaderboards: runs ranked with their intervals, rank intervals and groups of runs that the tests
cannot tell apart, as a table and as a static web site a shared task can publish as it is.

* ``board``: :func:`leaderboard` and the :class:`Leaderboard` it returns;
* ``site``: the static site (:meth:`Leaderboard.write`);
* ``storage``: one zip file of a board (:meth:`Leaderboard.save`, :meth:`Leaderboard.load`);
* ``anytime``: the parts of a sequential (anytime-valid) board, ``leaderboard(..., sequential=True)``.
"""
from .board import Leaderboard, leaderboard

__all__ = ["leaderboard", "Leaderboard"]
