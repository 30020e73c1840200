"""Drawing corpus images: counter-based Poisson(1) multiplicities and the exact multinomial."""
import numba
import numpy as np
import pytest
from scipy import stats

from pyterrier_boot.corpus.multiplicity import (
    POISSON_CAP,
    POISSON_THRESHOLDS,
    docno_hashes,
    finalise_reference,
    fnv1a_reference,
    image_keys,
    jackknife_groups,
    multinomial_multiplicities,
    poisson_multiplicities,
    poisson_reference,
)

DOCS = np.array([f"FT{i:06d}-{i % 7}" for i in range(20_000)], dtype=object)


def test_keys_are_a_prefix_whatever_the_number_of_images():
    assert np.array_equal(image_keys(42, 5), image_keys(42, 1000)[:5])
    assert image_keys(42, 5).dtype == np.uint64
    # an int seed and the Generator it stands for give the same keys
    assert np.array_equal(image_keys(np.random.default_rng(42), 7), image_keys(42, 7))
    assert not np.array_equal(image_keys(1, 5), image_keys(2, 5))


@pytest.mark.parametrize(("text", "expected"), [
    ("", 0xCBF29CE484222325),  # FNV-1a 64 offset basis (published test vectors)
    ("a", 0xAF63DC4C8601EC8C),
    ("foobar", 0x85944171F73967E8),
])
def test_fnv1a_test_vectors(text, expected):
    assert int(docno_hashes([text])[0]) == expected
    assert fnv1a_reference(text) == expected


def test_fnv1a_kernel_matches_reference_on_unicode():
    docnos = ["clueweb09-en0000-00-00000", "é", "文書-1", "a b", "x" * 300]
    assert docno_hashes(docnos).tolist() == [fnv1a_reference(d) for d in docnos]


def test_splitmix64_finaliser_reference_value():
    # splitmix64 seeded with 0 returns finalise(0x9e3779b97f4a7c15) = 0xe220a8397b1dcdaf first
    assert finalise_reference(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF


def test_thresholds_are_the_poisson_cdf():
    cdf = stats.poisson.cdf(np.arange(POISSON_CAP + 1), 1.0)
    assert np.all(np.abs(POISSON_THRESHOLDS / 2.0**53 - cdf) <= 2.0**-52)
    assert POISSON_THRESHOLDS[-1] == 2**53
    assert stats.poisson.sf(POISSON_CAP, 1.0) < 1e-19


def test_poisson_kernel_matches_pure_python_reference():
    keys = image_keys(3, 4)
    docs = DOCS[:300]
    k = poisson_multiplicities(keys, docno_hashes(docs))
    expected = [[poisson_reference(key, d) for d in docs] for key in keys]
    assert k.tolist() == expected


def test_poisson_distribution_chi_square_and_moments():
    k = poisson_multiplicities(image_keys(11, 50), docno_hashes(DOCS)).ravel()  # 1e6 draws
    assert k.min() >= 0 and k.max() <= POISSON_CAP
    observed = np.bincount(k, minlength=7)[:7].astype(float)
    observed[6] = np.count_nonzero(k >= 6)
    expected = np.append(stats.poisson.pmf(np.arange(6), 1.0), stats.poisson.sf(5, 1.0)) * k.size
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    assert abs(k.mean() - 1) < 5 / np.sqrt(k.size)  # Var(K) = 1
    assert abs(k.var() - 1) < 5 * np.sqrt(3 / k.size)  # Var((K - 1)^2) = mu4 - 1 = 3 for Poisson(1)


def test_poisson_draws_are_uncorrelated_across_documents_and_images():
    k = poisson_multiplicities(image_keys(5, 50), docno_hashes(DOCS)).astype(float)
    n = k.size
    for a, b in [(k[:, :-1], k[:, 1:]), (k[:-1], k[1:])]:  # neighbouring docnos / images
        assert abs(np.corrcoef(a.ravel(), b.ravel())[0, 1]) < 5 / np.sqrt(n)


def test_poisson_images_do_not_depend_on_batch_threads_or_other_documents():
    keys = image_keys(9, 12)
    hashes = docno_hashes(DOCS[:2000])
    whole = poisson_multiplicities(keys, hashes)
    batched = np.concatenate([poisson_multiplicities(keys[i:i + 5], hashes) for i in range(0, 12, 5)])
    assert np.array_equal(whole, batched)
    subset = np.arange(0, 2000, 3)
    assert np.array_equal(poisson_multiplicities(keys, hashes[subset]), whole[:, subset])
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = poisson_multiplicities(keys, hashes)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(single, whole)


def test_multinomial_is_numpy_multinomial_seeded_by_the_image_key():
    keys = image_keys(4, 3)
    n_docs, N = 50, 400
    k = multinomial_multiplicities(keys, n_docs, N)
    for b, key in enumerate(keys):  # the construction of the spec, written out
        generator = np.random.Generator(np.random.PCG64(int(key)))
        reference = generator.multinomial(N, [1 / N] * n_docs + [1 - n_docs / N])[:n_docs]
        assert np.array_equal(k[b], reference)
    assert k.dtype == np.int32


def test_multinomial_marginals():
    n_docs, N = 200, 1000
    k = multinomial_multiplicities(image_keys(8, 400), n_docs, N)
    totals = k.sum(axis=1)  # ~ Binomial(N, D/N)
    assert abs(totals.mean() - n_docs) < 5 * np.sqrt(N * 0.2 * 0.8 / len(totals))
    assert abs(k.mean() - 1) < 5 * np.sqrt((1 - 1 / N) / k.size)
    whole = multinomial_multiplicities(image_keys(8, 400), N, N)
    assert np.all(whole.sum(axis=1) == N)  # every draw lands on a seen document


def test_multinomial_needs_a_large_enough_corpus():
    with pytest.raises(ValueError, match=r"'corpus_size' \(10\) is smaller than the number of distinct documents seen \(11\)"):
        multinomial_multiplicities(image_keys(1, 1), 11, 10)


def test_jackknife_groups_are_balanced_and_hash_based():
    hashes = docno_hashes(DOCS)
    groups = jackknife_groups(hashes, 20)
    counts = np.bincount(groups, minlength=20)
    assert counts.min() > 0.8 * len(DOCS) / 20 and counts.max() < 1.2 * len(DOCS) / 20
    assert np.array_equal(jackknife_groups(hashes[::-1], 20), groups[::-1])  # a function of the docno
