"""The topic-resampling statistics on an executor: the same numbers in this process, on a thread
pool, on a process pool and on a dask.distributed cluster, and memory that does not grow with the
number of pairs (pairs are streamed in chunks cut from the memory budget)."""
import importlib
import tracemalloc
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

import pyterrier_boot as ptb
from pyterrier_boot import _memory
from pyterrier_boot.stats import comparison, intervals, significance

dp_module = importlib.import_module("pyterrier_boot.meta.quality.discriminative_power")
discriminative_power = dp_module.discriminative_power

N_SYSTEMS, N_TOPICS = 24, 20


@pytest.fixture(scope="module")
def scores():
    """Systems x topics with topic effects and system effects (labelled, so the orientation is known)."""
    rng = np.random.default_rng(5)
    topic = rng.beta(2, 5, N_TOPICS)
    values = np.clip(topic + np.linspace(0, 0.1, N_SYSTEMS)[:, None] + rng.normal(0, 0.08, (N_SYSTEMS, N_TOPICS)),
                     0.001, 1)
    columns = pd.Index([f"q{i}" for i in range(N_TOPICS)], name="qid")
    return pd.DataFrame(values, index=[f"s{i}" for i in range(N_SYSTEMS)], columns=columns)


@pytest.fixture(scope="module")
def process_pool():
    with ProcessPoolExecutor(2) as pool:
        yield pool


@pytest.fixture(params=["thread", "process"])
def executor(request, process_pool):
    if request.param == "process":
        yield process_pool
        return
    with ThreadPoolExecutor(2) as pool:
        yield pool


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 7 rows on an executor, so every call is cut into many batches that must join exactly."""
    def seven(n_series, cells_per_series, cells=_memory.CHUNK_CELLS):
        return 7
    for module in (comparison, intervals):
        monkeypatch.setattr(module, "chunk_rows", seven)
    monkeypatch.setattr(dp_module, "_CELLS", 7 * 500)


@pytest.mark.parametrize("test", ["paired_bootstrap", "randomization", "t"])
def test_compare_is_the_same_on_an_executor(scores, executor, small_chunks, test):
    kwargs = dict(test=test, n_resamples=500, rng=3, correction="fdr_bh")
    here = ptb.compare({"AP": scores}, **kwargs)
    there = ptb.compare({"AP": scores}, executor=executor, **kwargs)
    pd.testing.assert_frame_equal(here, there, check_exact=True)
    assert len(here) == N_SYSTEMS * (N_SYSTEMS - 1) // 2


@pytest.mark.parametrize("test", ["paired_bootstrap", "randomization", "unpaired_bootstrap"])
def test_discriminative_power_is_the_same_on_an_executor(scores, executor, small_chunks, test):
    data = {"AP": scores.to_numpy(), "P": np.round(scores.to_numpy(), 1)}
    here = discriminative_power(data, test=test, n_resamples=500, rng=4)
    there = discriminative_power(data, test=test, n_resamples=500, rng=4, executor=executor)
    for field in ("asl", "statistic", "difference", "required_difference", "sensitivity", "estimated_difference"):
        np.testing.assert_array_equal(getattr(here, field), getattr(there, field), err_msg=field)


@pytest.mark.parametrize(("statistic", "method"), [("mean", "studentized"), ("mean", "bca"), ("median", "percentile")])
def test_bootstrap_ci_is_the_same_on_an_executor(scores, executor, small_chunks, statistic, method):
    here = ptb.bootstrap_ci(scores, statistic=statistic, method=method, n_resamples=400, rng=5)
    there = ptb.bootstrap_ci(scores, statistic=statistic, method=method, n_resamples=400, rng=5, executor=executor)
    np.testing.assert_array_equal(here.confidence_interval.low, there.confidence_interval.low)
    np.testing.assert_array_equal(here.confidence_interval.high, there.confidence_interval.high)
    np.testing.assert_array_equal(here.standard_error, there.standard_error)
    np.testing.assert_array_equal(here.bootstrap_distribution, there.bootstrap_distribution)


def test_randomized_tukey_is_the_same_on_an_executor(scores, executor):
    here = ptb.randomized_tukey_hsd(scores.iloc[:6], n_resamples=700, rng=6)  # three blocks, the last one short
    there = ptb.randomized_tukey_hsd(scores.iloc[:6], n_resamples=700, rng=6, executor=executor)
    np.testing.assert_array_equal(here.null_distribution, there.null_distribution)
    np.testing.assert_array_equal(here.pvalue, there.pvalue)
    assert here.null_distribution.shape == (700,)


@pytest.mark.parametrize("alternative", ["two-sided", "less"])
@pytest.mark.parametrize("name", ["paired_bootstrap_test", "randomization_test"])
def test_one_pair_is_the_same_with_its_resamples_on_an_executor(scores, executor, name, alternative):
    """10,000 resamples of one pair: three blocks of resamples, joined exactly."""
    test = getattr(ptb, name)
    x, y = scores.iloc[3].to_numpy(), scores.iloc[0].to_numpy()
    here = test(x, y, alternative=alternative, rng=7)
    there = test(x, y, alternative=alternative, rng=7, executor=executor)
    np.testing.assert_array_equal(here.null_distribution, there.null_distribution)
    assert (here.statistic, here.pvalue, here.confidence_interval) == \
        (there.statistic, there.pvalue, there.confidence_interval)


def test_an_executor_that_is_not_one_is_refused(scores):
    with pytest.raises(TypeError, match="'executor'"):
        ptb.compare({"AP": scores}, test="t", executor=2)
    with pytest.raises(TypeError, match="'executor'"):
        ptb.bootstrap_ci(scores, executor="processes")


def test_compare_memory_does_not_grow_with_the_pairs(monkeypatch):
    """100 systems = 4,950 pairs x 1,000 resamples: holding the null distributions of every pair would
    take 40 MB; streamed in chunks of the (here lowered) budget the peak stays a small share of it."""
    monkeypatch.setattr(significance, "_CELLS", 1 << 16)
    rng = np.random.default_rng(8)
    values = rng.random((100, 20))
    columns = pd.Index([f"q{i}" for i in range(20)], name="qid")
    frame = pd.DataFrame(values, columns=columns)
    whole = 4950 * 1000 * 8
    tracemalloc.start()
    try:
        ptb.compare({"AP": frame}, test="paired_bootstrap", n_resamples=1000, rng=1, correction="fdr_bh")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < whole / 8, f"peak {peak / 2**20:.1f} MiB against {whole / 2**20:.1f} MiB of null distributions"


@pytest.mark.slow
def test_compare_is_the_same_on_a_dask_cluster(scores, small_chunks):
    distributed = pytest.importorskip("dask.distributed", reason="dask[distributed] is not installed")
    kwargs = dict(test="paired_bootstrap", n_resamples=500, rng=3, correction="fdr_bh")
    here = ptb.compare({"AP": scores}, **kwargs)
    data = {"AP": scores.to_numpy()}
    dp_here = discriminative_power(data, n_resamples=300, rng=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        executor = client.get_executor()
        there = ptb.compare({"AP": scores}, executor=executor, **kwargs)
        dp_there = discriminative_power(data, n_resamples=300, rng=2, executor=executor)
        tukey = ptb.randomized_tukey_hsd(scores.iloc[:5], n_resamples=600, rng=1, executor=executor)
    pd.testing.assert_frame_equal(here, there, check_exact=True)
    np.testing.assert_array_equal(dp_here.asl, dp_there.asl)
    np.testing.assert_array_equal(tukey.pvalue, ptb.randomized_tukey_hsd(scores.iloc[:5], n_resamples=600, rng=1).pvalue)


@pytest.mark.parametrize("test", ["paired-bootstrap", "randomization"])
def test_experiment_is_the_same_on_an_executor(executor, test):
    """pt.boot.Experiment's extra door: the same table (intervals, tests) with and without it."""
    sim = ptb.simulate_collection(n_topics=15, n_systems=4, rng=3)
    kwargs = dict(names=list(sim.runs), baseline=0, test=test, n_resamples=300, rng=2)
    here = ptb.Experiment(list(sim.runs.values()), sim.topics, sim.qrels, ["map", "P_10"], **kwargs)
    there = ptb.Experiment(list(sim.runs.values()), sim.topics, sim.qrels, ["map", "P_10"], executor=executor,
                           **kwargs)
    pd.testing.assert_frame_equal(here, there, check_exact=True)
    assert "map ci_low" in there.columns


def test_docs_name_no_executor_that_is_not_tested():
    """Ray has no ``concurrent.futures`` executor and no test runs on it: no page or docstring may
    offer it as an ``executor=`` (a mention must say it is not tested)."""
    import re
    from pathlib import Path

    import pyterrier_boot

    package = Path(pyterrier_boot.__file__).parent
    for path in [*package.glob("pt_docs/*.md"), *package.rglob("*.py"), package.parents[0] / "README.md"]:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"\bRay\b", text):
            around = text[match.start():match.start() + 200]
            assert "tested on it" in around or "not tested" in around, f"{path.name}: {around!r}"
