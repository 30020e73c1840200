"""Confidence sequences over topics (issue 27, item 1): the betting sequence against a direct
computation of its capital, time-uniform coverage and Type I error under continuous monitoring
(slow), the asymptotic sequence against its formula and the fixed-n t interval, and bad input."""
import math

import numpy as np
import pytest
from conftest import real_collection
from scipy import stats

import pyterrier_boot as ptb
from pyterrier_boot.sequential.asymptotic import MIN_TOPICS, boundary, tuned_rho

ALPHA = 0.05


def direct_capital(z, m, kind="two-sided", alpha=ALPHA):
    """``K_1(m)..K_T(m)`` of scores ``z`` in [0, 1], written out from Waudby-Smith & Ramdas (2024):
    plug-in bets from the regularised running mean and variance, truncated at 0.9 of 1/m, 1/(1-m)."""
    k = 2 if kind == "two-sided" else 1
    variance, total, squares = 0.25, 0.0, 0.0
    up = down = 1.0
    out = []
    for i, zi in enumerate(z):
        lam = math.sqrt(2 * math.log(k / alpha) / (variance * (i + 1) * math.log(i + 2)))
        up *= 1 + (min(lam, 0.9 / m) if m > 0 else lam) * (zi - m)
        down *= 1 - (min(lam, 0.9 / (1 - m)) if m < 1 else lam) * (zi - m)
        total += zi
        squares += (zi - (0.5 + total) / (i + 2)) ** 2
        variance = (0.25 + squares) / (i + 2)
        out.append({"two-sided": (up + down) / 2, "greater": up, "less": down}[kind])
    return np.array(out)


def ir_scores(rng, n):
    """Scores shaped like nDCG@10 per topic: a point mass at 0 and a spread over (0, 1]."""
    return np.where(rng.random(n) < 0.1, 0.0, rng.beta(2.0, 1.5, n))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("paired", [False, True])
def test_betting_ends_are_where_the_running_capital_crosses_one_over_alpha(alternative, paired):
    rng = np.random.default_rng(7)
    x, y = ir_scores(rng, 80), ir_scores(rng, 80)
    res = ptb.confidence_sequence(x, y if paired else None, alternative=alternative)
    z = (x - y + 1) / 2 if paired else x
    to_unit = (lambda v: (v + 1) / 2) if paired else (lambda v: v)
    eps = 1e-5
    checked = 0
    for t in (3, 8, 15, 30, 55, 80):
        for end, side in ((to_unit(res.ci_low[t - 1]), -1), (to_unit(res.ci_high[t - 1]), 1)):
            if end in (0.0, 1.0):
                continue
            outside = direct_capital(z[:t], end - side * -eps, alternative).max()
            inside = direct_capital(z[:t], end + side * -eps, alternative).max()
            assert outside >= 1 / ALPHA > inside, (t, side, outside, inside)
            checked += 1
    assert checked >= 5


def test_candidates_the_betting_capital_accepts_form_an_interval_at_every_t():
    """The search (grid, then bisection within one cell per end) assumes it: checked on a grid of
    4,001 candidates, with the capital written out independently of the package."""
    rng = np.random.default_rng(12)
    m = np.linspace(0, 1, 4001)
    for z in (rng.beta(2, 5, 100), (rng.random(100) < 0.2) * 1.0, (np.where(rng.random(100) < 0.8, 0, 0.1) + 1) / 2):
        variance, total, squares = 0.25, 0.0, 0.0
        up, down = np.ones_like(m), np.ones_like(m)
        with np.errstate(divide="ignore"):
            cap_up, cap_down = 0.9 / m, 0.9 / (1 - m)
        for i, zi in enumerate(z):
            lam = math.sqrt(2 * math.log(2 / ALPHA) / (variance * (i + 1) * math.log(i + 2)))
            up *= 1 + np.minimum(lam, cap_up) * (zi - m)
            down *= 1 - np.minimum(lam, cap_down) * (zi - m)
            total += zi
            squares += (zi - (0.5 + total) / (i + 2)) ** 2
            variance = (0.25 + squares) / (i + 2)
            accepted = np.flatnonzero((up + down) / 2 < 1 / ALPHA)
            assert accepted.size == accepted[-1] - accepted[0] + 1, i


def test_betting_sequence_is_the_full_range_until_the_capital_can_reach_one_over_alpha():
    res = ptb.confidence_sequence([0.5, 0.5])
    assert res.ci_low.tolist() == [0.0, 0.0] and res.ci_high.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_betting_pvalue_is_one_over_the_running_maximum_of_the_capital(alternative):
    rng = np.random.default_rng(11)
    x = ir_scores(rng, 60)
    res = ptb.confidence_sequence(x, null=0.45, alternative=alternative)
    expected = np.minimum(1, 1 / np.maximum.accumulate(direct_capital(x, 0.45, alternative)))
    np.testing.assert_allclose(res.pvalue, expected, rtol=1e-9)
    far = np.abs(np.c_[res.ci_low, res.ci_high] - 0.45).min(1) > 1e-4  # not at an end
    excluded = (res.ci_low > 0.45) | (res.ci_high < 0.45)
    assert np.array_equal((res.pvalue <= ALPHA)[far], excluded[far])


@pytest.mark.parametrize("method", ["betting", "asymptotic"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_sequences_never_widen_and_pvalues_never_grow(method, alternative):
    rng = np.random.default_rng(5)
    x, y = ir_scores(rng, (200, 4)), ir_scores(rng, (200, 4))
    res = ptb.confidence_sequence(x, y, method=method, alternative=alternative)
    assert np.all(np.diff(res.ci_low, axis=0) >= 0) and np.all(np.diff(res.ci_high, axis=0) <= 0)
    assert np.all(np.diff(res.pvalue, axis=0) <= 0)
    assert np.all(res.ci_low <= res.estimate + 1e-12) or method == "asymptotic"
    if alternative == "greater":
        assert np.all(res.ci_high == 1.0)
    if alternative == "less":
        assert np.all(res.ci_low == -1.0)


@pytest.mark.parametrize("method", ["betting", "asymptotic"])
def test_columns_of_2d_input_are_the_1d_sequences(method):
    rng = np.random.default_rng(2)
    x, y = ir_scores(rng, (40, 3)), ir_scores(rng, (40, 3))
    both = ptb.confidence_sequence(x, y, method=method)
    for k in range(3):
        one = ptb.confidence_sequence(x[:, k], y[:, k], method=method)
        for name in ("estimate", "ci_low", "ci_high", "pvalue"):
            np.testing.assert_array_equal(getattr(both, name)[:, k], getattr(one, name))
    frame = both.frame()
    assert list(frame.columns) == ["column", "n", "estimate", "ci_low", "ci_high", "pvalue"]
    assert len(frame) == 120 and frame.loc[frame["column"] == 2, "ci_low"].tolist() == both.ci_low[:, 2].tolist()


def test_asymptotic_sequence_is_the_running_intersection_of_its_formula():
    rng = np.random.default_rng(4)
    x = ir_scores(rng, 120)
    res = ptb.confidence_sequence(x, method="asymptotic", planned_n=50)
    # rho narrowest at t=50; the paper's closed-form approximation of it (Waudby-Smith et al. 2024)
    rho = math.sqrt((-2 * math.log(ALPHA) + math.log(-2 * math.log(ALPHA) + 1)) / 50)
    low, high = [], []
    for t in range(MIN_TOPICS, 121):
        sd = np.std(x[:t])
        half = sd * math.sqrt(2 * (t * rho**2 + 1) / (t**2 * rho**2) * math.log(math.sqrt(t * rho**2 + 1) / ALPHA))
        low.append(max(x[:t].mean() - half, 0.0))
        high.append(min(x[:t].mean() + half, 1.0))
    np.testing.assert_allclose(res.ci_low[MIN_TOPICS - 1:], np.maximum.accumulate(low), atol=2e-3)
    np.testing.assert_allclose(res.ci_high[MIN_TOPICS - 1:], np.minimum.accumulate(high), atol=2e-3)
    assert np.all(res.ci_low[:MIN_TOPICS - 1] == 0) and np.all(res.ci_high[:MIN_TOPICS - 1] == 1)


def test_asymptotic_is_narrower_than_betting_at_50_and_wider_than_the_fixed_n_t_interval():
    rng = np.random.default_rng(9)
    x = ir_scores(rng, (200, 200))
    betting = ptb.confidence_sequence(x)
    asymptotic = ptb.confidence_sequence(x, method="asymptotic")
    width = asymptotic.ci_high - asymptotic.ci_low
    assert np.median(width[49] / (betting.ci_high[49] - betting.ci_low[49])) < 1  # measured: 0.94
    ratios = []  # before MIN_TOPICS the asymptotic sequence is the whole range
    for n in range(MIN_TOPICS, 201):
        half = stats.t.ppf(1 - ALPHA / 2, n - 1) * stats.sem(x[:n])  # the fixed-n t interval
        low, high = x[:n].mean(0) - half, x[:n].mean(0) + half
        ratios.append(np.median(width[n - 1] / (np.minimum(high, 1) - np.maximum(low, 0))))
    # the running intersection can cut one sequence below one t interval (measured: 11% of
    # (n, sequence) cells here), never the typical one
    assert min(ratios) > 1, min(ratios)


def test_asymptotic_boundary_is_wider_than_the_t_quantile_at_every_n():
    """Per unit of the sample sd (divisor n - 1) the sequence's half-width exceeds the t interval's."""
    n = np.arange(MIN_TOPICS, 100_001)
    for level, sided in ((0.95, True), (0.9, True), (0.95, False)):
        alpha = 1 - level
        rho = tuned_rho(50, alpha, sided)
        sequence = boundary(n, rho, alpha, sided) * np.sqrt((n - 1) / n)
        fixed = stats.t.ppf(1 - alpha / (2 if sided else 1), n - 1) / np.sqrt(n)
        assert np.all(sequence > fixed)


def test_asymptotic_pvalue_is_below_alpha_exactly_when_the_sequence_has_left_the_null():
    rng = np.random.default_rng(8)
    x, y = ir_scores(rng, (150, 40)) + 0.05, ir_scores(rng, (150, 40))
    res = ptb.confidence_sequence(np.clip(x, 0, 1), y, method="asymptotic")
    excluded = (res.ci_low > 0) | (res.ci_high < 0)
    assert excluded.any() and not excluded.all()
    assert np.array_equal(res.pvalue <= ALPHA, excluded)


def test_an_empty_betting_sequence_is_nan_with_a_warning():
    drifting = np.r_[np.full(100, 0.1), np.full(100, 0.9)]  # no common mean
    with pytest.warns(ptb.DegenerateWarning, match=r"became empty .*, first after 1\d\d topics"):
        res = ptb.confidence_sequence(drifting)
    empty = np.isnan(res.ci_low)
    assert 100 < np.argmax(empty) < 200 and empty[np.argmax(empty):].all()
    assert np.array_equal(empty, np.isnan(res.ci_high))
    assert np.all(res.ci_low[~empty] <= res.ci_high[~empty])


def test_plot_draws_the_band_and_the_estimate():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(1)
    res = ptb.confidence_sequence(ir_scores(rng, (30, 2)), ir_scores(rng, (30, 2)))
    ax = res.plot(column=1)
    assert ax.get_xlabel() == "topics"
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), res.estimate[:, 1])
    with pytest.raises(ValueError, match="'column' must be an integer in \\[0, 2\\)"):
        res.plot()


@pytest.mark.parametrize(("call", "match"), [
    (lambda: ptb.confidence_sequence([0.1, 0.2, 1.2, 0.5, 1.3, 1.4]),
     r"'x' has 3 values outside bounds \(0.0, 1.0\), e.g. 1.2 at position 2"),
    (lambda: ptb.confidence_sequence([0.1, 0.2], [0.4, 0.5], bounds=(0, 1)),
     r"'x - y' has 2 values outside bounds \(0.0, 1.0\), e.g. -0.3 at position 0"),
    (lambda: ptb.confidence_sequence([0.1, np.nan]), r"'x' has 1 NaN or infinite values, e.g. at position 1"),
    (lambda: ptb.confidence_sequence([0.1, 0.2], [0.1, np.inf]), r"'y' has 1 NaN or infinite"),
    (lambda: ptb.confidence_sequence([0.1, 0.2], [0.1]), r"'x' \(2,\) and 'y' \(1,\) must have the same shape"),
    (lambda: ptb.confidence_sequence([]), r"'x' must be a non-empty 1-D array"),
    (lambda: ptb.confidence_sequence(np.zeros((2, 2, 2))), r"'x' must be a non-empty 1-D array"),
    (lambda: ptb.confidence_sequence([0.1], method="bet"), r"'method' must be one of 'betting', 'asymptotic'"),
    (lambda: ptb.confidence_sequence([0.1], alternative="larger"), r"'alternative' must be one of"),
    (lambda: ptb.confidence_sequence([0.1], confidence_level=1.5), r"'confidence_level' must be in \(0, 1\)"),
    (lambda: ptb.confidence_sequence([0.1], bounds=(1, 0)), r"'bounds' must be two finite numbers with low < high"),
    (lambda: ptb.confidence_sequence([0.1], null=2.0), r"'null' must lie within bounds \(0.0, 1.0\), got 2.0"),
    (lambda: ptb.confidence_sequence([0.1], planned_n=20), r"'planned_n' applies to method='asymptotic' only"),
    (lambda: ptb.confidence_sequence([0.1], method="asymptotic", planned_n=0), r"'planned_n' must be an integer >= 1"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_types_name_the_argument():
    with pytest.raises(TypeError, match="'x' must hold numeric scores"):
        ptb.confidence_sequence(["a", "b"])
    with pytest.raises(TypeError, match="'bounds' must be a pair of numbers"):
        ptb.confidence_sequence([0.1], bounds=0.5)
    with pytest.raises(TypeError, match="'null' must be a number"):
        ptb.confidence_sequence([0.1], null="0")


def _miss_rate(res, mean):
    """Share of sequences (columns) whose interval ever excludes ``mean``, and its SE."""
    miss = ((res.ci_low > mean) | (res.ci_high < mean) | np.isnan(res.ci_low)).any(axis=0)
    return miss.mean(), math.sqrt(ALPHA * (1 - ALPHA) / miss.size)


SIMULATED = {"Beta(2, 5)": (lambda rng, shape: rng.beta(2, 5, shape), 2 / 7),
             "Beta(0.5, 0.5)": (lambda rng, shape: rng.beta(0.5, 0.5, shape), 0.5),
             "Bernoulli(0.3)": (lambda rng, shape: (rng.random(shape) < 0.3).astype(float), 0.3),
             "Bernoulli(0.05)": (lambda rng, shape: (rng.random(shape) < 0.05).astype(float), 0.05)}
# an empty sequence (NaN ends, with a DegenerateWarning) is a miss, counted by _miss_rate
EMPTY_IS_A_MISS = pytest.mark.filterwarnings("ignore::pyterrier_boot.DegenerateWarning")


@pytest.mark.slow
@EMPTY_IS_A_MISS
@pytest.mark.parametrize("name", SIMULATED)
def test_betting_sequence_covers_the_mean_at_every_n_at_once(name):
    draw, mean = SIMULATED[name]
    x = draw(np.random.default_rng(list(SIMULATED).index(name)), (300, 2000))
    rate, se = _miss_rate(ptb.confidence_sequence(x), mean)
    assert rate <= ALPHA + 2 * se, rate
    pvalue = ptb.confidence_sequence(x, null=mean).pvalue
    assert (pvalue[-1] <= ALPHA).mean() <= ALPHA + 2 * se  # rejections under a check after every topic


@pytest.mark.slow
@EMPTY_IS_A_MISS
def test_anytime_pvalue_of_a_null_difference_rejects_at_most_alpha_under_continuous_monitoring():
    rng = np.random.default_rng(3)
    base = rng.beta(2, 3, (300, 2000))
    x, y = np.clip(base + rng.normal(0, 0.1, base.shape), 0, 1), np.clip(base + rng.normal(0, 0.1, base.shape), 0, 1)
    res = ptb.confidence_sequence(x, y)  # x - y is symmetric about 0: mean 0
    assert (res.pvalue[-1] <= ALPHA).mean() <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / 2000)
    assert _miss_rate(res, 0.0)[0] <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / 2000)


@pytest.fixture(scope="module")
def dl2020_ndcg():
    runs, qrels = real_collection("dl2020")
    scores = ptb.evaluate(runs, qrels, ["nDCG@10"]).pivot(index="qid", columns="name", values="value")
    return scores.dropna()


@pytest.mark.slow
@EMPTY_IS_A_MISS
def test_betting_sequence_covers_real_dl2020_means_and_differences(dl2020_ndcg):
    rng = np.random.default_rng(2020)
    order = dl2020_ndcg.mean().sort_values().index
    a, b = dl2020_ndcg[order[-1]].to_numpy(), dl2020_ndcg[order[-2]].to_numpy()
    draws = rng.integers(0, len(a), (250, 2000))  # topic sequences drawn with replacement
    se = math.sqrt(ALPHA * (1 - ALPHA) / 2000)
    single = ptb.confidence_sequence(a[draws], null=float(a.mean()))
    assert _miss_rate(single, a.mean())[0] <= ALPHA + 2 * se
    assert (single.pvalue[-1] <= ALPHA).mean() <= ALPHA + 2 * se
    paired = ptb.confidence_sequence(a[draws], b[draws], null=float((a - b).mean()))
    assert _miss_rate(paired, (a - b).mean())[0] <= ALPHA + 2 * se
    assert (paired.pvalue[-1] <= ALPHA).mean() <= ALPHA + 2 * se
