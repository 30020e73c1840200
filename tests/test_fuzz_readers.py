"""Fuzzing the readers and the doors behind them with seeded mutations of valid inputs.

Valid run, qrels and topics files and run and qrels frames are mutated (byte flips, truncations,
inserted and deleted fields, line-ending changes, byte-order marks, gzip, huge numbers, non-ASCII
digits, NaN and infinities, duplicated and deleted lines, empty files, wrong dtypes in frames) and
fed through ``read_runs``, ``read_qrels``, ``read_topics``, ``evaluate`` (on a file, a frame and,
for every fourth run file, a folder holding it) and ``experiment_result``.
Each call either returns what an independent reading gives (the content parsed here by plain code,
as trec_eval reads it with the rules of pt_docs/measures.md, "What the readers accept"; the
measures computed by pytrec_eval on that content) or raises a ValueError or TypeError from our own
code. A reader refuses exactly what the independent reading refuses, naming the file and, for a
malformed line, its number.

A few hundred mutations run by default; ``-m slow`` runs thousands.
"""
import gzip
import math
import random
import re
import traceback
import warnings
from collections import Counter, namedtuple
from pathlib import Path

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
import pytrec_eval

import pyterrier_boot
from pyterrier_boot import evaluate, experiment_result, read_qrels, read_runs, read_topics
from pyterrier_boot.measures.arrays import natural_order

PACKAGE = str(Path(pyterrier_boot.__file__).parent)
MEASURES = {"map": "map", "ndcg_cut_10": "ndcg_cut_10", "P_5": "P_5", "recip_rank": "recip_rank"}
RUN_TEXT = "".join(f"{q} Q0 d{d} {r} {s} tag\n" for q, docs in (("1", [(3, 9.5), (1, 8.25), (7, 8.25), (2, 7.0)]),
                                                                ("2", [(4, 3.0), (5, 2.5), (1, 2.0)]),
                                                                ("10", [(8, 1.0), (9, 0.5)]))
                   for r, (d, s) in enumerate(docs, start=1))
QRELS_TEXT = "1 0 d1 1\n1 0 d2 2\n1 0 d3 0\n2 0 d4 1\n2 0 d6 1\n10 0 d9 3\n3 0 d1 1\n"
TOPICS_TEXT = "1\tfirst query\n2\tsecond: query\n10 tenth\n3\tthird\n"
# labels beyond this are read but not compared: the reference (pytrec_eval) sizes its arrays by the
# largest label; ours are sized by the distinct labels (tests/test_measures_labels.py checks huge ones)
EVALUATED_LABELS = 2**20
NUMBERS = ["1e308", "-1e308", "1e39", "-1e39", "1e400", "5e-324", "nan", "NaN", "inf", "-inf", "Infinity",
           "\u0661\u0662", "\uff11\uff12", "0\xa0", "1_000", "0x10", "1,5", "+2", ".5", "5.", "-0", "1e3",
           "007", "12345678901234567890", "9007199254740993", "3000000000", "-3", "2.0", "2.5", "e5", "1e"]
TOKENS = ["Q0", "#", "#x", "d1", "d9", "caf\xe9", "\u00b2", "\u2028", "x\x00y", "1", "10", "\ufeff", "a b",
          "\u0661", "\uff11", "-1", "\x85", "tag", "\"q\"", "1.0"]
_SCORE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


# ---------------------------------------------------------------- the independent reading


class Refused(Exception):
    """The independent reading refuses the input; ``line`` is the malformed line when there is one."""

    def __init__(self, line=None):
        super().__init__(line)
        self.line = line


def _number(text, *, integer=False):
    """trec_eval's ASCII number (finite), or for a label an integer (exact within int64) or an
    integral number up to 2^53; None otherwise."""
    if not (text.isascii() and _SCORE.fullmatch(text)):
        return None
    if integer and re.fullmatch(r"[+-]?[0-9]+", text):
        return int(text) if -(2**63) <= int(text) < 2**63 else None
    value = float(text)
    if not math.isfinite(value) or (integer and (value != math.floor(value) or abs(value) >= 2**53)):
        return None
    return int(value) if integer else value


def _lines(data):
    """``(line number, line)`` of a file's bytes: gzip, a UTF-8 BOM, universal newlines."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception as ex:
            raise Refused from ex
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise Refused
    data = data.removeprefix(b"\xef\xbb\xbf")
    return enumerate(data.splitlines(), start=1)


def _fields(data):
    """``(line number, decoded fields)`` of the lines that are neither blank nor comments."""
    for lineno, raw in _lines(data):
        fields = raw.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        try:
            yield lineno, [f.decode("utf-8") for f in fields]
        except UnicodeDecodeError:
            raise Refused(lineno) from None


def _unique(rows):
    if not rows or len({(q, d) for q, d, _ in rows}) < len(rows):
        raise Refused
    return rows


def reference_run(data):
    """``(rows, tags)`` of a run file as trec_eval reads it: 6 fields or more, a finite score."""
    rows, tags = [], set()
    for lineno, fields in _fields(data):
        score = _number(fields[4]) if len(fields) >= 6 else None
        if score is None:
            raise Refused(lineno)
        rows.append((fields[0], fields[2], score))
        tags.add(fields[5])
    return _unique(rows), tags


def reference_qrels(data):
    rows = []
    for lineno, fields in _fields(data):
        label = _number(fields[3], integer=True) if len(fields) == 4 else None
        if label is None:
            raise Refused(lineno)
        rows.append((fields[0], fields[2], label))
    return _unique(rows)


def reference_topics(data):
    """``[(qid, query)]`` as pt.io.read_topics' singleline format splits lines; a qid without a
    query, a repeated qid or no topic is refused."""
    rows = []
    for lineno, raw in _lines(data):
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise Refused(lineno) from None
        if not line or line.startswith("#"):
            continue
        match = re.match(r"^([^:\s]+)[\s:]+(.*)$", line)
        if match is None or not match.group(2):
            raise Refused(lineno)
        rows.append(match.groups())
    if not rows or len({q for q, _ in rows}) < len(rows):
        raise Refused
    return rows


def _frame_id(value):
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(value)
    raise Refused


def _frame_number(value, *, integer=False):
    if isinstance(value, str):
        number = _number(value.strip(" \t"), integer=integer)
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise Refused
    else:
        number = _number(repr(float(value)), integer=integer) if math.isfinite(value) else None
    if number is None:
        raise Refused
    return number


def reference_frame(frame, column, names):
    """Rows of a run (``column="score"``) or qrels (``"label"``) frame read value by value."""
    picked = []
    for spellings in names:
        found = [c for c in spellings if c in frame.columns]
        if not found or isinstance(frame[found[0]], pd.DataFrame):
            raise Refused
        picked.append(frame[found[0]].astype(object).tolist())
    integer = column == "label"
    return _unique([(_frame_id(q), _frame_id(d), _frame_number(v, integer=integer)) for q, d, v in zip(*picked)])


def reference_values(run_rows, qrels_rows):
    """Per-topic values by pytrec_eval, ``{(qid, measure): value}`` over the qrels' topics (0 where
    the run has nothing)."""
    qrels, run = {}, {}
    for q, d, label in qrels_rows:
        qrels.setdefault(q, {})[d] = label
    for q, d, score in run_rows:
        run.setdefault(q, {})[d] = score
    # pytrec_eval corrupts memory (a segfault, later) on a topic whose grades are all negative (found by
    # this fuzzing): such a topic has no relevant document, so it scores 0 (trec_eval prints 0 for it)
    evaluated = {q: judged for q, judged in qrels.items() if max(judged.values()) >= 0}
    got = pytrec_eval.RelevanceEvaluator(evaluated, {"map", "ndcg_cut", "P", "recip_rank"}).evaluate(run)
    return {(q, m): got.get(q, {}).get(key, 0.0) for q in qrels for m, key in MEASURES.items()}


# ---------------------------------------------------------------- mutations


def _split_lines(data):
    return data.split(b"\n")


def _on_a_line(rng, data, change):
    lines = _split_lines(data)
    at = rng.randrange(len(lines))
    lines[at] = change(lines[at])
    return b"\n".join(lines)


def _set_field(rng, line, index, token):
    fields = line.split(b" ")
    if index is None or index >= len(fields):
        index = rng.randrange(len(fields))
    fields[index] = token.encode("utf-8")
    return b" ".join(fields)


def _insert_field(rng, line):
    fields = line.split(b" ")
    fields.insert(rng.randrange(len(fields) + 1), rng.choice(TOKENS + NUMBERS).encode("utf-8"))
    return b" ".join(fields)


def _delete_field(rng, line):
    fields = line.split(b" ")
    del fields[rng.randrange(len(fields))]
    return b" ".join(fields)


def _flip(rng, data):
    if not data:
        return data
    at = rng.randrange(len(data))
    return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]


def _endings(rng, data):
    ending = rng.choice([b"\r\n", b"\r", b"\n\n", b"mixed"])
    if ending != b"mixed":
        return data.replace(b"\n", ending)
    return b"".join(line + rng.choice([b"\n", b"\r", b"\r\n"]) for line in data.split(b"\n"))


def _duplicate_line(rng, data):
    lines = _split_lines(data)
    at = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[at])
    return b"\n".join(lines)


def _delete_line(rng, data):
    lines = _split_lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def _separators(rng, data):
    return data.replace(b" ", rng.choice([b"\t", b"  ", b" \t ", b"\x0b", b"\x0c", b"\xc2\xa0"]))


def file_mutations(number_field):
    """Mutations of a file's bytes; ``number_field`` is the score's or label's field index."""
    return {
        "flip": _flip,
        "truncate": lambda rng, d: d[: rng.randrange(len(d) + 1)],
        "insert field": lambda rng, d: _on_a_line(rng, d, lambda line: _insert_field(rng, line)),
        "delete field": lambda rng, d: _on_a_line(rng, d, lambda line: _delete_field(rng, line)),
        "number": lambda rng, d: _on_a_line(rng, d, lambda line: _set_field(rng, line, number_field,
                                                                            rng.choice(NUMBERS))),
        "id": lambda rng, d: _on_a_line(rng, d, lambda line: _set_field(rng, line, rng.choice([0, 2]),
                                                                        rng.choice(TOKENS))),
        "endings": _endings,
        "utf-8 bom": lambda rng, d: b"\xef\xbb\xbf" + d,
        "utf-16": lambda rng, d: d.decode("utf-8", "replace").encode("utf-16"),
        "gzip": lambda rng, d: gzip.compress(d),
        "duplicate line": _duplicate_line,
        "delete line": _delete_line,
        "empty": lambda rng, d: rng.choice([b"", b"\n\n", b"# only a comment\n", b"\xef\xbb\xbf"]),
        "separators": _separators,
        "comment": lambda rng, d: _on_a_line(rng, d, lambda line: rng.choice([b"#", b"  #", b"# "]) + line),
    }


def mutate(rng, data, mutations):
    names = rng.sample(sorted(mutations), rng.choice([1, 1, 2, 3]))
    if "gzip" in names:  # compress last, so that other mutations change the text
        names = [n for n in names if n != "gzip"] + ["gzip"]
    for name in names:
        data = mutations[name](rng, data)
    return data, names


Base = namedtuple("Base", "run qrels")
RUN_ROWS = reference_run(RUN_TEXT.encode())[0]
QRELS_ROWS = reference_qrels(QRELS_TEXT.encode())


def _run_frame():
    rows = [line.split() for line in RUN_TEXT.splitlines()]
    return pd.DataFrame({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows],
                         "score": [float(r[4]) for r in rows]})


def _qrels_frame():
    rows = [line.split() for line in QRELS_TEXT.splitlines()]
    return pd.DataFrame({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows], "label": [int(r[3]) for r in rows]})


def _at_one_row(rng, column, value):
    values = column.astype(object).copy()
    values.iloc[rng.randrange(len(values))] = value
    return values


COLUMN_VALUES = [np.nan, None, np.inf, -np.inf, 1e308, 1e39, 5e-324, True, 1 + 2j, "2.5", " 3", "\u0661",
                 "\uff11", "0\xa0", "abc", "", b"1", pd.Timestamp(2020, 1, 1), 7, np.int8(3), np.float32(2.5), 2.5,
                 "1e400", "nan", -4, 12.0]
WHOLE_COLUMNS = {
    "datetime": lambda c: pd.to_datetime(np.arange(len(c)) * 10**9),
    "timedelta": lambda c: pd.to_timedelta(np.arange(len(c)), unit="s"),
    "complex": lambda c: pd.to_numeric(c, errors="coerce") + 0j,
    "bool": lambda c: pd.to_numeric(c, errors="coerce") > 1,
    "strings": lambda c: c.map(str),
    "category": lambda c: c.astype("category"),
    "Int64": lambda c: pd.to_numeric(c, errors="coerce").round().astype("Int64"),
    "float ids": lambda c: pd.to_numeric(c, errors="coerce"),
}


def frame_mutation(rng, frame, number_column):
    """One seeded mutation of a run or qrels frame: a bad value, a column of another dtype, a
    column renamed or dropped, rows repeated or removed."""
    kind = rng.choice(["value", "value", "column", "rename", "drop", "duplicate", "empty", "ints"])
    frame = frame.copy()
    column = rng.choice([number_column, number_column, "qid", "docno"])
    if kind == "value":
        frame[column] = _at_one_row(rng, frame[column], rng.choice(COLUMN_VALUES))
    elif kind == "column":
        frame[column] = WHOLE_COLUMNS[rng.choice(sorted(WHOLE_COLUMNS))](frame[column])
    elif kind == "rename":
        frame = frame.set_axis(rng.choice([[0, 1, 2], ["query_id", "doc_id", number_column], ["qid", "qid", "x"]]),
                               axis=1)
    elif kind == "drop":
        frame = frame.drop(columns=column)
    elif kind == "duplicate":
        frame = pd.concat([frame, frame.sample(1, random_state=rng.randrange(100))], ignore_index=True)
    elif kind == "empty":
        frame = frame.iloc[:0]
    else:  # integer ids: read through str()
        frame[column] = pd.to_numeric(frame[column], errors="coerce").fillna(0).astype("int64")
    return frame, f"{kind} {column}"


# ---------------------------------------------------------------- checking one call


def _ours(error):
    """Whether an exception is a ValueError/TypeError raised by pyterrier_boot's own code."""
    frames = traceback.extract_tb(error.__traceback__)
    return isinstance(error, (ValueError, TypeError)) and bool(frames) and frames[-1].filename.startswith(PACKAGE)


def call(function, *args, **kwargs):
    """``(value, None)`` or ``(None, error)`` for our own ValueError/TypeError; any other error fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # InputWarning on topics outside the qrels, DegenerateWarning, ...
        try:
            return function(*args, **kwargs), None
        except Exception as error:
            if not _ours(error):
                raise AssertionError(f"not our own ValueError/TypeError: {error!r}") from error
            return None, error


def check_refusal(error, refused, what, path=None):
    """Our reader refuses exactly what the independent reading refuses, with the file and line."""
    if refused is None:
        raise AssertionError(f"{what}: refused what the independent reading accepts: {error}") from error
    if path is not None:
        assert f"'{path}'" in str(error), (what, str(error))
        if refused.line is not None:
            assert f"line {refused.line}:" in str(error), (what, refused.line, str(error))
    return "refused"


def check_values(got, expected, what):
    """A long ``[name,] qid, measure, value`` frame against ``{(qid, measure): value}``."""
    values = {(q, m): v for q, m, v in zip(got["qid"], got["measure"], got["value"])}
    assert values.keys() == expected.keys(), (what, sorted(values), sorted(expected))
    for key, value in expected.items():
        assert values[key] == pytest.approx(value, abs=1e-9), (what, key, values[key], value)


def evaluable(run_rows, qrels_rows):
    """Whether the doors can be compared: some topic in common (no common topic is an error) and
    labels of a size the reference can hold."""
    return bool({q for q, _, _ in run_rows} & {q for q, _, _ in qrels_rows}
                and max(abs(label) for _, _, label in qrels_rows) <= EVALUATED_LABELS)


def check_doors(run, qrels, run_rows, qrels_rows, what):
    """evaluate and experiment_result on inputs that read: the independent values, or our error."""
    if not evaluable(run_rows, qrels_rows):
        return "read"
    expected = reference_values(run_rows, qrels_rows)
    got, error = call(evaluate, run, qrels, list(MEASURES))
    assert error is None, (what, error)
    check_values(got, expected, what)
    systems = read_runs(run) if isinstance(run, str) else {"r": run}  # Experiment's systems: frames, not files
    result, error = call(experiment_result, systems, None, qrels, list(MEASURES), bootstrap=None)
    assert error is None, (what, error)
    qids = natural_order({q for q, _, _ in qrels_rows})
    assert list(result.qids) == qids, (what, result.qids)
    values = {(q, m): result.values[0, i, j] for i, q in enumerate(qids) for j, m in enumerate(MEASURES)}
    check_values(pd.DataFrame([(q, m, v) for (q, m), v in values.items()], columns=["qid", "measure", "value"]),
                 expected, what)
    return "evaluated"


def _reading(reference, *args):
    try:
        return reference(*args), None
    except Refused as refused:
        return None, refused


# ---------------------------------------------------------------- the fuzzing


def fuzz_run_file(base, tmp_path, seed):
    rng = random.Random(seed)
    data, names = mutate(rng, RUN_TEXT.encode(), file_mutations(4))
    what = f"run file, seed {seed}, {names}: {data[:200]!r}"
    path = tmp_path / f"run{seed}.txt"
    path.write_bytes(data)
    expected, refused = _reading(reference_run, data)
    runs, error = call(read_runs, str(path))
    if seed % 4 == 0:  # the file alone in a folder, which evaluate reads as read_runs does
        (tmp_path / f"folder{seed}").mkdir()
        (tmp_path / f"folder{seed}" / path.name).write_bytes(data)
        check_folder(str(tmp_path / f"folder{seed}"), base, expected, refused, what)
    if error is not None:
        return check_refusal(error, refused, what, path)
    assert refused is None, (what, "accepted what the independent reading refuses", refused.line)
    rows, tags = expected
    (name, run), = runs.items()
    assert name == (next(iter(tags)) if len(tags) == 1 else path.name), (what, name)
    assert list(zip(run["qid"], run["docno"], run["score"])) == rows, what
    return check_doors(str(path), base.qrels, rows, QRELS_ROWS, what)


def check_folder(folder, base, expected, refused, what):
    got, error = call(evaluate, folder, base.qrels, list(MEASURES))
    if error is not None:
        return check_refusal(error, refused, what, next(Path(folder).iterdir()))
    assert refused is None, (what, "a folder accepted what the independent reading refuses")
    if evaluable(expected[0], QRELS_ROWS):
        assert got["name"].nunique() == 1, what
        check_values(got, reference_values(expected[0], QRELS_ROWS), what)


def fuzz_qrels_file(base, tmp_path, seed):
    rng = random.Random(seed)
    data, names = mutate(rng, QRELS_TEXT.encode(), file_mutations(3))
    what = f"qrels file, seed {seed}, {names}: {data[:200]!r}"
    path = tmp_path / f"qrels{seed}.txt"
    path.write_bytes(data)
    rows, refused = _reading(reference_qrels, data)
    qrels, error = call(read_qrels, str(path))
    if error is not None:
        return check_refusal(error, refused, what, path)
    assert refused is None, (what, "accepted what the independent reading refuses", refused.line)
    assert list(zip(qrels.frame["qid"], qrels.frame["docno"], qrels.frame["label"])) == rows, what
    return check_doors(base.run, str(path), RUN_ROWS, rows, what)


def fuzz_topics_file(base, tmp_path, seed):
    rng = random.Random(seed)
    mutations = file_mutations(1)
    data, names = mutate(rng, TOPICS_TEXT.encode(), mutations)
    what = f"topics file, seed {seed}, {names}: {data[:200]!r}"
    path = tmp_path / f"topics{seed}.tsv"
    path.write_bytes(data)
    rows, refused = _reading(reference_topics, data)
    if data.lstrip()[:1] == b"<" or b"<top" in data.lower():
        return "read"  # read as SGML or XML topics, by PyTerrier's parsers
    topics, error = call(read_topics, str(path), format="singleline")
    if error is not None:
        return check_refusal(error, refused, what, path)
    assert refused is None, (what, "accepted what the independent reading refuses", refused.line)
    assert topics[["qid", "query"]].values.tolist() == [list(r) for r in rows], what
    if b"\r" not in data and data[:2] != b"\x1f\x8b" and b"\xef\xbb\xbf" not in data:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert topics.equals(pt.io.read_topics(str(path), format="singleline")), what  # PyTerrier reads the same
    judged = {q for q, _, _ in QRELS_ROWS} & {q for q, _ in rows}
    result, error = call(experiment_result, [_run_frame()], str(path), base.qrels, ["AP"], bootstrap=None)
    if not judged:  # pt.Experiment's error: no overlap between the topics and the qrels
        assert error is not None and "no overlap" in str(error), what
        return "read"
    assert error is None, (what, error)
    assert set(result.qids) == judged and set(result.topics) == {q for q, _ in rows}, what
    return "evaluated"


def fuzz_frame(base, seed, kind):
    rng = random.Random(seed)
    valid, column = (_run_frame(), "score") if kind == "run" else (_qrels_frame(), "label")
    frame, change = frame_mutation(rng, valid, column)
    what = f"{kind} frame, seed {seed}, {change}:\n{frame}"
    names = [("qid", "query_id"), ("docno", "doc_id"), (column, "relevance") if kind == "qrels" else (column,)]
    rows, refused = _reading(reference_frame, frame, column, names)
    if kind == "run":
        got, error = call(read_runs, {"r": frame})
        read = None if error is not None else got["r"]
    else:
        got, error = call(read_qrels, frame)
        read = None if error is not None else got.frame
    if error is not None:
        return check_refusal(error, refused, what)
    assert refused is None, (what, "accepted what the independent reading refuses")
    assert list(zip(read["qid"], read["docno"], read[column])) == rows, what
    if kind == "run":
        return check_doors(frame, base.qrels, rows, QRELS_ROWS, what)
    return check_doors(base.run, frame, RUN_ROWS, rows, what)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The unmutated run and qrels files, which a mutation of the other input is evaluated with."""
    folder = tmp_path_factory.mktemp("base")
    (folder / "base.run").write_text(RUN_TEXT)
    (folder / "base.qrels").write_text(QRELS_TEXT)
    return Base(str(folder / "base.run"), str(folder / "base.qrels"))


FUZZERS = {
    "run file": fuzz_run_file,
    "qrels file": fuzz_qrels_file,
    "topics file": fuzz_topics_file,
    "run frame": lambda base, tmp_path, seed: fuzz_frame(base, seed, "run"),
    "qrels frame": lambda base, tmp_path, seed: fuzz_frame(base, seed, "qrels"),
}
DEFAULT_COUNTS = {"run file": 100, "qrels file": 70, "topics file": 40, "run frame": 60, "qrels frame": 40}


def _fuzz(base, tmp_path, kind, seeds):
    outcomes = Counter(FUZZERS[kind](base, tmp_path, seed) for seed in seeds)
    print(kind, dict(outcomes))
    # not vacuous: mutations both refused and evaluated against pytrec_eval
    assert outcomes["refused"] >= len(seeds) / 10 and outcomes["evaluated"] >= len(seeds) / 10, outcomes


@pytest.mark.parametrize("kind", FUZZERS)
def test_fuzz_readers(base, tmp_path, kind):
    _fuzz(base, tmp_path, kind, range(DEFAULT_COUNTS[kind]))


@pytest.mark.slow
@pytest.mark.parametrize("kind", FUZZERS)
def test_fuzz_readers_long(base, tmp_path, kind):
    _fuzz(base, tmp_path, kind, range(DEFAULT_COUNTS[kind], 12 * DEFAULT_COUNTS[kind]))


def test_the_independent_reading_reads_the_base_inputs(base):
    """The unmutated inputs read, and give pytrec_eval's values through every door."""
    assert len(RUN_ROWS) == 9 and len(QRELS_ROWS) == 7
    assert reference_topics(TOPICS_TEXT.encode())[1] == ("2", "second: query")
    expected = reference_values(RUN_ROWS, QRELS_ROWS)
    assert expected[("1", "map")] > 0 and expected[("3", "map")] == 0
    check_doors(base.run, base.qrels, RUN_ROWS, QRELS_ROWS, "base inputs")
