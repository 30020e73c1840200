"""Bad sizes at every resampling entry point: absurd, fractional, negative and non-numeric resample
counts and memory budgets are refused up front with an error naming the argument; a count that
does not fit in ``max_memory`` is refused with the estimate and the fix; too few resamples for an
interval or a p-value warn with the reason. The estimates are checked against the memory the
functions really allocate (tracemalloc)."""
import re
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import small_collection

import pyterrier_boot as ptb
from pyterrier_boot import (
    BootWarning,
    discriminative_power,
    stability_method,
    swap_method,
    topic_set_size,
)

RNG = np.random.default_rng(7)
X = RNG.random(30)
Y = np.clip(X + RNG.normal(0.03, 0.1, 30), 0, 1)
MATRIX = np.clip(RNG.random((4, 30)) * 0.2 + X, 0, 1)
BY_MEASURE = {"AP": MATRIX, "P@10": np.round(MATRIX, 1)}


def _experiment(**kwargs):
    runs, qrels = small_collection(n_topics=6)
    return ptb.Experiment(list(runs.values()), None, qrels, ["AP"], names=list(runs), rng=1, **kwargs)


def _corpus(n_resamples, **kwargs):
    _, qrels = small_collection(n_topics=6)
    return ptb.CorpusBootstrap(qrels, n_images=n_resamples, **kwargs)


def _corpus_result(n_images):
    runs, qrels = small_collection(n_topics=6)
    return ptb.CorpusBootstrap(qrels, n_images=n_images, rng=1, verbose=False).evaluate(runs, ["AP"])


# entry point -> call with n_resamples (and max_memory) passed through; the name of the count argument
ENTRY_POINTS = {
    "resample_plan": (lambda n, **kw: ptb.resample_plan(30, n_resamples=n, **kw), "n_resamples"),
    "sign_flip_plan": (lambda n, **kw: ptb.sign_flip_plan(80, n_resamples=n, **kw), "n_resamples"),
    "bootstrap_ci": (lambda n, **kw: ptb.bootstrap_ci(X, n_resamples=n, **kw), "n_resamples"),
    "paired_bootstrap_test": (lambda n, **kw: ptb.paired_bootstrap_test(X, Y, n_resamples=n, **kw), "n_resamples"),
    "randomization_test": (lambda n, **kw: ptb.randomization_test(X, Y, n_resamples=n, **kw), "n_resamples"),
    "unpaired_bootstrap_test": (lambda n, **kw: ptb.unpaired_bootstrap_test(X, Y, n_resamples=n, **kw),
                                "n_resamples"),
    "randomized_tukey_hsd": (lambda n, **kw: ptb.randomized_tukey_hsd(MATRIX, n_resamples=n, **kw), "n_resamples"),
    "compare": (lambda n, **kw: ptb.compare({"AP": MATRIX}, n_resamples=n, **kw), "n_resamples"),
    "compare_randomization": (lambda n, **kw: ptb.compare({"AP": MATRIX}, test="randomization", n_resamples=n,
                                                          **kw), "n_resamples"),
    "discriminative_power": (lambda n, **kw: discriminative_power(BY_MEASURE, n_resamples=n, **kw), "n_resamples"),
    "discriminative_power_unpaired": (lambda n, **kw: discriminative_power(
        BY_MEASURE, test="unpaired_bootstrap", n_resamples=n, **kw), "n_resamples"),
    "swap_method": (lambda n, **kw: swap_method(BY_MEASURE, n_resamples=n, **kw), "n_resamples"),
    "stability_method": (lambda n, **kw: stability_method(BY_MEASURE, n_resamples=n, **kw), "n_resamples"),
    "topic_set_size": (lambda n, **kw: topic_set_size(MATRIX, difference=0.05, n_resamples=n, **kw), "n_resamples"),
    "Experiment": (lambda n, **kw: _experiment(n_resamples=n, **kw), "n_resamples"),
    "Experiment_corpus": (lambda n, **kw: _experiment(bootstrap="corpus", n_resamples=n, **kw), "n_resamples"),
    "CorpusBootstrap": (_corpus, "n_images"),
}
NAMES = list(ENTRY_POINTS)


@pytest.mark.parametrize("entry", NAMES)
def test_absurd_count_is_refused_with_the_estimate_and_the_fix(entry):
    call, name = ENTRY_POINTS[entry]
    with pytest.raises(ValueError) as info:
        call(10**11)
    message = str(info.value)
    assert message.startswith(f"{name}=100,000,000,000 ")
    assert re.search(r"would need about [0-9.]+ (GiB|TiB|PiB)", message), message
    assert f"lower {name} or raise max_memory" in message


@pytest.mark.parametrize("entry", NAMES)
def test_float_count_is_refused_naming_the_argument(entry):
    call, name = ENTRY_POINTS[entry]
    with pytest.raises(TypeError, match=rf"'{name}' must be an integer >= [12], got float 1e\+11 \(pass an int\)"):
        call(1e11)


@pytest.mark.parametrize("entry", NAMES)
def test_negative_count_is_refused_naming_the_argument(entry):
    call, name = ENTRY_POINTS[entry]
    with pytest.raises(ValueError, match=rf"'{name}' must be an integer >= [12], got -5"):
        call(-5)


@pytest.mark.parametrize("entry,value", [
    (entry, value)
    for entry in ["bootstrap_ci", "paired_bootstrap_test", "randomization_test", "compare", "Experiment",
                  "CorpusBootstrap", "discriminative_power"]
    for value in ["1000", None, True]
    if not (entry == "Experiment" and value is None)  # None is Experiment's default
])
def test_non_numeric_count_is_a_type_error(entry, value):
    call, name = ENTRY_POINTS[entry]
    with pytest.raises(TypeError, match=rf"'{name}' must be an integer"):
        call(value)


@pytest.mark.parametrize("entry", ["paired_bootstrap_test", "randomization_test", "unpaired_bootstrap_test",
                                   "bootstrap_ci", "compare"])
def test_one_resample_is_refused(entry):
    call, name = ENTRY_POINTS[entry]
    with pytest.raises(ValueError, match=rf"'{name}' must be an integer >= 2, got 1"):
        call(1)


@pytest.mark.parametrize("entry", ["bootstrap_ci", "paired_bootstrap_test", "compare", "randomized_tukey_hsd",
                                   "swap_method", "Experiment", "CorpusBootstrap"])
@pytest.mark.parametrize("value,error,match", [
    (0, ValueError, "'max_memory' must be a positive number of bytes, got 0"),
    (-1, ValueError, "'max_memory' must be a positive number of bytes, got -1"),
    ("1G", TypeError, "'max_memory' must be a number of bytes \\(int\\), got str"),
    (2.5, ValueError, "'max_memory' must be a whole number of bytes, got 2.5"),
])
def test_bad_max_memory(entry, value, error, match):
    call, _ = ENTRY_POINTS[entry]
    with pytest.raises(error, match=match):
        call(1000, max_memory=value)


@pytest.mark.parametrize("entry", ["bootstrap_ci", "paired_bootstrap_test", "compare", "discriminative_power",
                                   "Experiment"])
def test_small_budget_refuses_the_default_count(entry):
    call, _ = ENTRY_POINTS[entry]
    with pytest.raises(ValueError, match=r"n_resamples=1,000 would need about .* more than max_memory=1,000 bytes "
                                         r"\(1000 bytes\); lower n_resamples or raise max_memory"):
        call(1000, max_memory=1000)


@pytest.mark.slow  # 6 s: a large count computed for real
def test_raising_max_memory_lets_a_large_count_run():
    with pytest.raises(ValueError, match="would need about"):
        ptb.bootstrap_ci(X, n_resamples=5_000_000, method="percentile")
    res = ptb.bootstrap_ci(X, n_resamples=5_000_000, method="percentile", max_memory=2**31, rng=1)
    assert res.confidence_interval.low < X.mean() < res.confidence_interval.high


def test_experiment_checks_memory_before_running_any_system():
    import pyterrier as pt

    ran = []

    class Spy(pt.Transformer):
        def transform(self, topics):  # records being run
            ran.append(True)
            return pd.DataFrame({"qid": [], "docno": [], "score": []})

    runs, qrels = small_collection(n_topics=6)
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": "q"})
    with pytest.raises(ValueError, match=r"n_resamples=100,000,000,000 would need about"):
        ptb.Experiment([runs["a"], Spy()], topics, qrels, ["AP"], names=["a", "spy"], n_resamples=10**11)
    assert not ran


def test_randomization_exact_enumeration_is_named_in_the_estimate():
    x = RNG.random(40)
    with pytest.raises(ValueError, match=r"n_resamples=10,000,000,000,000 \(at least 2\^40: all 1,099,511,627,776 "
                                         r"sign flips enumerated\) would need about"):
        ptb.randomization_test(x, x[::-1], n_resamples=10**13)


# ---------------------------------------------------------------- too few resamples: warnings


@pytest.mark.parametrize("call,match", [
    (lambda: ptb.paired_bootstrap_test(X, Y, n_resamples=10, rng=1),
     r"n_resamples=10 is too few for a 95% bootstrap-t interval: .*use n_resamples >= 40"),
    (lambda: ptb.bootstrap_ci(X, method="bca", n_resamples=100, rng=1),
     r"n_resamples=100 is too few for a 95% bca interval: .*use n_resamples >= 200"),
    (lambda: ptb.paired_bootstrap_test(X, Y, confidence_level=1 - 0.05 / 6, n_resamples=239, rng=1),
     r"n_resamples=239 is too few for a 99.1667% bootstrap-t interval: .*use n_resamples >= 240"),
    (lambda: ptb.bootstrap_ci(X, method="percentile", confidence_level=0.99, n_resamples=150, rng=1),
     r"n_resamples=150 is too few for a 99% percentile interval: .*use n_resamples >= 200"),
    (lambda: ptb.randomization_test(X, Y, n_resamples=10, rng=1),
     r"n_resamples=10 gives p-values of at least 0.0909 = 1/\(n_resamples\+1\), so nothing can be significant "
     r"at alpha=0.05; use n_resamples >= 20"),
    pytest.param(lambda: ptb.compare({"AP": MATRIX}, test="randomization", alpha=0.01, n_resamples=50, rng=1),
                 r"n_resamples=50 gives p-values of at least 0.0196 .* at alpha=0.01; use n_resamples >= 100",
                 marks=[pytest.mark.filterwarnings("ignore:the randomization test with 50 resamples gives p-values"
                                                   ":pyterrier_boot.BootWarning"),
                        pytest.mark.filterwarnings("ignore:the randomization test cannot reject some shifts"
                                                   ":pyterrier_boot.DegenerateWarning")]),
    (lambda: ptb.unpaired_bootstrap_test(X, Y, n_resamples=20, rng=1),
     r"n_resamples=20 is too few for a 95% percentile interval"),
    (lambda: ptb.randomized_tukey_hsd(MATRIX, n_resamples=15, rng=1),
     r"n_resamples=15 is too few for a 95% percentile interval"),
    (lambda: _corpus_result(20).per_system(method="percentile"),
     r"n_images=20 is too few for a 95% percentile interval: .*use n_images >= 40"),
])
def test_too_few_resamples_warn_with_the_reason(call, match):
    with pytest.warns(BootWarning, match=match):
        call()


@pytest.mark.parametrize("call", [
    lambda: ptb.paired_bootstrap_test(X, Y, n_resamples=1000, rng=1),
    # the minimum the warning names for Bonferroni over 6 pairs (240 * 0.05 / 12 is just below 1 in floats)
    lambda: ptb.paired_bootstrap_test(X, Y, confidence_level=1 - 0.05 / 6, n_resamples=240, rng=1),
    lambda: ptb.bootstrap_ci(X, n_resamples=1000, rng=1),
    lambda: ptb.randomization_test(X[:8], Y[:8], n_resamples=100),  # exact: 2^8 flips, no resolution warning
    lambda: ptb.bootstrap_ci(X, method="normal", n_resamples=20, rng=1),  # no tails read
])
def test_enough_resamples_do_not_warn(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error", BootWarning)
        call()


# ---------------------------------------------------------------- the estimates against real allocations


def _estimate(call):
    """The estimate in bytes, read from the refusal with a 1-byte budget."""
    with pytest.raises(ValueError) as info:
        call(max_memory=1)
    number, unit = re.search(r"would need about ([0-9.]+) (bytes|KiB|MiB|GiB)", str(info.value)).groups()
    return float(number) * {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[unit]


def _peak(call):
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(max_memory=2**31)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("entry", ["bootstrap_ci", "paired_bootstrap_test", "randomization_test",
                                   "unpaired_bootstrap_test", "compare", "compare_randomization",
                                   "randomized_tukey_hsd", "discriminative_power", "discriminative_power_unpaired",
                                   "swap_method", "stability_method", "topic_set_size", "resample_plan",
                                   "sign_flip_plan"])
def test_estimate_bounds_the_real_peak(entry):
    """The estimate is an upper bound of what is allocated (within 10%), and not a wild one (< 6x)."""
    call, _ = ENTRY_POINTS[entry]
    estimate = _estimate(lambda **kw: call(40_000, rng=1, **kw))
    peak = _peak(lambda **kw: call(40_000, rng=1, **kw))
    assert 0.9 * peak <= estimate <= 6 * peak, (estimate, peak)
