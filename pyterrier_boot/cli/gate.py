"""``pyterrier-boot gate``: a regression gate for CI. Is the candidate run not worse than the
baseline run by more than a margin? Non-inferiority on the betting confidence sequence of the
per-topic difference (Waudby-Smith & Ramdas 2024), valid when checked again as topics or
judgments are added (:mod:`pyterrier_boot.sequential.gate`).

Exit status: 0 not worse, 1 worse, 2 undecided, 4 wrong usage or bad input (so that an error is
never taken for a verdict), 130 interrupted."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from . import _common

#: exit status of wrong usage and of every error (bad input, unreadable file): not a verdict
ERROR_STATUS = 4

EXAMPLES = """\
examples:
  # does the candidate lose more than 0.01 nDCG@10 against the baseline?
  pyterrier-boot gate --qrels qrels.txt --baseline main.run --candidate pr.run --measure nDCG@10 --margin 0.01

  # a Markdown summary to post on the pull request; the 7th commit of a series spending alpha
  pyterrier-boot gate --qrels qrels.txt --baseline main.run --candidate pr.run --measure AP --rel 2 \\
      --margin 0.005 --summary summary.md --alpha-spending series --commit-index 7

verdicts (and exit status), on the confidence sequence of candidate - baseline over the topics:
  0 not worse   the lower end is above -margin
  1 worse       the upper end is below -margin: worse by more than the margin
  2 undecided   neither yet: more topics or judgments are needed
  4 error       wrong usage or bad input (never a verdict); 130 interrupted

Topics are taken in the order they first appear in --qrels: add new topics at the end, and a
re-check extends the earlier sequence. A wrong verdict has probability at most 1 - confidence level
however often one re-checks; over a series of commits, each a new comparison, that holds per
commit, or for the whole series with --alpha-spending series (commit k gets alpha * 6 / (pi^2 k^2)).
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "gate", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="regression gate for CI: is a candidate run not worse than a baseline by more than a margin?",
        description="Non-inferiority of a candidate run against a baseline run on one measure, from the betting "
                    "confidence sequence of their per-topic difference: exit 0 not worse, 1 worse by more than "
                    "the margin, 2 undecided, 4 error. Valid when re-checked as topics or judgments are added.",
        epilog=EXAMPLES)
    p.add_argument("-q", "--qrels", required=True, metavar="QRELS", help="relevance judgements (TREC qrels file)")
    p.add_argument("--baseline", required=True, metavar="RUN", help="the baseline run (TREC format, plain or .gz)")
    p.add_argument("--candidate", required=True, metavar="RUN", help="the candidate run")
    p.add_argument("-m", "--measure", required=True, metavar="MEASURE",
                   help="one measure in [0, 1], ir_measures or trec_eval name (e.g. nDCG@10, AP)")
    p.add_argument("--margin", type=float, required=True, metavar="DELTA",
                   help="positive: a candidate worse by at most this much is not worse (score units, e.g. 0.01)")
    p.add_argument("--confidence-level", type=float, default=0.95, metavar="LEVEL",
                   help="1 - alpha, the chance of no wrong verdict (default 0.95)")
    p.add_argument("--alpha-spending", choices=("constant", "series"), default="constant",
                   help="constant (default): alpha for every commit; series: commit k gets alpha * 6 / (pi^2 k^2), "
                        "so the whole series errs with probability at most alpha")
    p.add_argument("--commit-index", type=int, default=1, metavar="K",
                   help="position of this comparison in the series (1, 2, ...; with --alpha-spending series)")
    p.add_argument("--rel", type=int, metavar="N", help="binary measures count grade >= N as relevant (trec_eval -l N)")
    p.add_argument("--summary", metavar="FILE", help="write a Markdown summary (for a pull request comment) here")
    p.add_argument("--digits", type=int, default=4, help="decimals printed (default 4)")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    if not math.isfinite(args.margin) or args.margin <= 0:
        parser.error(f"--margin must be positive (how much worse still counts as not worse, e.g. 0.01), got "
                     f"{args.margin:g}")
    if not 0 < args.confidence_level < 1:
        parser.error(f"--confidence-level must be between 0 and 1, got {args.confidence_level}")
    if args.commit_index < 1:
        parser.error(f"--commit-index must be at least 1 (the first comparison is 1), got {args.commit_index}")
    if args.commit_index != 1 and args.alpha_spending == "constant":
        parser.error("--commit-index changes nothing with --alpha-spending constant: add --alpha-spending series")
    if args.rel is not None and args.rel < 1:
        parser.error(f"--rel must be a grade of at least 1, got {args.rel}")
    if not 0 <= args.digits <= 10:
        parser.error(f"--digits must be between 0 and 10, got {args.digits}")


def scores(args: argparse.Namespace, status: _common.Status) -> tuple[str, np.ndarray, np.ndarray]:
    """``(measure label, candidate scores, baseline scores)`` over the topics of --qrels, in the
    order they first appear there (a topic a run has no result for scores 0, with a warning)."""
    import pyterrier_boot as ptb

    (measure,) = _common.parse_measures_rel([args.measure], args.rel)
    status(f"reading the qrels {args.qrels}")
    qrels = _common.read_qrels(args.qrels)
    order = list(qrels.frame["qid"].unique())
    runs = {"baseline": ptb.read_run(args.baseline), "candidate": ptb.read_run(args.candidate)}
    status(f"evaluating the baseline and the candidate on {measure.label} over {len(order)} topics")
    frame = ptb.evaluate(runs, qrels.frame, [measure.measure])
    table = frame.pivot(index="qid", columns="name", values="value").reindex(order)
    return measure.label, table["candidate"].to_numpy(), table["baseline"].to_numpy()


def run(args: argparse.Namespace) -> int:
    from ..sequential.gate import regression_gate

    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    label, candidate, baseline = scores(args, status)
    result = regression_gate(candidate, baseline, margin=args.margin, confidence_level=args.confidence_level,
                             alpha_spending=args.alpha_spending, commit_index=args.commit_index)
    d = args.digits
    print(f"{result.verdict} ({label}, {result.n} topics): candidate - baseline = {result.estimate:+.{d}f}, "
          f"{1 - result.alpha_used:.4g} confidence sequence {result.interval(d)}, "
          f"margin {result.margin:g}")
    if args.summary:
        _common.write_text(Path(args.summary), result.summary(label, digits=d))
        status(f"wrote the summary to {args.summary}")
    return result.exit_code
