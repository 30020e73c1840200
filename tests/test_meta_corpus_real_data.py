"""Corpus-bootstrap meta-evaluation on real TREC data (../shared/data), with few images: Zobel &
Rashidi's stability ordering on DL 2020, the variance decomposition and meta-analysis on Robust 2003
(cells solver against statsmodels on a subsample), and the shallow-pool effect on AP."""
import warnings

import numpy as np
import pytest
from conftest import shared_path

import pyterrier_boot as pb

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def robust():
    folder = shared_path("trec-robust2003")
    runs = pb.read_runs(folder / "runs")
    qrels = pb.read_qrels(folder / "qrels.robust2003.txt.gz")
    res = pb.CorpusBootstrap(qrels, n_images=30, rng=1, verbose=False).evaluate(runs, ["AP", "RBP(p=0.95)"])
    return runs, qrels, res


@pytest.mark.slow  # 4 s: corpus-bootstrap stability of every DL 2020 run
def test_dl2020_rbp_is_the_most_and_rr_the_least_stable():
    folder = shared_path("trec-dl-2020-passage")
    measures = ["AP(rel=2)", "RR(rel=2)", "RBP(p=0.95, rel=2)"]
    res = pb.CorpusBootstrap(folder / "qrels.dl20-passage.txt", n_images=20, rng=1, verbose=False).evaluate(
        folder / "runs", measures)
    table = pb.corpus_stability(res).summary().set_index("measure")
    order = table["difference_sd_mean"].sort_values().index.tolist()
    assert order == ["RBP(p=0.95, rel=2)", "AP(rel=2)", "RR(rel=2)"]  # Zobel & Rashidi Table 3
    assert table.loc["RBP(p=0.95, rel=2)", "difference_sd_sd"] < table.loc["AP(rel=2)", "difference_sd_sd"]
    assert len(res.systems) == 59


def test_robust_variance_decomposition(robust):
    _, _, res = robust
    out = pb.corpus_variance_decomposition(res, "AP", reference="pircRBa1")
    homo = out.homoscedastic
    assert homo.converged and out.heteroscedastic.converged
    assert homo.share["topic"] > 0.5 > homo.share["residual"] > 0.02
    frame = out.to_frame()
    assert np.max(np.abs(frame["homo effect"] - frame["t difference"])) < 0.01
    # the cells solver against statsmodels on a subsample
    small = pb.corpus_replicates(res, "AP", systems=["pircRBa1", "aplrob03a", "UIUC03Rd1", "humR03dc"], images=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = pb.variance_decomposition(small, solver="statsmodels")
    got = pb.variance_decomposition(small, solver="cells")
    for c in ref.components:
        assert got.components[c] == pytest.approx(ref.components[c], rel=5e-3)
    np.testing.assert_allclose(got.effects["standard_error"], ref.effects["standard_error"], rtol=5e-3)


def test_robust_meta_analysis(robust):
    _, _, res = robust
    meta = pb.corpus_meta_analysis(res, "pircRBa1", "UIUC03Rd1", measure="AP")
    assert meta.n_topics == 100 and meta.random.estimate > 0 and meta.random.pvalue < 1e-3
    assert meta.i2 > 0.5 and meta.tau2 > 0


@pytest.mark.filterwarnings("ignore:n_images=20 is too few:pyterrier_boot.BootWarning")  # 20 images: a small test
def test_robust_shallow_pools_exaggerate_ap_differences(robust):
    runs, qrels, _ = robust
    res = pb.shallow_pool_comparison(runs, qrels, "pircRBa1", "UIUC03Rd1", measures=["AP", "RBP(p=0.95)"],
                                     n_images=20, rng=1)
    table = res.summary().set_index(["measure", "depth"])
    ap = table.loc["AP"]
    assert ap.loc[10, "difference"] > ap.loc["full", "difference"] + 0.03
    assert ap.loc[25, "difference"] > ap.loc["full", "difference"] + 0.03
    spread = ap["topic_sd_mean"]
    assert spread[10] > spread[25] > spread[100] > spread["full"]  # Fig. 7: AP's spread widens
    rbp = table.loc["RBP(p=0.95)"]
    assert rbp.loc[100, "difference"] == pytest.approx(rbp.loc["full", "difference"], abs=1e-3)
    assert ap.loc["full", "judgements"] == 128796
