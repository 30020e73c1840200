"""Bad arguments to the statistics, evaluation and Experiment entry points: each a ValueError or
TypeError naming the argument; and extreme but finite scores either computed correctly or refused,
never a silent inf or nan."""
import numpy as np
import pandas as pd
import pytest

import pyterrier_boot as pb

X = np.array([0.31, 0.42, 0.18, 0.55, 0.27, 0.61, 0.12, 0.48, 0.36, 0.29])
Y = np.array([0.28, 0.35, 0.20, 0.49, 0.22, 0.58, 0.15, 0.40, 0.30, 0.31])
QRELS = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["a", "b", "c", "d"], "label": [1, 0, 2, 0]})
RUN = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["b", "a", "c", "d"], "score": [2.0, 1.0, 3.0, 1.0]})

PAIRED = ["t_test", "paired_bootstrap_test", "randomization_test", "wilcoxon_test", "sign_test"]
RESAMPLING = {"paired_bootstrap_test", "randomization_test", "unpaired_bootstrap_test", "bootstrap_ci"}


def _call(name, *args, **kwargs):
    if name in RESAMPLING:
        kwargs.setdefault("rng", 0)
        kwargs.setdefault("n_resamples", 500)
    return getattr(pb, name)(*args, **kwargs)


# ---------------------------------------------------------------- extreme magnitudes

@pytest.mark.parametrize("scale", [1e308, -1e308, 1e200, 1e155])
@pytest.mark.parametrize("name", PAIRED + ["unpaired_bootstrap_test"])
def test_huge_scores_are_refused_naming_the_argument(name, scale):
    with pytest.raises(ValueError, match=r"'x' has scores as large as .* overflow float64 .*rescale"):
        _call(name, X * scale, Y)


@pytest.mark.parametrize("scale", [1e308, 1e200])
def test_huge_scores_refused_by_intervals_and_tables(scale):
    with pytest.raises(ValueError, match=r"'scores' has scores as large as"):
        _call("bootstrap_ci", X * scale)
    with pytest.raises(ValueError, match=r"'scores' has scores as large as"):
        pb.compare({"AP": np.vstack([X, Y]) * scale}, rng=0, n_resamples=200)
    with pytest.raises(ValueError, match=r"'scores' has scores as large as"):
        pb.tukey_hsd(np.vstack([X, Y, X]) * scale)


@pytest.mark.parametrize("scale", [1e-200, 1e-310])
@pytest.mark.parametrize("name", PAIRED)
def test_vanishing_differences_are_refused(name, scale):
    with pytest.raises(ValueError, match=r"'x' - 'y' has differences no larger than .* underflows to 0"):
        _call(name, X * scale, Y * scale)


def test_vanishing_scores_are_refused_by_intervals_and_tables():
    with pytest.raises(ValueError, match=r"'scores' has scores no larger than 1e-200"):
        _call("bootstrap_ci", np.where(X > 0.3, 1e-200, 0.0))
    tiny = np.linspace(1, 2, X.size) * 1e-200
    scores = np.vstack([X, tiny, 2 * tiny])  # systems 1 and 2 differ by almost nothing
    with pytest.raises(ValueError, match=r"'scores' \(AP: 1 vs 2\) has differences no larger than 2e-200"):
        pb.compare({"AP": scores}, rng=0, n_resamples=200)


SCALES = pytest.mark.parametrize("scale", [2.0**330, 2.0**-330, 2.0**465], ids=["2**330", "2**-330", "2**465"])


@SCALES
@pytest.mark.parametrize("method", ["bca", "percentile", "studentized", "t"])
def test_large_and_small_scores_inside_the_limits_scale_exactly(scale, method):
    """Every interval bound scales with the scores (scores on a 1/64 grid times a power of 2: the
    scaling is exact, so ties and ranks are the same)."""
    x = np.round(X * 64) / 64
    base = _call("bootstrap_ci", x, method=method)
    scaled = _call("bootstrap_ci", x * scale, method=method)
    np.testing.assert_allclose(np.array(scaled.confidence_interval), np.array(base.confidence_interval) * scale,
                               rtol=1e-9)


@SCALES
def test_large_and_small_scores_inside_the_limits_keep_every_paired_test(scale):
    """Every paired test's p-value is unchanged and its interval scales with the scores (as above)."""
    x, y = np.round(X * 64) / 64, np.round(Y * 64) / 64
    for name in PAIRED:
        a, b = _call(name, x, y), _call(name, x * scale, y * scale)
        assert np.isfinite(b.pvalue) and b.pvalue == pytest.approx(a.pvalue, rel=1e-9)
        assert np.all(np.isfinite(np.array(b.confidence_interval)))
        np.testing.assert_allclose(np.array(b.confidence_interval), np.array(a.confidence_interval) * scale,
                                   rtol=1e-9)


def test_a_tiny_score_among_ordinary_ones_is_fine():
    """RBP(p=0.5) of a ranking whose only relevant document is at rank 1000 is about 1e-301."""
    x = X.copy()
    x[3] = 1e-301
    res = _call("bootstrap_ci", x)
    assert np.all(np.isfinite(np.array(res.confidence_interval)))
    assert np.isfinite(_call("t_test", x, Y).pvalue)


# ---------------------------------------------------------------- option values

# (function, kwargs, error class, text naming the argument)
BAD_OPTIONS = [
    ("bootstrap_ci", {"confidence_level": 1.5}, ValueError, "'confidence_level' must be in (0, 1)"),
    ("bootstrap_ci", {"confidence_level": 0}, ValueError, "'confidence_level' must be in (0, 1)"),
    ("bootstrap_ci", {"confidence_level": "0.95"}, TypeError, "'confidence_level' must be a number"),
    ("bootstrap_ci", {"confidence_level": True}, TypeError, "'confidence_level' must be a number"),
    ("bootstrap_ci", {"method": "x"}, ValueError, "'method' must be one of"),
    ("bootstrap_ci", {"statistic": "x"}, ValueError, "'statistic' must be one of"),
    ("bootstrap_ci", {"n_resamples": 0}, ValueError, "'n_resamples' must be an integer"),
    ("bootstrap_ci", {"n_resamples": -10}, ValueError, "'n_resamples' must be an integer"),
    ("bootstrap_ci", {"n_resamples": 2.5}, TypeError, "'n_resamples' must be an integer"),
    ("bootstrap_ci", {"n_resamples": True}, TypeError, "'n_resamples' must be an integer"),
    ("bootstrap_ci", {"rng": "seed"}, TypeError, "'rng' must be None, an int"),
    ("bootstrap_ci", {"nan_policy": "drop"}, ValueError, "'nan_policy' must be one of 'raise', 'omit'"),
    ("t_test", {"alternative": "two_sided"}, ValueError, "'alternative' must be one of"),
    ("t_test", {"alternative": None}, ValueError, "'alternative' must be one of"),
    ("t_test", {"nan_policy": "drop"}, ValueError, "'nan_policy' must be one of"),
    ("wilcoxon_test", {"confidence_level": 95}, ValueError, "'confidence_level' must be in (0, 1)"),
    ("sign_test", {"alternative": "bigger"}, ValueError, "'alternative' must be one of"),
    ("paired_bootstrap_test", {"n_resamples": "many"}, TypeError, "'n_resamples' must be an integer"),
    ("randomization_test", {"rng": 1.5}, TypeError, "'rng' must be None, an int"),
]


@pytest.mark.parametrize(("name", "kwargs", "error", "text"), BAD_OPTIONS,
                         ids=[f"{n}-{next(iter(k))}={k[next(iter(k))]!r}" for n, k, _, _ in BAD_OPTIONS])
def test_bad_option(name, kwargs, error, text):
    args = (X,) if name == "bootstrap_ci" else (X, Y)
    with pytest.raises(error) as raised:
        _call(name, *args, **kwargs)
    assert text in str(raised.value)


BAD_DATA = [
    ("t_test", (X, Y[:-1]), ValueError, "'x' and 'y' must have the same length"),
    ("t_test", (X[:1], Y[:1]), ValueError, "at least 2 topics"),
    ("t_test", (np.vstack([X, X]), Y), ValueError, "'x' must be one-dimensional"),
    ("t_test", (np.where(X > 0.5, np.nan, X), Y), ValueError, "NaN scores for 2 topic(s)"),
    ("t_test", (np.where(X > 0.5, np.inf, X), Y), ValueError, "must have finite scores"),
    ("t_test", (["a"] * 10, Y), TypeError, "'x' must hold numeric scores"),
    ("bootstrap_ci", (np.array([]),), ValueError, "'scores'"),
    ("bootstrap_ci", (np.where(X > 0.5, -np.inf, X),), ValueError, "'scores' has infinite scores (2 in all), e.g. "
                                                                    "system 0 on topic 3"),
    ("bootstrap_ci", (pd.Series(np.where(X > 0.5, np.inf, X), index=[f"q{i}" for i in range(10)]),), ValueError,
     "'scores' has infinite scores (2 in all), e.g. system 0 on topic 'q3'"),
    ("compare", ({"AP": pd.DataFrame({"bm25": X, "dph": np.where(X > 0.5, np.inf, Y)},  # topics x systems
                                     index=[f"q{i}" for i in range(10)])},), ValueError,
     "'scores' has infinite scores (2 in all), e.g. system 'AP: dph' on topic 'q3'"),
    ("unpaired_bootstrap_test", (X, np.array([0.3])), ValueError, "'y' needs at least 2 topics"),
]


@pytest.mark.parametrize(("name", "args", "error", "text"), BAD_DATA, ids=[f"{b[0]}-{b[3][:30]}" for b in BAD_DATA])
def test_bad_scores(name, args, error, text):
    with pytest.raises(error) as raised:
        _call(name, *args)
    assert text in str(raised.value)


BAD_COMPARE = [
    ({"correction": "x"}, ValueError, "'correction' must be one of"),
    ({"baseline": 5}, ValueError, "'baseline' 5 is neither a system name nor a row position"),
    ({"test": "x"}, ValueError, "'test' must be one of"),
    ({"alpha": 0}, ValueError, "'alpha' must be in (0, 1)"),
    ({"alpha": 1.0}, ValueError, "'alpha' must be in (0, 1)"),
    ({"alternative": "both"}, ValueError, "'alternative' must be one of"),
]


@pytest.mark.parametrize(("kwargs", "error", "text"), BAD_COMPARE, ids=[str(k) for k, _, _ in BAD_COMPARE])
def test_bad_compare_option(kwargs, error, text):
    with pytest.raises(error) as raised:
        pb.compare({"AP": np.vstack([X, Y])}, rng=0, n_resamples=200, **kwargs)
    assert text in str(raised.value)


# ---------------------------------------------------------------- evaluation and Experiment

BAD_EVALUATE = [
    ({"measures": 5}, TypeError, "'measures' must be a measure or a list of measures"),
    ({"measures": [None]}, TypeError, "'measures' must hold strings or ir_measures measures"),
    ({"measures": []}, ValueError, "'measures' is empty"),
    ({"measures": ["AP", "map", "AP"]}, ValueError, "'measures' lists 'AP' more than once"),
    ({"measures": ["nDGC@10"]}, ValueError, "did you mean 'nDCG@10'"),
    ({"multiplicity": {"a": -1}}, ValueError, "'multiplicity' must map docnos to non-negative whole numbers"),
    ({"multiplicity": {"a": 1.5}}, ValueError, "'multiplicity' must map docnos to non-negative whole numbers"),
    ({"multiplicity": {"a": np.nan}}, ValueError, "'multiplicity' must map docnos to non-negative whole numbers"),
    ({"multiplicity": "x"}, ValueError, "'multiplicity' must map docnos to numbers of copies"),
]


@pytest.mark.parametrize(("kwargs", "error", "text"), BAD_EVALUATE, ids=[str(k) for k, _, _ in BAD_EVALUATE])
def test_bad_evaluate_argument(kwargs, error, text):
    kwargs = {"measures": ["AP"], **kwargs}
    with pytest.raises(error) as raised:
        pb.evaluate(RUN, QRELS, kwargs.pop("measures"), **kwargs)
    assert text in str(raised.value)


BAD_EXPERIMENT = [
    ({"baseline": 3}, ValueError, "baseline 3 is not among the systems"),
    ({"names": ["a", "b", "c"]}, ValueError, "names should be the same length as retr_systems"),
    ({"bootstrap": "x"}, ValueError, "Unknown bootstrap 'x'"),
    ({"interval": "x"}, ValueError, "Unknown interval 'x'"),
    ({"round": -1}, ValueError, "'round' must hold integers >= 0"),
    ({"confidence_level": 1.5}, ValueError, "'confidence_level' must be in (0, 1)"),
    ({"test": "x"}, ValueError, "Unknown test function name 'x'"),
    ({"foo": 1}, TypeError, "Unknown kwargs: ['foo']"),
    ({"eval_metrics": ["map", "P@0"]}, ValueError, "measure 'P@0': the cutoff (@k) must be a positive integer"),
    ({"eval_metrics": "AP(rel=0)"}, ValueError, "measure 'AP(rel=0)': rel must be a positive integer grade"),
]


@pytest.mark.parametrize(("kwargs", "error", "text"), BAD_EXPERIMENT, ids=[str(k) for k, _, _ in BAD_EXPERIMENT])
def test_bad_experiment_argument(kwargs, error, text):
    kwargs = {"eval_metrics": ["map"], **kwargs}
    with pytest.raises(error) as raised:
        pb.Experiment([RUN, RUN], None, QRELS, kwargs.pop("eval_metrics"), **kwargs)
    assert text in str(raised.value)


def test_experiment_accepts_one_measure_as_a_string():
    table = pb.Experiment([RUN], None, QRELS, "nDCG@10", bootstrap=None)
    assert list(table.columns) == ["name", "nDCG@10"]


BAD_CORPUS = [
    ({"n_images": 0}, ValueError, "'n_images' must be an integer >= 2"),
    ({"model": "x"}, ValueError, "'model' must be one of 'poisson', 'multinomial'"),
    ({"corpus_size": -5}, ValueError, "'corpus_size' must be a positive integer or None"),
    ({"corpus_size": 2.5}, TypeError, "'corpus_size' must be a positive integer or None"),
]


@pytest.mark.parametrize(("kwargs", "error", "text"), BAD_CORPUS, ids=[str(k) for k, _, _ in BAD_CORPUS])
def test_bad_corpus_bootstrap_argument(kwargs, error, text):
    with pytest.raises(error) as raised:
        pb.CorpusBootstrap(QRELS, **kwargs)
    assert text in str(raised.value)


# ---------------------------------------------------------------- the command line

CLI_ARGUMENTS = [
    (["--rel", "0"], "--rel must be a grade of at least 1, got 0"),
    (["--n", "0"], "--n must be at least 2, got 0"),
    (["--n", "2.5"], "argument --n: not a whole number: '2.5'"),
    (["--confidence", "1.5"], "--confidence must be between 0 and 1, got 1.5"),
    (["--bootstrap", "x"], "argument --bootstrap: invalid choice: 'x'"),
    (["--interval", "x"], "Unknown interval 'x'"),
    (["--test", "x"], "argument --test: invalid choice: 'x'"),
    (["--correction", "x"], "argument --correction: invalid choice: 'x'"),
    (["-m", "P@0"], "measure 'P@0': the cutoff (@k) must be a positive integer"),
    (["-m", "AP", "AP(rel=2)", "--rel", "2"], "with --rel 2, 'AP(rel=2)' is asked for twice"),
]


@pytest.mark.parametrize(("argv", "text"), CLI_ARGUMENTS, ids=[" ".join(a) for a, _ in CLI_ARGUMENTS])
def test_cli_bad_argument(capsys, tmp_path, argv, text):
    from pyterrier_boot.cli import main

    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 0\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n2 Q0 d3 1 3.0 a\n2 Q0 d4 2 1.5 a\n")
    try:
        code = main(["evaluate", "-q", str(tmp_path / "qrels.txt"), str(tmp_path / "a.run"), "--quiet", *argv])
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    err = capsys.readouterr().err
    assert code in (1, 2) and "Traceback" not in err, err
    assert text in err, err


@pytest.mark.parametrize(("effect", "text"), [(np.nan, "'effect_size' must be finite, got nan"),
                                              (np.inf, "'effect_size' must be finite, got inf"),
                                              (1e100, "'effect_size' 1e+100 is too large for scipy's noncentral t")])
def test_power_refuses_effects_it_cannot_evaluate(effect, text):
    with pytest.raises(ValueError) as raised:
        pb.paired_power(25, effect)
    assert text in str(raised.value)
