"""Random number generation following SPEC 7: one ``rng`` argument, normalised once.

``rng=None`` is the fixed seed :data:`DEFAULT_SEED` wherever numbers are computed from the user's
runs (intervals, tests, corpus images, meta-evaluation, the command line), so the same call gives
the same numbers in a notebook, a report and a leaderboard. The simulators (``simulate_collection``,
``simulate_scores``, ``simulate_judge`` and a simulated collection's methods) draw fresh OS entropy
for ``rng=None`` instead (``fresh=True``): each call is meant to give new data.
"""
import numpy as np

#: the seed ``rng=None`` stands for (``--rng`` on the command line overrides it)
DEFAULT_SEED = 42


def as_generator(rng, *, name="rng", fresh=False):
    """Return a :class:`numpy.random.Generator` for ``rng``.

    ``rng`` may be ``None`` (the fixed seed :data:`DEFAULT_SEED`; fresh OS entropy when ``fresh``),
    an int, a :class:`numpy.random.SeedSequence`, a :class:`numpy.random.BitGenerator` or a
    :class:`numpy.random.Generator` (returned as is, so the caller's stream advances). The legacy
    ``RandomState`` and the global generator are refused: results must be reproducible from
    ``rng`` alone.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng(None if fresh else DEFAULT_SEED)
    if isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name!r} must be a non-negative integer seed, got {rng}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"{name!r} must be None, an int, a numpy SeedSequence or a numpy Generator, "
        f"got {type(rng).__name__}"
    )

