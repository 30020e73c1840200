"""Kendall's tau against scipy.stats.kendalltau and Sakai's numbers; tau_AP against Yilmaz et al.'s
formula and the published test values of Urbano & Marrero's R package ircor."""
import numpy as np
import pandas as pd
import pytest
from pyterrier_boot.meta.rank_correlation import kendall_tau, rank_correlations, tau_ap
from scipy import stats

# Test data and expected values from julian-urbano/ircor, tests/testthat/{helper_data,test_tauAP}.R
# (values published with the package; tolerance 5e-5 there)
IRCOR = {
    "set1": dict(x=[0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
                 y=[0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
                 x_ties=[0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
                 y_ties=[0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
                 tau_ap=.8519, tau_ap_sym=.8333, tau_ap_b_ties=.7321),
    "set2": dict(x=[0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
                 y=[0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
                 x_ties=[0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
                 y_ties=[0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
                 tau_ap=.2504, tau_ap_sym=.2880, tau_ap_b_ties=.297),
    "set3": dict(x=[0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
                 y=[0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
                 x_ties=[0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
                 y_ties=[0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
                 tau_ap=-.6971, tau_ap_sym=-.668, tau_ap_b_ties=-.7047),
}


def _yilmaz(x, y):
    """Yilmaz et al. (2008) eq. for tau_AP: positions i of the ranking by y, C(i) = items above i
    in that ranking that x also ranks above the item at i."""
    order = sorted(range(len(y)), key=lambda i: -y[i])
    total = 0.0
    for pos in range(1, len(order)):
        item = order[pos]
        c = sum(1 for other in order[:pos] if x[other] > x[item])
        total += c / pos
    return 2 / (len(order) - 1) * total - 1


@pytest.mark.parametrize("name", sorted(IRCOR))
def test_tau_ap_equals_ircor_published_values(name):
    d = IRCOR[name]
    assert tau_ap(d["x"], d["y"]) == pytest.approx(d["tau_ap"], abs=5e-5)
    assert tau_ap(d["x"], d["y"], symmetric=True) == pytest.approx(d["tau_ap_sym"], abs=5e-5)
    assert tau_ap(d["x_ties"], d["y_ties"], symmetric=True) == pytest.approx(d["tau_ap_b_ties"], abs=5e-5)
    assert tau_ap(d["y_ties"], d["x_ties"], symmetric=True) == pytest.approx(d["tau_ap_b_ties"], abs=5e-5)


@pytest.mark.parametrize("seed", range(5))
def test_tau_ap_equals_yilmaz_formula(seed):
    rng = np.random.default_rng(seed)
    x = rng.random(25)
    y = x + rng.normal(0, 0.2, 25)
    assert tau_ap(x, y) == pytest.approx(_yilmaz(list(x), list(y)))
    assert tau_ap(x, x) == pytest.approx(1.0)
    assert tau_ap(x, -x) == pytest.approx(-1.0)


def test_tau_ap_weighs_the_top_more():
    truth = [5, 4, 3, 2, 1]
    bottom = tau_ap(truth, [5, 4, 3, 1, 2])
    top = tau_ap(truth, [4, 5, 3, 2, 1])
    assert kendall_tau(truth, [5, 4, 3, 1, 2]).statistic == kendall_tau(truth, [4, 5, 3, 2, 1]).statistic
    assert top < bottom


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_kendall_tau_equals_scipy(seed, ties):
    rng = np.random.default_rng(seed)
    x = rng.random(30)
    y = x + rng.normal(0, 0.3, 30)
    if ties:
        x, y = np.round(x, 1), np.round(y, 1)
    res = kendall_tau(x, y)
    ref = stats.kendalltau(x, y)  # tau-b
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    if not ties:
        # without ties scipy's asymptotic test uses the same null variance as Sakai's Z0
        assert res.pvalue == pytest.approx(stats.kendalltau(x, y, method="asymptotic").pvalue, rel=1e-9)
    for alternative in ("greater", "less"):
        one = kendall_tau(x, y, alternative=alternative)
        z = res.statistic / np.sqrt((4 * 30 + 10) / (9 * 30 * 29))
        expected = stats.norm.sf(z) if alternative == "greater" else stats.norm.cdf(z)
        assert one.pvalue == pytest.approx(expected)


def test_sakai_threshold_for_30_runs():
    # Sakai (2007, Appendix): with 30 runs, tau is significant at alpha = 0.01 if it is over 0.34
    sigma = np.sqrt((4 * 30 + 10) / (9 * 30 * 29))
    assert 0.34 / sigma > stats.norm.ppf(0.995) > 0.33 / sigma
    rng = np.random.default_rng(0)
    x = rng.random(30)
    res = kendall_tau(x, x)
    assert res.statistic == 1.0 and res.z0 == pytest.approx(1 / sigma) and res.n_systems == 30


def test_series_are_aligned_by_system_and_matrices_averaged():
    x = pd.Series([0.3, 0.2, 0.5, 0.1], index=["a", "b", "c", "d"])
    y = pd.Series([0.1, 0.55, 0.2, 0.25], index=["d", "c", "b", "a"])
    assert kendall_tau(x, y).statistic == pytest.approx(1.0)
    matrix = np.array([[0.2, 0.4], [0.1, 0.3], [0.6, 0.4], [0.0, 0.2]])
    assert kendall_tau(matrix, matrix.mean(axis=1)).statistic == 1.0
    with pytest.raises(ValueError, match=r"'x' and 'y' rank different systems: 1 only in 'x' \['d'\], 1 only in 'y' \['e'\]"):
        kendall_tau(x, y.rename({"d": "e"}))


def test_asymmetric_tau_ap_refuses_ties():
    with pytest.raises(ValueError, match=r"tau_AP \(Yilmaz et al. 2008\) is undefined for tied scores, and 'x' has 2 tied value\(s\) \[0.4, 0.9\]; pass symmetric=True"):
        tau_ap(IRCOR["set1"]["x_ties"], IRCOR["set1"]["y"])


def test_rank_correlation_table():
    rng = np.random.default_rng(3)
    base = rng.random((6, 20))
    scores = {"AP": base, "nDCG": base + rng.normal(0, 0.05, (6, 20)), "P@10": rng.random((6, 20))}
    table = rank_correlations(scores)
    assert table[["measure_a", "measure_b"]].values.tolist() == [["AP", "nDCG"], ["AP", "P@10"], ["nDCG", "P@10"]]
    means = {m: v.mean(axis=1) for m, v in scores.items()}
    row = table.iloc[1]
    assert row["tau"] == pytest.approx(stats.kendalltau(means["AP"], means["P@10"]).statistic)
    assert row["tau_ap"] == pytest.approx(tau_ap(means["AP"], means["P@10"], symmetric=True))
    assert row["p-value"] == pytest.approx(kendall_tau(means["AP"], means["P@10"]).pvalue)
