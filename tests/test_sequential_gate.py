"""The regression gate (issue 27, item 4): verdicts with known truth, validity under a check after
every topic, alpha spending over a series of commits, the command's exit codes and summary, errors."""
import math

import numpy as np
import pytest

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.sequential.gate import VERDICTS, gate_verdicts, spent_alpha


def _pairs(mean_difference, n, columns, seed, spread=0.3):
    """Baseline scores in [0.4, 0.6] and candidate = baseline + a difference of exactly
    ``mean_difference`` on average (``+-spread`` around it with equal chance): topics x columns."""
    rng = np.random.default_rng(seed)
    baseline = rng.uniform(0.4, 0.6, size=(n, columns))
    noise = spread * rng.choice([-1.0, 1.0], size=(n, columns))
    return baseline + mean_difference + noise, baseline


def test_verdicts_by_hand():
    low = np.array([-0.05, -0.009, -0.2, np.nan, -0.011])
    high = np.array([0.05, 0.1, -0.011, np.nan, -0.0101])
    assert [VERDICTS[c] for c in gate_verdicts(low, high, 0.01)] == \
        ["undecided", "not worse", "worse", "undecided", "worse"]


@pytest.mark.parametrize(("difference", "verdict"), [(0.0, "not worse"), (0.05, "not worse"), (-0.2, "worse")])
def test_known_truth_is_decided(difference, verdict):
    candidate, baseline = _pairs(difference, 600, 1, seed=3, spread=0.1)
    result = ptb.regression_gate(candidate[:, 0], baseline[:, 0], margin=0.05)
    assert result.verdict == verdict and result.exit_code == {"not worse": 0, "worse": 1}[verdict]
    assert result.estimate == pytest.approx(np.mean(candidate - baseline))
    assert result.ci_low <= result.estimate <= result.ci_high
    assert 1 <= result.decided_at <= 600


def test_few_topics_are_undecided():
    candidate, baseline = _pairs(0.0, 8, 1, seed=4)
    result = ptb.regression_gate(candidate[:, 0], baseline[:, 0], margin=0.01)
    assert (result.verdict, result.exit_code, result.decided_at) == ("undecided", 2, None)


def test_a_recheck_extends_the_earlier_check():
    """The verdict on the first n topics is the verdict the longer sequence had at n (what makes
    re-checking as topics are added the same as one sequence checked after every topic)."""
    candidate, baseline = _pairs(0.0, 300, 1, seed=5, spread=0.2)
    full = ptb.regression_gate(candidate[:, 0], baseline[:, 0], margin=0.05)
    codes = gate_verdicts(full.sequence.ci_low, full.sequence.ci_high, 0.05)
    for n in (20, 80, full.decided_at, 300):
        prefix = ptb.regression_gate(candidate[:n, 0], baseline[:n, 0], margin=0.05)
        assert prefix.exit_code == codes[n - 1]
        assert prefix.ci_low == full.sequence.ci_low[n - 1]
    assert codes[full.decided_at - 2] == 2 and codes[full.decided_at - 1] == 0
    assert (np.diff(codes.astype(int)) <= 0).all()  # once decided, it stays decided


def test_series_spending_sums_to_alpha_and_narrows_the_level():
    total = sum(spent_alpha(0.05, k, "series") for k in range(1, 200_001))
    assert total == pytest.approx(0.05, rel=1e-5)  # the tail beyond K is about 6 alpha / (pi^2 K)
    assert spent_alpha(0.05, 3, "series") == pytest.approx(0.05 * 6 / (math.pi ** 2 * 9))
    assert spent_alpha(0.05, 3, "constant") == 0.05
    candidate, baseline = _pairs(0.0, 200, 1, seed=6)
    first = ptb.regression_gate(candidate[:, 0], baseline[:, 0], margin=0.05, alpha_spending="series")
    later = ptb.regression_gate(candidate[:, 0], baseline[:, 0], margin=0.05, alpha_spending="series",
                                commit_index=10)
    assert later.sequence.confidence_level == pytest.approx(1 - 0.05 * 6 / (math.pi ** 2 * 100))
    assert later.ci_low <= first.ci_low and later.ci_high >= first.ci_high


def _wrong_verdicts(mean_difference, margin, columns, seed):
    """Share of sequences (topics checked one by one) that ever reach each verdict, and its SE."""
    candidate, baseline = _pairs(mean_difference, 200, columns, seed)
    sequence = ptb.confidence_sequence(candidate, baseline, method="betting")
    codes = gate_verdicts(sequence.ci_low, sequence.ci_high, margin)
    ever = {verdict: (codes == code).any(axis=0).mean() for code, verdict in VERDICTS.items()}
    return ever, math.sqrt(0.05 * 0.95 / columns)


def test_false_alarms_under_a_check_after_every_topic_stay_below_alpha():
    """On the boundary (the candidate exactly ``margin`` worse) either verdict is wrong; within the
    margin "worse" is; 2,000 sequences of 200 topics, each checked after every topic."""
    ever, se = _wrong_verdicts(-0.05, 0.05, 2000, seed=7)  # measured: 0.021 (0.0095 "worse")
    assert ever["worse"] + ever["not worse"] <= 0.05 + 3 * se
    ever, se = _wrong_verdicts(-0.02, 0.05, 2000, seed=8)
    assert ever["worse"] <= 0.05 + 3 * se
    assert ever["not worse"] > 0.05  # measured 0.10: the gate can also decide correctly here: not a gate that never speaks


# ---------------------------------------------------------------- the command


def _files(tmp_path, hits, n_topics=200):
    """qrels with one relevant document per topic; the baseline finds it first on every topic, the
    candidate on the topics ``hits`` says (so P@1 and RR differences are -1 elsewhere, 0 there)."""
    topics = [f"t{i}" for i in range(n_topics)]
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 rel-{q} 1\n{q} 0 other-{q} 0\n" for q in topics))

    def run(name, found):
        lines = []
        for q, hit in zip(topics, found, strict=True):
            ranked = [f"rel-{q}", f"other-{q}"] if hit else [f"other-{q}", f"rel-{q}"]
            lines += [f"{q} Q0 {d} {r} {10 - r} {name}" for r, d in enumerate(ranked, 1)]
        (tmp_path / f"{name}.run").write_text("\n".join(lines) + "\n")

    run("base", [True] * n_topics)
    run("cand", hits)
    return ["--qrels", str(tmp_path / "qrels.txt"), "--baseline", str(tmp_path / "base.run"),
            "--candidate", str(tmp_path / "cand.run"), "--measure", "P@1", "--quiet"]


@pytest.mark.parametrize(("hits", "code", "estimate"), [
    ([True] * 200, 0, "+0.0000"),                       # the same run: not worse
    ([i % 2 == 0 for i in range(200)], 1, "-0.5000"),   # loses half the topics: worse
    ([True] * 199 + [False], 0, "-0.0050"),             # within the margin 0.05
])
def test_exit_codes(tmp_path, capsys, hits, code, estimate):
    assert main(["gate", *_files(tmp_path, hits), "--margin", "0.05"]) == code
    out = capsys.readouterr().out
    assert out.startswith(VERDICTS[code]) and f"candidate - baseline = {estimate}" in out and "200 topics" in out


def test_undecided_on_few_topics(tmp_path, capsys):
    assert main(["gate", *_files(tmp_path, [True, False] * 5, n_topics=10), "--margin", "0.01"]) == 2
    assert capsys.readouterr().out.startswith("undecided (P@1, 10 topics): candidate - baseline = -0.5000")


def test_summary(tmp_path, capsys):
    summary = tmp_path / "summary.md"
    args = [*_files(tmp_path, [i % 2 == 0 for i in range(200)]), "--margin", "0.05", "--summary", str(summary),
            "--alpha-spending", "series", "--commit-index", "2"]
    assert main(["gate", *args]) == 1
    text = summary.read_text()
    result = ptb.regression_gate(np.tile([1.0, 0.0], 100), np.ones(200), margin=0.05, alpha_spending="series",
                                 commit_index=2)
    assert result.summary("P@1") == text
    for part in ("### Regression gate: FAIL", "| measure | P@1 |", "| topics | 200 |", "| -0.5000 |",
                 f"[{result.ci_low:+.4f}, {result.ci_high:+.4f}]", "| margin | 0.05 ", "**worse**",
                 f"decided after {result.decided_at} of 200 topics", "exit 1", "comparison 2 of a series",
                 "any wrong verdict over the whole series of commits is at most 0.05"):
        assert part in text, part
    level = 1 - 0.05 * 6 / (math.pi ** 2 * 4)
    assert f"{level:.4g} confidence sequence" in text
    capsys.readouterr()


@pytest.mark.parametrize(("extra", "message"), [
    (["--margin", "-0.01"], "--margin must be positive"),
    (["--margin", "0"], "--margin must be positive"),
    (["--margin", "0.01", "--confidence-level", "95"], "--confidence-level must be between 0 and 1"),
    (["--margin", "0.01", "--commit-index", "3"], "add --alpha-spending series"),
    (["--margin", "0.01", "--alpha-spending", "series", "--commit-index", "0"], "--commit-index must be at least 1"),
    (["--margin", "1.5"], "'margin' 1.5 must be smaller than the range"),
])
def test_usage_and_input_errors_exit_4(tmp_path, capsys, extra, message):
    assert main(["gate", *_files(tmp_path, [True] * 200), *extra]) == 4
    err = capsys.readouterr().err
    assert message in err


def test_errors_are_one_line_and_exit_4(tmp_path, capsys):
    args = _files(tmp_path, [True] * 200)
    args[args.index("--qrels") + 1] = str(tmp_path / "missing.txt")
    assert main(["gate", *args, "--margin", "0.01"]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
    assert main(["gate", "--margin", "0.01"]) == 4  # required options missing: argparse's usage error
    capsys.readouterr()
    assert main(["gate", *_files(tmp_path, [True] * 200), "--margin", "0.01", "--measure", "NumRet"]) == 4
    assert "outside bounds" in capsys.readouterr().err


def test_other_commands_keep_their_exit_codes(capsys):
    assert main(["topics", "--difference", "-1"]) in (1, 2)
    assert main(["evaluate", "--no-such-option"]) == 2
    capsys.readouterr()


# ---------------------------------------------------------------- errors of the Python function


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"margin": -0.01}, ValueError, "'margin' must be positive.*give its size"),
    ({"margin": 0}, ValueError, "'margin' must be positive"),
    ({"margin": float("nan")}, ValueError, "'margin' must be positive"),
    ({"margin": True}, TypeError, "'margin' must be a positive number"),
    ({"margin": "0.01"}, TypeError, "'margin' must be a positive number"),
    ({"margin": 0.01, "alpha_spending": "linear"}, ValueError, "alpha_spending"),
    ({"margin": 0.01, "alpha_spending": "series", "commit_index": 0}, ValueError, "'commit_index' must be"),
    ({"margin": 0.01, "confidence_level": 1.5}, ValueError, "confidence_level"),
    ({"margin": 0.01, "bounds": (1, 0)}, ValueError, "'bounds'"),
])
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        ptb.regression_gate([0.5, 0.6], [0.5, 0.5], **kwargs)


@pytest.mark.parametrize(("candidate", "baseline", "message"), [
    ([0.5, float("nan")], [0.5, 0.5], "'candidate' has 1 NaN or infinite topic scores, e.g. at position 1"),
    ([0.5, 0.5], [0.5, np.inf], "'baseline' has 1 NaN"),
    ([0.5, 1.2], [0.5, 0.5], r"'candidate' has 1 scores outside bounds \(0, 1\), e.g. 1.2 at position 1"),
    ([0.5, 0.5], [-0.1, 0.5], "'baseline' has 1 scores outside bounds"),
    ([0.5, 0.5, 0.5], [0.5, 0.5], "must have one score per topic"),
    ([], [], "non-empty 1-D"),
])
def test_bad_scores(candidate, baseline, message):
    with pytest.raises(ValueError, match=message):
        ptb.regression_gate(candidate, baseline, margin=0.01)


def test_an_empty_sequence_is_undecided_and_warns():
    """Differences that drift (topics sorted so the candidate first wins, then loses): no single mean
    fits, the betting sequence becomes empty, the gate says undecided and the summary says why."""
    candidate = np.r_[np.ones(150), np.zeros(150)]
    with pytest.warns(ptb.DegenerateWarning, match="became empty"):
        result = ptb.regression_gate(candidate, np.full(300, 0.5), margin=0.05)
    assert result.verdict == "undecided" and np.isnan(result.ci_low)
    assert "| 0.95 confidence sequence | empty: no single mean fits these topics" in result.summary("AP")


def test_command_scores_match_ir_measures(tmp_path, capsys):
    """The command's mean difference and topic count against ir_measures on the same files."""
    import ir_measures
    from conftest import small_collection, write_trec

    runs, qrels = small_collection(seed=3, n_topics=12, systems="ab")
    folder = write_trec(runs, qrels, tmp_path)
    code = main(["gate", "--qrels", str(folder / "qrels.txt"), "--baseline", str(folder / "runs" / "a.txt"),
                 "--candidate", str(folder / "runs" / "b.txt"), "--measure", "nDCG@10", "--margin", "0.01",
                 "--quiet", "--digits", "6"])
    assert code == 2
    truth = list(ir_measures.read_trec_qrels(str(folder / "qrels.txt")))

    def per_topic(name):
        run = list(ir_measures.read_trec_run(str(folder / "runs" / f"{name}.txt")))
        return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ 10], truth, run)}

    a, b = per_topic("a"), per_topic("b")
    topics = {r.query_id for r in truth}
    difference = np.mean([b.get(q, 0.0) - a.get(q, 0.0) for q in topics])
    out = capsys.readouterr().out
    assert f"(nDCG@10, {len(topics)} topics)" in out
    assert f"candidate - baseline = {difference:+.6f}" in out
