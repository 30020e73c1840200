"""Command-line outputs are all or nothing, and exit statuses say what happened: 0 success, 1 a data
or environment error (one ``error:`` line), 2 wrong usage, 130 Ctrl-C; never a traceback without
``--debug``. An interrupted or failed write leaves the previous ``--out`` folder as it was."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write_trec

import pyterrier_boot as ptb
from pyterrier_boot import _atomic, report
from pyterrier_boot.cli import _common, main
from pyterrier_boot.cli import evaluate as evaluate_command

REPO = Path(__file__).resolve().parent.parent
# main() prints our warnings as `warning: ...` lines, which these tests read: show them as a shell does,
# not as the errors pyproject's filterwarnings makes them elsewhere
pytestmark = pytest.mark.filterwarnings("default::pyterrier_boot.BootWarning")


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """Two small runs and their qrels as TREC files."""
    sim = ptb.simulate_collection(n_topics=8, n_systems=3, depth=30, pool_depth=10, corpus_size=2000,
                                  matching=200, rng=3)
    return write_trec(sim.runs, sim.qrels, tmp_path_factory.mktemp("collection"))


def _evaluate(capsys, collection, out, *extra):
    code = main(["evaluate", "-q", str(collection / "qrels.txt"), str(collection / "runs"), "--n", "200",
                 "--rng", "1", "--quiet", "--no-plots", "--out", str(out), *map(str, extra)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _leftovers(parent):
    return [p.name for p in parent.iterdir() if ".partial-" in p.name or ".old-" in p.name]


@pytest.fixture
def previous(capsys, collection, tmp_path):
    """An --out folder holding a complete earlier report."""
    out = tmp_path / "report"
    code, _, err = _evaluate(capsys, collection, out)
    assert code == 0, err
    return out, _snapshot(out)


def test_report_is_written_with_its_marker(previous):
    out, files = previous
    assert {Path("table.csv"), Path("perquery.csv"), Path("pairwise.csv"), Path("report.html"),
            Path(".pyterrier-boot")} <= set(files)
    assert files[Path(".pyterrier-boot")] == b"evaluate\n"
    assert _leftovers(out.parent) == []


def test_existing_out_is_refused_without_overwrite(capsys, collection, previous):
    out, files = previous
    code, _, err = _evaluate(capsys, collection, out, "--alpha", "0.01")
    assert code == 1
    assert err.strip() == (f"error: the output folder '{out}' exists and is not empty: pass --overwrite to replace "
                           "it, or choose another --out")
    assert _snapshot(out) == files


def test_overwrite_replaces_the_whole_folder(capsys, collection, previous):
    out, _ = previous
    (out / "stale.csv").write_text("old\n")
    code, _, err = _evaluate(capsys, collection, out, "--overwrite", "--title", "second")
    assert code == 0, err
    assert not (out / "stale.csv").exists()
    assert "second" in (out / "report.html").read_text()
    assert _leftovers(out.parent) == []


def test_existing_empty_folder_is_used(capsys, collection, tmp_path):
    out = tmp_path / "empty"
    out.mkdir()
    code, _, err = _evaluate(capsys, collection, out)
    assert code == 0, err
    assert (out / "report.html").is_file()


def test_out_dot_writes_into_the_working_directory(capsys, collection, tmp_path, monkeypatch):
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)  # the working directory cannot be renamed: the files are moved into it
    code, _, err = _evaluate(capsys, collection, Path("."))
    assert code == 0, err
    assert (here / "report.html").is_file() and (here / "table.csv").is_file()
    assert _leftovers(tmp_path) == []
    code, _, err = _evaluate(capsys, collection, Path("."), "--overwrite")
    assert code == 0, err
    assert (here / "report.html").is_file()
    assert _leftovers(tmp_path) == []


def test_a_file_is_never_replaced_by_a_folder(capsys, collection, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("keep")
    code, _, err = _evaluate(capsys, collection, blocker, "--overwrite")
    assert code == 1 and f"cannot write to the output folder '{blocker}': it exists and is not a folder" in err
    assert blocker.read_text() == "keep"


def test_overwrite_needs_out(capsys, collection):
    code = main(["evaluate", "-q", str(collection / "qrels.txt"), str(collection / "runs"), "--overwrite"])
    assert code == 2
    assert "--overwrite needs --out DIR" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["csv", "report"])
def test_ctrl_c_while_writing_leaves_the_previous_report(capsys, collection, previous, monkeypatch, where):
    out, files = previous

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    if where == "csv":  # after table.csv and perquery.csv were written
        real = _common.write_csv
        monkeypatch.setattr(_common, "write_csv", lambda path, frame: (
            interrupted() if Path(path).name == "pairwise.csv" else real(path, frame)))
    else:
        monkeypatch.setattr(report, "write_report", interrupted)
    code, _, err = _evaluate(capsys, collection, out, "--overwrite", "--title", "new")
    assert code == 130
    assert err.strip() == "interrupted"
    assert _snapshot(out) == files
    assert _leftovers(out.parent) == []


def test_ctrl_c_during_a_first_write_leaves_nothing(capsys, collection, tmp_path, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "write_report", interrupted)
    out = tmp_path / "new"
    code, _, _ = _evaluate(capsys, collection, out)
    assert code == 130
    assert not out.exists() and _leftovers(tmp_path) == []


def test_error_while_writing_leaves_the_previous_report(capsys, collection, previous, monkeypatch):
    out, files = previous

    def full(path, text):
        raise ValueError(f"cannot write '{path}': No space left on device")

    monkeypatch.setattr(_common, "write_text", full)
    code, _, err = _evaluate(capsys, collection, out, "--overwrite", "--format", "latex")
    assert code == 1 and "No space left on device" in err
    assert _snapshot(out) == files
    assert _leftovers(out.parent) == []


def test_failed_rename_restores_the_previous_report(capsys, collection, previous, monkeypatch):
    out, files = previous
    real = os.replace

    def failing(src, dst):  # moving the new folder into place fails; moving the old one back works
        if Path(dst) == out and ".partial-" in Path(src).name:
            raise PermissionError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr(_common.os, "replace", failing)
    code, _, err = _evaluate(capsys, collection, out, "--overwrite")
    assert code == 1
    assert f"cannot write to the output folder '{out}': Permission denied" in err
    assert _snapshot(out) == files
    assert _leftovers(out.parent) == []


def _as_from_a_shell():
    """The child starts with Ctrl-C delivered and at its default, as from a terminal: a test process
    may hold SIGINT blocked or ignored (inherited across exec), which would make the signal vanish."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_to_the_command_exits_130_and_keeps_the_report(collection, previous, tmp_path):
    """A real Ctrl-C (SIGINT) while the command works: status 130, one line, the folder as it was."""
    out, files = previous
    env = dict(os.environ, PYTHONPATH=str(REPO))
    process = subprocess.Popen(
        [sys.executable, "-m", "pyterrier_boot", "evaluate", "-q", str(collection / "qrels.txt"),
         str(collection / "runs"), "--bootstrap", "corpus", "--n", "1000000", "--max-memory", "8G", "--rng", "1",
         "--out", str(out), "--overwrite"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, preexec_fn=_as_from_a_shell)
    lines = []
    for line in process.stderr:  # wait until the bootstrap runs (imports done, the staging folder made)
        lines.append(line)
        if line.startswith("evaluating"):
            break
    assert _leftovers(out.parent), "no staging folder while the command works"
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=120)
    err = "".join(lines) + rest
    assert process.returncode == 130, (err, signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, []))
    assert err.strip().splitlines()[-1] == "interrupted"
    assert "Traceback" not in err
    assert _snapshot(out) == files
    assert _leftovers(out.parent) == []


def test_write_report_is_atomic(previous, monkeypatch):
    out, files = previous
    result = None  # html_report is replaced: only the writing is tested
    monkeypatch.setattr(report, "html_report", lambda results, **kwargs: "<html>new</html>")
    real = os.replace

    def failing(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_atomic.os, "replace", failing)  # the report is written through _atomic
    with pytest.raises(ValueError, match=r"cannot write the report to '.*report.html': No space left on device"):
        report.write_report(result, out / "report.html")
    monkeypatch.setattr(_atomic.os, "replace", real)
    assert _snapshot(out) == files  # no temporary file left beside it
    report.write_report(result, out / "report.html")
    assert (out / "report.html").read_text() == "<html>new</html>"


# ---------------------------------------------------------------- the demo's folder


def _demo(capsys, out, *extra):
    code = main(["demo", "--topics", "4", "--no-plots", "--quiet", "--out", str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_demo_replaces_its_own_folder(capsys, tmp_path, demo_constants):
    out = tmp_path / "demo"
    assert _demo(capsys, out)[0] == 0
    (out / "evaluate").mkdir()  # the evaluate folder the demo suggests
    code, _, err = _demo(capsys, out)
    assert code == 0, err
    assert not (out / "evaluate").exists() and (out / "report.html").is_file()
    assert (out / ".pyterrier-boot").read_text() == "demo\n"


def test_demo_refuses_another_folder_without_overwrite(capsys, tmp_path, demo_constants, previous):
    out, files = previous  # written by evaluate
    code, _, err = _demo(capsys, out)
    assert code == 1 and "exists and is not empty: pass --overwrite" in err
    assert _snapshot(out) == files
    assert _demo(capsys, out, "--overwrite")[0] == 0
    assert (out / "qrels.txt").is_file() and not (out / "table.csv").exists()


def test_demo_replaces_a_folder_written_before_markers(capsys, tmp_path, demo_constants):
    out = tmp_path / "old-demo"
    (out / "runs").mkdir(parents=True)
    (out / "report.html").write_text("old")
    (out / "qrels.txt").write_text("1 0 d 1\n")
    code, _, err = _demo(capsys, out)
    assert code == 0, err
    assert (out / "report.html").read_text() != "old"


def test_demo_default_folder_runs_twice(capsys, tmp_path, demo_constants, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        code = main(["demo", "--topics", "4", "--no-plots", "--quiet"])
        assert code == 0, capsys.readouterr().err
    assert (tmp_path / "pyterrier-boot-demo" / "report.html").is_file()
    assert _leftovers(tmp_path) == []


# ---------------------------------------------------------------- exit statuses, no tracebacks


@pytest.mark.parametrize("extra,match", [
    (["--n", "2.5"], "argument --n: not a whole number: '2.5'"),
    (["--n", "many"], "argument --n: not a whole number: 'many'"),
    (["--n", "1"], "--n must be at least 2, got 1"),
    (["--n", "-3"], "--n must be at least 2, got -3"),
    (["--max-memory", "12X"], "argument --max-memory: not a size: '12X'"),
    (["--max-memory", "0"], "argument --max-memory: must be positive: '0'"),
    (["--no-such-option"], "unrecognized arguments: --no-such-option"),
])
def test_usage_errors_exit_2(capsys, collection, extra, match):
    code = main(["evaluate", "-q", str(collection / "qrels.txt"), str(collection / "runs"), *extra])
    err = capsys.readouterr().err
    assert code == 2
    assert match in err and "Traceback" not in err


@pytest.mark.parametrize("extra,match", [
    (["--n", "1e11"], r"error: --n 100,000,000,000 would need about [0-9.]+ TiB for the topic bootstrap of 3 "
                      r"system\(s\) x 8 topics x 2 measure\(s\), more than --max-memory 1,073,741,824 bytes "
                      r"\(1.0 GiB\); lower --n or raise --max-memory"),
    (["--n", "100000000000", "--bootstrap", "corpus"], r"error: --n 100,000,000,000 would need about"),
    (["--n", "100000", "--max-memory", "1M"], r"error: --n 100,000 would need about [0-9.]+ MiB .* more than "
                                              r"--max-memory 1,048,576 bytes \(1.0 MiB\); lower --n or raise"),
    (["--n", "1e6", "--test", "paired-bootstrap", "--max-memory", "20M"], r"error: --n 1,000,000 would need"),
])
def test_too_large_n_is_one_line_exit_1(capsys, collection, extra, match):
    import re

    code = main(["evaluate", "-q", str(collection / "qrels.txt"), str(collection / "runs"), "--quiet", *extra])
    err = capsys.readouterr().err
    assert code == 1
    assert re.fullmatch(match + ".*\n", err, flags=re.S) and err.count("\n") == 1, err


def test_topics_command_guards_n(capsys, collection):
    code = main(["topics", "-d", "0.05", "-q", str(collection / "qrels.txt"), str(collection / "runs"),
                 "--n", "1e11", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: --n 100,000,000,000 would need about") and err.count("\n") == 1


@pytest.mark.parametrize("error,match", [
    (RuntimeError("kaboom"), "error: unexpected RuntimeError: kaboom (run again with --debug for the traceback"),
    (MemoryError(), "error: out of memory; lower --n (resamples)"),
    (PermissionError(13, "Permission denied", "/some/file"), "error: Permission denied: '/some/file'"),
    (KeyError("qid"), "error: unexpected KeyError: 'qid'"),
])
def test_unexpected_errors_are_one_line_exit_1(capsys, collection, monkeypatch, error, match):
    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(evaluate_command, "print_result", broken)
    code = main(["evaluate", "-q", str(collection / "qrels.txt"), str(collection / "runs"), "--n", "300", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(match) and err.count("\n") == 1 and "Traceback" not in err


def test_debug_shows_the_traceback_of_unexpected_errors(collection, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(evaluate_command, "print_result", broken)
    with pytest.raises(RuntimeError, match="kaboom"):
        main(["--debug", "evaluate", "-q", str(collection / "qrels.txt"), str(collection / "runs"), "--n", "50",
              "--quiet"])


def test_broken_pipe_is_quiet(collection):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = (f"{sys.executable} -m pyterrier_boot evaluate -q {collection / 'qrels.txt'} {collection / 'runs'} "
               "--n 50 --rng 1 --format csv --quiet | head -c 10")
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, env=env,
                          timeout=300)
    assert "Traceback" not in done.stderr and "error:" not in done.stderr


@pytest.mark.parametrize("text,value", [("10000", 10000), ("10_000", 10000), ("1e4", 10000), ("1E11", 10**11)])
def test_count_accepts_whole_numbers(text, value):
    assert _common.count(text) == value


@pytest.mark.parametrize("text,value", [("1024", 1024), ("512M", 512 * 2**20), ("4G", 4 * 2**30),
                                        ("1.5GiB", int(1.5 * 2**30)), ("2 TB", 2 * 2**40)])
def test_memory_size_units(text, value):
    assert _common.memory_size(text) == value


def test_warnings_say_the_command_line_option(capsys, collection):
    code = main(["evaluate", "-q", str(collection / "qrels.txt"), str(collection / "runs"), "--n", "50", "--interval", "bca", "--quiet"])
    err = capsys.readouterr().err
    assert code == 0
    assert "warning: --n 50 is too few for a 95% bca interval" in err and "use --n >= 200" in err


def test_ctrl_c_inside_an_import_is_an_interruption(capsys, collection, monkeypatch):
    """An extension module interrupted while it initialises raises ImportError during the
    KeyboardInterrupt: still status 130, not an input error."""
    def interrupted_import(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise ImportError("initialization failed") from None

    monkeypatch.setattr(evaluate_command, "print_result", interrupted_import)
    code = main(["evaluate", "-q", str(collection / "qrels.txt"), str(collection / "runs"), "--n", "300", "--quiet"])
    assert code == 130
    assert capsys.readouterr().err.strip() == "interrupted"
