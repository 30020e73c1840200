"""ptb.leaderboard(..., sequential=True): the anytime-valid board's figures against references
computed here from ir_measures' per-topic scores in the qrels' topic order (sequential_comparisons,
confidence_sequence, compact_letter_display, rank intervals counted by hand), its files, the
command line, and the errors for what has no sequential form."""
import json
import zipfile

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import write_trec

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.leaderboards import Leaderboard
from pyterrier_boot.sequential.comparisons import sequential_comparisons
from pyterrier_boot.sequential.sequence import confidence_sequence

MEASURES = {"AP": ir_measures.AP, "nDCG@10": ir_measures.nDCG @ 10}


@pytest.fixture(scope="module")
def sim():
    """A collection whose qrels list the topics in a shuffled order (the order judged), not sorted."""
    sim = ptb.simulate_collection(n_topics=40, n_systems=6, depth=60, pool_depth=20, corpus_size=4000,
                                  matching=300, rng=4)
    order = list(np.random.default_rng(0).permutation(sorted(sim.qrels["qid"].unique())))
    position = {q: i for i, q in enumerate(order)}
    qrels = sim.qrels.iloc[np.argsort(sim.qrels["qid"].map(position).to_numpy(), kind="stable")]
    return sim.runs, qrels.reset_index(drop=True), order


@pytest.fixture(scope="module")
def boards(sim):
    runs, qrels, _ = sim
    return {c: ptb.leaderboard(runs, qrels, list(MEASURES), sequential=True, baseline="S1", correction=c)
            for c in ("bonferroni", "e-bh")}


def _scores(sim, measure):
    """``topics x runs`` per-topic scores by ir_measures, topics in the qrels' order."""
    runs, qrels, order = sim
    q = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    columns = {}
    for name, run in runs.items():
        r = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
        got = {m.query_id: m.value for m in ir_measures.iter_calc([MEASURES[measure]], q, r)}
        columns[name] = [got.get(t, 0.0) for t in order]
    return pd.DataFrame(columns, index=order)


@pytest.mark.parametrize("correction", ["bonferroni", "e-bh"])
def test_pairs_letters_and_ranks_against_references(sim, boards, correction):
    board = boards[correction]
    assert board.sequential and board.correction == correction and list(board.result.qids) == sim[2]
    frame = board.to_frame().set_index("run")
    for m in MEASURES:
        scores = _scores(sim, m)
        expected = sequential_comparisons(scores.to_numpy(), list(scores.columns), correction=correction)
        rows = board.pairwise[board.pairwise["measure"] == m].reset_index(drop=True)
        pd.testing.assert_frame_equal(rows[expected.columns], expected, atol=1e-9)
        assert (rows["reject"] == rows["decision"].isin(["better", "worse"])).all()  # one meaning of reject
        means = scores.mean()
        assert rows["mean_a"].to_numpy() == pytest.approx(means[rows["system_a"]].to_numpy(), abs=1e-9)
        letters = ptb.compact_letter_display(expected.assign(measure=m), measure=m,
                                             order=list(means.sort_values(ascending=False, kind="stable").index))
        assert board.letters[m].to_dict() == letters.to_dict()
        better = {n: 0 for n in scores}  # runs decided better than n
        worse = {n: 0 for n in scores}
        for a, b, decision in zip(expected["system_a"], expected["system_b"], expected["decision"], strict=True):
            if decision in ("better", "worse"):
                winner, loser = (a, b) if decision == "better" else (b, a)
                better[loser] += 1
                worse[winner] += 1
        for n in scores:
            assert frame.loc[n, f"{m} rank ci_low (topics, anytime)"] == 1 + better[n]
            assert frame.loc[n, f"{m} rank ci_high (topics, anytime)"] == len(scores.columns) - worse[n]
        assert 0 < expected["reject"].sum() < len(expected)  # the data decide some pairs, not all


def test_mean_intervals_are_each_runs_sequence(sim, boards):
    frame = boards["bonferroni"].to_frame().set_index("run")
    for m in MEASURES:
        scores = _scores(sim, m)
        for name in scores:
            sequence = confidence_sequence(scores[name].to_numpy(), bounds=(0, 1), confidence_level=0.95)
            assert frame.loc[name, m] == pytest.approx(scores[name].mean(), abs=1e-12)
            assert frame.loc[name, f"{m} ci_low"] == sequence.ci_low[-1]
            assert frame.loc[name, f"{m} ci_high"] == sequence.ci_high[-1]


def test_bonferroni_and_e_bh_differ_as_documented(boards):
    bonf, ebh = boards["bonferroni"], boards["e-bh"]
    assert bonf.result.values.tolist() == ebh.result.values.tolist()
    assert bonf.to_frame()["AP ci_low"].tolist() == ebh.to_frame()["AP ci_low"].tolist()  # per-run sequences
    # under both corrections a pair's interval excludes 0 exactly when it is decided (one story)
    for board in (bonf, ebh):
        pairs = board.pairwise
        assert (((pairs["ci_low"] > 0) | (pairs["ci_high"] < 0)) == pairs["reject"]).all()
    # Bonferroni reports the level alpha/K sequences; e-BH the e-BY intervals (others)
    assert bonf.pairwise["ci_low"].tolist() != ebh.pairwise["ci_low"].tolist()
    assert "Bonferroni over 15 pairs" in bonf.caption() and "simultaneous anytime-valid" in bonf.caption()
    assert "e-BH (Wang & Ramdas 2022)" in ebh.caption() and "no coverage guarantee" in ebh.caption()
    assert "Waudby-Smith & Ramdas 2024" in bonf.caption() and "in the order judged" in bonf.caption()
    assert ebh.pairwise["reject"].sum() >= bonf.pairwise["reject"].sum()  # here e-BH decides at least as much


def test_readable_outputs_name_the_rank_intervals(boards):
    board = boards["bonferroni"]
    shown = board.display_frame()
    assert "AP rank (topics, anytime)" in shown.columns and "AP rank (topics)" not in shown.columns
    for text in (board.to_markdown(), board.to_latex(), board._repr_html_()):
        assert "rank (topics, anytime)" in text and "anytime-valid" in text
    assert repr(board).startswith("Leaderboard(6 runs, 40 topics; AP:")


def test_save_load_round_trip(boards, tmp_path):
    board = boards["e-bh"]
    back = Leaderboard.load(board.save(tmp_path / "board.zip"))
    assert back.sequential and (back.test, back.correction, back.alpha) == ("betting", "e-bh", 0.05)
    pd.testing.assert_frame_equal(back.to_frame(), board.to_frame())
    pd.testing.assert_frame_equal(back.pairwise, board.pairwise)
    pd.testing.assert_frame_equal(back.letters, board.letters)
    assert np.array_equal(back.mean_intervals, board.mean_intervals)
    assert back.caption() == board.caption() and back.to_latex() == board.to_latex() and repr(back) == repr(board)
    assert list(back.result.qids) == list(board.result.qids)


def test_version_1_file_loads_as_a_fixed_board(sim, tmp_path):
    """A file as version 1 wrote it: no ``sequential`` setting, no ``mean_intervals``."""
    runs, qrels, _ = sim
    board = ptb.leaderboard(runs, qrels, ["AP"], n_resamples=200, rng=1)
    path = board.save(tmp_path / "v2.zip")
    old = tmp_path / "v1.zip"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(old, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "leaderboard.json":
                doc = json.loads(data)
                assert doc["version"] == 2
                doc["version"] = 1
                del doc["mean_intervals"], doc["settings"]["sequential"]
                data = json.dumps(doc).encode()
            target.writestr(item, data)
    back = Leaderboard.load(old)
    assert not back.sequential and back.mean_intervals is None
    pd.testing.assert_frame_equal(back.to_frame(), board.to_frame())
    assert back.caption() == board.caption()


def test_site(boards, tmp_path):
    board = boards["bonferroni"]
    folder = board.write(tmp_path / "site", title="Sequential")
    assert sorted(p.name for p in (folder / "figures").iterdir()) == ["means-1.svg", "means-2.svg"]  # no rank plot
    pd.testing.assert_frame_equal(pd.read_csv(folder / "pairwise.csv"), board.pairwise, check_dtype=False)
    table = pd.read_csv(folder / "leaderboard.csv")
    assert table["AP rank ci_low (topics, anytime)"].tolist() == board.to_frame()["AP rank ci_low (topics, anytime)"].tolist()
    page = (folder / "runs" / "S2.html").read_text()
    assert "Against the baseline S1" in page and "anytime-valid interval" in page
    assert "anytime-valid" in (folder / "index.html").read_text()


def test_defaults_and_errors(sim):
    runs, qrels, _ = sim
    board = ptb.leaderboard(runs, qrels, ["AP"], sequential=True)
    assert board.correction == "bonferroni"
    with pytest.raises(TypeError, match="'sequential' must be True or False"):
        ptb.leaderboard(runs, qrels, ["AP"], sequential="yes")
    with pytest.raises(ValueError, match="'bootstrap' must be 'topic' with sequential=True"):
        ptb.leaderboard(runs, qrels, ["AP"], sequential=True, bootstrap="corpus")
    with pytest.raises(ValueError, match="'correction' must be one of 'bonferroni', 'e-bh' with sequential=True"):
        ptb.leaderboard(runs, qrels, ["AP"], sequential=True, correction="holm")
    with pytest.raises(ValueError, match="'correction' 'e-bh' applies with sequential=True only"):
        ptb.leaderboard(runs, qrels, ["AP"], correction="e-bh", n_resamples=100)
    with pytest.raises(ValueError, match="'n_resamples' does not apply with sequential=True"):
        ptb.leaderboard(runs, qrels, ["AP"], sequential=True, n_resamples=1000)
    with pytest.raises(ValueError, match="'test' does not apply with sequential=True"):
        ptb.leaderboard(runs, qrels, ["AP"], sequential=True, test="wilcoxon")
    with pytest.raises(ValueError, match="'measures': 'NumRet' is summed over topics, not averaged.*bounded in"):
        ptb.leaderboard(runs, qrels, ["AP", "NumRet"], sequential=True)


def test_one_topic_decides_nothing(sim):
    """Valid from the first topic: one topic decides no pair (the sequences cannot exclude 0)."""
    runs, qrels, order = sim
    with pytest.warns(ptb.InputWarning, match="topics that are not in the qrels"):  # the runs' other 39 topics
        board = ptb.leaderboard(runs, qrels[qrels["qid"] == order[0]], ["AP"], sequential=True)
    assert len(board.result.qids) == 1 and not board.pairwise["reject"].any()
    frame = board.to_frame()
    assert set(frame["AP group"]) == {"a"} and set(frame["AP rank ci_low (topics, anytime)"]) == {1.0}


def test_command_line(sim, tmp_path, capsys):
    runs, qrels, _ = sim
    write_trec(runs, qrels, tmp_path)
    lines = (tmp_path / "qrels.txt").read_text().splitlines()
    assert list(dict.fromkeys(line.split()[0] for line in lines)) == sim[2]  # the judged order kept in the file
    args = ["leaderboard", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "runs"), "-m", "AP", "--quiet",
            "--sequential", "--correction", "e-bh", "-f", "csv"]
    assert main(args) == 0
    out = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    board = ptb.leaderboard(runs, qrels, ["AP"], sequential=True, correction="e-bh")
    assert out["AP rank ci_high (topics, anytime)"].tolist() == board.to_frame()["AP rank ci_high (topics, anytime)"].tolist()
    assert out["AP group"].tolist() == board.to_frame()["AP group"].tolist()
    assert main(args[:-4] + ["--sequential", "--out", str(tmp_path / "site"), "--no-plots"]) == 0
    assert "anytime-valid" in capsys.readouterr().out
    assert (tmp_path / "site" / "pairwise.csv").is_file()
    assert main(args[:-4] + ["--sequential", "--correction", "holm"]) == 1
    assert "'correction' must be one of 'bonferroni', 'e-bh'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.integration
def test_dl2020_sequential():
    """The 59 DL 2020 passage runs: the board's pairs are sequential_comparisons on its own per-topic
    scores in the qrels' order, its letters share a letter exactly for the undecided pairs."""
    from conftest import real_collection

    runs, qrels = real_collection("dl2020")
    board = ptb.leaderboard(runs, qrels, ["nDCG@10"], sequential=True)
    res = board.result
    judged = [q for q in dict.fromkeys(qrels["qid"].astype(str)) if q in set(res.qids)]
    assert list(res.qids) == judged and len(judged) == 54  # the qrels' order, the 54 judged topics
    expected = sequential_comparisons(res.values[:, :, 0].T, res.names)
    pd.testing.assert_frame_equal(board.pairwise[expected.columns], expected)
    frame = board.to_frame().set_index("run")
    for a, b, reject in zip(expected["system_a"], expected["system_b"], expected["reject"], strict=True):
        shares = bool(set(frame.loc[a, "nDCG@10 group"]) & set(frame.loc[b, "nDCG@10 group"]))
        assert shares == (not reject)
    assert (frame["nDCG@10 rank ci_low (topics, anytime)"] <= frame["nDCG@10 rank ci_high (topics, anytime)"]).all()


@pytest.mark.slow
def test_rank_intervals_cover_the_true_ranks_under_bonferroni():
    """Simultaneous coverage of the true ranks (ties: any of the tied places), 300 collections of 150
    topics with two tied runs; Bonferroni's sequences never widen, so covering at the last topic is
    covering at every topic. Measured: no miss in 1,000 such collections (the sequences are conservative)."""
    from scipy.special import beta

    from pyterrier_boot.leaderboards.anytime import decided_ranks

    k = np.array([1.0, 1.0, 1.15, 1.3, 1.6, 2.2])  # score u**k * v, u ~ Beta(2, 2), v ~ U(0.5, 1)
    truth = beta(2 + k, 2) / beta(2, 2) * 0.75
    names = tuple(f"s{i}" for i in range(len(k)))
    greater = np.array([(truth > t).sum() for t in truth])
    smaller = np.array([(truth < t).sum() for t in truth])
    rng, reps, misses, decided = np.random.default_rng(7), 300, 0, 0
    for _ in range(reps):
        x = rng.beta(2, 2, size=(150, 1)) ** k * rng.uniform(0.5, 1.0, size=(150, len(k)))
        pairs = sequential_comparisons(x, names).assign(measure="m")
        low, high = decided_ranks(pairs, names, ("m",))
        misses += bool(((low[:, 0] > 1 + greater) | (high[:, 0] < len(k) - smaller)).any())
        decided += pairs["reject"].sum()
    assert misses / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)
    assert decided / reps > 5  # the intervals are informative, not [1, 6] throughout
