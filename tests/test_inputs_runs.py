"""Runs: TREC run files, result frames and transformers (pyterrier_boot.inputs.runs)."""
import gzip
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from pyterrier_boot import read_run, read_runs
from pyterrier_boot.inputs.runs import _parse_run_lines


def write(path, text, *, gz=False):
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def split_parse(text):
    """Independent reference: split each non-blank, non-comment line, as trec_eval does."""
    rows = [fields for fields in map(str.split, text.splitlines()) if fields and not fields[0].startswith("#")]
    return {
        "qid": [f[0] for f in rows],
        "docno": [f[2] for f in rows],
        "score": np.array([float(f[4]) for f in rows], dtype=float),
    }


def assert_run_equal(run, reference):
    assert list(run.columns) == ["qid", "docno", "score"]
    assert run["score"].dtype == np.float64
    assert run["qid"].tolist() == list(reference["qid"])
    assert run["docno"].tolist() == list(reference["docno"])
    np.testing.assert_array_equal(run["score"].to_numpy(), np.asarray(reference["score"], dtype=float))


RUN = "01 Q0 d3 1 2.5 tagA\n01 Q0 0042 2 3.5 tagA\n2 Q0 d1 1 -1e-3 tagA\n"


# ---------------------------------------------------------------- files


def test_file_keeps_ids_as_written_and_input_order(tmp_path):
    run = read_run(write(tmp_path / "run.txt", RUN))
    assert_run_equal(run, split_parse(RUN))
    assert run["qid"].tolist() == ["01", "01", "2"]  # never ints: "01" stays "01"
    assert run["docno"].tolist() == ["d3", "0042", "d1"]  # not sorted by score
    assert pd.api.types.is_string_dtype(run["qid"]) and pd.api.types.is_string_dtype(run["docno"])


@pytest.mark.parametrize("name", ["run.txt.gz", "run.txt"])
def test_gzip_recognised_by_magic_bytes(tmp_path, name):
    run = read_run(write(tmp_path / name, RUN, gz=True))
    assert_run_equal(run, split_parse(RUN))


def test_plain_file_named_gz_is_read_as_plain(tmp_path):
    assert_run_equal(read_run(write(tmp_path / "run.gz", RUN)), split_parse(RUN))


def test_comments_blank_lines_and_hash_in_docno(tmp_path):
    text = "# header comment\n1 Q0 doc#1 1 2 t\n\n   \n  # indented comment\n1 Q0 d#2 2 1 t\n"
    run = read_run(write(tmp_path / "run", text))
    assert run["docno"].tolist() == ["doc#1", "d#2"]


def test_whitespace_variants_and_extra_fields(tmp_path):
    # tabs and spaces mixed, leading blanks, CRLF, and fields after the tag (trec_eval ignores them)
    text = "1\tQ0\td1\t1\t  2.25\tt more junk\r\n  1 Q0  d2 2 1.5\tt\r\n1 Q0 d3 3 1 t a b c d\r\n"
    assert_run_equal(read_run(write(tmp_path / "run", text)), split_parse(text))


def test_quotes_are_ordinary_characters(tmp_path):
    text = '1 Q0 "d1 1 2 t\n1 Q0 d2" 2 1 t\n'
    assert read_run(write(tmp_path / "run", text))["docno"].tolist() == ['"d1', 'd2"']


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("1 Q0 d1 1 2 t\n1 Q0 d2 2 1\n", 2, r"expected 6 fields 'qid Q0 docno rank score tag', found 5"),
        ("1 Q0 d1 1 2 t\n\n1 Q0\n", 3, r"expected 6 fields .*, found 2"),
        ("1 Q0 d1 1 2\n1 Q0 d2 2 1 t\n", 1, r"expected 6 fields .*, found 5"),
        ("1 Q0 d1 1 2 t\n# c\n1 Q0 d2 2 high t\n", 3, r"score 'high' is not a number"),
        ("1 Q0 d1 1 nan t\n", 1, r"score 'nan' is not a finite number"),
        ("1 Q0 d1 1 2 t\n1 Q0 d2 2 -inf t\n", 2, r"score '-inf' is not a finite number"),
        ("1 Q0 d1 1 1e400 t\n", 1, r"score '1e400' is not a finite number"),
        ("1 Q0 d1 1 1_0 t\n", 1, r"score '1_0' is not a number"),
        ("1 Q0 d1 1 1,5 t\n", 1, r"score '1,5' is not a number"),
    ],
)
def test_malformed_line_names_file_line_and_text(tmp_path, text, line, problem):
    path = write(tmp_path / "bad.run", text)
    bad_line = text.split("\n")[line - 1]
    with pytest.raises(ValueError, match=rf"run file '.*bad\.run', line {line}: {problem}: '{bad_line}'"):
        read_run(path)


def test_malformed_line_in_gzip_file(tmp_path):
    path = write(tmp_path / "bad.gz", "1 Q0 d1 1 2 t\n1 Q0 d2 2 x t\n", gz=True)
    with pytest.raises(ValueError, match=r"bad\.gz', line 2: score 'x' is not a number"):
        read_run(path)


def test_long_malformed_line_is_truncated(tmp_path):
    path = write(tmp_path / "bad", "1 Q0 " + "d" * 500 + "\n")
    with pytest.raises(ValueError, match=r"line 1: expected 6 fields .*: '1 Q0 d{72}\.\.\.'$"):
        read_run(path)


def test_invalid_utf8_is_reported_with_line(tmp_path):
    path = write(tmp_path / "bad", b"1 Q0 d1 1 2 t\n1 Q0 d\xff 2 1 t\n")
    with pytest.raises(ValueError, match=r"line 2: not valid UTF-8 text"):
        read_run(path)


def test_duplicate_docno_for_a_topic(tmp_path):
    path = write(tmp_path / "dup", "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 a 1 3 t\n1 Q0 a 3 1 t\n1 Q0 b 4 0 t\n")
    with pytest.raises(ValueError, match=r"run file '.*dup' has the same docno more than once for a topic: "
                       r"qid '1' docno 'a' \(2 repeated row\(s\) in total\)\. trec_eval refuses"):
        read_run(path)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"run file not found: '.*nothere\.txt'"):
        read_run(tmp_path / "nothere.txt")
    with pytest.raises(ValueError, match=r"run path '.*' is a folder"):
        read_run(tmp_path)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_empty_file(tmp_path, text):
    with pytest.raises(ValueError, match=r"run file '.*empty' is empty: it has no results"):
        read_run(write(tmp_path / "empty", text))


def test_corrupt_gzip(tmp_path):
    path = write(tmp_path / "run.gz", gzip.compress(RUN.encode())[:30])
    with pytest.raises(ValueError, match=r"gzip-compressed but cannot be decompressed"):
        read_run(path)


def test_name_labels_messages(tmp_path):
    with pytest.raises(ValueError, match=r"run 'bm25' \(file '.*'\) is empty"):
        read_run(write(tmp_path / "e", ""), name="bm25")


score_text = st.floats(allow_nan=False, allow_infinity=False).flatmap(
    lambda x: st.sampled_from([repr(x), f"{x:.6f}", f"{x:.17e}", f"{x:g}", str(int(x)) if abs(x) < 1e15 else repr(x)])
)
run_line = st.tuples(
    st.from_regex(r"[A-Za-z0-9#._-]{1,6}", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9#._/-]{1,8}", fullmatch=True),
    score_text,
    st.sampled_from([" ", "\t", "  ", " \t "]),
    st.sampled_from(["", " extra", "\tx y"]),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(run_line, min_size=1, max_size=30, unique_by=lambda r: (r[0], r[1])))
def test_fast_and_exact_parsers_agree_with_reference(lines):
    text = "".join(
        f"{q}{sep}Q0{sep}{d}{sep}{i}{sep}{s}{sep}tag{extra}\n" for i, (q, d, s, sep, extra) in enumerate(lines)
    )
    # leading '#' would make a comment; the reference parser handles that too
    reference = split_parse(text)
    exact = _parse_run_lines(text.encode(), "x")
    assert exact[0].tolist() == reference["qid"] and exact[2].tolist() == reference["docno"]
    np.testing.assert_array_equal(exact[4].to_numpy(), reference["score"])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run"
        path.write_text(text)
        if reference["qid"]:
            assert_run_equal(read_run(path), reference)
        else:
            with pytest.raises(ValueError, match="is empty"):
                read_run(path)


# ---------------------------------------------------------------- frames


def test_pyterrier_frame_is_copied_and_converted():
    frame = pd.DataFrame({"qid": [301, 301, 302], "docno": ["b", "a", "a"], "score": [1, 2, 3],
                          "rank": [1, 0, 0], "query": ["q", "q", "r"]})
    before = frame.copy()
    run = read_run(frame)
    pd.testing.assert_frame_equal(frame, before)  # input untouched
    assert list(run.columns) == ["qid", "docno", "score"]
    assert run["qid"].tolist() == ["301", "301", "302"]
    assert run["score"].dtype == np.float64 and run["score"].tolist() == [1.0, 2.0, 3.0]
    run.loc[0, "score"] = 99.0
    assert frame.loc[0, "score"] == 1


def test_ir_measures_frame():
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["x", "y"], "score": [0.5, 0.25]})
    run = read_run(frame)
    assert run["docno"].tolist() == ["x", "y"] and run["qid"].tolist() == ["1", "1"]


def test_frame_with_nondefault_index():
    frame = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "a"], "score": [1.0, 2.0]}, index=[7, 3])
    run = read_run(frame)
    assert run.index.tolist() == [0, 1] and run["qid"].tolist() == ["1", "2"]


def test_frame_missing_columns():
    frame = pd.DataFrame({"qid": ["1"], "docid": ["a"], "rank": [0]})
    with pytest.raises(ValueError, match=r"run is missing column\(s\) 'docno', 'score'; it has columns "
                       r"\['qid', 'docid', 'rank'\]\. A run needs 'qid', 'docno', 'score'"):
        read_run(frame)


@pytest.mark.parametrize(
    "scores, count, first, shown",
    [([1.0, np.nan, np.nan], 2, 1, "nan"), ([1.0, 2.0, np.inf], 1, 2, "inf"), (["1.5", "high", "2"], 1, 1, "'high'"),
     ([None, 1.0, 2.0], 1, 0, "nan")],
)
def test_frame_bad_scores(scores, count, first, shown):
    frame = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "score": scores})
    qid, docno = frame.loc[first, "qid"], frame.loc[first, "docno"]
    with pytest.raises(ValueError, match=rf"run has {count} score\(s\) that are NaN, infinite or not numeric, e\.g\. "
                       rf"qid '{qid}' docno '{docno}' has score {shown}; every result needs a finite score"):
        read_run(frame)


def test_frame_numeric_strings_are_scores():
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": ["1.5", "2"]})
    assert read_run(frame)["score"].tolist() == [1.5, 2.0]


def test_frame_duplicates_and_empty():
    frame = pd.DataFrame({"qid": [1, 1, 1], "docno": ["a", "b", "a"], "score": [3, 2, 1]})
    with pytest.raises(ValueError, match=r"run 'x' has the same docno more than once for a topic: qid '1' docno 'a' "
                       r"\(1 repeated row\(s\) in total\)"):
        read_run(frame, name="x")
    with pytest.raises(ValueError, match=r"run is empty: it has no results"):
        read_run(pd.DataFrame(columns=["qid", "docno", "score"]))


@pytest.mark.parametrize("qids, shown", [([1.0, 2.0], r"1\.0 \(float\)"), ([True, False], r"True \(bool\)")])
def test_frame_ids_that_are_not_strings(qids, shown):
    frame = pd.DataFrame({"qid": qids, "docno": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match=rf"run has 2 'qid' value\(s\) that are not strings or integers, e\.g\. {shown}"):
        read_run(frame)


@pytest.mark.parametrize("docnos", [["a", None], ["a", np.nan], pd.Series(["a", None], dtype=object)])
def test_frame_missing_ids(docnos):
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": docnos, "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"run has 1 missing 'docno' value\(s\) \(NaN or None\), the first at row 1"):
        read_run(frame)


def test_frame_mixed_int_and_str_ids():
    frame = pd.DataFrame({"qid": pd.Series([1, "02"], dtype=object), "docno": ["a", "b"], "score": [1.0, 2.0]})
    assert read_run(frame)["qid"].tolist() == ["1", "02"]


def test_bad_source_type():
    with pytest.raises(TypeError, match=r"'source' must be a path to a TREC run file or a DataFrame, got int"):
        read_run(42)


# ---------------------------------------------------------------- read_runs


@pytest.fixture
def run_folder(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    write(folder / "b.txt.gz", "1 Q0 a 1 2 beta\n1 Q0 b 2 1 beta\n", gz=True)
    write(folder / "a.txt", "1 Q0 a 1 2 alpha\n")
    write(folder / "c.run.gz", "1 Q0 a 1 2 t1\n2 Q0 a 1 2 t2\n", gz=True)  # two tags: named by file
    write(folder / ".hidden", "not a run")
    (folder / "sub").mkdir()
    return folder


def test_read_runs_folder(run_folder):
    runs = read_runs(run_folder)
    assert list(runs) == ["alpha", "beta", "c.run"]  # sorted by file name; hidden files and folders skipped
    assert runs["beta"]["docno"].tolist() == ["a", "b"]


def test_read_runs_list_names_and_frames(run_folder):
    frame = pd.DataFrame({"qid": ["1"], "docno": ["z"], "score": [1.0]})
    named = frame.assign(name="bm25")
    runs = read_runs([frame, run_folder / "a.txt", named, frame])
    assert list(runs) == ["run 0", "alpha", "bm25", "run 3"]
    runs = read_runs([frame, run_folder / "a.txt"], names=["x", "y"])
    assert list(runs) == ["x", "y"]
    with pytest.raises(ValueError, match=r"'names' has 1 name\(s\) but there are 3 runs"):
        read_runs(run_folder, names=["x"])


def test_read_runs_single_frame_and_dict(run_folder):
    frame = pd.DataFrame({"qid": ["1"], "docno": ["z"], "score": [1.0]})
    assert list(read_runs(frame)) == ["run 0"]
    runs = read_runs({"mine": frame, "theirs": str(run_folder / "a.txt")})
    assert list(runs) == ["mine", "theirs"]
    with pytest.raises(ValueError, match=r"'names' cannot be combined with a dict"):
        read_runs({"mine": frame}, names=["x"])
    with pytest.raises(ValueError, match=r"runs\['f'\] is the folder '.*runs': a dict value must be a single run"):
        read_runs({"f": run_folder})


def test_read_runs_duplicate_names(run_folder, tmp_path):
    other = write(tmp_path / "other.txt", "1 Q0 q 1 2 alpha\n")
    with pytest.raises(ValueError, match=r"two runs are named 'alpha': file '.*a\.txt' and file '.*other\.txt'"):
        read_runs([run_folder / "a.txt", other])
    frame = pd.DataFrame({"qid": ["1"], "docno": ["z"], "score": [1.0]})
    with pytest.raises(ValueError, match=r"two runs are named 'x': the DataFrame at position 0 and "
                       r"the DataFrame at position 1"):
        read_runs([frame, frame], names=["x", "x"])


def test_read_runs_errors_name_the_run(tmp_path):
    bad = write(tmp_path / "bad.txt", "1 Q0 a 1 oops t\n")
    with pytest.raises(ValueError, match=r"bad\.txt', line 1: score 'oops'"):
        read_runs([bad])
    with pytest.raises(ValueError, match=r"run 'r' is missing column\(s\) 'score'"):
        read_runs({"r": pd.DataFrame({"qid": ["1"], "docno": ["a"]})})


def test_read_runs_bad_arguments(tmp_path):
    frame = pd.DataFrame({"qid": ["1"], "docno": ["z"], "score": [1.0]})
    with pytest.raises(TypeError, match=r"runs\[1\] must be a path to a run file or folder, a DataFrame or a "
                       r"PyTerrier Transformer, got int"):
        read_runs([frame, 3])
    with pytest.raises(TypeError, match=r"runs\[0\] is a list: runs can be nested one level only"):
        read_runs([[tmp_path]])
    with pytest.raises(ValueError, match=r"'runs' is empty"):
        read_runs([])
    with pytest.raises(ValueError, match=r"run folder '.*' has no run files"):
        read_runs(tmp_path)
    with pytest.raises(ValueError, match=r"'batch_size' must be a positive integer or None, got 0"):
        read_runs(tmp_path, batch_size=0)


@pytest.fixture
def transformer():
    import pyterrier as pt

    results = pd.DataFrame({"qid": ["1", "1", "2", "3"], "docno": ["a", "b", "a", "c"], "score": [2.0, 1.0, 3.0, 0.5]})
    return pt.Transformer.from_df(results), results


def test_read_runs_transformer(transformer):
    system, results = transformer
    topics = pd.DataFrame({"qid": [1, 2], "query": ["one", "two"]})  # int qids: read_topics makes them str
    runs = read_runs(system, topics=topics)
    assert list(runs) == [str(system)]  # named as pt.Experiment names it
    assert_run_equal(runs[str(system)], results[results.qid.isin(["1", "2"])])
    batched = read_runs({"s": system}, topics=topics, batch_size=1, verbose=True)
    pd.testing.assert_frame_equal(batched["s"], runs[str(system)])


def test_read_runs_transformer_needs_topics(transformer):
    system, _ = transformer
    with pytest.raises(ValueError, match=r"'topics' are needed to run transformer <.*>; pass topics="):
        read_runs([system])


def test_read_runs_transformer_without_results(transformer):
    system, _ = transformer
    topics = pd.DataFrame({"qid": ["9"], "query": ["none"]})
    with pytest.raises(ValueError, match=r"run 'empty' \(the output of transformer .* on 1 topics\) is empty"):
        read_runs({"empty": system}, topics=topics)
    with pytest.raises(ValueError, match=r"is empty"):
        read_runs({"empty": system}, topics=topics, batch_size=1)


# ---------------------------------------------------------------- real data


@pytest.mark.integration
@pytest.mark.slow  # 6 s: all 59 runs through both readers
def test_all_dl2020_runs_against_pyterrier_reader():
    import pyterrier as pt

    folder = shared_path("trec-dl-2020-passage", "runs")
    start = time.perf_counter()
    runs = read_runs(folder)
    elapsed = time.perf_counter() - start
    files = sorted(folder.iterdir())
    assert len(runs) == len(files) == 59
    for (name, run), path in zip(runs.items(), files, strict=True):
        reference = pt.io.read_results(str(path))  # pyterrier's own reader, independent of ours
        assert_run_equal(run, reference)
        tags = reference["name"].astype(str).unique()
        assert name == (tags[0] if len(tags) == 1 else path.name[:-3])
    assert elapsed < 30, f"reading the 59 DL 2020 runs took {elapsed:.1f} s"


@pytest.mark.integration
@pytest.mark.parametrize("run_file", ["input.bert_6.gz", "input.CoRT-bm25.gz", "input.TF_IDF_d_2_t_50.gz"])
def test_dl2020_runs_against_split_parse(run_file):
    path = shared_path("trec-dl-2020-passage", "runs", run_file)
    assert_run_equal(read_run(path), split_parse(gzip.decompress(path.read_bytes()).decode()))


@pytest.mark.integration
def test_robust2003_runs_against_split_parse():
    folder = shared_path("trec-robust2003", "runs")
    runs = read_runs(folder)
    assert len(runs) == 17
    path = sorted(folder.iterdir())[0]
    assert_run_equal(next(iter(runs.values())), split_parse(gzip.decompress(path.read_bytes()).decode()))


@pytest.mark.integration
def test_trec_eval_test_runs():
    # results.trunc has junk after the run tag, which trec_eval ignores
    trunc = shared_path("trec_eval-tests", "results.trunc")
    assert_run_equal(read_run(trunc), split_parse(trunc.read_text()))
    commented = shared_path("trec_eval-tests", "results.comment.test.gz")
    run = read_run(commented)
    assert_run_equal(run, split_parse(gzip.decompress(commented.read_bytes()).decode()))
    assert run["docno"].str.contains("#").all()  # '#' inside docnos is data, not a comment


@pytest.mark.integration
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame:DeprecationWarning")  # pyterrier 1.1 on pandas 3.1
def test_pisa_bm25_on_vaswani_through_read_runs(irds_home, tmp_path):
    pisa = pytest.importorskip("pyterrier_pisa")
    import pyterrier as pt

    dataset = pt.get_dataset("irds:vaswani")
    index = pisa.PisaIndex(str(tmp_path / "vaswani.pisa"), text_field="text", threads=1)
    index.index(dataset.get_corpus_iter(verbose=False))
    bm25 = index.bm25(num_results=100)
    runs = read_runs({"BM25": bm25}, topics="irds:vaswani")
    run = runs["BM25"]
    reference = bm25.transform(dataset.get_topics())  # the transformer's own output
    assert_run_equal(run, reference)
    assert run["qid"].nunique() == 93
    assert run.groupby("qid").size().max() == 100
