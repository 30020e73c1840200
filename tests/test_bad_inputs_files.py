"""Bad run and qrels files: each a ValueError (FileNotFoundError for a missing path) naming the file
and, for a malformed line, its number, through the readers and the command line; and fuzzing of both
readers against a plain line-by-line reading of trec_eval's rules."""
import gzip
import math
import re

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyterrier_boot import (
    CorpusBootstrap,
    evaluate,
    experiment_result,
    read_qrels,
    read_run,
    read_runs,
)
from pyterrier_boot.cli import main

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 0\n"
RUN = "1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n2 Q0 d3 1 3.0 a\n2 Q0 d4 2 1.5 a\n"
QRELS_FRAME = pd.DataFrame([line.split() for line in QRELS.splitlines()], columns=["qid", "it", "docno", "label"])

# (case, file content, texts the error must hold besides the file name)
BAD_RUNS = [
    ("five fields", RUN + "2 Q0 d5 3 0.5\n", ["line 5", "expected 6 fields", "found 5", "'2 Q0 d5 3 0.5'"]),
    ("three fields", "1 Q0 d1\n" + RUN, ["line 1", "expected 6 fields", "found 3"]),
    ("one field", RUN + "x\n", ["line 5", "found 1"]),
    ("truncated last line", RUN + "2 Q0 d5 3 0", ["line 5", "found 5"]),
    ("word score", RUN.replace("1.5", "high"), ["line 4", "score 'high' is not a number"]),
    ("nan score", RUN.replace("1.5", "nan"), ["line 4", "score 'nan' is not a finite number"]),
    ("inf score", RUN.replace("3.0", "inf"), ["line 3", "score 'inf' is not a finite number"]),
    ("-inf score", RUN.replace("3.0", "-Infinity"), ["line 3", "is not a finite number"]),
    ("overflowing score", RUN.replace("3.0", "1e999"), ["line 3", "not a finite number"]),
    ("underscore score", RUN.replace("3.0", "1_000"), ["line 3", "score '1_000' is not a number"]),
    ("comma decimal", RUN.replace("1.5", "1,5"), ["line 4", "score '1,5' is not a number"]),
    ("arabic-indic digits", RUN.replace("1.5", "\u0661\u0662"), ["line 4", "is not a number", "ASCII digits"]),
    ("fullwidth digits", RUN.replace("1.5", "\uff11\uff12"), ["line 4", "is not a number", "ASCII digits"]),
    ("no-break space", RUN.replace("1.5", "1.5\xa0"), ["line 4", "score '1.5\\xa0' is not a number"]),
    ("latin-1 docno", RUN + "2 Q0 caf\xe9 3 0.5 a\n", ["line 5", "not valid UTF-8"]),
    ("repeated document", RUN + "2 Q0 d3 3 0.5 a\n", ["same docno more than once", "qid '2' docno 'd3'"]),
    ("empty", "", ["is empty"]),
    ("only comments", "# a comment\n\n   \n# another\n", ["is empty"]),
]
BAD_QRELS = [
    ("three fields", QRELS + "2 0 d5\n", ["line 5", "expected 4 fields", "found 3"]),
    ("five fields", QRELS + "2 0 d5 1 extra\n", ["line 5", "expected 4 fields", "found 5"]),
    ("run given as qrels", RUN, ["line 1", "expected 4 fields", "found 6"]),
    ("word label", QRELS.replace("d3 2", "d3 rel"), ["line 3", "label 'rel' is not an integer"]),
    ("fractional label", QRELS.replace("d3 2", "d3 1.5"), ["line 3", "label '1.5' is not an integer"]),
    ("nan label", QRELS.replace("d3 2", "d3 nan"), ["line 3", "label 'nan' is not an integer"]),
    ("huge label", QRELS.replace("d3 2", "d3 1e300"), ["line 3", "label '1e300' is not an integer"]),
    ("inexact label", QRELS.replace("d3 2", "d3 9007199254740993.0"), ["line 3", "is not an integer"]),
    ("label beyond int64", QRELS.replace("d3 2", "d3 9223372036854775808"), ["line 3", "is beyond int64"]),
    ("latin-1 docno", QRELS + "2 0 caf\xe9 1\n", ["line 5", "not valid UTF-8"]),
    ("arabic-indic digit", QRELS.replace("d3 2", "d3 \u0662"), ["line 3", "is not an integer", "ASCII digits"]),
    ("fullwidth digit", QRELS.replace("d3 2", "d3 \uff12"), ["line 3", "is not an integer", "ASCII digits"]),
    ("no-break space", QRELS.replace("d3 2", "d3 0\xa0"), ["line 3", "label '0\\xa0' is not an integer"]),
    ("repeated judgement", QRELS + "1 0 d1 0\n", ["judges the same docno more than once", "qid '1' docno 'd1'"]),
    ("empty", "", ["is empty"]),
    ("only comments", "# nothing judged\n", ["is empty"]),
]


def _write(path, content):
    path.write_bytes(content.encode("latin-1") if "\xe9" in content else content.encode("utf-8"))
    return path


@pytest.mark.parametrize(("case", "content", "texts"), BAD_RUNS, ids=[b[0] for b in BAD_RUNS])
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_bad_run_file(tmp_path, case, content, texts, compressed):
    path = _write(tmp_path / "bad.run", content)
    if compressed:
        path.write_bytes(gzip.compress(path.read_bytes()))
    with pytest.raises(ValueError) as raised:
        read_run(path)
    message = str(raised.value)
    assert f"'{path}'" in message and all(t in message for t in texts), message


@pytest.mark.parametrize(("case", "content", "texts"), BAD_QRELS, ids=[b[0] for b in BAD_QRELS])
def test_bad_qrels_file(tmp_path, case, content, texts):
    path = _write(tmp_path / "bad.qrels", content)
    with pytest.raises(ValueError) as raised:
        read_qrels(path)
    message = str(raised.value)
    assert f"'{path}'" in message and all(t in message for t in texts), message


@pytest.mark.parametrize("reader", [read_run, read_qrels], ids=["run", "qrels"])
def test_odd_containers(tmp_path, reader):
    kind = "run" if reader is read_run else "qrels"
    good = RUN if kind == "run" else QRELS
    truncated = tmp_path / "truncated.gz"
    truncated.write_bytes(gzip.compress(good.encode() * 50)[:40])
    with pytest.raises(ValueError, match=re.escape(f"{kind} file '{truncated}' is gzip-compressed but cannot be decompressed")):
        reader(truncated)
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes(good.encode("utf-16"))
    with pytest.raises(ValueError, match=re.escape(f"{kind} file '{utf16}' is UTF-16 text")):
        reader(utf16)
    with pytest.raises(ValueError, match=re.escape(f"{kind} path '{tmp_path}' is a folder")):
        reader(tmp_path)
    with pytest.raises(FileNotFoundError, match=re.escape(f"{kind} file not found: '{tmp_path / 'missing.txt'}'")):
        reader(tmp_path / "missing.txt")


@pytest.mark.parametrize("variant", ["crlf", "cr only", "mixed endings", "tabs", "utf-8 bom", "extra run fields",
                                     "comments", "gzip"])
def test_harmless_variants_read_the_same(tmp_path, variant):
    run, qrels = RUN, QRELS
    if variant == "crlf":
        run, qrels = run.replace("\n", "\r\n"), qrels.replace("\n", "\r\n")
    elif variant == "cr only":  # old Mac line endings: lines, as pandas, pt.io.read_results and ir_measures read them
        run, qrels = "# header\r" + run.replace("\n", "\r"), qrels.replace("\n", "\r")
    elif variant == "mixed endings":
        run, qrels = run.replace("a\n1", "a\r1", 1), qrels.replace("\n", "\r\n", 1).replace("0\n2", "0\r2")
    elif variant == "tabs":
        run, qrels = run.replace(" ", "\t"), qrels.replace(" ", " \t ")
    elif variant == "utf-8 bom":
        run, qrels = "\ufeff" + run, "\ufeff" + qrels
    elif variant == "extra run fields":
        run = run.replace(" a\n", " a extra fields\n")
    elif variant == "comments":
        run, qrels = "# header\n" + run + "  # trailer\n", "\n# header\n" + qrels
    (tmp_path / "r").write_bytes(gzip.compress(run.encode()) if variant == "gzip" else run.encode())
    (tmp_path / "q").write_bytes(gzip.compress(qrels.encode()) if variant == "gzip" else qrels.encode())
    (tmp_path / "r0").write_text(RUN)
    (tmp_path / "q0").write_text(QRELS)
    assert read_run(tmp_path / "r").equals(read_run(tmp_path / "r0"))
    assert read_qrels(tmp_path / "q").frame.equals(read_qrels(tmp_path / "q0").frame)


@pytest.mark.parametrize("other", ["1", "1.0"], ids=["integer column", "float column"])
def test_integer_labels_read_exactly(tmp_path, other):
    """Beyond 2^53 an integer label is read exactly (as trec_eval's atol), whichever parser reads it;
    it was rounded through float when another label had a decimal point."""
    path = _write(tmp_path / "q", f"1 0 a 9007199254740993\n1 0 b {other}\n")
    assert read_qrels(path).frame["label"].tolist() == [2**53 + 1, 1]


def test_cr_only_files_read_the_same_through_every_door(tmp_path):
    """Old Mac files (a lone carriage return ends each line) give the same numbers as LF files, and a
    malformed line is named by its number, in every Python door (they once read as one line)."""
    for name, ending in (("lf", "\n"), ("cr", "\r")):
        folder = tmp_path / name / "runs"
        folder.mkdir(parents=True)
        _write(folder / "a.run", RUN.replace("\n", ending))
        _write(folder / "b.run", RUN.replace(" a\n", " b\n").replace("2.0", "0.5").replace("\n", ending))
        _write(tmp_path / name / "qrels", QRELS.replace("\n", ending))

    def doors(name):
        runs, qrels = tmp_path / name / "runs", tmp_path / name / "qrels"
        boot = CorpusBootstrap(qrels, n_images=40, rng=1).evaluate(str(runs), ["AP"])
        return [evaluate(str(runs / "a.run"), qrels, ["AP", "P@1"])["value"].tolist(),
                experiment_result(read_runs(runs), None, qrels, ["AP"], bootstrap=None).values.tolist(),
                boot.per_system().to_numpy().tolist()]

    assert doors("cr") == doors("lf")
    assert len(read_run(tmp_path / "cr" / "runs" / "a.run")) == 4
    bad = _write(tmp_path / "bad.run", (RUN + "2 Q0 d5 3 0.5\n").replace("\n", "\r"))
    with pytest.raises(ValueError, match=r"line 5: expected 6 fields"):
        evaluate(str(bad), QRELS_FRAME, ["AP"])


CLI_CASES = [("run", b) for b in BAD_RUNS if b[0] not in ("empty", "only comments")][:10] + \
            [("qrels", b) for b in BAD_QRELS][:6]


@pytest.mark.parametrize(("kind", "case"), CLI_CASES, ids=[f"{k}-{c[0]}" for k, c in CLI_CASES])
def test_cli_bad_file(capsys, tmp_path, kind, case):
    _, content, texts = case
    bad = _write(tmp_path / f"bad.{kind}", content)
    qrels = bad if kind == "qrels" else _write(tmp_path / "qrels.txt", QRELS)
    run = bad if kind == "run" else _write(tmp_path / "a.run", RUN)
    code = main(["evaluate", "-q", str(qrels), str(run), "--quiet", "--n", "20", "-m", "AP"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    assert str(bad) in lines[0] and all(t in lines[0] for t in texts), lines[0]


# ---------------------------------------------------------------- fuzzing against a plain reading

def _number(text):
    if "_" in text or not text.isascii():  # trec_eval reads ASCII digits only
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _reference(data, kind):
    """trec_eval's rules, line by line: ('ok', rows) or ('error', line number or None)."""
    rows = []
    for lineno, raw in enumerate(data.splitlines(), start=1):  # \n, \r\n or a lone \r (universal newlines)
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        try:
            fields = [f.decode("utf-8") for f in fields]
        except UnicodeDecodeError:
            return "error", lineno
        if kind == "run":
            score = _number(fields[4]) if len(fields) >= 6 else None
            if score is None or not math.isfinite(score):
                return "error", lineno
            rows.append((fields[0], fields[2], score))
        else:
            label = _number(fields[3]) if len(fields) == 4 else None
            if len(fields) == 4 and re.fullmatch(r"[+-]?[0-9]+", fields[3]):  # an integer: exact, within int64
                label = int(fields[3]) if -(2**63) <= int(fields[3]) < 2**63 else None
            elif label is None or not math.isfinite(label) or label != math.floor(label) or abs(label) >= 2**53:
                return "error", lineno
            if label is None:
                return "error", lineno
            rows.append((fields[0], fields[2], int(label)))
    if not rows:
        return "error", None
    if len({(q, d) for q, d, _ in rows}) < len(rows):
        return "error", None
    return "ok", rows


_TOKENS = st.one_of(
    st.sampled_from(["1", "2", "Q0", "0", "d1", "d2", "d3", "-1", "3.5", "1e3", "nan", "inf", "-0", "#", "#x",
                     "1_0", "0x1", "1e", ".5", "+2", "\u00e9", "\u0661", "NaN", "1.0", "tag"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=4),
)
_SEPARATORS = st.sampled_from([" ", "\t", "  ", " \t", "\x0b", "\x0c"])


@st.composite
def _line(draw, kind):
    width = 6 if kind == "run" else 4
    count = draw(st.sampled_from([width, width, width, width - 1, width + 1, 0, 1, 3, 8]))
    fields = [draw(_TOKENS) for _ in range(count)]
    if count >= width and draw(st.booleans()):  # mostly well-formed numbers in the number column
        fields[4 if kind == "run" else 3] = draw(st.sampled_from(["1", "2.5", "0", "-3", "1e2", "4.0"]))
    if count >= 3 and draw(st.booleans()):
        fields[2] = f"d{draw(st.integers(0, 40))}"
    sep = draw(_SEPARATORS)
    return draw(st.sampled_from(["", " ", "\t"])) + sep.join(fields) + draw(st.sampled_from(["", " ", "\r"]))


@st.composite
def _content(draw, kind):
    lines = draw(st.lists(_line(kind), max_size=12))
    data = "\n".join(lines).encode("utf-8")
    how = draw(st.sampled_from(["as is", "as is", "truncated", "random bytes", "latin-1", "spliced bytes"]))
    if how == "truncated" and data:
        data = data[: draw(st.integers(0, len(data)))]
    elif how == "random bytes":
        data = draw(st.binary(max_size=200))
    elif how == "latin-1":
        data = "\n".join(lines).encode("latin-1", "replace")
    elif how == "spliced bytes" and data:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data


def _check_reader(tmp_path_factory, data, kind):
    path = tmp_path_factory.mktemp("fuzz") / f"f.{kind}"
    path.write_bytes(data)
    expected = _reference(data.removeprefix(b"\xef\xbb\xbf"), kind)
    try:
        got = read_run(path) if kind == "run" else read_qrels(path).frame
    except ValueError as error:
        message = str(error)
        assert f"'{path}'" in message, message
        if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x1f\x8b")):
            return
        assert expected[0] == "error", (message, expected)
        if expected[1] is not None:
            assert f"line {expected[1]}:" in message, (message, expected)
        return
    assert expected[0] == "ok", (got, expected)
    column = "score" if kind == "run" else "label"
    assert list(zip(got["qid"], got["docno"], got[column], strict=True)) == expected[1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_content("run"))
def test_fuzz_run_reader(tmp_path_factory, data):
    _check_reader(tmp_path_factory, data, "run")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_content("qrels"))
def test_fuzz_qrels_reader(tmp_path_factory, data):
    _check_reader(tmp_path_factory, data, "qrels")


def test_huge_run_file_is_read(tmp_path):
    lines = [f"{q} Q0 doc{q}_{r} {r} {1000 - r / 7:.6f} big\n" for q in range(200) for r in range(1000)]
    path = tmp_path / "big.run"
    path.write_text("".join(lines))
    run = read_run(path)
    assert len(run) == 200_000 and run["score"].notna().all()
    path.write_text("".join(lines[:-1]) + "199 Q0 last 1000\n")  # one bad line at the very end
    with pytest.raises(ValueError, match=r"line 200000: expected 6 fields"):
        read_run(path)
