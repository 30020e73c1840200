"""Bad measures, by rule: each is refused before any kernel or ir_measures provider sees it, with a
ValueError naming the measure and the rule (pytrec_eval aborts the process on ``P@0``, gdeval
fails on ``ERR@0``, and ``nDCG@0`` or ``AP(rel=0)`` silently give another measure's numbers)."""
import re

import ir_measures
import pandas as pd
import pytest

from pyterrier_boot import evaluate, parse_measures
from pyterrier_boot.cli import main

QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["a", "b", "c", "d", "e"], "label": [2, 1, 0, 1, 0]})
RUN = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["b", "c", "a", "e", "d"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})

CUTOFF = "the cutoff (@k) must be a positive integer"
REL = "rel must be a positive integer grade"

# (measure as the user writes it, text the error must contain besides the measure)
BAD = [
    # cutoffs: every measure that takes one, at 0 and below, non-integers, bools, too large
    ("P@0", CUTOFF), ("Success@0", CUTOFF), ("nDCG@0", CUTOFF), ("nDCG@-1", CUTOFF), ("RR@0", CUTOFF),
    ("R@0", CUTOFF), ("ERR@0", CUTOFF), ("AP@0", CUTOFF), ("Judged@0", CUTOFF), ("nCG@0", CUTOFF),
    ("Q@0", CUTOFF), ("P@-5", CUTOFF), ("P@1.5", CUTOFF), ("P@True", CUTOFF), ("P@'10'", CUTOFF),
    ("P@3000000000", CUTOFF), ("alpha_nDCG@0", CUTOFF), ("StRecall@0", CUTOFF), ("nDCG@0.0", CUTOFF),
    # trec_eval spellings of the same
    ("P.0", CUTOFF), ("P_0", CUTOFF), ("success.0", CUTOFF), ("ndcg_cut.0", CUTOFF), ("map_cut_0", CUTOFF),
    ("recall_0", CUTOFF),
    # relevance levels
    ("AP(rel=0)", REL), ("AP(rel=-1)", REL), ("P(rel=0)@5", REL), ("R(rel=0)@10", REL), ("RR(rel=0)", REL),
    ("Rprec(rel=0)", REL), ("Bpref(rel=0)", REL), ("infAP(rel=0)", REL), ("Success(rel=0)@1", REL),
    ("Q(rel=0)", REL), ("RBP(p=0.5, rel=0)", REL), ("SetP(rel=0)", REL), ("NumRel(rel=0)", REL),
    ("AP(rel=1.5)", REL), ("AP(rel=True)", REL),
    # persistence and other real parameters
    ("RBP(p=0)", "p must be a number strictly between 0 and 1"),
    ("RBP(p=1)", "p must be a number strictly between 0 and 1"),
    ("RBP(p=1.5)", "p must be a number strictly between 0 and 1"),
    ("RBP(p=-0.2)", "p must be a number strictly between 0 and 1"),
    ("Compat(p=1.0)", "p must be a number strictly between 0 and 1"),
    ("INST(T=0, max_rel=1)", "T must be a finite number greater than 0"),
    ("INSQ(T=-1.0, max_rel=1)", "T must be a finite number greater than 0"),
    ("Q(beta=-1.0)", "beta must be a finite number of at least 0"),
    ("NRBP(beta=2.0)", "beta must be a number from 0 to 1"),
    ("alpha_nDCG(alpha=1.5)@5", "alpha must be a number from 0 to 1"),
    ("IPrec@1.5", "recall must be a number from 0 to 1"),
    ("INSQ(min_rel=2, max_rel=1)", "min_rel must be below max_rel"),
    ("INST(max_rel=0)", "min_rel must be below max_rel, got min_rel=0, max_rel=0"),
    ("INSQ(min_rel=-1, max_rel=1)", "min_rel must be an integer grade of at least 0"),
    ("nDCG(gains={})", "gains must be a dict from integer grades to finite gains"),
    ("nDCG(gains={1.5: 1})", "gains must be a dict from integer grades to finite gains"),
    ("nDCG(gains={1: 'x'})", "gains must be a dict from integer grades to finite gains"),
    ("nDCG(gains=[1, 2])", "gains must be a dict from integer grades to finite gains"),
    ("AP(judged_only=1)", "judged_only must be True or False"),
    ("nDCG(dcg='log10')", "dcg must be one of 'log2', 'exp-log2'"),
    # unknown and missing parameters
    ("AP(foo=1)", "unknown parameter(s) 'foo'; AP accepts @k, rel, judged_only"),
    ("RBP(q=0.5)", "unknown parameter(s) 'q'; RBP accepts @k, p, rel"),
    ("NumQ(rel=1)", "unknown parameter(s) 'rel'; NumQ accepts no parameters"),
    ("INSQ(T=1.0)", "parameter 'max_rel' is required"),
]


@pytest.mark.parametrize(("measure", "rule"), BAD, ids=[m for m, _ in BAD])
def test_bad_measure_is_refused_naming_measure_and_rule(measure, rule):
    with pytest.raises(ValueError) as raised:
        parse_measures([measure])
    message = str(raised.value)
    assert rule in message
    assert "measure '" in message or 'measure "' in message
    shown = re.sub(r"^.*?measure ['\"](.+?)['\"]: .*$", r"\1", message)
    assert shown in (measure, str(parse_measure_name(measure)))


def parse_measure_name(text):
    """ir_measures' own spelling of a trec_eval family member (the label such members get)."""
    try:
        return ir_measures.parse_trec_measure(text)[0]
    except (ValueError, KeyError, IndexError):
        return text


# The cases that crashed or gave wrong numbers, through evaluate(): refused before anything runs.
@pytest.mark.parametrize("measure", ["P@0", "Success@0", "nDCG@0", "nDCG@-1", "RR@0", "R@0", "ERR@0",
                                     "AP(rel=0)", "AP(rel=-1)", "SetP(rel=0)", "Judged@0"])
def test_evaluate_refuses_before_any_provider(measure):
    with pytest.raises(ValueError, match=re.escape(f"measure '{measure}'")):
        evaluate(RUN, QRELS, ["AP", measure])


@pytest.mark.parametrize("measure", [ir_measures.P @ 0, ir_measures.AP(rel=0), ir_measures.RBP(p=1.5),
                                     ir_measures.Success @ 0], ids=str)
def test_measure_objects_are_checked_too(measure):
    with pytest.raises(ValueError, match=re.escape(f"measure '{measure}'")):
        evaluate(RUN, QRELS, [measure])


def test_integer_for_a_real_parameter_is_read_as_float():
    [lm] = parse_measures(["INST(T=2, max_rel=2)"])
    assert lm.label == "INST(T=2, max_rel=2)"
    assert lm.measure.params["T"] == 2.0 and isinstance(lm.measure.params["T"], float)
    values = evaluate(RUN, QRELS, ["INST(T=2, max_rel=2)", "INST(T=2.0, max_rel=2)"])["value"].to_numpy()
    assert values[0] == values[1] and values[0] > 0


@pytest.mark.parametrize("measure", ["P@1", "nDCG@1", "AP(rel=2)", "RBP(p=0.01)", "RBP(p=0.99)", "IPrec@0.0",
                                     "IPrec@1.0", "Q(beta=0.0)", "nDCG(gains={0: 0, 1: 1, 2: 5})",
                                     "official", "set_P", "P_5,10"])
def test_edge_values_inside_the_rules_are_accepted(measure):
    assert parse_measures([measure])


def _cli_fails(capsys, tmp_path, *measures):
    (tmp_path / "qrels.txt").write_text("1 0 a 2\n1 0 b 1\n2 0 d 1\n2 0 e 0\n")
    (tmp_path / "a.run").write_text("1 Q0 b 1 3 a\n1 Q0 a 2 1 a\n2 Q0 e 1 2 a\n2 Q0 d 2 1 a\n")
    code = main(["evaluate", "-q", str(tmp_path / "qrels.txt"), str(tmp_path / "a.run"), "--quiet", "--n", "20",
                 "-m", *measures])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(("measure", "rule"), [("P@0", CUTOFF), ("Success@0", CUTOFF), ("ERR@0", CUTOFF),
                                               ("AP(rel=0)", REL), ("RBP(p=2.0)", "strictly between 0 and 1"),
                                               ("AP(foo=1)", "unknown parameter(s) 'foo'")])
def test_cli_refuses_bad_measures(capsys, tmp_path, measure, rule):
    line = _cli_fails(capsys, tmp_path, "AP", measure)
    assert f"measure '{measure}'" in line and rule in line


# Every parameter at the edges its rule allows, for every measure pyterrier_boot parses: a finite
# value or a clear ValueError (our rules, or "cannot compute"), never an abort or a provider's exception.
EDGES = {"cutoff": [1, 2**31 - 1], "rel": [1, 100], "p": [1e-9, 0.999999], "T": [1e-9, 1e9], "beta": [0.0, 1e9],
         "alpha": [0.0, 1.0], "recall": [0.0, 1.0], "min_rel": [0], "max_rel": [1, 5], "judged_only": [True],
         "normalize": [False], "relative": [True], "gains": [{0: -1, 1: 2}, {5: 1}], "dcg": ["exp-log2"]}
EDGE_QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2", "3"], "docno": ["a", "b", "c", "d", "e", "f"],
                           "label": [1, 0, 2, 0, -1, 0]})
EDGE_RUN = pd.DataFrame({"qid": ["1", "1", "2", "2", "2", "4"], "docno": ["b", "a", "c", "d", "e", "z"],
                         "score": [2.0, 1.0, 3.0, 1.0, 1.0, 0.0]})


def _registry_names():
    from pyterrier_boot.measures.suggestions import measure_registry

    return sorted(measure_registry())


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", _registry_names())
def test_edge_parameters_never_crash_a_provider(name):
    from pyterrier_boot.measures.suggestions import measure_registry

    measure = measure_registry()[name]
    required = {p: EDGES[p][0] for p, info in measure.SUPPORTED_PARAMS.items() if info.required}
    variants = [required] + [{**required, p: v} for p in measure.SUPPORTED_PARAMS for v in EDGES.get(p, [])]
    for params in variants:
        m = measure(**params) if params else measure
        try:
            values = evaluate(EDGE_RUN, EDGE_QRELS, [m])["value"].to_numpy()
        except ValueError as error:
            assert str(error).startswith((f"cannot compute '{m}'", f"measure '{m}'", f'measure "{m}"')), error
            continue
        assert (values >= 0).all() and len(values) == 3, (m, values)
