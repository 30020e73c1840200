"""The batched engine on many images: lanes of images walked together, images drawn in the kernel,
and results that depend only on ``rng`` (not on thread count, batch size or measure grouping)."""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from pyterrier_boot import simulate_collection
from pyterrier_boot.corpus.multiplicity import docno_hashes, image_keys, poisson_multiplicities
from pyterrier_boot.measures.engine import Evaluator
from pyterrier_boot.measures.evaluation import prepare
from pyterrier_boot.measures.kernels import evaluate_tasks
from pyterrier_boot.measures.lowering import lower
from pyterrier_boot.measures.reference import reference_values

# the fused family (one walk for all), cutoff-only sets (the walk stops early), the general family
FUSED = ["AP", "AP@5", "AP(rel=2)", "nDCG", "nDCG@5", "P@5", "P(rel=2)@3", "R@10", "Rprec", "RR", "RR@3",
         "Success@2", "nCG@5", "RBP(p=0.9)", "INSQ(max_rel=2)"]
CUTOFF_ONLY = ["P@3", "nDCG@4", "Rprec(rel=2)"]
GENERAL = ["Bpref", "Q", "Judged@5", "ERR@5", "INST(max_rel=2)", "AP(judged_only=True)"]
MEASURES = FUSED + GENERAL


@pytest.fixture(scope="module")
def collection():
    sim = simulate_collection(n_topics=5, n_systems=3, depth=30, pool_depth=10, relevant=6.0, rng=5)
    evaluator, _ = prepare(sim.runs, sim.qrels, MEASURES)
    return evaluator, docno_hashes(evaluator.arrays.docnos)


def test_batch_of_images_equals_the_pure_python_reference_on_each_image(collection):
    """11 images (a full block of 8 lanes and a partial one) with every kind of measure, against the
    materialising reference of :mod:`pyterrier_boot.measures.reference`, image by image."""
    evaluator, hashes = collection
    k = poisson_multiplicities(image_keys(11, 11), hashes)
    k[3] = 0  # an empty image
    k[4] *= 3  # copies beyond what Poisson(1) draws
    values = evaluator.evaluate(k)
    kms = [lower(lm.measure) for lm in evaluator.measures]
    for b in range(len(k)):
        expected = reference_values(evaluator.arrays, k[b], kms)
        np.testing.assert_allclose(values[b], expected, rtol=0, atol=1e-12, err_msg=f"image {b}")


@pytest.mark.parametrize("measures", [FUSED, CUTOFF_ONLY, GENERAL, ["RR", "Bpref", "P@3"], ["AP", "AP(rel=2)"],
                                      ["RR@3", "Success@2"], ["nDCG@5", "RBP(p=0.9)"]])
def test_a_measure_is_the_same_whatever_measures_share_the_call(collection, measures):
    evaluator, hashes = collection
    k = poisson_multiplicities(image_keys(3, 11), hashes)
    alone = Evaluator(evaluator.arrays, [lm for lm in evaluator.measures if lm.label in measures]).evaluate(k)
    together = evaluator.evaluate(k)
    columns = [j for j, lm in enumerate(evaluator.measures) if lm.label in measures]
    assert np.array_equal(alone, together[..., columns])


@pytest.mark.parametrize("measures, asked", [(["AP"], (True, False, False, False)),
                                             (["nDCG@5"], (False, False, False, True)),
                                             (["P@5", "RR"], (False, True, True, False)),
                                             (FUSED, (True, True, True, True))])
def test_a_call_compiles_the_walk_of_the_fused_groups_it_asks_for_only(collection, measures, asked):
    """Issue 33 (start-up): the kernel is specialised on the groups of fused measures a call asks for
    (kernels.FUSED_GROUPS, typed None when absent, so numba prunes their code before compiling)."""
    evaluator, _ = collection
    alone = Evaluator(evaluator.arrays, [lm for lm in evaluator.measures if lm.label in measures])
    alone.evaluate(np.ones((1, alone.arrays.n_docs), np.int32))
    fused = numba.typeof(alone._fused)
    assert any(sig[6] == fused for sig in evaluate_tasks.signatures)
    groups = fused[len(fused) - 1]
    assert tuple(group != numba.types.none for group in groups) == asked


def test_images_drawn_in_the_kernel_equal_the_drawn_multiplicities(collection):
    evaluator, hashes = collection
    keys = image_keys(7, 21)
    assert np.array_equal(evaluator.evaluate_poisson(keys, hashes),
                          evaluator.evaluate(poisson_multiplicities(keys, hashes)))


def test_evaluate_poisson_checks_the_hashes(collection):
    evaluator, hashes = collection
    with pytest.raises(ValueError, match="'hashes' must hold one hash per document"):
        evaluator.evaluate_poisson(image_keys(1, 2), hashes[:-1])


@pytest.mark.parametrize("batch", [1, 3, 8, 13])
def test_values_do_not_depend_on_the_batch_size(collection, batch):
    evaluator, hashes = collection
    keys = image_keys(9, 26)
    whole = evaluator.evaluate_poisson(keys, hashes)
    parts = np.concatenate([evaluator.evaluate_poisson(keys[i:i + batch], hashes) for i in range(0, 26, batch)])
    assert np.array_equal(whole, parts)


def _digest(values):
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()


DIGEST = """
import hashlib, numpy as np
from pyterrier_boot import simulate_collection
from pyterrier_boot.corpus.multiplicity import docno_hashes, image_keys
from pyterrier_boot.measures.evaluation import prepare
sim = simulate_collection(n_topics=5, n_systems=3, depth=30, pool_depth=10, relevant=6.0, rng=5)
evaluator, _ = prepare(sim.runs, sim.qrels, {measures!r})
values = evaluator.evaluate_poisson(image_keys(13, 37), docno_hashes(evaluator.arrays.docnos))
print(hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest())
"""


def test_values_are_bitwise_identical_on_1_2_and_4_threads(collection):
    """1 and 2 numba threads in this process, 4 in a fresh one (NUMBA_NUM_THREADS caps the count)."""
    evaluator, hashes = collection
    keys = image_keys(13, 37)
    before = numba.get_num_threads()
    digests = []
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            digests.append(_digest(evaluator.evaluate_poisson(keys, hashes)))
    finally:
        numba.set_num_threads(before)
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NUMBA_NUM_THREADS="4", PYTHONPATH=f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    out = subprocess.run([sys.executable, "-c", DIGEST.format(measures=MEASURES)], env=env, capture_output=True,
                         text=True, check=True, timeout=300)
    digests.append(out.stdout.split()[-1])
    assert digests == [digests[0]] * 3
