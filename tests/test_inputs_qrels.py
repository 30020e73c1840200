"""Qrels: TREC qrels files, frames, ir_datasets and PyTerrier datasets (pyterrier_boot.inputs.qrels)."""
import collections
import gzip
import time

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

from pyterrier_boot import Qrels, read_qrels


def write(path, text, *, gz=False):
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def split_parse(text):
    """Independent reference: (qid, docno, label) for each non-blank, non-comment line."""
    rows = [f for f in map(str.split, text.splitlines()) if f and not f[0].startswith("#")]
    return [(f[0], f[2], int(f[3])) for f in rows]


def rows(qrels):
    frame = qrels.frame
    return list(zip(frame["qid"], frame["docno"], frame["label"].tolist(), strict=True))


QRELS = "301 0 d1 1\n301 0 0042 0\n0302 0 d1 2\n302 0 d9 -1\n"


# ---------------------------------------------------------------- files


@pytest.mark.parametrize("gz", [False, True])
def test_file_plain_and_gzip(tmp_path, gz):
    qrels = read_qrels(write(tmp_path / "qrels.txt", QRELS, gz=gz))
    assert isinstance(qrels, Qrels)
    assert list(qrels.frame.columns) == ["qid", "docno", "label"]
    assert qrels.frame["label"].dtype == np.int64
    assert rows(qrels) == split_parse(QRELS)  # input order; "0302" and "0042" kept as written; -1 kept
    assert qrels.corpus_size is None and qrels.source == str(tmp_path / "qrels.txt")


def test_file_comments_blank_lines_and_integral_floats(tmp_path):
    text = "# judged by NIST\n1 0 doc#1 1.0\n\n  # indented\n1\t0\td2\t0.000\r\n"
    assert rows(read_qrels(write(tmp_path / "q", text))) == [("1", "doc#1", 1), ("1", "d2", 0)]


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("1 0 d1 1\n1 0 d2\n", 2, r"expected 4 fields 'qid iter docno label', found 3"),
        ("1 0 d1 1\n1 0 d2 1 extra\n", 2, r"expected 4 fields 'qid iter docno label', found 5"),
        ("1 d1 1\n", 1, r"expected 4 fields .*, found 3"),
        ("1 0 d1 1 x\n1 0 d2 1\n", 1, r"expected 4 fields .*, found 5"),
        ("1 0 d1 1\n# c\n1 0 d2 rel\n", 3, r"label 'rel' is not an integer"),
        ("1 0 d1 1.5\n", 1, r"label '1\.5' is not an integer"),
        ("1 0 d1 nan\n", 1, r"label 'nan' is not an integer"),
        ("1 0 d1 1e20\n", 1, r"label '1e20' is not an integer"),  # beyond exact integers in float64
    ],
)
def test_malformed_line_names_file_line_and_text(tmp_path, text, line, problem):
    path = write(tmp_path / "bad.qrels", text)
    bad_line = text.split("\n")[line - 1]
    with pytest.raises(ValueError, match=rf"malformed qrels file '.*bad\.qrels', line {line}: {problem}: '{bad_line}'"):
        read_qrels(path)


def test_duplicate_pairs_in_file(tmp_path):
    path = write(tmp_path / "dup", "1 0 a 1\n2 0 a 1\n1 0 a 0\n")
    with pytest.raises(ValueError, match=r"qrels file '.*dup' judges the same docno more than once for a topic: "
                       r"qid '1' docno 'a' \(1 repeated row\(s\) in total\)"):
        read_qrels(path)


@pytest.mark.parametrize("text", ["", "# nothing\n\n"])
def test_empty_file(tmp_path, text):
    with pytest.raises(ValueError, match=r"qrels file '.*empty' is empty: no judgements"):
        read_qrels(write(tmp_path / "empty", text))


def test_missing_paths(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"qrels file not found: '.*missing\.txt'$"):
        read_qrels(str(tmp_path / "missing.txt"))
    with pytest.raises(FileNotFoundError, match=r"qrels file not found: '.*missing'$"):
        read_qrels(tmp_path / "missing")  # a PathLike is always a file
    with pytest.raises(ValueError, match=r"qrels path '.*' is a folder"):
        read_qrels(tmp_path)


# ---------------------------------------------------------------- frames


def test_pyterrier_frame():
    frame = pd.DataFrame({"qid": [1, 1, 2], "docno": ["a", "b", "a"], "label": [1.0, 0.0, -1.0],
                          "iteration": ["0", "0", "0"]})
    before = frame.copy()
    qrels = read_qrels(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert rows(qrels) == [("1", "a", 1), ("1", "b", 0), ("2", "a", -1)]
    assert qrels.source == "DataFrame"


def test_ir_measures_frame():
    frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [3], "iteration": ["Q0"]})
    assert rows(read_qrels(frame)) == [("q", "d", 3)]


@pytest.mark.parametrize(
    "labels, count, first, shown",
    [([1, 1.5, 2.5], 2, 1, "1.5"), (["1", "rel", "0"], 1, 1, "'rel'"), ([1.0, np.nan, 0.0], 1, 1, "nan"),
     ([np.inf, 1.0, 0.0], 1, 0, "inf"), ([1.0, 0.0, 1e20], 1, 2, r"1e\+20")],
)
def test_frame_non_integer_labels(labels, count, first, shown):
    frame = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "label": labels})
    qid, docno = frame.loc[first, "qid"], frame.loc[first, "docno"]
    with pytest.raises(ValueError, match=rf"qrels frame has {count} label\(s\) that are not integers, e\.g\. "
                       rf"qid '{qid}' docno '{docno}' has label {shown}; labels must be integer"):
        read_qrels(frame)


def test_frame_nullable_integer_labels():
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": pd.array([1, None], dtype="Int64")})
    with pytest.raises(ValueError, match=r"1 label\(s\) that are not integers, e\.g\. qid '1' docno 'b'"):
        read_qrels(frame)
    assert rows(read_qrels(frame.iloc[:1])) == [("1", "a", 1)]


def test_frame_missing_columns_duplicates_empty():
    with pytest.raises(ValueError, match=r"qrels frame is missing column\(s\) 'label'; it has columns "
                       r"\['qid', 'docno', 'rel'\]\. Qrels need 'qid', 'docno', 'label'"):
        read_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1]}))
    with pytest.raises(ValueError, match=r"qrels frame judges the same docno more than once for a topic: "
                       r"qid '1' docno 'a'"):
        read_qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "label": [1, 0]}))
    with pytest.raises(ValueError, match=r"qrels frame is empty: no judgements"):
        read_qrels(pd.DataFrame(columns=["qid", "docno", "label"]))


# ---------------------------------------------------------------- Qrels objects


def test_qrels_passthrough_and_corpus_size():
    qrels = read_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]}), corpus_size=10)
    assert qrels.corpus_size == 10
    assert read_qrels(qrels) is qrels
    resized = read_qrels(qrels, corpus_size=np.int64(20))
    assert resized.corpus_size == 20 and type(resized.corpus_size) is int and resized.frame is qrels.frame
    assert repr(qrels) == "Qrels(source='DataFrame', 1 judgements, 1 topics, corpus_size=10)"


@pytest.mark.parametrize("size, error, message", [
    (0, ValueError, r"'corpus_size' must be a positive integer or None, got 0"),
    (-5, ValueError, r"got -5"),
    (1.5, TypeError, r"'corpus_size' must be a positive integer or None, got float"),
    (True, TypeError, r"got bool"),
])
def test_bad_corpus_size(size, error, message):
    with pytest.raises(error, match=message):
        read_qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1]}), corpus_size=size)


def test_qrels_checks_its_frame():
    with pytest.raises(TypeError, match=r"Qrels\.frame must be a DataFrame with columns qid, docno, label \(int64\); "
                       r"build Qrels with read_qrels"):
        Qrels(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [1.0]}))


def test_bad_source_type():
    with pytest.raises(TypeError, match=r"'source' must be a Qrels, a DataFrame, a path .* got int"):
        read_qrels(3)


# ---------------------------------------------------------------- ir_datasets and PyTerrier datasets


@pytest.fixture(scope="module")
def vaswani_reference():
    """Vaswani's qrels in Terrier's TREC version: the same judgements ir_datasets parses from NPL."""
    return sorted(split_parse(shared_path("vaswani", "qrels").read_text()))


@pytest.mark.integration
@pytest.mark.parametrize("source", ["irds:vaswani", "vaswani"])
def test_irds_id(irds_home, vaswani_reference, source):
    qrels = read_qrels(source)
    assert len(qrels.frame) == 2083 and qrels.corpus_size == 11429 and qrels.source == "irds:vaswani"
    assert sorted(rows(qrels)) == vaswani_reference
    assert read_qrels(source, corpus_size=5).corpus_size == 5


@pytest.mark.integration
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame:DeprecationWarning")  # pyterrier 1.1 on pandas 3.1
def test_irds_and_pyterrier_dataset_objects(irds_home, vaswani_reference):
    import ir_datasets
    import pyterrier as pt

    for dataset in (ir_datasets.load("vaswani"), pt.get_dataset("irds:vaswani")):
        qrels = read_qrels(dataset)
        assert qrels.corpus_size == 11429 and qrels.source == "irds:vaswani"
        assert sorted(rows(qrels)) == vaswani_reference


@pytest.mark.integration
def test_irds_id_not_available_offline(irds_home, monkeypatch):
    import requests

    def offline(*args, **kwargs):
        raise requests.exceptions.ConnectionError("network disabled for this test")

    # whatever this machine's network does, downloads fail at once (ir_datasets calls requests.get)
    monkeypatch.setattr(requests, "get", offline)
    monkeypatch.setenv("IR_DATASETS_DL_TRIES", "1")
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"could not load the qrels of ir_datasets dataset "
                       r"'irds:msmarco-passage/trec-dl-2019/judged': they are not available offline .*"
                       r"Without internet, set IR_DATASETS_HOME to a folder holding a copy of an ir_datasets "
                       r"cache .* Pass a local qrels file instead"):
        read_qrels("irds:msmarco-passage/trec-dl-2019/judged")
    assert time.perf_counter() - start < 30


@pytest.mark.integration
def test_unknown_ids(irds_home):
    with pytest.raises(ValueError, match=r"unknown ir_datasets id 'irds:vaswan' for the qrels\. Did you mean 'irds:vaswani'"):
        read_qrels("irds:vaswan")
    with pytest.raises(FileNotFoundError, match=r"qrels file not found: 'no-such-qrels' \(nor is it an ir_datasets id"):
        read_qrels("no-such-qrels")


# ---------------------------------------------------------------- real files


@pytest.mark.integration
def test_robust2003_qrels_gz():
    path = shared_path("trec-robust2003", "qrels.robust2003.txt.gz")
    qrels = read_qrels(path)
    assert rows(qrels) == split_parse(gzip.decompress(path.read_bytes()).decode())
    assert len(qrels.frame) == 128796 and qrels.frame["qid"].nunique() == 100  # as the data README says
    assert set(qrels.frame["label"]) == {0, 1, 2}


@pytest.mark.integration
def test_dl2020_qrels_grades_match_readme():
    qrels = read_qrels(shared_path("trec-dl-2020-passage", "qrels.dl20-passage.txt"))
    assert qrels.frame["qid"].nunique() == 54
    assert collections.Counter(qrels.frame["label"].tolist()) == {0: 7780, 1: 1940, 2: 1020, 3: 646}


@pytest.mark.integration
def test_trec_eval_qrels_with_comments():
    plain = read_qrels(shared_path("trec_eval-tests", "qrels.test"))
    commented = read_qrels(shared_path("trec_eval-tests", "qrels.test.with-comments"))
    assert len(plain.frame) == len(commented.frame) == 3681
    # the commented copy has one docno with a '#' inside, which is data
    assert "CR#93E-1860" in set(commented.frame["docno"])
    fixed = commented.frame.assign(docno=commented.frame["docno"].str.replace("CR#93E", "CR93E"))
    assert set(zip(fixed.qid, fixed.docno, fixed.label, strict=True)) == set(rows(plain))


@pytest.mark.integration
def test_cranfield_three_column_qrels_are_refused():
    path = shared_path("cranfield", "cranqrel")
    with pytest.raises(ValueError, match=r"cranqrel', line 1: expected 4 fields 'qid iter docno label', found 3"):
        read_qrels(path)
