"""One suggestion routine for unknown measure names, the same at every door."""
import pandas as pd
import pytest
from conftest import small_collection

import pyterrier_boot as ptb
from pyterrier_boot.cli import main
from pyterrier_boot.experiment.experiment import MeasureError
from pyterrier_boot.measures.suggestions import did_you_mean, suggest_measures


@pytest.mark.parametrize(("text", "expected"), [
    ("map_cut10", ["map_cut_10", "AP@10"]),  # trec_eval's spelling, then ir_measures'
    ("ndcg_cut10", ["ndcg_cut_10", "nDCG@10"]),
    ("P10", ["P_10", "P@10"]),
    ("recall5", ["recall_5", "R@5"]),
    ("ndcg10", ["nDCG@10"]),  # no trec_eval family 'ndcg_10'
    ("AP10", ["AP@10"]),  # a name equal but for case beats a close one ('P')
    ("map@10", ["AP@10"]),
    ("ndcg@10", ["nDCG@10"]),
    ("mapp", ["map"]),
    ("nDGC@10", ["nDCG@10"]),
    ("P@0", []),
    ("zzz", []),
    ("ndcg@10x", ["nDCG@10"]),  # junk after the cutoff is dropped: 'nDCG@10x' would not parse
    ("nDCG@10x", ["nDCG@10"]),
    ("ndcg_cut_10x", ["ndcg_cut_10", "nDCG@10"]),
    ("ndcgg@10", ["nDCG@10"]),  # closeness ignores case
    ("AP(rel=2)x", []),
])
def test_suggestions(text, expected):
    assert suggest_measures(text) == expected
    # every suggestion is a measure (P@0 is refused)
    for spelling in expected:
        ptb.parse_measures([spelling])


def test_python_door_suggests_both_spellings():
    runs, qrels = small_collection(n_topics=3, systems="ab")
    with pytest.raises(ValueError, match=r"unknown measure 'map_cut10'.*; did you mean 'map_cut_10' or 'AP@10'\?$"):
        ptb.evaluate(runs, qrels, ["map_cut10"])


def test_experiment_door_suggests_as_parse_measures_does():
    runs, qrels = small_collection(n_topics=3, systems="ab")
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": "q"})
    for name in ("map_cut10", "nDGC@10"):
        with pytest.raises(MeasureError) as caught:
            ptb.Experiment(list(runs.values()), topics, qrels, ["map", name])
        assert str(caught.value).startswith(f"Could not convert measure {name!r}")
        assert str(caught.value).endswith(did_you_mean(name))
        assert did_you_mean(name)
        assert isinstance(caught.value, KeyError)  # pt.Experiment raises KeyError


def test_command_line_door_suggests_both_spellings(capsys, tmp_path):
    from conftest import write_trec

    runs, qrels = small_collection(n_topics=3, systems="ab")
    folder = write_trec(runs, qrels, tmp_path)
    code = main(["evaluate", "-q", str(folder / "qrels.txt"), str(folder / "runs" / "a.txt"), "-m", "AP", "map_cut10",
                 "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert "error: unknown measure 'map_cut10'" in err
    assert "did you mean 'map_cut_10' or 'AP@10'?" in err


def _mutations(text, rng):
    """Typos of ``text``: a character appended, dropped, doubled, or its case changed."""
    i = int(rng.integers(len(text)))
    char = "x0@_."[int(rng.integers(5))]
    return [text + char, text[:i] + text[i + 1:], text[:i] + text[i] * 2 + text[i + 1:], text.swapcase(),
            text[:i] + char + text[i:]]


def test_every_suggestion_for_a_typo_parses():
    """A suggestion is a measure: typed as suggested, it parses (issue 33: 'ndcg@10x' suggested 'nDCG@10x')."""
    import numpy as np

    rng = np.random.default_rng(33)
    spellings = ["nDCG@10", "AP", "map", "ndcg_cut_10", "P@5", "P_10", "recip_rank", "RR@10", "R@1000",
                 "AP(rel=2)", "RBP(p=0.8)", "Rprec", "bpref", "infAP", "ERR@20", "Q@1000", "nCG@10", "Judged@10"]
    checked = 0
    for spelling in spellings:
        for _ in range(8):
            for typo in _mutations(spelling, rng):
                for suggestion in suggest_measures(typo):
                    ptb.parse_measures([suggestion])  # raises if it does not parse
                    checked += 1
    assert checked > 300


def test_command_line_suggestion_runs(capsys, tmp_path):
    """The command line's suggestion for 'ndcg@10x' is a measure the command line then accepts."""
    from conftest import write_trec

    runs, qrels = small_collection(n_topics=3, systems="ab")
    folder = write_trec(runs, qrels, tmp_path)
    common = ["evaluate", "-q", str(folder / "qrels.txt"), str(folder / "runs" / "a.txt"), "--quiet", "-m"]
    assert main(common + ["ndcg@10x"]) == 1
    err = capsys.readouterr().err
    assert "did you mean 'nDCG@10'?" in err
    assert main(common + ["nDCG@10", "--bootstrap", "none"]) == 0
