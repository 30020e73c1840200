"""Corpus images on an executor (process pool, dask.distributed) give the values computed in this
process, and the corpus bootstrap's memory stays flat in the number of images."""
import multiprocessing
import tracemalloc
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from conftest import small_collection

import pyterrier_boot.corpus.bootstrap as bootstrap_module
from pyterrier_boot import (
    CorpusBootstrap,
    FallbackWarning,
    experiment_result,
    split_half_validation,
)
from pyterrier_boot._batches import map_batches
from pyterrier_boot.measures.evaluation import prepare

# small collections checked with a few splits on purpose (the warning is tested on its own)
pytestmark = pytest.mark.filterwarnings("ignore:n_splits=.* is few for the system")

MEASURES = ["AP", "nDCG@10", "RR"]


@pytest.fixture(scope="module")
def data():
    return small_collection(seed=3)


@pytest.fixture
def small_batches(monkeypatch):
    """Three images per batch, so that 11 images make four batches (the last one short)."""
    monkeypatch.setattr(bootstrap_module, "MAX_BATCH", 3)


def _fields(result):
    return result.statistic, result.bootstrap_distribution, result.jackknife_distribution, result.keys


def _assert_same(a, b):
    for x, y in zip(_fields(a), _fields(b), strict=True):
        np.testing.assert_array_equal(x, y)


def _bootstrap(data, executor=None, model="poisson", n_images=11, **options):
    runs, qrels = data
    boot = CorpusBootstrap(qrels, n_images=n_images, model=model, rng=5, verbose=False, executor=executor, **options)
    return boot.evaluate(runs, MEASURES)


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("start", [
    "fork",
    # spawned workers start from nothing: the batch function, the interned arrays and the numba
    # kernels must all pickle or load by name (slow: every worker imports the package)
    pytest.param("spawn", marks=pytest.mark.slow),
])
def test_a_process_pool_gives_the_values_computed_here(data, start):
    here = _bootstrap(data)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(start)) as pool:
        there = _bootstrap(data, pool)
    _assert_same(here, there)
    assert not np.array_equal(there.bootstrap_distribution[0], there.bootstrap_distribution[1])


@pytest.mark.usefixtures("small_batches")
def test_multinomial_images_on_threads_and_any_batch_size_are_the_same(data, monkeypatch):
    with ThreadPoolExecutor(2) as pool:
        there = _bootstrap(data, pool, model="multinomial", corpus_size=20_000)
    monkeypatch.setattr(bootstrap_module, "MAX_BATCH", 50)
    _assert_same(_bootstrap(data, model="multinomial", corpus_size=20_000), there)


@pytest.mark.slow  # starting a local cluster takes several seconds
def test_a_dask_cluster_gives_the_values_computed_here(data):
    distributed = pytest.importorskip("dask.distributed", reason="dask.distributed is an optional extra")
    here = _bootstrap(data, n_images=8)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        there = _bootstrap(data, client.get_executor(), n_images=8)
    _assert_same(here, there)


@pytest.mark.usefixtures("small_batches")
def test_experiment_corpus_path_takes_an_executor(data):
    runs, qrels = data
    options = {"bootstrap": "corpus", "n_resamples": 40, "rng": 2, "baseline": 0, "verbose": False}
    here = experiment_result(list(runs.values()), None, qrels, ["AP"], names=list(runs), **options)
    with ThreadPoolExecutor(2) as pool:
        there = experiment_result(list(runs.values()), None, qrels, ["AP"], names=list(runs), executor=pool,
                                  **options)
    _assert_same(here.corpus, there.corpus)
    pd.testing.assert_frame_equal(here.table(), there.table())


@pytest.mark.usefixtures("small_batches")
@pytest.mark.filterwarnings("ignore:n_images=12 is too few")
def test_split_half_validation_takes_an_executor(data):
    runs, qrels = data
    options = {"n_splits": 2, "n_images": 12, "rng": 7, "verbose": False, "kinds": ["system"]}
    here = split_half_validation(runs, qrels, ["AP"], **options)
    with ThreadPoolExecutor(2) as pool:
        there = split_half_validation(runs, qrels, ["AP"], executor=pool, **options)
    pd.testing.assert_frame_equal(here.to_frame(), there.to_frame())


def test_an_executor_must_submit(data):
    with pytest.raises(TypeError, match="'executor'"):
        _bootstrap(data, executor=2)


def _wide(n_docs=60_000):
    """Two systems x two topics retrieving many documents: multiplicities dominate the memory."""
    rows = [(str(q), f"d{q}-{s}-{i}", float(-i)) for q in (1, 2) for s in range(2) for i in range(n_docs // 4)]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    runs = {name: frame[frame.docno.str.split("-").str[1] == str(s)] for s, name in enumerate("ab")}
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["d1-0-3", "d2-1-5"], "label": [1, 1]})
    return runs, qrels


def _peak(evaluator, qrels, n_images):
    tracemalloc.start()
    CorpusBootstrap(qrels, n_images=n_images, rng=1, verbose=False, n_groups=2).evaluate_prepared(evaluator)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


@pytest.mark.usefixtures("small_batches")
def test_peak_memory_grows_sublinearly_in_images():
    runs, qrels = _wide()
    evaluator, qrels = prepare(runs, qrels, ["AP"], verbose=False)
    _peak(evaluator, qrels, 2)  # one-off allocations (numba's first calls) out of the way
    small, large = _peak(evaluator, qrels, 30), _peak(evaluator, qrels, 240)
    # 8x the images: holding every image's multiplicities would need 8x the memory; batches need
    # the same (the kept distribution, 8 bytes per image and cell, is tiny here)
    assert large < 1.5 * small, (small, large)


class _CountingExecutor(ThreadPoolExecutor):
    """A thread pool that records the most futures submitted and not yet collected."""

    def __init__(self):
        super().__init__(1)
        self.outstanding = self.most = 0

    def submit(self, fn, *args, **kwargs):
        self.outstanding += 1
        self.most = max(self.most, self.outstanding)
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(lambda _: None)
        return future


def test_map_batches_window_bounds_the_batches_in_flight():
    seen = []

    def double(x):
        return 2 * x

    with _CountingExecutor() as pool:
        for value in map_batches(double, range(10), pool, window=3):
            seen.append(value)
            pool.outstanding -= 1
        assert pool.most == 3
    assert seen == [2 * x for x in range(10)]
    with pytest.raises(ValueError, match="window"):
        list(map_batches(double, range(3), pool, window=0))


@pytest.mark.usefixtures("small_batches")
def test_the_memory_budget_bounds_the_batches_in_flight(data, monkeypatch):
    windows = []
    original = bootstrap_module.CorpusBootstrap._window
    monkeypatch.setattr(bootstrap_module.CorpusBootstrap, "_window",
                        lambda self, *args: windows.append(original(self, *args)) or windows[-1])
    with ThreadPoolExecutor(2) as pool:
        roomy = _bootstrap(data, pool, n_images=40)
        tight = _bootstrap(data, pool, n_images=40, max_memory=60_000)
    assert windows[0] >= 14 > windows[1] >= 1  # 14 batches of 3 images
    _assert_same(roomy, tight)
    _assert_same(_bootstrap(data, n_images=40), tight)


@pytest.mark.usefixtures("small_batches")
def test_a_fallback_measure_warns_once_whatever_runs_the_batches(data, recwarn):
    runs, qrels = data
    with ThreadPoolExecutor(2) as pool:
        res = CorpusBootstrap(qrels, n_images=7, rng=5, verbose=False, executor=pool).evaluate(runs, ["SetP", "AP"])
    fallback = [w for w in recwarn if issubclass(w.category, FallbackWarning)]
    assert len(fallback) == 1 and "SetP" in str(fallback[0].message)
    here = CorpusBootstrap(qrels, n_images=7, rng=5, verbose=False).evaluate(runs, ["SetP", "AP"])
    _assert_same(here, res)
