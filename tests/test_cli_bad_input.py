"""``pyterrier-boot`` on bad input: one ``error: ...`` line on stderr saying what is wrong and
where, exit status 1, no traceback (``--debug`` shows it)."""
import gzip
import os
import socket

import pytest

from pyterrier_boot.cli import main

# main() prints our warnings as `warning: ...` lines, which these tests read: show them as a shell does,
# not as the errors pyproject's filterwarnings makes them elsewhere
pytestmark = pytest.mark.filterwarnings("default::pyterrier_boot.BootWarning")

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 0\n"
RUN_A = "1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n2 Q0 d3 1 3.0 a\n2 Q0 d4 2 1.5 a\n"
RUN_B = "1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n2 Q0 d4 1 3.0 b\n2 Q0 d3 2 1.5 b\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN_A)
    (tmp_path / "b.run").write_text(RUN_B)
    return tmp_path


def _fails(capsys, *argv, match):
    code = main([str(a) for a in argv] + ["--quiet"] + (["--n", "20"] if argv[0] == "evaluate" else []))
    err = capsys.readouterr().err
    assert code == 1, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    for text in [match] if isinstance(match, str) else match:
        assert text in lines[0], lines[0]
    return lines[0]


def test_good_input_works(capsys, files):
    assert main(["evaluate", "-q", str(files / "qrels.txt"), str(files / "a.run"), str(files / "b.run"),
                 "--quiet", "--n", "20"]) == 0


def test_malformed_run_line_names_file_and_line(capsys, files):
    bad = files / "bad.run.gz"
    with gzip.open(bad, "wt") as f:
        f.write(RUN_A + "2 Q0 d5 3\n")
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", files / "a.run", bad,
           match=[f"'{bad}'", "line 5", "expected 6 fields", "'2 Q0 d5 3'"])
    nan = files / "nan.run"
    nan.write_text("1 Q0 d1 1 2.0 n\n1 Q0 d2 2 high n\n")
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", nan, match=["line 2", "'high' is not a number"])


def test_run_with_no_topic_in_the_qrels(capsys, files):
    other = files / "other.run"
    other.write_text("301 Q0 d1 1 2.0 other\n302 Q0 d2 1 1.0 other\n")
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", files / "a.run", other,
           match=["run 'other' has no topic in the qrels", "'301', '302'", "'1', '2'"])


def test_run_missing_some_topics_warns(capsys, files):
    partial = files / "partial.run"
    partial.write_text("1 Q0 d1 1 2.0 partial\n")
    code = main(["evaluate", "-q", str(files / "qrels.txt"), str(files / "a.run"), str(partial), "--quiet",
                 "--n", "20"])
    err = capsys.readouterr().err
    assert code == 0
    assert "warning: 1 of 2 run(s) have no results for some of the 2 topics in the qrels" in err
    assert "partial (1)" in err


def test_two_runs_with_the_same_tag(capsys, files):
    copy = files / "copy.run"
    copy.write_text(RUN_A)
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", files / "a.run", copy,
           match=["two runs are named 'a'", "a.run", "copy.run", "own tag"])


def test_empty_qrels(capsys, files):
    empty = files / "empty.txt"
    empty.write_text("# nothing judged\n\n")
    _fails(capsys, "evaluate", "-q", empty, files / "a.run", match=["qrels file", "is empty"])


def test_unreadable_qrels(capsys, files):
    corrupt = files / "qrels.gz"
    corrupt.write_bytes(gzip.compress(QRELS.encode() * 200)[:60])  # truncated gzip
    _fails(capsys, "evaluate", "-q", corrupt, files / "a.run", match=["qrels.gz", "cannot be decompressed"])
    binary = files / "binary.qrels"
    binary.write_bytes(b"\xff\xfe\x00\x01 0 d1 1\n")
    _fails(capsys, "evaluate", "-q", binary, files / "a.run", match=["line 1", "not valid UTF-8"])
    _fails(capsys, "evaluate", "-q", files, files / "a.run", match="is a folder")
    _fails(capsys, "evaluate", "-q", files / "missing.txt", files / "a.run", match="qrels file not found")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads files without permission")
def test_qrels_without_read_permission(capsys, files):
    locked = files / "locked.txt"
    locked.write_text(QRELS)
    locked.chmod(0)
    _fails(capsys, "evaluate", "-q", locked, files / "a.run", match=["cannot read qrels file", "ermission"])


def test_unknown_measure_suggests(capsys, files):
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", files / "a.run", "-m", "AP", "nDGC@10",
           match=["unknown measure 'nDGC@10'", "did you mean 'nDCG@10'"])
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", files / "a.run", "-m", "NumRet",
           match=["summed over topics", "--bootstrap none"])


def test_unknown_baseline_suggests(capsys, files):
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", files / "a.run", files / "b.run", "-b", "bb",
           match=["unknown --baseline 'bb'", "did you mean 'b'"])


@pytest.fixture
def offline(monkeypatch):
    """No network: every connection attempt fails at once."""
    def refuse(*args, **kwargs):
        raise OSError("network disabled for this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_ir_datasets_id_not_available_offline(capsys, files, irds_home, offline):
    line = _fails(capsys, "evaluate", "-q", "irds:msmarco-passage/trec-dl-2020", files / "a.run",
                  match=["could not load the qrels", "not available offline", str(irds_home),
                         "Without internet, set IR_DATASETS_HOME to a folder holding a copy of an ir_datasets "
                         "cache", "--qrels path/to/qrels.txt"])
    assert "read_qrels(" not in line  # the hint is for the command line
    _fails(capsys, "evaluate", "-q", "irds:vaswanni", files / "a.run",
           match=["unknown ir_datasets id 'irds:vaswanni'", "'irds:vaswani'"])


def test_ir_datasets_id_in_the_cache_works(capsys, irds_home, offline, tmp_path):
    run = tmp_path / "v.run"
    run.write_text("1 Q0 1239 1 3.0 v\n1 Q0 1502 2 2.0 v\n2 Q0 1 1 1.0 v\n")
    assert main(["evaluate", "-q", "irds:vaswani", str(run), "--quiet", "--n", "20", "-m", "AP"]) == 0
    assert "93 topics" in capsys.readouterr().out


def test_output_folder_cannot_be_written(capsys, files):
    blocker = files / "a.run"  # a file where a folder should be
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", files / "a.run", "--out", blocker,
           match=["cannot write to the output folder", "not a folder"])
    _fails(capsys, "evaluate", "-q", files / "qrels.txt", files / "a.run", "--out", blocker / "report",
           match=["cannot write to the output folder", "Not a directory"])
    _fails(capsys, "demo", "--out", blocker / "demo", match="cannot write to the output folder")


def test_debug_shows_the_traceback(files):
    with pytest.raises(ValueError, match="unknown measure"):
        main(["evaluate", "-q", str(files / "qrels.txt"), str(files / "a.run"), "-m", "nDGC@10", "--debug"])
    with pytest.raises(ValueError, match="unknown measure"):
        main(["--debug", "evaluate", "-q", str(files / "qrels.txt"), str(files / "a.run"), "-m", "nDGC@10"])


def test_topics_bad_input(capsys, files):
    _fails(capsys, "topics", "-d", "0.05", "-q", files / "qrels.txt", files / "a.run",
           match="needs at least 2 runs")


def test_unjudged_topics_one_warning_for_all_runs(capsys, files):
    for name in ("x", "y", "z"):
        (files / f"{name}.run").write_text(RUN_A.replace(" a\n", f" {name}\n") + f"7 Q0 d1 1 1.0 {name}\n")
    code = main(["evaluate", "-q", str(files / "qrels.txt"), *(str(files / f"{n}.run") for n in "xyz"), "--quiet",
                 "--n", "20", "--format", "csv", "-m", "AP"])
    captured = capsys.readouterr()
    assert code == 0
    warnings = [line for line in captured.err.splitlines() if line.startswith("warning: ")]
    assert len([w for w in warnings if "not in the qrels" in w]) == 1
    assert "3 of 3 run(s) have results for topics that are not in the qrels (at most 1 per run, e.g. '7')" \
        in captured.err
    rows = [line.split(",") for line in captured.out.splitlines()[1:]]
    assert [(r[0], float(r[1])) for r in rows] == [("x", 1.0), ("y", 1.0), ("z", 1.0)]  # the 2 judged topics
