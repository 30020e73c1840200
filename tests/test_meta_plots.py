"""The meta-evaluation plots draw what they claim (one line per measure, one row per topic, ...)."""
import numpy as np
import pandas as pd
import pytest
import scipy.stats

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from pyterrier_boot.meta.discriminative_power import discriminative_power  # noqa: E402
from pyterrier_boot.meta.stability import stability_method  # noqa: E402
from pyterrier_boot.meta.swap import swap_method  # noqa: E402
from pyterrier_boot.meta.user_variance import user_variance  # noqa: E402

from pyterrier_boot.meta.meta_analysis import meta_analysis  # noqa: E402


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    topic = rng.beta(2, 5, 30)
    ap = np.clip(topic + np.linspace(0, 0.15, 6)[:, None] + rng.normal(0, 0.08, (6, 30)), 0, 1)
    return {"AP": ap, "P@10": np.round(np.clip(ap + rng.normal(0, 0.15, (6, 30)), 0, 1), 1),
            "RR": np.clip(ap + rng.normal(0, 0.3, (6, 30)), 0, 1)}


def test_asl_curves_one_line_per_measure(scores, tmp_path):
    res = discriminative_power(scores, n_resamples=200, rng=1)
    ax = res.plot(log=True)
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["AP", "P@10", "RR", "alpha = 0.05"]
    np.testing.assert_array_equal(lines[0].get_ydata(), np.sort(res.asl[0]))
    ax.figure.savefig(tmp_path / "asl.png")
    assert (tmp_path / "asl.png").stat().st_size > 1000


def test_swap_and_mr_pt_plots(scores, tmp_path):
    swap = swap_method(scores, n_resamples=100, rng=1)
    ax = swap.plot()
    assert len(ax.get_lines()) == 4
    stab = stability_method(scores, n_resamples=100, plan=swap.plans[0])
    ax = stab.plot()
    line = ax.get_lines()[1]
    np.testing.assert_array_equal(line.get_xdata(), stab.proportion_ties[1])
    np.testing.assert_array_equal(line.get_ydata(), stab.minority_rate[1])
    ax.figure.savefig(tmp_path / "mrpt.png")


def test_forest_plot_rows(tmp_path):
    rng = np.random.default_rng(2)
    d = pd.Series(rng.normal(0.3, 0.5, 12), index=[f"q{i}" for i in range(12)])
    res = meta_analysis(d, rng.uniform(0.2, 0.6, 12))
    ax = res.plot()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"q{i}" for i in range(12)] + ["fixed effect", "random effects"]
    ax = res.plot(max_rows=5)
    assert len(ax.get_yticklabels()) == 7
    ax.figure.savefig(tmp_path / "forest.png")


def test_user_variance_plot(tmp_path):
    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1, 1]})
    runs = {n: pd.DataFrame({"qid": ["1", "1"], "docno": d, "score": [2., 1.]})
            for n, d in (("r1", ["a", "b"]), ("r2", ["x", "a"]), ("r3", ["x", "y"]))}
    res = user_variance(runs, qrels, "RBP(p={p})", scipy.stats.beta(4, 2), n_users=50, rng=0)
    ax = res.plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["r1", "r2", "r3"]
    ax.figure.savefig(tmp_path / "users.png")
