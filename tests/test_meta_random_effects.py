"""The random-effects core (pyterrier_boot.meta.random_effects) against R's metafor (rma with REML,
DL and PM, test "knha" and "z", predict(); escalc "SMCC" for standardised differences) and
statsmodels' combine_effects (DerSimonian-Laird and Paule-Mandel, Wald and HKSJ intervals).

The metafor comparison runs tests/reference/metafor_random_effects.R with Rscript, and skips where
R or metafor is absent (Debian: apt-get install r-base-core r-cran-metafor)."""
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pyterrier_boot import meta_analysis, random_effects
from pyterrier_boot.across.effects import standardized
from pyterrier_boot.meta.random_effects import tau2_estimate

R_SCRIPT = Path(__file__).parent / "reference" / "metafor_random_effects.R"
FIELDS = ("tau2", "estimate", "ci_low", "ci_high", "pvalue", "pi_low", "pi_high", "i2", "q", "q_pvalue")


def _cases():
    """Meta-analyses of k = 2 .. 18 studies from no to large heterogeneity, with a case whose
    effects agree better than their variances allow (tau2 = 0 for every estimator)."""
    rng = np.random.default_rng(7)
    cases = []
    for k in (2, 3, 5, 10, 18):
        for tau in (0.0, 0.05, 0.2):
            v = rng.uniform(0.0005, 0.004, k)
            cases.append((rng.normal(0.03, tau, k) + rng.normal(0, np.sqrt(v)), v))
    cases.append((np.array([0.10, 0.101, 0.099, 0.1]), np.array([0.01, 0.02, 0.015, 0.01])))
    cases.append((np.array([0.2, -0.1, 0.4]), np.full(3, 0.001)))  # equal variances
    return cases


def _metafor_available():
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(["Rscript", "-e", "library(metafor)"], capture_output=True, text=True)
    return done.returncode == 0


@pytest.fixture(scope="module")
def metafor(tmp_path_factory):
    """metafor's figures for :func:`_cases` and for standardised differences (runs R once)."""
    if not _metafor_available():
        pytest.skip("R's metafor is not installed (apt-get install r-base-core r-cran-metafor)")
    folder = tmp_path_factory.mktemp("metafor")
    cases = _cases()
    pd.DataFrame([(c, y, v) for c, (ys, vs) in enumerate(cases) for y, v in zip(ys, vs, strict=True)],
                 columns=["case", "yi", "vi"]).to_csv(folder / "cases.csv", index=False)
    smcc = pd.DataFrame({"row": range(4), "mean": [0.05, -0.1, 0.3, 0.0], "sd": [0.2, 0.3, 0.25, 0.1],
                         "n": [50, 10, 300, 25]})
    smcc.to_csv(folder / "smcc.csv", index=False)
    done = subprocess.run(["Rscript", str(R_SCRIPT), str(folder / "cases.csv"), str(folder / "smcc.csv"),
                           str(folder)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return cases, pd.read_csv(folder / "pooled.csv"), smcc, pd.read_csv(folder / "smcc.csv")


@pytest.mark.parametrize("method", ["REML", "DL", "PM"])
@pytest.mark.parametrize("test", ["knha", "z"])
def test_equals_metafor_rma_and_predict(metafor, method, test):
    """rma(yi, vi, method, test) and predict(): with test="knha" the "hksj" prediction interval;
    Higgins et al.'s is predict(pi.type="riley") after test="z"."""
    cases, reference, _, _ = metafor
    for c, (y, v) in enumerate(cases):
        row = reference[(reference["case"] == c) & (reference["method"] == method) & (reference["test"] == test)]
        assert len(row) == 1
        ours = random_effects(y, v, tau2_method=method, hksj=test == "knha", prediction="hksj")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            higgins = random_effects(y, v, tau2_method=method, hksj=test == "knha", prediction="higgins")
        assert [str(w.message)[:40] for w in caught] == (["the 'higgins' prediction interval is t w"] if len(y) < 3 else [])
        expected = {field: float(row[field].iloc[0]) for field in FIELDS}
        if test == "z":  # metafor's default prediction interval after test="z" is normal: not one of ours
            del expected["pi_low"], expected["pi_high"]
        for field, value in expected.items():
            np.testing.assert_allclose(getattr(ours, field), value, rtol=1e-7, atol=1e-10,
                                       err_msg=f"case {c} ({len(y)} studies), {method}/{test}: {field}")
        for ours_field, theirs in (("pi_low", "pi_low_higgins"), ("pi_high", "pi_high_higgins")):
            if len(y) > 2:
                np.testing.assert_allclose(getattr(higgins, ours_field), float(row[theirs].iloc[0]), rtol=1e-7,
                                           atol=1e-10, err_msg=f"case {c}, {method}: Higgins' {ours_field}")
            else:  # t with k - 2 = 0 degrees of freedom: metafor floors them at 1, we give no interval
                assert np.isnan(getattr(higgins, ours_field))


def test_standardised_difference_equals_metafor_smcc(metafor):
    _, _, smcc, reference = metafor
    n = smcc["n"].to_numpy(float)
    g, se = standardized(smcc["mean"].to_numpy(), smcc["sd"].to_numpy() / np.sqrt(n), smcc["sd"].to_numpy(), n)
    np.testing.assert_allclose(g, reference["yi"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(se ** 2, reference["vi"], rtol=1e-12)


@pytest.mark.parametrize("case", range(len(_cases())))
def test_equals_statsmodels_combine_effects(case):
    """Where statsmodels' figures are the estimators': it does not truncate DerSimonian-Laird's tau2
    at 0 (a negative tau2 is skipped), and its Paule-Mandel iteration returns 0 when a Newton step
    overshoots the root (skipped where it gives 0 and we do not; metafor agrees with us there)."""
    from statsmodels.stats.meta_analysis import combine_effects

    y, v = _cases()[case]
    for ours_method, theirs in (("DL", "chi2"), ("PM", "iterated")):
        options = {"atol": 1e-13, "maxiter": 10_000} if theirs == "iterated" else {}
        with np.errstate(invalid="ignore"):  # statsmodels takes square roots of a negative tau2's variances
            ref = combine_effects(y, v, method_re=theirs, use_t=True, **options)
        if ref.tau2 < 0 or (theirs == "iterated" and ref.tau2 == 0 and tau2_estimate(y, v, "PM") > 0):
            continue
        wald = random_effects(y, v, tau2_method=ours_method, hksj=False)
        hksj = random_effects(y, v, tau2_method=ours_method, hksj=True)
        np.testing.assert_allclose(wald.tau2, ref.tau2, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(wald.estimate, ref.mean_effect_re, rtol=1e-8)
        np.testing.assert_allclose(wald.standard_error, ref.sd_eff_w_re, rtol=1e-7)
        _, _, _, knha = ref.conf_int(use_t=True)
        np.testing.assert_allclose([hksj.ci_low, hksj.ci_high], knha, rtol=1e-7, atol=1e-12)
        _, normal, _, _ = ref.conf_int(use_t=False)
        np.testing.assert_allclose([wald.ci_low, wald.ci_high], normal, rtol=1e-7, atol=1e-12)


def _mixture_by_draws(y, v, rng, draws=200_000):
    """Nagashima et al.'s (2019) prediction interval by Monte Carlo, written independently: tau2
    draws from its Q-profile confidence distribution (scipy's brentq on the generalised Q), then a
    new study's effect drawn given each."""
    from scipy import optimize, stats

    def q(tau2):
        w = 1 / (v + tau2)
        return (w * (y - (w * y).sum() / w.sum()) ** 2).sum()

    def root(u):
        if q(0.0) <= u:
            return 0.0
        high = 1.0
        while q(high) > u:
            high *= 2
        return optimize.brentq(lambda t: q(t) - u, 0.0, high, xtol=1e-14)

    roots = np.array([root(u) for u in stats.chi2.ppf((np.arange(2000) + 0.5) / 2000, len(y) - 1)])
    tau2 = roots[rng.integers(0, roots.size, draws)]
    w = 1 / (v[None, :] + tau2[:, None])
    theta = (w * y).sum(axis=1) / w.sum(axis=1)
    new = theta + rng.standard_normal(draws) * np.sqrt(tau2 + 1 / w.sum(axis=1))
    return np.quantile(new, [0.025, 0.975])


@pytest.mark.parametrize("case", [0, 4, 9, 14, 15])
def test_q_profile_prediction_interval_is_the_mixture_of_its_tau2_distribution(case):
    y, v = _cases()[case]
    ours = random_effects(y, v)  # the default
    assert ours.prediction == "q-profile"
    low, high = _mixture_by_draws(y, v, np.random.default_rng(case))
    width = high - low
    assert ours.pi_low == pytest.approx(low, abs=0.01 * width)
    assert ours.pi_high == pytest.approx(high, abs=0.01 * width)


def test_q_profile_tau2_at_the_chi2_mean_is_paule_mandel():
    from pyterrier_boot.meta import random_effects as core

    for y, v in _cases():
        assert core._q_profile(y, v, np.asarray(len(y) - 1.0)) == pytest.approx(tau2_estimate(y, v, "PM"),
                                                                                 rel=1e-9, abs=1e-15)


def test_rows_are_fitted_as_separate_meta_analyses():
    cases = [c for c in _cases() if len(c[0]) == 5]
    y, v = np.stack([c[0] for c in cases]), np.stack([c[1] for c in cases])
    for method in ("REML", "DL", "PM"):
        together = random_effects(y, v, tau2_method=method)
        for r, (yr, vr) in enumerate(cases):
            alone = random_effects(yr, vr, tau2_method=method)
            for field in FIELDS:
                np.testing.assert_allclose(getattr(together, field)[r], getattr(alone, field), rtol=1e-10, atol=1e-14)


def test_homogeneous_effects_have_no_between_study_variance():
    y, v = np.array([0.10, 0.101, 0.099, 0.1]), np.array([0.01, 0.02, 0.015, 0.01])
    for method in ("REML", "DL", "PM"):
        assert tau2_estimate(y, v, method) == 0.0
    res = random_effects(y, v)
    assert res.i2 == 0.0
    np.testing.assert_allclose(res.estimate, (y / v).sum() / (1 / v).sum())


def test_more_spread_gives_more_between_study_variance():
    v = np.full(6, 0.001)
    base = np.array([-1.0, -0.6, -0.2, 0.2, 0.6, 1.0])
    tau2 = [float(random_effects(0.05 * s * base, v).tau2) for s in (1, 2, 4)]
    assert tau2[0] < tau2[1] < tau2[2]
    # equal variances: REML's tau2 is the sample variance minus the within-study variance
    np.testing.assert_allclose(tau2[2], (0.2 * base).var(ddof=1) - 0.001, rtol=1e-9)


def test_meta_analysis_uses_the_same_core():
    d, se = np.array([0.1, 0.5, 0.3, -0.2]), np.array([0.2, 0.3, 0.1, 0.2236068])
    default = meta_analysis(d, se)
    core = random_effects(d, se ** 2, tau2_method="DL", hksj=False)
    assert default.tau2 == core.tau2 and default.random.estimate == core.estimate
    assert (default.random.confidence_interval.low, default.random.confidence_interval.high) == (core.ci_low,
                                                                                                   core.ci_high)
    assert (default.prediction_interval.low, default.prediction_interval.high) == (core.pi_low, core.pi_high)
    reml = meta_analysis(d, se, tau2_method="REML", hksj=True)
    core = random_effects(d, se ** 2)
    assert reml.tau2 == core.tau2 and reml.random.pvalue == core.pvalue and reml.i2 == core.i2


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"effects": [0.1], "variances": [0.01]}, ValueError, "at least 2 studies"),
    ({"effects": [0.1, 0.2], "variances": [0.01, 0.0]}, ValueError, "'variances' must be positive"),
    ({"effects": [0.1, 0.2], "variances": [0.01]}, ValueError, "same shape"),
    ({"effects": [0.1, np.nan], "variances": [0.01, 0.02]}, ValueError, "'effects' must be finite"),
    ({"effects": ["a", "b"], "variances": [0.01, 0.02]}, TypeError, "'effects' must hold numbers"),
    ({"effects": [0.1, 0.2], "variances": [0.01, 0.02], "tau2_method": "ML"}, ValueError, "'tau2_method'"),
    ({"effects": [0.1, 0.2], "variances": [0.01, 0.02], "hksj": "yes"}, TypeError, "'hksj'"),
    ({"effects": [0.1, 0.2], "variances": [0.01, 0.02], "confidence_level": 95}, ValueError, "confidence_level"),
])
def test_bad_arguments_name_themselves(kwargs, error, match):
    with pytest.raises(error, match=match):
        random_effects(**kwargs)
