"""Corpus images as document multiplicities: counter-based Poisson(1) draws and the exact multinomial.

An *image* of the corpus gives every document ``d`` a multiplicity ``k_d`` (its number of copies;
0 removes it). Two models:

* ``"poisson"`` (Cormack & Lynam 2006, §4): ``k_d ~ Poisson(1)`` independently, the large-corpus
  limit; needs no corpus size. Draws are *counter-based*: ``k_d`` in image ``i`` is a function of
  ``(rng, i, docno)`` only, so it does not depend on which other documents, runs or systems are
  present, on the batch size or on the number of threads:

  1. one 64-bit key per image: ``as_generator(rng).integers(0, 2**64 - 1, size=n_images,
     dtype=np.uint64, endpoint=True)`` (each key consumes one 64-bit output of the generator, so the
     first 5 keys of 1000 images are the keys of 5 images);
  2. each docno is hashed once: 64-bit FNV-1a over its UTF-8 bytes;
  3. ``z = splitmix64_finaliser(hash ^ key)``, a bijective avalanche mixer;
  4. the top 53 bits of ``z`` are a uniform ``m / 2**53`` on ``[0, 1)``;
  5. ``k`` is the Poisson(1) inverse CDF of it: the number of thresholds ``T_j <= m``, where
     ``T_j = round(2**53 F(j))`` and ``F`` is the Poisson(1) CDF. Draws are capped at ``k = 20``
     (``P(K > 20) = 7.1e-21 < 1e-19``); since probabilities are resolved to ``2**-53 = 1.1e-16``
     each ``P(K = j)`` is exact to within ``1.1e-16`` and values above 18 never occur.

  The measure kernels draw the same copies themselves, image by image, from the keys and hashes
  (:meth:`~pyterrier_boot.measures.engine.Evaluator.evaluate_poisson`), so the corpus bootstrap
  need not hold an ``[image, document]`` array.

* ``"multinomial"`` (Zobel & Rashidi 2020, §3): an image is ``N`` draws with replacement from a
  corpus of ``N`` documents, so the counts of the ``D`` documents seen (retrieved or judged) are
  ``Multinomial(N, [1/N] * D + [1 - D/N])`` (the last cell: every unseen document). Image ``i`` uses
  ``np.random.Generator(np.random.PCG64(int(key_i)))``; documents in sorted docno order. The
  counts are drawn jointly, so (unlike Poisson images) they depend on the set of documents seen.

Also here: the delete-a-group jackknife's document groups (:func:`jackknife_groups`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit, prange

from .._environment import numba_cache
from .._random import as_generator
from .._streams import POISSON_CAP, POISSON_THRESHOLDS, finalise, poisson_draw

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

    import numpy.typing as npt

    from .._typing import IntArray, RngLike


__all__ = [
    "MODELS",
    "POISSON_CAP",
    "image_keys",
    "docno_hashes",
    "poisson_multiplicities",
    "multinomial_multiplicities",
    "jackknife_groups",
    "salted_bits",
]

_CACHE = numba_cache()  # False only when no folder at all is writable (see pyterrier_boot._environment)

MODELS = ("poisson", "multinomial")

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
#: Salt of the jackknife grouping, so groups are unrelated to any image (fractional bits of sqrt(2)).
_GROUP_SALT = np.uint64(0x6A09E667F3BCC909)
_MASK = (1 << 64) - 1
#: Salt mixed into a corpus split's key, so splits are unrelated to images and jackknife groups
#: (fractional bits of sqrt(3)).
_SPLIT_SALT = 0xBB67AE8584CAA73B


def image_keys(rng: RngLike, n_images: int) -> npt.NDArray[np.uint64]:
    """One 64-bit key per image, drawn from ``rng`` (SPEC 7); keys of ``n`` images prefix those of more.

    Example:
        >>> keys = image_keys(42, 1000)
        >>> bool((image_keys(42, 5) == keys[:5]).all())
        True
    """
    return as_generator(rng).integers(0, 2**64 - 1, size=n_images, dtype=np.uint64, endpoint=True)


@njit(cache=_CACHE)
def _fnv1a(buffer, offsets, out):
    for i in range(offsets.shape[0] - 1):
        h = _FNV_OFFSET
        for j in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(buffer[j])) * _FNV_PRIME
        out[i] = h


@njit(parallel=True, cache=_CACHE)
def _poisson_images(keys, hashes, thresholds, out):
    n_images, n_docs = out.shape
    for b in prange(n_images):
        key = keys[b]
        for d in range(n_docs):
            out[b, d] = poisson_draw(hashes[d] ^ key, thresholds)


@njit(cache=_CACHE)
def _groups(hashes, n_groups, out):
    g = np.uint64(n_groups)
    for d in range(hashes.shape[0]):
        out[d] = np.int64(finalise(hashes[d] ^ _GROUP_SALT) % g)


def _utf8_buffer(docnos):
    encoded = [str(d).encode("utf-8") for d in docnos]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    buffer = np.frombuffer(b"".join(encoded), dtype=np.uint8) if offsets[-1] else np.zeros(0, np.uint8)
    return buffer, offsets


def docno_hashes(docnos: Iterable[Any]) -> npt.NDArray[np.uint64]:
    """64-bit FNV-1a hash of each docno's UTF-8 bytes (uint64 array).

    Example:
        >>> hex(int(docno_hashes(["a"])[0]))  # FNV-1a 64 test vector
        '0xaf63dc4c8601ec8c'
    """
    buffer, offsets = _utf8_buffer(docnos)
    out = np.empty(len(offsets) - 1, dtype=np.uint64)
    _fnv1a(buffer, offsets, out)
    return out


def poisson_multiplicities(keys: npt.ArrayLike, hashes: npt.NDArray[np.uint64] | Sequence[int]) -> npt.NDArray[np.int32]:
    """Poisson(1) multiplicities ``int32[image, doc]`` of documents (by hash) in images (by key).

    Example:
        >>> k = poisson_multiplicities(image_keys(1, 2), docno_hashes(["d1", "d2", "d3"]))
        >>> k.shape, k.dtype.name
        ((2, 3), 'int32')
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
    out = np.empty((len(keys), len(hashes)), dtype=np.int32)
    _poisson_images(keys, hashes, POISSON_THRESHOLDS, out)
    return out


def multinomial_multiplicities(keys: npt.NDArray[np.uint64] | Sequence[int], n_docs: int, corpus_size: int) -> npt.NDArray[np.int32]:
    """Multinomial multiplicities ``int32[image, doc]``: counts of ``n_docs`` documents in ``N`` draws.

    ``n_docs`` documents (in sorted docno order) out of a corpus of ``corpus_size = N`` each get
    probability ``1/N``; image ``i`` is drawn by ``Generator(PCG64(int(keys[i])))``.
    """
    if corpus_size < n_docs:
        raise ValueError(f"'corpus_size' ({corpus_size}) is smaller than the number of distinct documents "
                         f"seen ({n_docs})")
    pvals = np.full(n_docs + 1, 1.0 / corpus_size)
    pvals[-1] = max(0.0, 1.0 - n_docs / corpus_size)
    out = np.empty((len(keys), n_docs), dtype=np.int32)
    for b, key in enumerate(np.asarray(keys, dtype=np.uint64)):
        generator = np.random.Generator(np.random.PCG64(int(key)))
        out[b] = generator.multinomial(corpus_size, pvals)[:n_docs]
    return out


def jackknife_groups(hashes: npt.NDArray[np.uint64] | Sequence[int], n_groups: int) -> IntArray:
    """Group (0..n_groups-1) of each document for the delete-a-group jackknife, from its docno hash."""
    out = np.empty(len(hashes), dtype=np.int64)
    _groups(np.ascontiguousarray(hashes, dtype=np.uint64), int(n_groups), out)
    return out


@njit(cache=True)
def _salted_bits(hashes, key, out):
    for d in range(hashes.shape[0]):
        out[d] = np.uint8(finalise(hashes[d] ^ key) & np.uint64(1))


def salted_bits(hashes: npt.NDArray[np.uint64] | Sequence[int], salt: int) -> npt.NDArray[np.uint8]:
    """One pseudo-random bit per document (by hash) for an integer ``salt``: the lowest bit of
    ``splitmix64_finaliser(hash ^ splitmix64_finaliser(salt ^ _SPLIT_SALT))`` (the salted corpus split)."""
    key = np.uint64(finalise_reference(int(salt) ^ _SPLIT_SALT))
    out = np.empty(len(hashes), dtype=np.uint8)
    _salted_bits(np.ascontiguousarray(hashes, dtype=np.uint64), key, out)
    return out


# ---------------------------------------------------------------- pure-Python references


def fnv1a_reference(docno: object) -> int:
    """FNV-1a 64 of a docno's UTF-8 bytes, in plain Python integers."""
    h = 0xCBF29CE484222325
    for byte in str(docno).encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & _MASK
    return h


def finalise_reference(z: int) -> int:
    """splitmix64's finaliser in plain Python integers."""
    z &= _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def poisson_reference(key: int, docno: object) -> int:
    """The Poisson(1) multiplicity of ``docno`` in the image with ``key``, in plain Python."""
    m = finalise_reference(fnv1a_reference(docno) ^ int(key)) >> 11
    thresholds = POISSON_THRESHOLDS.tolist()
    k = 0
    while m >= thresholds[k]:
        k += 1
    return k
