"""Random number generation following SPEC 7: one ``rng`` argument, normalised once."""
import numpy as np


def as_generator(rng, *, name="rng"):
    """Return a :class:`numpy.random.Generator` for ``rng``.

    ``rng`` may be ``None`` (fresh OS entropy), an int, a :class:`numpy.random.SeedSequence`,
    a :class:`numpy.random.BitGenerator` or a :class:`numpy.random.Generator` (returned as is,
    so the caller's stream advances). The legacy ``RandomState`` and the global generator are
    refused: results must be reproducible from ``rng`` alone.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name!r} must be a non-negative integer seed, got {rng}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"{name!r} must be None, an int, a numpy SeedSequence or a numpy Generator, "
        f"got {type(rng).__name__}"
    )
