"""Split-half validation (Cormack & Lynam §6): the agreement statistic against closed forms and a
normal Monte Carlo, halves as document masks against independently split runs and qrels, a
deliberately miscalibrated interval that must be flagged, the CLI, and Robust 2003 (slow)."""
import numpy as np
import pandas as pd
import pytest
from conftest import shared_path, small_collection
from scipy import special, stats

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.corpus import result as result_module
from pyterrier_boot.corpus.split import split_half
from pyterrier_boot.corpus.validation import interval_agreement, model_share, pooled_sd
from pyterrier_boot.measures.evaluation import prepare

# small collections checked with a few splits on purpose (the warning is tested on its own)
pytestmark = [pytest.mark.filterwarnings("ignore:n_splits=.* is few for the system"),
              # 20 images per split keep these tests small; test_too_few_images_is_one_warning_per_kind asserts it
              pytest.mark.filterwarnings("ignore:n_images=20 is too few:pyterrier_boot.BootWarning")]


def test_model_share_is_the_probability_a_replicate_falls_inside():
    assert model_share(0.95) == pytest.approx(2 * stats.norm.cdf(stats.norm.ppf(0.975) / np.sqrt(2)) - 1, abs=1e-15)
    assert model_share(0.95) == pytest.approx(0.8342, abs=1e-4)
    assert model_share(0.9) < model_share(0.95)


def test_interval_agreement_closed_forms():
    z975 = stats.norm.ppf(0.975)
    # symmetric intervals: z = (θ_B - θ_A) / sqrt(se_A² + se_B²)
    position, z = interval_agreement(0.3, 0.3 - z975 * 0.05, 0.3 + z975 * 0.05,
                                     0.4, 0.4 - z975 * 0.02, 0.4 + z975 * 0.02)
    assert position == 1 and z == pytest.approx(0.1 / np.hypot(0.05, 0.02))
    # asymmetric: each side's half width towards the other value
    position, z = interval_agreement([0.5, 0.5], [0.4, 0.4], [0.9, 0.9], [0.45, 0.7], [0.0, 0.6], [0.5, 1.0])
    np.testing.assert_array_equal(position, [0, 0])
    np.testing.assert_allclose(z, [-0.05 / np.hypot(0.1, 0.05) * z975, 0.2 / np.hypot(0.4, 0.1) * z975])
    # the logit scale: symmetric logit intervals give the logit-scale z
    la, lb = special.logit(0.2), special.logit(0.3)
    _, z = interval_agreement(0.2, special.expit(la - 1), special.expit(la + 1), 0.3, special.expit(lb - 2),
                              special.expit(lb + 2), scale="logit")
    assert z == pytest.approx((lb - la) / np.hypot(1, 2) * z975)
    # equal values: 0; zero-width intervals that differ: inf; below the interval: -1
    position, z = interval_agreement([0.0, 0.0, 0.5], [0.0, 0.0, 0.4], [0.0, 0.0, 0.6],
                                     [0.0, 0.1, 0.2], [0.0, 0.1, 0.1], [0.0, 0.1, 0.3])
    np.testing.assert_array_equal(position, [0, 1, -1])
    assert z[0] == 0 and z[1] == np.inf and z[2] < 0


def test_interval_agreement_monte_carlo_and_a_miscalibrated_interval():
    """Two independent normal estimates with exact 95% intervals: 83.4% inside, sd(z) = 1. The same
    intervals scaled by 0.5 hold far fewer and give sd(z) = 2: the statistic detects them."""
    rng = np.random.default_rng(3)
    n = 200_000
    se_a, se_b = rng.uniform(0.01, 0.1, n), rng.uniform(0.01, 0.1, n)
    a, b = rng.normal(0.5, se_a), rng.normal(0.5, se_b)
    z975 = stats.norm.ppf(0.975)
    for scale, sd in ((1.0, 1.0), (0.5, 2.0)):
        w_a, w_b = scale * z975 * se_a, scale * z975 * se_b
        position, z = interval_agreement(a, a - w_a, a + w_a, b, b - w_b, b + w_b)
        assert z.std() == pytest.approx(sd, rel=0.01)
        if scale == 1.0:
            # P(|B - A| < 1.96 se_A) with sd(B - A) = sqrt(se_A² + se_B²): 83.4% when se_A = se_B
            expected = np.mean(2 * stats.norm.cdf(z975 * se_a / np.hypot(se_a, se_b)) - 1)
            assert np.mean(position == 0) == pytest.approx(expected, abs=0.004)
        else:
            assert np.mean(position == 0) < 0.6


def test_pooled_sd_and_its_jackknife_se_against_a_direct_computation():
    """sd(z) pooled over splits and its delete-a-split jackknife SE, recomputed by brute force
    (np.std of the concatenation without each split); infinite z are left out."""
    rng = np.random.default_rng(5)
    groups = [rng.normal(0.1 * g, 1 + 0.2 * g, size=rng.integers(3, 30)) for g in range(12)]
    groups[3] = np.append(groups[3], [np.inf, -np.inf])
    finite = [g[np.isfinite(g)] for g in groups]
    sd, se = pooled_sd(groups)
    assert sd == pytest.approx(np.concatenate(finite).std(ddof=1), rel=1e-12)
    leave = np.array([np.concatenate(finite[:i] + finite[i + 1:]).std(ddof=1) for i in range(len(finite))])
    G = len(leave)
    assert se == pytest.approx(np.sqrt((G - 1) / G * ((leave - leave.mean()) ** 2).sum()), rel=1e-10)
    # correlated splits: a shared shift per split makes the jackknife SE larger than the naive one
    shifted = [rng.normal(0, 1, 17) + rng.normal(0, 1) for _ in range(40)]
    sd, se = pooled_sd(shifted)
    assert se > 1.5 * sd / np.sqrt(2 * 17 * 40)
    assert np.isnan(pooled_sd([[1.0]])[0]) and np.isnan(pooled_sd([[1.0, 2.0]])[1])


@pytest.fixture(scope="module")
def sim():
    return small_collection(seed=4, n_topics=8, systems="abcd")


def test_a_half_is_a_mask_equal_to_split_runs_and_qrels(sim):
    """evaluate_prepared(keep=...) on the interned runs equals bootstrapping corpus_split's frames."""
    runs, qrels = sim
    evaluator, read = prepare(runs, qrels, ["AP", "nDCG@10", "P@5"])
    for salt in (None, 12):
        keep = split_half(evaluator.arrays.docnos, salt=salt) == "B"
        masked = ptb.CorpusBootstrap(read, n_images=15, rng=5, verbose=False).evaluate_prepared(evaluator, keep=keep)
        split = ptb.CorpusBootstrap(ptb.corpus_split(qrels, "B", salt=salt), n_images=15, rng=5, verbose=False)
        reference = split.evaluate({n: ptb.corpus_split(r, "B", salt=salt) for n, r in runs.items()},
                                   ["AP", "nDCG@10", "P@5"])
        q = [masked.qids.index(x) for x in reference.qids]
        np.testing.assert_array_equal(masked.statistic[:, q], reference.statistic)
        np.testing.assert_array_equal(masked.bootstrap_distribution[:, :, q], reference.bootstrap_distribution)
        np.testing.assert_array_equal(masked.jackknife_distribution[:, :, q], reference.jackknife_distribution)
        np.testing.assert_array_equal(masked.n_relevant[q], reference.n_relevant)
        np.testing.assert_array_equal(masked.depth[:, q], reference.depth)
        assert list(masked.documents) == sorted(set(masked.documents) & set(evaluator.arrays.docnos[keep]))
    with pytest.raises(ValueError, match=r"'keep' must be a boolean mask over the \d+ documents seen"):
        ptb.CorpusBootstrap(read, n_images=5, rng=1, verbose=False).evaluate_prepared(evaluator, keep=[1, 0])


@pytest.fixture(scope="module")
def check(sim):
    runs, qrels = sim
    return ptb.split_half_validation(runs, qrels, ["AP", "nDCG@10"], n_splits=3, n_images=20, rng=7, verbose=False)


def test_too_few_images_is_one_warning_per_kind(sim):
    """Every split builds BCa and percentile intervals from 20 images: one warning for each, not one
    per split, half and row; and one that 3 splits are few for system-level rows."""
    import warnings

    runs, qrels = sim
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ptb.split_half_validation(runs, qrels, ["AP"], n_splits=3, n_images=20, rng=7, verbose=False,
                                  kinds=["system"])
    few = [str(w.message) for w in caught if "too few for a" in str(w.message)]
    assert len(few) == 2 and any("95% bca interval" in m for m in few), few
    assert all(w.filename == __file__ for w in caught if "too few for a" in str(w.message))
    splits = [str(w.message) for w in caught if "n_splits=3 is few for the system and difference rows" in str(w.message)]
    assert len(splits) == 1 and "use n_splits >= 20" in splits[0]


@pytest.mark.filterwarnings("ignore:n_images=20 is too few")
def test_measures_without_counts_skip_the_empirical_bayes_rows(sim):
    """Bpref can be 0 with relevant documents retrieved: no empirical-Bayes rows, the others remain."""
    runs, qrels = sim
    table = ptb.split_half_validation(runs, qrels, ["Bpref"], n_splits=2, n_images=20, rng=7, verbose=False,
                                      kinds=["system"]).to_frame()
    assert not table["method"].str.contains("empirical_bayes").any()
    assert {"normal", "parametric:logit"} <= set(table.loc[table["statistic"] == "logit_mean", "method"])
    from pyterrier_boot.cli.split_half import _main_rows

    shown = _main_rows(table)
    parametric = shown[shown["method"].str.startswith("parametric")]
    assert set(zip(parametric["statistic"], parametric["method"])) == {  # each statistic's default for Bpref
        ("mean", "parametric:mixed"), ("logit_mean", "parametric:logit"), ("gmean", "parametric:score")}


def test_validation_table(check, sim):
    runs, _ = sim
    table = check.to_frame()
    assert list(table.columns) == ["kind", "measure", "statistic", "method", "small_r", "n", "below", "inside",
                                   "above", "inside_se", "inside_min", "inside_max", "sd_z", "sd_z_se", "sd_z_min",
                                   "sd_z_max", "n_infinite", "calibrated"]
    assert set(table["kind"]) == {"topic", "system", "difference", "topic difference"}
    S, Q = len(runs), len(check.qids)
    counts = {"topic": S * Q, "system": S, "difference": S * (S - 1) // 2, "topic difference": S * (S - 1) // 2 * Q}
    for kind, n in counts.items():
        assert (table.loc[table["kind"] == kind, "n"] == 2 * 3 * n).all()  # 2 directions x 3 splits
    np.testing.assert_allclose(table[["below", "inside", "above"]].sum(axis=1), 1.0)
    ap_topic = table[(table["kind"] == "topic") & (table["measure"] == "AP")]
    assert set(ap_topic["small_r"]) == {False, True}  # the small-R correction only for AP
    assert not table[(table["kind"] == "topic") & (table["measure"] == "nDCG@10")]["small_r"].any()
    assert {"parametric:mixed", "parametric:logit", "parametric:small_r"} <= set(table["method"])
    assert len(check.salts) == 3 and check.model_share == pytest.approx(model_share(0.95))
    assert "SplitHalfValidation(3 splits x 2 halves x 20 images, 4 systems x 8 topics" in repr(check)
    assert "<table" in check._repr_html_()
    for key, z in check.z.items():
        row = table.set_index(["kind", "measure", "statistic", "method", "small_r"]).loc[key]
        assert len(z) == row["n"]
        assert np.std(z[np.isfinite(z)], ddof=1) == pytest.approx(row["sd_z"])


def test_validation_is_reproducible_and_kinds_select_rows(sim, check):
    runs, qrels = sim
    again = ptb.split_half_validation(runs, qrels, ["AP", "nDCG@10"], n_splits=3, n_images=20, rng=7, verbose=False,
                                      kinds=["system"])
    table = check.to_frame()
    pd.testing.assert_frame_equal(again.to_frame().drop(columns="calibrated"),
                                  table[table["kind"] == "system"].reset_index(drop=True).drop(columns="calibrated"))
    with pytest.raises(ValueError, match=r"'kinds' must be a non-empty subset of"):
        ptb.split_half_validation(runs, qrels, ["AP"], kinds=["pairs"], verbose=False)
    with pytest.raises(ValueError, match=r"'n_splits' must be"):
        ptb.split_half_validation(runs, qrels, ["AP"], n_splits=1, verbose=False)


def test_a_deliberately_miscalibrated_interval_is_flagged(sim, check, monkeypatch):
    """Every interval halved around its estimate: z doubles exactly for the symmetric normal
    intervals, fewer values fall inside, and the validation marks them not calibrated."""
    runs, qrels = sim
    original = result_module.image_interval

    def halved(statistic, distribution, **options):
        low, high = original(statistic, distribution, **options)
        return statistic - (statistic - low) / 2, statistic + (high - statistic) / 2

    monkeypatch.setattr(result_module, "image_interval", halved)
    bad = ptb.split_half_validation(runs, qrels, ["AP", "nDCG@10"], n_splits=3, n_images=20, rng=7, verbose=False,
                                    kinds=["topic", "system"])
    good = check.to_frame().set_index(["kind", "measure", "statistic", "method", "small_r"])
    worse = bad.to_frame().set_index(["kind", "measure", "statistic", "method", "small_r"])
    for key in [("topic", "nDCG@10", "", "normal", False), ("topic", "AP", "", "logit", True),
                ("system", "nDCG@10", "mean", "percentile", False), ("system", "AP", "mean", "logit", False)]:
        assert worse.loc[key, "inside"] <= good.loc[key, "inside"] - (0.1 if key[0] == "topic" else 0)
        assert worse.loc[key, "sd_z"] > 1.5 * good.loc[key, "sd_z"]
        assert not worse.loc[key, "calibrated"]
    np.testing.assert_allclose(bad.z[("topic", "nDCG@10", "", "normal", False)],
                               2 * check.z[("topic", "nDCG@10", "", "normal", False)])


def test_plot(check):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = check.plot()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[-1] == "N(0, 1)" and any("parametric:mixed" in label for label in labels)
    matplotlib.pyplot.close(ax.figure)


def test_split_half_command(capsys, tmp_path, sim):
    runs, qrels = sim
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, run in runs.items():
        lines = [f"{q} Q0 {d} {r} {s!r} {name}" for r, (q, d, s) in
                 enumerate(zip(run["qid"], run["docno"], run["score"], strict=True))]
        (folder / f"{name}.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in
                                                zip(qrels["qid"], qrels["docno"], qrels["label"], strict=True)))
    out = tmp_path / "out"
    code = main(["split-half", "--qrels", str(tmp_path / "qrels.txt"), str(folder), "--measures", "AP", "nDCG@10",
                 "--splits", "3", "--n", "20", "--rng", "7", "--quiet", "--all", "-f", "csv", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    frame = pd.read_csv(pd.io.common.StringIO(printed))
    written = pd.read_csv(out / "split-half.csv")
    assert len(frame) == len(written) > 40 and set(frame["kind"]) == {"topic", "system", "difference",
                                                                       "topic difference"}
    python = ptb.split_half_validation({n: r for n, r in runs.items()}, qrels, ["AP", "nDCG@10"], n_splits=3,
                                       n_images=20, rng=7, verbose=False).to_frame()
    np.testing.assert_allclose(frame["sd_z"].to_numpy(), python["sd_z"].to_numpy())
    if (out / "split-half-z.png").exists():
        assert (out / "split-half-z.png").stat().st_size > 1000
    code = main(["split-half", "--qrels", str(tmp_path / "qrels.txt"), str(folder), "--splits", "3", "--n", "20",
                 "--rng", "7", "--quiet"])
    text = capsys.readouterr().out
    assert code == 0 and "Split-half validation: 4 runs x 8 topics, 3 random document splits" in text
    assert "calibrated" in text and "83.4%" in text
    assert main(["split-half", "--qrels", str(tmp_path / "qrels.txt"), str(folder), "--splits", "1"]) == 2
    assert "--splits must be at least 2" in capsys.readouterr().err


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:n_images=100 is too few for a 95% bca:pyterrier_boot.BootWarning")  # bca rows unused
def test_robust2003_parametric_map_is_calibrated():
    """50 random splits of Robust 2003 (17 runs x 100 topics): the default parametric MAP, L-MAP and
    G-MAP intervals and the bootstrap MAP / L-MAP intervals have sd(z) within 0.1 of 1, or within 3
    standard errors (the runs move together between halves, so sd(z) from 50 splits has an SE near
    0.05); the paper's formula read with image variances is about twice too wide (sd(z) near 0.45,
    99% inside)."""
    folder = shared_path("trec-robust2003")
    check = ptb.split_half_validation(folder / "runs", folder / "qrels.robust2003.txt.gz", ["AP"], n_splits=50,
                                      n_images=100, rng=2, verbose=False, kinds=["system"])
    table = check.to_frame().set_index(["statistic", "method"])
    for key in [("mean", "parametric:mixed"), ("mean", "normal"), ("logit_mean", "normal"),
                ("logit_mean", "parametric:logit"), ("logit_mean", "parametric:small_r"),
                ("logit_mean", "parametric:empirical_bayes"), ("gmean", "parametric:empirical_bayes")]:
        row = table.loc[key]
        assert abs(row["sd_z"] - 1) <= max(0.1, 3 * row["sd_z_se"]), (key, row["sd_z"], row["sd_z_se"])
    assert table.loc[("mean", "parametric:logit"), "sd_z"] < 0.6
    assert table.loc[("mean", "parametric:logit"), "inside"] > 0.95
    assert abs(table.loc[("mean", "parametric:mixed"), "inside"] - check.model_share) < 0.06


def test_command_main_rows_show_the_default_parametric_rules(check):
    from pyterrier_boot.cli.split_half import _main_rows

    rows = _main_rows(check.to_frame())
    parametric = rows[rows["method"].str.startswith("parametric")]
    assert set(zip(parametric["statistic"], parametric["method"])) == {
        ("mean", "parametric:mixed"), ("logit_mean", "parametric:empirical_bayes"), ("gmean", "parametric:empirical_bayes")}
    assert {"percentile", "normal"} <= set(rows.loc[rows["kind"] == "system", "method"])
    percentile = rows[(rows["kind"] == "system") & (rows["method"] == "percentile")]
    assert set(percentile["statistic"]) == {"mean"}  # L-MAP's and G-MAP's are off-centre
