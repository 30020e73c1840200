"""``pyterrier-boot ppi``: prediction-powered intervals from automatic qrels for every topic and
human qrels for some topics (Angelopoulos et al. 2023; PPI++, Angelopoulos, Duchi & Zrnic 2024), or,
with ``--plan``, for a judging plan's sample of documents (statAP-style design weights, Aslam,
Pavlu & Yilmaz 2006)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from . import _common

EXAMPLES = """\
examples:
  # LLM judgments for every topic, human judgments for a random quarter of the topics
  pyterrier-boot ppi --auto-qrels llm.qrels --human-qrels human.qrels runs/ --measures nDCG@10 AP --rel 2

  # differences against a baseline, plain PPI (no power tuning), tables written to out/
  pyterrier-boot ppi --auto-qrels llm.qrels --human-qrels human.qrels runs/ -b bm25 --lam 1 --out out/

  # the mean over these topics (not a population of topics): finite-population correction
  pyterrier-boot ppi --auto-qrels llm.qrels --human-qrels human.qrels runs/ --estimand topics

  # the asymptotic intervals of the PPI papers and ppi_py (z quantile, PPI++ lambda tuned in-sample)
  pyterrier-boot ppi --auto-qrels llm.qrels --human-qrels human.qrels runs/ --asymptotic

  # an LLM's 0/1 labels against people's 0-3 grades: the judge's 1 counts as grade 2
  pyterrier-boot ppi --auto-qrels llm.qrels --human-qrels human.qrels runs/ -m AP nDCG@10 --rel 2 --label-map 1:2

  # people judged a sample of documents of every topic: plan/to_judge.txt of 'judge-plan', graded
  pyterrier-boot judge-plan --auto-qrels llm.qrels runs/ --budget 0.1 --out plan/
  pyterrier-boot ppi --auto-qrels llm.qrels --human-qrels judged.qrels --plan plan/plan.txt runs/

what is printed, for each measure and run (or difference against --baseline):
  PPI          the prediction-powered estimate of the mean human score and its interval
  lambda       the weight of the automatic scores (1 = plain PPI below 30 human-judged topics,
               cross-fitted PPI++ from 30, unless --lam)
  human-only   the classical (Student t) interval from the human-judged topics alone
  auto-only    the classical interval from the automatic scores of every topic, as if the judge
               were right (narrow, and wrong when the judge is biased)

--estimand says what every interval is about (printed on the first line, and the 'estimand'
column of the CSV tables): 'population' (default), the mean over the population the topics are
sampled from; 'topics', the mean over the topics of --auto-qrels (narrower; zero width when every
topic is human-judged).
The human-judged topics must be a random subset of the topics; see the ppi page of the docs.
With --plan, the human labels are of exactly the plan's sample of (topic, document) pairs, every
topic's measure is estimated from the automatic labels corrected by the human ones weighted by
their inclusion probabilities, PPI is that estimate, human-only the human sample alone
(Horvitz-Thompson, statAP) and lambda the weight of the automatic labels.
A flag number beside an interval (explained under the tables) marks a run, or a difference
involving one, whose interval under-covered in our measurements.
exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "ppi", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="prediction-powered intervals: automatic qrels for all topics, human qrels for some",
        description="Confidence intervals for the mean human-judged score of each run (and differences against "
                    "a baseline) from automatic judgments of every topic and human judgments of a random subset "
                    "of the topics, by prediction-powered inference (PPI, PPI++ power tuning from 30 human-judged "
                    "topics, small-sample t quantiles), beside the "
                    "human-only and automatic-only intervals.",
        epilog=EXAMPLES)
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files in TREC format (plain or .gz) or folders of them")
    p.add_argument("--auto-qrels", required=True, metavar="QRELS",
                   help="automatic judgments (e.g. an LLM's) of every topic: a TREC qrels file or 'irds:<id>'")
    p.add_argument("--human-qrels", required=True, metavar="QRELS",
                   help="human judgments of a random subset of those topics (each of its topics fully judged); "
                        "with --plan, of exactly the plan's sample of documents")
    p.add_argument("--plan", metavar="FILE",
                   help="a judging plan (plan.txt of 'pyterrier-boot judge-plan', made from these runs and "
                        "--auto-qrels): the human labels are a sample of documents of every topic")
    p.add_argument("--probabilities", metavar="FILE",
                   help="with --plan: the judge's probabilities the plan was made with (judge-plan --probabilities)")
    p.add_argument("--replicates", type=_common.count, metavar="N",
                   help="with --plan: design replicates of the document sampling (default 200): the variance "
                        "of --estimand topics, and nDCG's bias in either estimand")
    _common.add_rng_argument(p, "with --plan: seed of the design replicates", printed=False)
    p.add_argument("-m", "--measures", nargs="+", action="extend", metavar="MEASURE",
                   help=f"ir_measures or trec_eval names (default: a plan's own measures, else "
                        f"{' '.join(_common.DEFAULT_MEASURES)})")
    p.add_argument("-b", "--baseline", metavar="NAME", help="also give each run's difference from this run")
    p.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL",
                   help="confidence level of every interval (default 0.95)")
    p.add_argument("--lam", default="tune", metavar="LAMBDA",
                   help="weight of the automatic scores: 'tune' (default: plain PPI below 30 human-judged topics, "
                        "cross-fitted PPI++ from 30; with --plan, tuned per measure from the sample), 1 (plain "
                        "PPI) or a number in [0, 1]")
    p.add_argument("--estimand", choices=("population", "topics"), default="population",
                   help="what the intervals are about: 'population' (default: the population of topics these are "
                        "a sample of) or 'topics' (the mean over these topics, with the finite-population correction)")
    p.add_argument("--asymptotic", action="store_true",
                   help="switch the small-sample rule off: z quantiles, divisor-n variances, PPI++ lambda tuned "
                        "in-sample (the intervals of the PPI papers and ppi_py; they under-cover below ~50 topics)")
    p.add_argument("--rel", type=int, metavar="N", help="binary measures count grade >= N as relevant (trec_eval -l N)")
    p.add_argument("--label-map", nargs="+", metavar="LABEL:GRADE",
                   help="the people's grade of each automatic label, e.g. 1:2 (a 0/1 judge's 1 counts as grade 2 at "
                        "--rel 2); with --plan, for a plan made without one (judge-plan --label-map)")
    p.add_argument("-f", "--format", choices=("table", "csv"), default="table",
                   help="table (default): readable blocks; csv: the wide table")
    p.add_argument("--digits", type=int, default=3, help="decimals in the printed table (default 3)")
    _common.add_output_arguments(p, "also write ppi_table.csv (wide), ppi_pairwise.csv (every pair) and "
                                    "ppi_per_query.csv")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    args.measures, args.runs = _common.split_measures(args.measures, args.runs)
    if not args.runs:
        parser.error("give at least one RUN file or folder (after the options, or after '--')")
    if not args.measures and args.plan is None:  # with --plan: the plan's measures, else these
        args.measures = list(_common.DEFAULT_MEASURES)
    if not 0 < args.confidence < 1:
        parser.error(f"--confidence must be between 0 and 1, got {args.confidence}")
    if args.rel is not None and args.rel < 1:
        parser.error(f"--rel must be a grade of at least 1, got {args.rel}")
    _common.check_output_arguments(args, parser)
    if not 0 <= args.digits <= 10:
        parser.error(f"--digits must be between 0 and 10, got {args.digits}")
    _check_plan_arguments(args, parser)
    args.label_map = _common.label_map(args.label_map, parser)
    if args.lam == "tune":
        args.lam = None
    else:
        try:
            args.lam = float(args.lam)
        except ValueError:
            parser.error(f"--lam must be 'tune' or a number in [0, 1], got {args.lam!r}")
        if not 0 <= args.lam <= 1:
            parser.error(f"--lam must be 'tune' or a number in [0, 1], got {args.lam:g}")


def _check_plan_arguments(args, parser):
    """Options that belong to --plan (or to the topic-level intervals) given with the other kind."""
    if args.plan is None:
        given = [flag for flag, value in (("--probabilities", args.probabilities),
                                          ("--replicates", args.replicates), ("--rng", args.rng)) if value is not None]
        if given:
            parser.error(f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --plan FILE (human labels "
                         "of a sample of documents)")
        return
    if args.asymptotic:
        parser.error("--asymptotic applies to topic-level intervals, not with --plan")


def run(args: argparse.Namespace) -> int:
    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    with _common.output_folder(args, "ppi") as out:
        result, table = _evaluate(args, status, out)
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False, float_format=f"%.{args.digits + 3}g")
    else:
        print(_text_blocks(result, table, args))
    if args.out:
        status(f"wrote the tables to {Path(args.out)}")
    return 0


def _evaluate(args, status, out):
    """Read, evaluate; write the tables into ``out`` (the staging folder) when given."""
    from ..ppi.evaluation import ppi_evaluate

    status(f"reading the qrels {args.auto_qrels} and {args.human_qrels}")
    auto = _common.read_qrels(args.auto_qrels)
    human = _common.read_qrels(args.human_qrels)
    with_plan = _plan_options(args, status)
    if not args.measures:
        args.measures = list(with_plan["plan"].measures or _common.DEFAULT_MEASURES)
    measures = _common.parse_measures_rel(args.measures, args.rel)
    runs = _common.read_runs(args.runs, auto, verbose=_common.progress_enabled(args))
    if args.baseline is not None:
        _common.check_baselines([args.baseline], list(runs))
    status(f"evaluating {len(runs)} run(s) on {', '.join(m.label for m in measures)} with both qrels")
    if with_plan:
        auto = _common.with_probabilities(auto, args.probabilities)
    result = ppi_evaluate(runs, auto, human, measures, confidence_level=args.confidence, lam=args.lam,
                          small_sample=not args.asymptotic, estimand=args.estimand, label_map=args.label_map,
                          **with_plan)
    table = result.table(baseline=args.baseline)
    if out is not None:
        _common.write_csv(out / "ppi_table.csv", table)
        if len(runs) > 1:
            _common.write_csv(out / "ppi_pairwise.csv", result.pairwise())
        _common.write_csv(out / "ppi_per_query.csv", result.per_query())
    return result, table


def _plan_options(args, status) -> dict:
    """``ppi_evaluate``'s arguments of a judging plan (none without ``--plan``)."""
    if args.plan is None:
        return {}
    from ..judging import JudgingPlan
    from ..ppi.sampled import DEFAULT_REPLICATES

    status(f"reading the judging plan {args.plan}")
    replicates = DEFAULT_REPLICATES if args.replicates is None else args.replicates
    return {"plan": JudgingPlan.load(args.plan), "n_replicates": replicates, "rng": _common.seed(args.rng)}


def _header(result) -> str:
    """The first line: the interval, what the human labels are, the estimand."""
    from ..ppi.sampled import SampledPPIEvaluation

    level = f"{100 * result.confidence_level:g}%"
    if isinstance(result, SampledPPIEvaluation):
        kind = f"normal, {result.n_replicates} design replicates" if result.estimand == "topics" else "t over topics"
        return (f"PPI {level} intervals from a judging plan ({kind}): the human labels are a sample of documents, "
                f"{result.n_labels} labels of {result.n_pool} pool pairs over {len(result.qids)} topics "
                f"({result.design} design); {result.describe_estimand()}")
    kind = "small-sample t" if result.small_sample else "asymptotic normal"
    return (f"{result.method} {level} intervals ({kind}): {len(result.labeled_qids)} human-judged topics, "
            f"{len(result.unlabeled_qids)} judged only automatically; {result.describe_estimand()}")


def _flag_meanings() -> dict[str, str]:
    """What each fixed reason of the tables' flag columns means (a measured coverage says itself)."""
    from ..ppi.sampled import FEW_LABELS_IN_TOP
    from ..ppi.tables import MOSTLY_ZERO

    return {"mostly 0": f"the run scores 0 on more than {MOSTLY_ZERO:.0%} of the topics by the automatic labels",
            "few labels in top ranks": "fewer human labels in the run's top ranks (the measure's cutoff, else 10) "
                                       f"than {FEW_LABELS_IN_TOP:g} per topic, over all topics"}


class _Footnotes:
    """Flag reasons numbered in order of first appearance; a mark per row, the notes at the end."""

    def __init__(self):
        self.reasons: list[str] = []

    def marks(self, flags) -> list[str]:
        out = []
        for flag in flags:
            reasons = [r for r in str(flag).split(", ") if r]
            self.reasons += [r for r in reasons if r not in self.reasons]
            out.append(",".join(str(self.reasons.index(r) + 1) for r in reasons))
        return out

    def lines(self) -> list[str]:
        if not self.reasons:
            return []
        meanings = _flag_meanings()
        head = ("flags: intervals that under-covered in our measurements (see the ppi page of the docs); a "
                "difference is flagged when either run is")
        return ["", head] + [f"  {i} {reason}" + (f": {meanings[reason]}" if reason in meanings else "")
                             for i, reason in enumerate(self.reasons, 1)]


def _text_blocks(result, table, args) -> str:
    d = args.digits
    lines = [_header(result)]
    notes = _Footnotes()

    def cell(frame, head):
        low, high = frame[f"{head} ci_low"], frame[f"{head} ci_high"]
        return [("" if np.isnan(v) else f"{v:.{d}f} [{lo:.{d}f}, {hi:.{d}f}]")
                for v, lo, hi in zip(frame[head], low, high)]

    for label in result.measures:
        for diff in ([False, True] if args.baseline is not None else [False]):
            head = f"{label} diff" if diff else label
            block = pd.DataFrame({"name": table["name"], "PPI": cell(table, head),
                                  "lambda": [("" if np.isnan(v) else f"{v:.2f}") for v in table[f"{head} lambda"]]})
            if diff:
                block["p-value"] = [("" if np.isnan(v) else f"{v:.{d}g}") for v in table[f"{label} p-value"]]
            for kind in ("human-only", "auto-only"):
                block[kind] = cell(table, f"{label} {kind} diff" if diff else f"{label} {kind}")
            flags = table[f"{head} flag"]
            if flags.astype(bool).any():
                block.insert(2, "flag", notes.marks(flags))
            title = f"{label}: difference from {args.baseline}" if diff else f"{label}: mean"
            lines += ["", title, block.to_string(index=False)]
    return "\n".join(lines + notes.lines())
