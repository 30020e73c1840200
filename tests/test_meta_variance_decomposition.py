"""Mixed-model variance decomposition against closed-form ANOVA estimates, scipy's paired t-test and
synthetic data with known variance components."""
import numpy as np
import pandas as pd
import pytest
from pyterrier_boot.meta.variance_decomposition import variance_decomposition
from scipy import stats

from pyterrier_boot._warnings import FitWarning


def _synthetic(S, Q, K, beta, sd_topic, sd_cell, sd_resid, seed, resid_sd_cells=None):
    rng = np.random.default_rng(seed)
    b = rng.normal(0, sd_topic, (1, Q, 1))
    c = rng.normal(0, sd_cell, (S, Q, 1))
    scale = sd_resid if resid_sd_cells is None else resid_sd_cells[..., None]
    e = rng.normal(0, 1, (S, Q, K)) * scale
    y = np.asarray(beta)[:, None, None] + b + c + e
    s, q, k = np.meshgrid(range(S), range(Q), range(K), indexing="ij")
    data = pd.DataFrame({"score": y.ravel(), "system": np.array([f"sys{i}" for i in range(S)])[s.ravel()],
                         "topic": q.ravel().astype(str), "replicate": k.ravel()})
    return data, y


def _anova(y):
    """Method-of-moments estimates of the balanced mixed two-way model with replication (equal to
    REML when positive)."""
    S, Q, K = y.shape
    cell = y.mean(axis=2)
    mse = ((y - cell[..., None]) ** 2).sum() / (S * Q * (K - 1))
    inter = cell - cell.mean(axis=1, keepdims=True) - cell.mean(axis=0, keepdims=True) + cell.mean()
    ms_st = K * (inter ** 2).sum() / ((S - 1) * (Q - 1))
    ms_t = S * K * ((cell.mean(axis=0) - cell.mean()) ** 2).sum() / (Q - 1)
    return {"topic": (ms_t - ms_st) / (S * K), "system:topic": (ms_st - mse) / K, "residual": mse}, ms_st


@pytest.mark.parametrize("seed", range(3))
def test_balanced_reml_equals_anova_estimates(seed):
    data, y = _synthetic(4, 25, 4, [0.3, 0.32, 0.4, 0.28], 0.15, 0.07, 0.05, seed)
    res = variance_decomposition(data)
    expected, ms_st = _anova(y)
    assert res.converged
    for c in expected:
        assert res.components[c] == pytest.approx(expected[c], rel=1e-4)
    S, Q, K = y.shape
    se = np.sqrt(2 * ms_st / (Q * K))  # SE of a difference of two system means
    np.testing.assert_allclose(res.effects["standard_error"], se, rtol=1e-4)
    means = y.mean(axis=(1, 2))
    np.testing.assert_allclose(res.effects["effect"], means[1:] - means[0], rtol=1e-6, atol=1e-9)
    assert res.reference == "sys0" and res.reference_mean == pytest.approx(means[0])
    assert sum(res.share.values()) == pytest.approx(1.0)


def test_recovers_known_components():
    truth = {"topic": 0.15 ** 2, "system:topic": 0.07 ** 2, "residual": 0.05 ** 2}
    data, _ = _synthetic(5, 300, 6, [0.3, 0.35, 0.4, 0.3, 0.25], 0.15, 0.07, 0.05, seed=11)
    res = variance_decomposition(data)
    for c, v in truth.items():
        assert res.components[c] == pytest.approx(v, rel=0.15)
    np.testing.assert_allclose(res.effects["effect"], [0.05, 0.1, 0.0, -0.05], atol=0.015)


def test_heteroscedastic_recovers_components():
    rng = np.random.default_rng(5)
    S, Q, K = 4, 120, 12
    cell_sd = rng.choice([0.01, 0.03, 0.09], size=(S, Q))
    data, _ = _synthetic(S, Q, K, [0.3, 0.33, 0.36, 0.3], 0.15, 0.07, None, seed=6, resid_sd_cells=cell_sd)
    res = variance_decomposition(data, heteroscedastic=True)
    assert res.converged and res.heteroscedastic
    assert res.components["topic"] == pytest.approx(0.15 ** 2, rel=0.25)
    assert res.components["system:topic"] == pytest.approx(0.07 ** 2, rel=0.2)
    assert res.residual_variances.shape == (S, Q)
    # the fitted per-cell residual variances follow the true ones
    assert np.corrcoef(np.log(res.residual_variances).ravel(), np.log(cell_sd ** 2).ravel())[0, 1] > 0.9
    np.testing.assert_allclose(res.effects["effect"], [0.03, 0.06, 0.0], atol=0.03)


def test_one_replicate_two_systems_is_the_paired_t_test():
    rng = np.random.default_rng(3)
    Q = 30
    x = rng.beta(2, 5, Q)
    y = x + 0.04 + rng.normal(0, 0.05, Q)
    data = pd.DataFrame({"score": np.concatenate([x, y]), "system": ["a"] * Q + ["b"] * Q,
                         "topic": list(range(Q)) * 2})
    res = variance_decomposition(data)
    ref = stats.ttest_rel(y, x)
    row = res.to_frame().iloc[0]
    assert np.isnan(res.components["system:topic"])
    assert row["effect"] == pytest.approx(np.mean(y - x))
    assert row["standard_error"] == pytest.approx(np.std(y - x, ddof=1) / np.sqrt(Q), rel=1e-4)
    assert row["t"] == pytest.approx(ref.statistic) and row["t p-value"] == pytest.approx(ref.pvalue)
    assert row["z"] == pytest.approx(ref.statistic, rel=1e-4)
    assert res.difference_variance() == pytest.approx(np.var(y - x, ddof=1), rel=1e-4)


def test_difference_variance_of_the_replicated_model():
    data, y = _synthetic(3, 20, 5, [0.3, 0.3, 0.3], 0.1, 0.05, 0.04, seed=2)
    res = variance_decomposition(data)
    st, r = res.components["system:topic"], res.components["residual"]
    assert res.difference_variance(5) == pytest.approx(2 * (st + r / 5))
    assert res.difference_variance() == pytest.approx(2 * (st + r))
    # the paired t-test on cell means estimates the same quantity per pair
    assert res.t_test["standard_error"].mean() ** 2 * 20 == pytest.approx(res.difference_variance(5), rel=0.5)


def test_non_convergence_is_reported():
    data, _ = _synthetic(3, 20, 3, [0.3, 0.35, 0.4], 0.15, 0.07, 0.05, seed=0)
    with pytest.warns(FitWarning, match=r"the mixed model did not converge: the optimiser did not converge \(statsmodels: .*Gradient optimization failed.*\); its variance components, effects and standard errors are unreliable \(result.converged is False\)"):
        res = variance_decomposition(data, maxiter=1)
    assert res.converged is False
    assert any("Gradient optimization failed" in m for m in res.fit_warnings)


def test_tables():
    data, _ = _synthetic(3, 15, 3, [0.3, 0.35, 0.4], 0.15, 0.07, 0.05, seed=1)
    res = variance_decomposition(data, reference="sys2")
    assert res.effects["system"].tolist() == ["sys0", "sys1"]
    frame = res.components_frame()
    assert frame["component"].tolist() == ["topic", "system:topic", "residual"]
    assert frame["share"].sum() == pytest.approx(1.0)
    assert list(res.to_frame().columns) == ["system", "effect", "standard_error", "z", "p-value", "ci_low",
                                            "ci_high", "t_difference", "t_standard_error", "t", "t p-value"]
    components, effects = res
    assert components is res.components


def test_bad_input():
    data, _ = _synthetic(3, 10, 2, [0.3, 0.35, 0.4], 0.15, 0.07, 0.05, seed=0)
    with pytest.raises(ValueError, match=r"'data' has no score for 1 \(system, topic\) cell\(s\), e.g. \('sys0', '0'\)"):
        variance_decomposition(data.iloc[2:])
    with pytest.raises(ValueError, match="several rows per \\(system, topic\\) cell but no 'replicate' column"):
        variance_decomposition(data.drop(columns="replicate"))
    single = data[data["replicate"] == 0]
    with pytest.raises(ValueError, match="heteroscedastic=True needs at least 2 replicates in every"):
        variance_decomposition(single, heteroscedastic=True)
    with pytest.raises(ValueError, match=r"'data' lacks column\(s\) \['score'\]"):
        variance_decomposition(data.rename(columns={"score": "value"}))
    with pytest.raises(ValueError, match="'reference' 'nope' is not a system of 'data'"):
        variance_decomposition(data, reference="nope")
