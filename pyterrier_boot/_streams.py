"""Counter-based Poisson(1) streams shared by the corpus images and the measure kernels (private).

A draw is a pure function of a 64-bit image key and a 64-bit document hash (see
:mod:`pyterrier_boot.corpus.multiplicity` for the full recipe), so the corpus bootstrap can draw
a document's copies inside the kernel that reads them, in any order and on any thread, and get
exactly what :func:`~pyterrier_boot.corpus.multiplicity.poisson_multiplicities` returns.
"""
from __future__ import annotations

from decimal import Context, Decimal, localcontext

import numpy as np

from ._environment import inner_kernel

__all__ = ["POISSON_CAP", "POISSON_THRESHOLDS", "finalise", "poisson_draw"]


#: Largest Poisson(1) draw (P(K > 20) = 7.1e-21).
POISSON_CAP = 20

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


def _poisson_thresholds(cap: int = POISSON_CAP) -> np.ndarray:
    """``T_j = round(2**53 * F(j))`` for j = 0..cap (F the Poisson(1) CDF), exactly; ``T_cap = 2**53``."""
    out = []
    with localcontext(Context(prec=60)):  # the caller's decimal context is left as it was
        term = Decimal(-1).exp()  # P(K = 0)
        cdf = Decimal(0)
        for j in range(cap + 1):
            if j:
                term /= j
            cdf += term
            out.append(int((cdf * (1 << 53)).to_integral_value()))
    out[-1] = 1 << 53  # the cap: every uniform lies below the last threshold
    return np.array(out, dtype=np.int64)


#: ``T_j`` of the Poisson(1) inverse CDF on 53-bit uniforms (int64, j = 0..POISSON_CAP).
POISSON_THRESHOLDS = _poisson_thresholds()


@inner_kernel()
def finalise(z: np.uint64) -> np.uint64:
    """splitmix64's finaliser (Steele, Lea & Flood 2014): a bijection of 64-bit words."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@inner_kernel()
def poisson_draw(z: np.uint64, thresholds: np.ndarray) -> int:
    """Poisson(1) inverse CDF of the 53-bit uniform in ``finalise(z)``: the number of thresholds at
    or below it. The first four comparisons settle 98% of draws without a branch."""
    m = np.int64(finalise(z) >> _S11)
    k = (m >= thresholds[0]) + (m >= thresholds[1]) + (m >= thresholds[2]) + (m >= thresholds[3])
    if k == 4:
        while m >= thresholds[k]:
            k += 1
    return k
