"""The ``pyterrier-boot`` command (also ``python -m pyterrier_boot``).

Commands:

* ``pyterrier-boot evaluate --qrels QRELS RUN [RUN ...]``: means with bootstrap intervals,
  significance tests (all pairs or against baselines), tables and an HTML report
  (:mod:`.evaluate`);
* ``pyterrier-boot leaderboard --qrels QRELS RUN [RUN ...] --out site/``: runs ranked with rank
  intervals and letter groups, and a static site to publish (:mod:`.leaderboard`);
* ``pyterrier-boot demo``: the same on a simulated collection, with no files and no network
  (:mod:`.demo`);
* ``pyterrier-boot topics``: power and topic-set size, from runs or from a given variance
  (:mod:`.topics`);
* ``pyterrier-boot split-half``: do corpus-bootstrap intervals hold on random halves of the
  collection (:mod:`.split_half`).
* ``pyterrier-boot ppi``: prediction-powered intervals from automatic qrels for every topic and
  human qrels for some topics, or for a judging plan's sample of documents (:mod:`.ppi`).
* ``pyterrier-boot judge-plan``: which pool pairs to give people, with known inclusion
  probabilities (:mod:`.judge_plan`).
* ``pyterrier-boot reproduce``: original against reproduced runs (:mod:`.reproduce`).
* ``pyterrier-boot decide``: judge until decided: a saved sequence of judged topics, updated from
  each new qrels file, and which pairs of runs it has decided (:mod:`.decide`).
* ``pyterrier-boot gate``: a regression gate for CI, candidate against baseline (:mod:`.gate`).
* ``pyterrier-boot audit-tests``: which significance test keeps its Type I error and has the power on
  your own runs and measure (:mod:`.audit_tests`).
* ``pyterrier-boot across``: the same runs on several collections: the average over these
  collections, the pooled mean over a population of collections and a new collection's
  prediction interval (:mod:`.across`).

Exit status: 0 on success, 1 when the input is wrong, a file cannot be read or written or the work
does not fit in memory (one ``error: ...`` line on stderr, never a traceback; ``--debug`` shows it),
2 for wrong usage (argparse), 130 when interrupted (Ctrl-C; an ``--out`` folder is left as it was).
``gate`` uses 0, 1 and 2 for its verdicts, so its errors and wrong usage exit 4 (:data:`ERROR_STATUS`).
"""
from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


__all__ = ["main", "build_parser"]

# commands whose exit status 1 and 2 mean something else (a verdict): their errors and wrong usage exit here
ERROR_STATUS = {"gate": 4}

# errors that are the user's (bad input, missing file, missing optional package): one line, exit 1
USER_ERRORS = (ValueError, TypeError, FileNotFoundError, ImportError)

# hints written for Python users, said the command-line way
_HINTS = (
    ("; pass names=... or a dict to name them apart",
     ": a run is named by its tag (the 6th field of its lines), so give each run its own tag"),
    ("(use bootstrap=None)", "(use --bootstrap none)"),
    ("Pass a local qrels file instead, e.g. read_qrels('path/to/qrels.txt').",
     "Give a local qrels file instead: --qrels path/to/qrels.txt (TREC format: qid iter docno grade)."),
    ("remove it from 'measures'", "remove it from --measures"),
    ("remove them from 'measures'", "remove them from --measures"),
    ("lower n_resamples or raise max_memory", "lower --n or raise --max-memory"),
    ("or raise max_memory", "or raise --max-memory"),
    ("n_resamples=", "--n "),
    ("n_resamples >=", "--n >="),
    ("n_images=", "--n "),
    ("n_images >=", "--n >="),
    ("n_splits=", "--splits "),
    ("n_splits >=", "--splits >="),
    ("max_memory=", "--max-memory "),
    ("or use design='poisson'", "or use --design poisson"),
    ("'budget' ", "--budget "),
    ("'n_replicates' must be", "--replicates must be"),
    ("pass systems=[...] to compare those they share", "pass --systems NAME ... to compare those they share"),
    ("'systems': ", "--systems: "),
    ("use the plan's qrels, or make a new plan",
     "give the plan's --auto-qrels (and its --probabilities, if it was made with them), or make a new plan"),
)


def _interrupted(error):
    """Whether ``error`` was raised while handling a KeyboardInterrupt (Ctrl-C)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def _command_line(message):
    """A message written for Python users, said the command-line way."""
    for python, command_line in _HINTS:
        message = message.replace(python, command_line)
    return message

DESCRIPTION = """\
Confidence intervals and significance tests for IR evaluation: the topic bootstrap (Sakai 2007),
the corpus bootstrap (Cormack & Lynam 2006; Zobel & Rashidi 2020) and paired tests with
multiple-testing correction, for a folder of TREC runs.
"""

EPILOG = """\
examples:
  pyterrier-boot demo                                   # a simulated collection, a report in ./pyterrier-boot-demo
  pyterrier-boot evaluate --qrels qrels.txt runs/ --measures nDCG@10 AP --out report/
  pyterrier-boot leaderboard --qrels qrels.txt runs/ --measures nDCG@10 AP --out site/
  pyterrier-boot topics --difference 0.05 --variance 0.02
  pyterrier-boot split-half --qrels qrels.txt runs/ --measures AP nDCG@10 --splits 20
  pyterrier-boot judge-plan --auto-qrels llm.qrels runs/ --budget 0.1 --out plan/
  pyterrier-boot decide --state state.tsv --qrels qrels.txt runs/ -m nDCG@10 --margin 0.01
  pyterrier-boot gate --qrels qrels.txt --baseline main.run --candidate pr.run --measure nDCG@10 --margin 0.01
  pyterrier-boot audit-tests --qrels qrels.txt runs/ --measure AP             # which test for this collection
  pyterrier-boot across -c dl19 qrels19.txt runs19/ -c dl20 qrels20.txt runs20/ -m nDCG@10 -b bm25

'pyterrier-boot COMMAND --help' explains each command.
exit status: 0 success, 1 error (bad input, unreadable file, too little memory), 2 wrong usage,
130 interrupted (Ctrl-C). No traceback unless --debug. 'gate' exits 0/1/2 with its verdict and 4
on an error or wrong usage.
"""


def _common_options():
    common = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    group = common.add_argument_group("output control")
    group.add_argument("--quiet", action="store_true", help="no status lines or progress bars on stderr")
    group.add_argument("--progress", action="store_true", help="progress bars even when stderr is not a terminal")
    # SUPPRESS: 'pyterrier-boot --debug evaluate' and 'pyterrier-boot evaluate --debug' both work
    group.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show the Python traceback of an error")
    return common


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``pyterrier-boot`` and its commands."""
    from .. import __version__
    from . import (
        across,
        audit_tests,
        decide,
        demo,
        evaluate,
        gate,
        judge_plan,
        leaderboard,
        ppi,
        reproduce,
        split_half,
        topics,
    )

    parser = argparse.ArgumentParser(prog="pyterrier-boot", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"pyterrier-boot {__version__}")
    parser.add_argument("--debug", action="store_true", default=False, help="show the Python traceback of an error")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    common = _common_options()
    evaluate.add_parser(subparsers, common)
    leaderboard.add_parser(subparsers, common)
    demo.add_parser(subparsers, common)
    topics.add_parser(subparsers, common)
    split_half.add_parser(subparsers, common)
    ppi.add_parser(subparsers, common)
    judge_plan.add_parser(subparsers, common)
    reproduce.add_parser(subparsers, common)
    decide.add_parser(subparsers, common)
    gate.add_parser(subparsers, common)
    audit_tests.add_parser(subparsers, common)
    across.add_parser(subparsers, common)
    return parser


@contextlib.contextmanager
def _warnings_as_lines():
    """Warnings as one ``warning: ...`` line each, ours shown whatever the caller's warning filters
    (a test's or ``python -W error``)."""
    from .._warnings import BootWarning

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"warning: {_command_line(str(message))}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        warnings.simplefilter("default", BootWarning)
        yield


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``pyterrier-boot`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    Example:
        >>> from pyterrier_boot.cli import main
        >>> main(["topics", "--difference", "0.05", "--variance", "0.02", "--quiet"])   # doctest: +SKIP
        0
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_of(argv)
    return _run(argv, ERROR_STATUS.get(command, 1), ERROR_STATUS.get(command, 2))


def _command_of(argv):
    """The command named in ``argv`` (the first word not an option; the only global option is a flag)."""
    return next((word for word in argv if not word.startswith("-")), None)


def _run(argv, error_status, usage_status):
    """``main`` for one command: ``error_status`` is the exit status of an error, ``usage_status`` of wrong usage."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:  # --help, --version (0) and usage errors (2)
        return exit.code if isinstance(exit.code, int) and exit.code != 2 else usage_status
    if args.command is None:
        parser.print_help(sys.stderr)
        return usage_status
    args.command_line = "pyterrier-boot " + shlex.join(argv)
    debug = bool(getattr(args, "debug", False))
    try:
        with _warnings_as_lines():
            return args.run(args)
    except SystemExit as exit:  # parser.error() inside a command: wrong usage
        return exit.code if isinstance(exit.code, int) and exit.code != 2 else usage_status
    except USER_ERRORS as error:
        if debug:
            raise
        if _interrupted(error):  # Ctrl-C inside an extension module's import surfaces as ImportError
            print("interrupted", file=sys.stderr)
            return 130
        message = str(error) or type(error).__name__
        if isinstance(error, OSError) and error.strerror and error.filename:  # raised by the OS itself
            message = f"{error.strerror}: '{error.filename}'"
        print(f"error: {_command_line(message)}", file=sys.stderr)
        return error_status
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output was piped into a command that stopped reading (| head)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return error_status
    except MemoryError:
        if debug:
            raise
        print("error: out of memory; lower --n (resamples), or use fewer runs, topics or measures", file=sys.stderr)
        return error_status
    except OSError as error:  # other than a missing file: permissions, full disk, ...
        if debug:
            raise
        where = f": '{error.filename}'" if error.filename else ""
        print(f"error: {error.strerror or error}{where}", file=sys.stderr)
        return error_status
    except Exception as error:  # a bug: still one line, the traceback with --debug
        if debug:
            raise
        print(f"error: unexpected {type(error).__name__}: {error} (run again with --debug for the traceback, "
              "and please report it)", file=sys.stderr)
        return error_status
