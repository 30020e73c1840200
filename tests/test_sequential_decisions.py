"""Anytime-valid comparisons of many systems (Bonferroni, e-BH), SequentialEvaluation and
``pyterrier-boot decide``: e-BH against a hand computation and against BH on 1/e (statsmodels),
the e-value path against a plain re-implementation of the hedged capital, decisions with known
truth, the error rate under a check after every topic, the state file and the command."""
import math

import numpy as np
import pandas as pd
import pytest
from conftest import write_trec
from statsmodels.stats.multitest import multipletests

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.sequential.betting import TRUNCATION, betting_capital
from pyterrier_boot.sequential.comparisons import (
    decide,
    e_bh,
    sequential_comparisons,
    topics_needed,
)

# ---------------------------------------------------------------------- e-BH


def test_e_bh_hand_computation():
    # K = 5, alpha = 0.1: thresholds K / (alpha k) = 50, 25, 16.7, 12.5, 10
    assert e_bh([60, 26, 3, 13, 0.5], 0.1).tolist() == [True, True, False, False, False]  # k* = 2
    # sorted 40, 14, 13.5, 13, 0: only k = 4 qualifies (13 >= 12.5), so the four largest are rejected
    assert e_bh([40, 14, 13, 13.5, 0], 0.1).tolist() == [True, True, True, True, False]
    assert not e_bh([49, 24, 16, 12, 9.9], 0.1).any()  # every e_(k) just below its threshold
    assert e_bh([10.0], 0.1).tolist() == [True]  # one hypothesis: e >= 1 / alpha


def test_e_bh_is_bh_on_inverse_evalues():
    # Wang & Ramdas (2022): e-BH rejects what BH rejects on the p-values 1 / e
    rng = np.random.default_rng(3)
    for _ in range(200):
        e = rng.lognormal(1.5, 1.5, size=rng.integers(1, 30))
        expected = multipletests(np.minimum(1.0, 1.0 / e), alpha=0.05, method="fdr_bh")[0]
        assert e_bh(e, 0.05).tolist() == expected.tolist()


def test_e_bh_refuses_bad_evalues():
    with pytest.raises(ValueError, match="evalues"):
        e_bh([1.0, -0.5], 0.05)
    with pytest.raises(ValueError, match="evalues"):
        e_bh([[1.0]], 0.05)


# ---------------------------------------------------------------------- the e-value path


def _capital_by_hand(z, alpha, m, sides=2, weight_up=0.5):
    """The hedged capital of Waudby-Smith & Ramdas (2024) in plain Python: predictable plug-in bets
    from the regularised running mean and variance, truncated at c/m and c/(1-m), ``weight_up`` of
    the capital betting on scores above ``m`` (half each way: two-sided)."""
    up = down = 1.0
    total, squares, variance = 0.0, 0.0, 0.25
    out = []
    for i, x in enumerate(z):
        t = i + 1
        lam = math.sqrt(2 * math.log(sides / alpha) / (variance * t * math.log(1 + t)))
        up *= 1 + min(lam, TRUNCATION / m) * (x - m)
        down *= 1 - min(lam, TRUNCATION / (1 - m)) * (x - m)
        out.append(weight_up * up + (1 - weight_up) * down)
        total += x
        squares += (x - (0.5 + total) / (t + 1)) ** 2
        variance = (0.25 + squares) / (t + 1)
    return np.array(out)


def test_betting_capital_matches_a_plain_reimplementation():
    rng = np.random.default_rng(1)
    z = rng.beta(2, 3, size=(80, 3))
    for alpha, m in ((0.05, 0.4), (0.05 / 6, 0.5), (0.2, 0.7)):
        got = betting_capital(z, alpha, "two-sided", m)
        for k in range(3):
            np.testing.assert_allclose(got[:, k], _capital_by_hand(z[:, k], alpha, m), rtol=1e-12)


# ---------------------------------------------------------------------- comparisons


def _shifted(rng, n, shifts, noise=0.08):
    """Scores in [0, 1]: a common topic effect plus each system's shift and noise (clipped)."""
    topic = rng.beta(2, 3, size=(n, 1))
    return np.clip(topic + np.asarray(shifts) + rng.normal(0, noise, size=(n, len(shifts))), 0, 1)


def test_bonferroni_is_each_sequence_at_alpha_over_k():
    rng = np.random.default_rng(2)
    x = _shifted(rng, 60, [0.1, 0.0, 0.02, 0.0])
    frame = sequential_comparisons(x, list("abcd"), confidence_level=0.9)
    assert len(frame) == 6 and frame[["system_a", "system_b"]].values.tolist()[0] == ["a", "b"]
    for row in frame.itertuples():
        a, b = "abcd".index(row.system_a), "abcd".index(row.system_b)
        cs = ptb.confidence_sequence(x[:, a], x[:, b], confidence_level=1 - 0.1 / 6, null=0.0)
        assert (row.ci_low, row.ci_high, row.pvalue) == (cs.ci_low[-1], cs.ci_high[-1], cs.pvalue[-1])
        assert row.estimate == pytest.approx(np.mean(x[:, a] - x[:, b]))
        assert row.reject == (row.pvalue <= 0.1 / 6)
        # the p-value leaves alpha / K exactly when 0 leaves the sequence
        assert row.reject == (row.ci_low > 0 or row.ci_high < 0)
    baseline = sequential_comparisons(x, list("abcd"), baseline="b")
    assert baseline[["system_a", "system_b"]].values.tolist() == [["a", "b"], ["c", "b"], ["d", "b"]]
    cs = ptb.confidence_sequence(x[:, 0], x[:, 1], confidence_level=1 - 0.05 / 3)
    assert baseline["ci_low"].iloc[0] == cs.ci_low[-1]


def test_e_bh_decisions_are_the_e_bh_rejections_of_the_one_sided_capitals():
    rng = np.random.default_rng(4)
    x = _shifted(rng, 80, [0.08, 0.0, 0.03, 0.0, 0.05])
    frame = sequential_comparisons(x, list("abcde"), correction="e-bh")
    a = ["abcde".index(s) for s in frame["system_a"]]
    b = ["abcde".index(s) for s in frame["system_b"]]
    z = (x[:, a] - x[:, b] + 1) / 2
    up, down = betting_capital(z, 0.05, "greater", 0.5)[-1], betting_capital(z, 0.05, "less", 0.5)[-1]
    rejected = e_bh(np.concatenate([up, down]), 0.05)  # e-BH over the 2K one-sided e-values
    expected = np.where(rejected[:10], "better", np.where(rejected[10:], "worse", "undecided"))
    decided = frame["decision"].isin(["better", "worse"])
    assert frame["decision"][decided].tolist() == expected[decided.to_numpy()].tolist()
    assert (expected[~decided.to_numpy()] == "undecided").all()
    assert frame["reject"].tolist() == decided.tolist()
    np.testing.assert_allclose(frame["evalue"], np.maximum(up, down), rtol=1e-12)
    assert (np.sign(frame["estimate"][decided]) == np.where(frame["decision"][decided] == "better", 1, -1)).all()
    assert frame["decision"].tolist().count("better") >= 2  # a - b and e - b are far apart at 80 topics
    # a one-sided capital by hand: the hedged one with all the capital on one side, one-sided bets
    by_hand = _capital_by_hand(z[:, 0], 0.05, 0.5, sides=1, weight_up=1.0)
    assert up[0] == pytest.approx(by_hand[-1], rel=1e-12)


def test_e_bh_intervals_are_the_e_by_intervals_of_the_one_sided_capitals():
    """Each end is where a one-sided capital (computed by hand) crosses 2K / (alpha max(k*, 1)), and
    0 is outside the interval exactly when e-BH claims the pair better or worse."""
    rng = np.random.default_rng(6)
    x = _shifted(rng, 70, [0.08, 0.0, 0.03, 0.0, 0.05])
    frame = sequential_comparisons(x, list("abcde"), correction="e-bh")
    k = len(frame)
    threshold = 2 * k / (0.05 * max(int(frame["reject"].sum()), 1))
    for row in frame.itertuples():
        z = (x[:, "abcde".index(row.system_a)] - x[:, "abcde".index(row.system_b)] + 1) / 2
        low, high = (row.ci_low + 1) / 2, (row.ci_high + 1) / 2
        up = _capital_by_hand(z, 0.05, low - 1e-5, sides=1, weight_up=1.0)[-1]
        assert up >= threshold > _capital_by_hand(z, 0.05, low + 1e-5, sides=1, weight_up=1.0)[-1]
        down = _capital_by_hand(z, 0.05, high + 1e-5, sides=1, weight_up=0.0)[-1]
        assert down >= threshold > _capital_by_hand(z, 0.05, high - 1e-5, sides=1, weight_up=0.0)[-1]
    for seed in range(40):  # one story: over many tables, never a claim beside an interval holding 0
        y = _shifted(np.random.default_rng(seed), 30 + seed, np.random.default_rng(seed).normal(0, 0.04, 6))
        table = sequential_comparisons(y, list("abcdef"), correction="e-bh", margin=0.02)
        assert (((table["ci_low"] > 0) | (table["ci_high"] < 0)) == table["reject"]).all()


def test_e_bh_false_coverage_rate():
    """Over 300 tables of 6 systems (3 tied, 3 apart) on 100 topics, the share of intervals that miss
    the true difference among the pairs given a verdict averages at most alpha (Xu, Wang & Ramdas 2022)."""
    rng = np.random.default_rng(7)
    shifts = np.array([0.0, 0.0, 0.0, 0.08, 0.16, 0.25])
    truth = shifts[:, None] - shifts[None, :]
    names = list("abcdef")
    rates, given_counts = [], []
    for _ in range(300):
        topic = 0.1 + rng.beta(2, 3, size=(100, 1)) * 0.5
        x = topic + shifts + rng.uniform(-0.1, 0.1, size=(100, 6))  # within [0, 1], true differences known
        table = sequential_comparisons(x, names, correction="e-bh", margin=0.02)
        given = table["decision"] != "undecided"
        true = truth[[names.index(a) for a in table["system_a"]], [names.index(b) for b in table["system_b"]]]
        missed = (table["ci_low"] > true) | (table["ci_high"] < true)
        rates.append((missed & given).sum() / max(int(given.sum()), 1))
        given_counts.append(int(given.sum()))
    assert np.mean(rates) <= 0.05 + 2 * np.std(rates) / np.sqrt(len(rates))
    assert np.mean(given_counts) > 6  # verdicts are made: the rate is not over empty selections


def test_a_prefix_gives_the_row_of_the_whole_sequence():
    # what is read after t topics does not depend on the topics that come later
    rng = np.random.default_rng(5)
    x = _shifted(rng, 40, [0.05, 0.0, 0.0])
    cs = ptb.confidence_sequence(x[:, 0], x[:, 1], confidence_level=1 - 0.05 / 3)
    for t in (5, 17, 40):
        row = sequential_comparisons(x[:t], ["a", "b", "c"]).iloc[0]
        assert (row["ci_low"], row["ci_high"]) == (cs.ci_low[t - 1], cs.ci_high[t - 1])


def test_decide_by_hand():
    low = [0.01, -0.3, -0.004, -0.02, -0.2, np.nan, 0.001]
    high = [0.2, -0.01, 0.006, 0.03, 0.1, np.nan, 0.005]
    assert decide(low, high, margin=0.01).tolist() == [
        "better", "worse", "equivalent", "undecided", "undecided", "undecided", "better"]
    assert decide([-0.004], [0.006]).tolist() == ["undecided"]  # no margin: never equivalent
    for margin in (-0.01, math.nan, math.inf):
        with pytest.raises(ValueError, match="margin"):
            decide(low, high, margin=margin)
    with pytest.raises(TypeError, match="margin"):
        decide(low, high, margin="0.01")


def test_decisions_with_known_truth():
    rng = np.random.default_rng(6)
    x = _shifted(rng, 400, [0.12, 0.0, -0.1, 0.0])
    frame = sequential_comparisons(x, ["up", "base", "down", "same"], baseline="base", margin=0.03)
    assert frame.set_index("system_a")["decision"].to_dict() == {"up": "better", "down": "worse",
                                                                 "same": "equivalent"}
    assert (frame["topics_needed"] == 0).all()


@pytest.mark.slow  # about 15 s: 200 sequences of 5,000 topics
def test_topics_needed_projects_a_real_decision():
    # the projection after 40 topics, checked against when the sequence really decides, over 200
    # sequences with a true difference of 0.06 or 0.03: right to within a factor of 1.5 in the median
    rng = np.random.default_rng(7)
    for shift in (0.06, 0.03):
        ratios = []
        for _ in range(100):
            x = _shifted(rng, 5000, [shift, 0.0])
            d = x[:, 0] - x[:, 1]
            cs = ptb.confidence_sequence(x[:, 0], x[:, 1])
            if cs.ci_low[39] > 0:
                continue
            projected = topics_needed(40, cs.estimate[39], cs.ci_low[39], cs.ci_high[39], sd=d[:40].std(),
                                      confidence_level=0.95)
            decided = np.flatnonzero(cs.ci_low > 0)
            if decided.size and np.isfinite(projected):
                ratios.append((40 + projected) / (decided[0] + 1))
        print(shift, np.percentile(ratios, [25, 50, 75]))
        assert len(ratios) > 60
        assert 1 / 1.5 < np.median(ratios) < 1.5


def test_topics_needed_edge_cases():
    level = {"sd": 0.2, "confidence_level": 0.95}
    assert topics_needed(40, 0.0, -0.1, 0.1, **level)[()] == math.inf  # a mean of 0, no margin
    assert topics_needed(40, 0.0, -0.1, 0.1, margin=0.05, **level)[()] > 0  # fits the margin some day
    assert topics_needed(40, 0.1, 0.01, 0.2, **level)[()] == 0  # decided


def _ever_rejected_bonferroni(x, alpha):
    k = x.shape[1] * (x.shape[1] - 1) // 2
    a, b = np.triu_indices(x.shape[1], 1)
    cs = ptb.confidence_sequence(x[:, a] - x[:, b], bounds=(-1, 1), confidence_level=1 - alpha / k)
    return bool(((cs.ci_low > 0) | (cs.ci_high < 0)).any())


def _ever_rejected_e_bh(x, alpha):
    """Whether e-BH over the 2K one-sided e-values makes any claim at any topic (vectorised over
    all prefixes at once)."""
    a, b = np.triu_indices(x.shape[1], 1)
    z = (x[:, a] - x[:, b] + 1) / 2
    capital = np.hstack([betting_capital(z, alpha, side, 0.5) for side in ("greater", "less")])
    ordered = -np.sort(-capital, axis=1)
    return bool((ordered >= capital.shape[1] / (alpha * np.arange(1, capital.shape[1] + 1))).any())


def _ever_rejected_naive(x, alpha):
    """The fixed-n t test of one pair, re-run after every topic from the 5th (the contrast)."""
    from scipy import stats

    d = x[:, 0] - x[:, 1]
    return any(stats.ttest_1samp(d[:t], 0.0).pvalue <= alpha for t in range(5, len(d) + 1))


@pytest.mark.slow  # about 15 s each: 1,000 sequences under each correction
@pytest.mark.parametrize("rule", [_ever_rejected_bonferroni, _ever_rejected_e_bh])
def test_type_one_error_under_a_check_after_every_topic(rule):
    # four systems with one mean (exchangeable, dependent pairs through the topic effect; per-topic
    # differences with sd ~0.3): the share of sequences of 200 topics in which any pair is ever
    # called better or worse is at most alpha (measured: 0.9% Bonferroni, 0.5% e-BH, SE 0.3%)
    rng = np.random.default_rng(8)
    alpha, reps = 0.05, 1000
    rate = np.mean([rule(_shifted(rng, 200, [0.0] * 4, noise=0.25), alpha) for _ in range(reps)])
    se = math.sqrt(max(rate, 1 / reps) * (1 - rate) / reps)
    print(f"{rule.__name__}: {rate:.3f} (SE {se:.3f})")
    assert rate <= alpha
    # the same simulation catches a procedure that is not anytime-valid
    naive = np.mean([_ever_rejected_naive(_shifted(rng, 200, [0.0, 0.0]), alpha) for _ in range(200)])
    assert naive > 2 * alpha


# ---------------------------------------------------------------------- SequentialEvaluation


def _wide(rng, qids, shifts=(0.1, 0.0, 0.05)):
    return pd.DataFrame(_shifted(rng, len(qids), list(shifts)), index=pd.Index(qids, name="qid"),
                        columns=["a", "b", "c"])


def test_update_appends_in_order_and_matches_one_batch():
    rng = np.random.default_rng(9)
    whole = _wide(rng, [f"q{i}" for i in range(30)])
    state = ptb.SequentialEvaluation(whole.iloc[:10], measure="AP", baseline="b")
    state.update(whole.iloc[10:25]).update(whole.iloc[25:])
    assert state.qids == list(whole.index) and state.n_topics == 30
    at_once = ptb.SequentialEvaluation(whole, measure="AP", baseline="b")
    pd.testing.assert_frame_equal(state.decisions(0.02), at_once.decisions(0.02))
    expected = sequential_comparisons(whole.to_numpy(), ["a", "b", "c"], baseline="b", margin=0.02)
    pd.testing.assert_frame_equal(state.decisions(0.02).drop(columns=["measure", "margin", "correction"]), expected)


def test_long_and_two_level_frames():
    rng = np.random.default_rng(10)
    ap, ndcg = _wide(rng, ["3", "1", "2"]), _wide(rng, ["3", "1", "2"])
    two_level = pd.concat({"AP": ap, "nDCG@10": ndcg}, axis=1)
    state = ptb.SequentialEvaluation(two_level)
    assert state.measures == ["AP", "nDCG@10"] and state.qids == ["3", "1", "2"]
    long = state.scores()
    assert ptb.SequentialEvaluation(long).scores().equals(long)
    row = long[(long["qid"] == "1") & (long["name"] == "c") & (long["measure"] == "nDCG@10")]
    assert row["value"].item() == ndcg.loc["1", "c"]
    with pytest.raises(ValueError, match="'measure' is needed"):
        state.sequence("a", "b")
    assert state.sequence("a", "b", measure="AP").ci_low.shape == (3,)


def test_update_refusals_leave_the_state_as_it_was():
    rng = np.random.default_rng(11)
    state = ptb.SequentialEvaluation(_wide(rng, ["1", "2", "3"]), measure="AP")
    before = state.scores()
    new = _wide(rng, ["4", "5"])
    with pytest.raises(ValueError, match=r"already in this evaluation, e.g. '3'"):
        state.update(_wide(rng, ["3", "6"]))
    with pytest.raises(ValueError, match="systems of this evaluation.*unknown: 'd'"):
        state.update(new.assign(d=0.5))
    with pytest.raises(ValueError, match="systems of this evaluation.*missing: 'c'"):
        state.update(new.drop(columns="c"))
    with pytest.raises(ValueError, match=r"measures of this evaluation.*unknown: 'P@5'"):
        state.update(new, measure="P@5")
    with pytest.raises(ValueError, match="lacks 1 score"):
        state.update(new.mask(new == new.iloc[0, 0]))
    with pytest.raises(ValueError, match="outside bounds"):
        state.update(new + 1)
    with pytest.raises(ValueError, match="more than once"):
        state.update(pd.concat([new, new]))
    assert state.scores().equals(before)
    state.update(new)
    assert state.n_topics == 5


def test_constructor_refusals():
    rng = np.random.default_rng(12)
    wide = _wide(rng, ["1", "2"])
    with pytest.raises(ValueError, match="'baseline' 'z'"):
        ptb.SequentialEvaluation(wide, baseline="z")
    with pytest.raises(ValueError, match="'correction' must be one of"):
        ptb.SequentialEvaluation(wide, correction="holm")
    with pytest.raises(ValueError, match="at least 2 systems"):
        ptb.SequentialEvaluation(wide[["a"]])
    with pytest.raises(TypeError, match="DataFrame"):
        ptb.SequentialEvaluation(wide.to_numpy())
    with pytest.raises(TypeError, match="numeric"):
        ptb.SequentialEvaluation(wide.astype(str).assign(a="x"))
    # the topics as a column rather than the index
    assert ptb.SequentialEvaluation(wide.reset_index()).scores().equals(ptb.SequentialEvaluation(wide).scores())
    with pytest.raises(ValueError, match="'margin'"):
        ptb.SequentialEvaluation(wide).decisions(-0.01)


def test_save_load_round_trip_and_refusals(tmp_path):
    rng = np.random.default_rng(13)
    frame = pd.concat({"AP": _wide(rng, ["b 1", "10", "2"]), "P@5": _wide(rng, ["b 1", "10", "2"])}, axis=1)
    state = ptb.SequentialEvaluation(frame, baseline="c", correction="e-bh", confidence_level=0.9)
    path = state.save(tmp_path / "state.tsv")
    loaded = ptb.SequentialEvaluation.load(path)
    assert loaded.scores().equals(state.scores())  # every float bit for bit, topics in order
    assert loaded.settings == state.settings and loaded.qids == ["b 1", "10", "2"]
    pd.testing.assert_frame_equal(loaded.decisions(0.01), state.decisions(0.01))
    with pytest.raises(ValueError, match="systems of this evaluation"):
        loaded.update(pd.concat({"AP": _wide(rng, ["4"]).rename(columns={"a": "x"}),
                                 "P@5": _wide(rng, ["4"]).rename(columns={"a": "x"})}, axis=1))
    with pytest.raises(ValueError, match="measures of this evaluation"):
        loaded.update(_wide(rng, ["4"]), measure="AP")
    text = path.read_text()
    changed = tmp_path / "changed.tsv"
    changed.write_text(text.replace("\n10\tAP\t", "\n11\tAP\t"))
    with pytest.raises(ValueError, match="checksum"):
        ptb.SequentialEvaluation.load(changed)
    (tmp_path / "other.txt").write_text("1 0 d1 1\n")
    with pytest.raises(ValueError, match="is not a sequential evaluation"):
        ptb.SequentialEvaluation.load(tmp_path / "other.txt")
    with pytest.raises(ValueError, match="no file"):
        ptb.SequentialEvaluation.load(tmp_path / "absent.tsv")
    bad = ptb.SequentialEvaluation(_wide(rng, ["1"]).rename(columns={"a": "a\tb"}))
    with pytest.raises(ValueError, match="tab"):
        bad.save(tmp_path / "bad.tsv")


# ---------------------------------------------------------------------- from runs, and the command


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    sim = ptb.simulate_collection(n_topics=30, n_systems=3, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=21)
    folder = write_trec(sim.runs, sim.qrels, tmp_path_factory.mktemp("decide"))
    lines = (folder / "qrels.txt").read_text().splitlines(keepends=True)
    qids = list(dict.fromkeys(line.split()[0] for line in lines))
    (folder / "first.txt").write_text("".join(line for line in lines if line.split()[0] in qids[:12]))
    return folder, qids


def test_from_runs_keeps_the_qrels_order(collection):
    folder, qids = collection
    reordered = folder / "reordered.txt"
    lines = (folder / "qrels.txt").read_text().splitlines(keepends=True)
    order = qids[::-1]
    reordered.write_text("".join(sorted(lines, key=lambda line: order.index(line.split()[0]))))
    state = ptb.SequentialEvaluation.from_runs(folder / "runs", reordered, ["AP"])
    assert state.qids == order
    scores = ptb.evaluate(folder / "runs", folder / "qrels.txt", ["AP"])
    expected = scores.pivot(index="qid", columns="name", values="value").loc[order, state.systems]
    np.testing.assert_array_equal(state.scores().pivot(index="qid", columns="name", values="value")
                                  .loc[order, state.systems].to_numpy(), expected.to_numpy())


def test_cli_round_trip_adds_the_new_topics(collection, tmp_path, capsys):
    folder, qids = collection
    state, runs = tmp_path / "state.tsv", str(folder / "runs")
    args = ["decide", "--state", str(state), runs, "-m", "nDCG@10", "AP", "--margin", "0.02", "--quiet"]
    assert main([*args, "--qrels", str(folder / "first.txt")]) == 0
    assert ptb.SequentialEvaluation.load(state).qids == qids[:12]
    capsys.readouterr()
    assert main([*args, "--qrels", str(folder / "qrels.txt"), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    loaded = ptb.SequentialEvaluation.load(state)
    assert loaded.qids == qids and loaded.measures == ["nDCG@10", "AP"]
    expected = ptb.SequentialEvaluation.from_runs(folder / "runs", folder / "qrels.txt", ["nDCG@10", "AP"])
    assert loaded.scores().equals(expected.scores())
    table = pd.read_csv(tmp_path / "out" / "decisions.csv")
    reference = expected.decisions(0.02)
    np.testing.assert_allclose(table[["estimate", "ci_low", "ci_high"]], reference[["estimate", "ci_low", "ci_high"]])
    assert table["decision"].tolist() == reference["decision"].tolist()
    assert printed.startswith("30 topics, 3 runs, all pairs") and "nDCG@10:" in printed
    assert "| S1 | S2 |" in (tmp_path / "out" / "decisions.md").read_text()
    # a third call with nothing new leaves the state as it was
    before = state.read_text()
    assert main([*args, "--qrels", str(folder / "first.txt")]) == 0
    assert state.read_text() == before


@pytest.mark.parametrize(("extra", "message"), [
    (["--correction", "e-bh"], "was created with --correction bonferroni, not --correction e-bh"),
    (["-m", "P@5"], "holds the measures AP, not P@5"),
    (["--baseline", "S1"], "was created without --baseline, not --baseline S1"),
    (["--rel", "2"], "holds the measures AP, not AP(rel=2)"),
])
def test_cli_refuses_other_settings(collection, tmp_path, capsys, extra, message):
    folder, _ = collection
    state = tmp_path / "state.tsv"
    base = ["decide", "--state", str(state), "--qrels", str(folder / "qrels.txt"), "--quiet"]
    assert main([*base, str(folder / "runs"), "-m", "AP"]) == 0
    capsys.readouterr()
    assert main([*base, str(folder / "runs"), *extra]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]


def test_cli_refuses_other_runs_and_a_negative_margin(collection, tmp_path, capsys):
    folder, _ = collection
    state = tmp_path / "state.tsv"
    base = ["decide", "--state", str(state), "--qrels", str(folder / "qrels.txt"), "--quiet"]
    assert main([*base, str(folder / "runs")]) == 0
    capsys.readouterr()
    assert main([*base, str(folder / "runs" / "S1.txt"), str(folder / "runs" / "S2.txt")]) == 1
    assert "missing: ['S3']" in capsys.readouterr().err
    assert main([*base, str(folder / "runs"), "--margin", "-0.01"]) == 2
    assert "--margin must be a number >= 0" in capsys.readouterr().err
