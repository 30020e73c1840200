"""Topics: frames, topics files and datasets (pyterrier_boot.inputs.topics)."""
import gzip

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from conftest import shared_path

from pyterrier_boot import experiment_result, read_topics

TREC = """<top>
<num> Number: 301
<title> International Organized Crime
<desc> Description:
Identify organizations.
</top>
<top>
<num> Number: 302
<title> Poliomyelitis
</top>
"""
TRECXML = """<topics>
<topic number="7"><query>black bear</query></topic>
<topic number="8"><query>solar power</query></topic>
</topics>
"""


def write(path, text, *, gz=False):
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


def test_frame_converts_qids_and_keeps_other_columns():
    frame = pd.DataFrame({"qid": [1, 2], "query": ["a b", "c"], "query_toks": [{"a": 1.0}, {"c": 1.0}]}, index=[5, 9])
    topics = read_topics(frame)
    assert topics["qid"].tolist() == ["1", "2"] and topics["query"].tolist() == ["a b", "c"]
    assert list(topics.columns) == ["qid", "query", "query_toks"] and topics.index.tolist() == [0, 1]
    assert frame["qid"].tolist() == [1, 2]  # input untouched


def test_frame_with_ir_datasets_columns():
    topics = read_topics(pd.DataFrame({"query_id": ["q1"], "text": ["hello"]}))
    assert topics[["qid", "query"]].values.tolist() == [["q1", "hello"]]


def test_frame_errors():
    with pytest.raises(ValueError, match=r"topics frame is missing column\(s\) 'query'; it has columns \['qid', 'title'\]"):
        read_topics(pd.DataFrame({"qid": ["1"], "title": ["x"]}))
    with pytest.raises(ValueError, match=r"topics frame has the same qid more than once: '1' \(1 repeated row\(s\)\)"):
        read_topics(pd.DataFrame({"qid": ["1", "1"], "query": ["x", "y"]}))
    with pytest.raises(ValueError, match=r"topics frame is empty: no topics"):
        read_topics(pd.DataFrame(columns=["qid", "query"]))
    with pytest.raises(ValueError, match=r"topics frame has 1 query value\(s\) that are not text, e\.g\. qid '2' has query nan"):
        read_topics(pd.DataFrame({"qid": ["1", "2"], "query": ["x", np.nan]}))
    with pytest.raises(ValueError, match=r"topics frame has 1 missing 'qid' value\(s\)"):
        read_topics(pd.DataFrame({"qid": ["1", None], "query": ["x", "y"]}))


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("topics.tsv", "1\tfirst query\n2\tsecond one\n", [["1", "first query"], ["2", "second one"]]),
        ("topics.txt", "1 first query\n", [["1", "first query"]]),
        ("topics.trec", TREC, [["301", "International Organized Crime"], ["302", "Poliomyelitis"]]),
        ("topics.xml", TRECXML, [["7", "black bear"], ["8", "solar power"]]),
    ],
)
def test_files_in_each_format(tmp_path, name, text, expected):
    topics = read_topics(write(tmp_path / name, text))
    assert topics[["qid", "query"]].values.tolist() == expected


def test_gzipped_trec_topics(tmp_path):
    topics = read_topics(str(write(tmp_path / "topics.trec.gz", TREC, gz=True)))
    assert topics["qid"].tolist() == ["301", "302"]


def test_format_can_be_forced(tmp_path):
    path = write(tmp_path / "t.txt", "<top> is a query\n")  # detection would say trec
    assert read_topics(path, format="singleline")["query"].tolist() == ["is a query"]
    with pytest.raises(ValueError, match=r"'format' must be one of 'trec', 'trecxml', 'singleline' or None, got 'tsv'"):
        read_topics(path, format="tsv")


def test_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"topics file not found: '.*missing\.tsv'"):
        read_topics(str(tmp_path / "missing.tsv"))
    with pytest.raises(ValueError, match=r"topics path '.*' is a folder"):
        read_topics(tmp_path)
    with pytest.raises(ValueError, match=r"topics file '.*dup\.tsv' \(read as 'singleline'\) has the same qid more than once"):
        read_topics(write(tmp_path / "dup.tsv", "1 a\n1 b\n"))
    with pytest.raises(ValueError, match=r"cannot read topics file '.*bad\.xml' as 'trecxml' topics: ParseError"):
        read_topics(write(tmp_path / "bad.xml", "<topics><topic number='1'>"))
    with pytest.raises(TypeError, match=r"'topics' must be a DataFrame, a path to a topics file, .* got list"):
        read_topics([1, 2])


@pytest.mark.parametrize("variant", ["utf-8 bom", "crlf", "cr only", "gzip", "comments", "colon"])
def test_singleline_variants_read_the_same(tmp_path, variant):
    """A byte-order mark, line endings and gzip change nothing (the BOM once became part of the first
    qid, which then dropped out of an experiment), as the run and qrels readers read them."""
    text = "1037496\twho is aziz hashim\n1043135\twho killed nicholas ii\n"
    data = {"utf-8 bom": b"\xef\xbb\xbf" + text.encode(), "crlf": text.replace("\n", "\r\n").encode(),
            "cr only": text.replace("\n", "\r").encode(), "gzip": gzip.compress(text.encode()),
            "comments": ("# DL 2020\n\n" + text).encode(), "colon": text.replace("\t", ": ").encode()}[variant]
    (tmp_path / "topics.tsv").write_bytes(data)
    topics = read_topics(tmp_path / "topics.tsv")
    assert topics[["qid", "query"]].values.tolist() == [["1037496", "who is aziz hashim"],
                                                        ["1043135", "who killed nicholas ii"]]
    if variant in ("crlf", "comments", "colon"):  # what PyTerrier reads the same (it gunzips .gz names only)
        assert topics.equals(pt.io.read_topics(str(tmp_path / "topics.tsv"), format="singleline"))


def test_bom_topic_stays_in_the_experiment(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_bytes(b"\xef\xbb\xbf1\tfirst\n2\tsecond\n")
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "b"], "label": [1, 1]})
    run = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "b"], "score": [1.0, 1.0]})
    result = experiment_result([run], path, qrels, ["AP"], bootstrap=None)
    assert result.qids == ("1", "2") and result.topics == ("1", "2")


@pytest.mark.parametrize("text, line", [("1\tfirst\n2\n3\tthird\n", 2), ("7\n", 1), ("1 a\n\n2:\n", 3),
                                        ("1 a\r2 \t\r", 2)])
def test_singleline_qid_without_query(tmp_path, text, line):
    """A qid with no query is named by its line (it once repeated the previous topic's qid, or failed
    inside PyTerrier)."""
    path = write(tmp_path / "topics.tsv", text)
    with pytest.raises(ValueError, match=rf"malformed topics file '.*topics\.tsv', line {line}: a qid and no query"):
        read_topics(path)


def test_singleline_file_errors(tmp_path):
    path = tmp_path / "latin1.tsv"
    path.write_bytes(b"1 caf\xe9\n")
    with pytest.raises(ValueError, match=r"malformed topics file '.*latin1\.tsv', line 1: not valid UTF-8 text"):
        read_topics(path)
    path.write_bytes("1 a\n".encode("utf-16"))
    with pytest.raises(ValueError, match=r"topics file '.*latin1\.tsv' is UTF-16 text"):
        read_topics(path)
    with pytest.raises(ValueError, match=r"topics file '.*empty\.tsv' \(read as 'singleline'\) is empty"):
        read_topics(write(tmp_path / "empty.tsv", "# nothing\n"))


# ---------------------------------------------------------------- real data and datasets


@pytest.mark.integration
def test_real_topic_files():
    dl20 = read_topics(shared_path("trec-dl-2020-passage", "topics.dl20.tsv"))
    lines = shared_path("trec-dl-2020-passage", "topics.dl20.tsv").read_text().splitlines()
    assert dl20[["qid", "query"]].values.tolist() == [line.split("\t", 1) for line in lines]
    robust = read_topics(shared_path("trec-robust2003", "topics.robust04.301-450.601-700.txt"))
    assert len(robust) == 250 and robust["qid"].iloc[0] == "301"


@pytest.mark.integration
def test_vaswani_topics_file_matches_ir_datasets(irds_home):
    import ir_datasets

    from_file = read_topics(shared_path("vaswani", "query-text.trec"))
    reference = {q.query_id: " ".join(q.text.split()) for q in ir_datasets.load("vaswani").queries_iter()}
    assert dict(zip(from_file["qid"], from_file["query"].map(lambda q: " ".join(q.split())), strict=True)) == reference


@pytest.mark.integration
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame:DeprecationWarning")  # pyterrier 1.1 on pandas 3.1
def test_irds_topics(irds_home):
    import ir_datasets
    import pyterrier as pt

    expected = pt.get_dataset("irds:vaswani").get_topics()
    for source in ("irds:vaswani", "vaswani", pt.get_dataset("irds:vaswani"), ir_datasets.load("vaswani")):
        topics = read_topics(source)
        assert len(topics) == 93
        assert topics["qid"].tolist() == expected["qid"].tolist()
        assert topics["query"].tolist() == expected["query"].tolist()
    with pytest.raises(ValueError, match=r"unknown ir_datasets id 'irds:vaswanii' for the topics"):
        read_topics("irds:vaswanii")


@pytest.mark.integration
def test_irds_topics_not_available_offline(irds_home, monkeypatch):
    import requests

    def offline(*args, **kwargs):
        raise requests.exceptions.ConnectionError("network disabled for this test")

    monkeypatch.setattr(requests, "get", offline)
    monkeypatch.setenv("IR_DATASETS_DL_TRIES", "1")
    with pytest.raises(ValueError, match=r"could not load the topics of 'irds:msmarco-passage/trec-dl-2019/judged': "
                       r"they are not available offline .* set IR_DATASETS_HOME to a folder holding a copy of an "
                       r"ir_datasets cache .* Pass a local topics file or frame instead"):
        read_topics("irds:msmarco-passage/trec-dl-2019/judged")
