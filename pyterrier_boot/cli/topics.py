"""``pyterrier-boot topics``: power and topic-set size (Kanoulas; Sakai 2016), from a run set's
per-topic scores or from a given variance of per-topic differences."""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from . import _common, _text

EXAMPLES = """\
examples:
  # topics needed to detect a difference of 0.05 between two systems, sigma_d^2 = 0.02
  pyterrier-boot topics --difference 0.05 --variance 0.02

  # ... when 10 systems are compared in all pairs (Tukey HSD, family-wise alpha 0.05)
  pyterrier-boot topics --difference 0.05 --variance 0.02 --systems 10

  # the variance estimated from runs (with a bootstrap interval), and the power they have now
  pyterrier-boot topics --difference 0.05 --qrels qrels.txt runs/ --measures AP nDCG@10 --all-pairs

how: the variance of per-topic differences between two systems, sigma_d^2, is given or estimated
from the runs as 2 x the residual mean square of 'score ~ system + topic' (pooled over all runs).
One pair: paired t-test power on the noncentral t. All pairs: per-pair power of Tukey's HSD with
topics as blocks (or --adjustment bonferroni). See pyterrier_boot.topic_set_size.

exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "topics", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="power and topic-set size: how many topics detect a given difference",
        description="How many topics a test collection needs to detect a difference with a given power, and "
                    "the power a run set has now; from runs (qrels + runs + measures) or from a given variance.",
        epilog=EXAMPLES)
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files or folders (with --qrels)")
    p.add_argument("-d", "--difference", type=float, required=True,
                   help="smallest difference worth detecting, in score units (e.g. 0.05)")
    p.add_argument("--variance", type=float, help="variance of per-topic score differences between two systems "
                   "(instead of runs)")
    p.add_argument("-q", "--qrels", metavar="QRELS", help="relevance judgements, to estimate the variance from runs")
    p.add_argument("-m", "--measures", nargs="+", action="extend", metavar="MEASURE",
                   help=f"measures, with runs (default: {' '.join(_common.DEFAULT_MEASURES)})")
    p.add_argument("--rel", type=int, metavar="N", help="relevance cut for binary measures (as in evaluate)")
    p.add_argument("--rel-remap", action="store_true", help="with --rel N, set grades 1..N-1 to 0 (as in evaluate)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--systems", type=int, metavar="N",
                       help="plan for all pairs of N systems (family-wise alpha); default: one pair")
    group.add_argument("--all-pairs", action="store_true", help="all pairs of the given runs")
    p.add_argument("--adjustment", choices=("tukey", "bonferroni"), default="tukey",
                   help="all-pairs adjustment (default tukey)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--power", type=float, default=0.8, help="target power (default 0.8)")
    p.add_argument("--at", type=int, nargs="+", metavar="N",
                   help="also give the power with these numbers of topics (default: the runs' topics, or 25 50 100)")
    p.add_argument("--n", type=_common.count, default=1000, dest="n_resamples", metavar="N",
                   help="topic resamples for the interval of the variance (default 1000)")
    p.add_argument("--max-memory", type=_common.memory_size, default=2**30, metavar="SIZE",
                   help="memory the bootstrap may use, e.g. 512M or 4G (default 1G)")
    _common.add_rng_argument(p)
    p.add_argument("-f", "--format", choices=("table", "csv", "json"), default="table", help="output format")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    if args.runs or args.qrels:
        args.measures, args.runs = _common.split_measures(args.measures, args.runs)
    from_runs = bool(args.runs or args.qrels)
    if from_runs == (args.variance is not None):
        parser.error("give either --variance, or --qrels and RUN files (to estimate the variance)")
    if from_runs and not (args.runs and args.qrels):
        parser.error("estimating the variance needs both --qrels and RUN files")
    if args.all_pairs and not from_runs:
        parser.error("--all-pairs compares the given runs; with --variance use --systems N")
    if args.variance is not None and args.variance <= 0:
        parser.error(f"--variance must be positive, got {args.variance}")
    if not args.difference or not np.isfinite(args.difference):
        parser.error(f"--difference must be a non-zero number, got {args.difference}")
    for name in ("alpha", "power"):
        value = getattr(args, name)
        if not 0 < value < 1:
            parser.error(f"--{name} must be between 0 and 1, got {value}")
    if args.systems is not None and args.systems < 2:
        parser.error(f"--systems must be at least 2, got {args.systems}")
    if args.at and min(args.at) < 2:
        parser.error("--at needs topic counts of at least 2")
    if args.rel_remap and args.rel is None:
        parser.error("--rel-remap needs --rel N")
    if args.n_resamples < 2:
        parser.error(f"--n must be at least 2, got {args.n_resamples}")
    if not args.measures:
        args.measures = list(_common.DEFAULT_MEASURES)
    return from_runs


def run(args: argparse.Namespace) -> int:
    from_runs = _check(args, args.parser)
    status = _common.Status(not args.quiet)
    seed = _common.seed(args.rng)
    comparisons = "all_pairs" if (args.systems or args.all_pairs) else "pair"
    options = {"difference": args.difference, "comparisons": comparisons, "adjustment": args.adjustment,
               "alpha": args.alpha, "power": args.power}
    if from_runs:
        rows, at, source = _from_runs(args, options, status, seed)
    else:
        from ..meta.design.topic_set_size import topic_set_size

        at = args.at or [25, 50, 100]
        rows = [("(given)", topic_set_size(variance=args.variance, n_systems=args.systems, **options))]
        source = "the given variance"
    frame = _table(rows, at, comparisons, args)
    design = ("one pair of systems, paired t-test" if comparisons == "pair" else
              f"all pairs of {rows[0][1].n_systems} systems, "
              + ("Tukey HSD" if args.adjustment == "tukey" else "Bonferroni-corrected t-tests"))
    if args.format == "csv":
        print(frame.to_csv(index=False).rstrip("\n"))
    elif args.format == "json":
        print(_text.dumps({"design": design, "difference": abs(args.difference), "alpha": args.alpha,
                           "power": args.power, "seed": seed if from_runs else None, "source": source,
                           "table": _text.records(frame)}))
    else:
        _print_table(frame, at, from_runs, design, source, seed, args)
    return 0


def _from_runs(args, options, status, seed):
    """The topic-set size of each measure, from the variance of the runs' per-topic differences:
    ``(rows (measure, result), topic counts to show the power at, source)``."""
    from ..experiment.experiment import experiment_result
    from ..meta.design.topic_set_size import topic_set_size

    measures = _common.parse_measures_rel(args.measures, args.rel)
    status(f"reading the qrels {args.qrels}")
    qrels = _common.read_qrels(args.qrels, rel=args.rel, remap=args.rel_remap)
    runs = _common.read_runs(args.runs, qrels, verbose=_common.progress_enabled(args))
    if len(runs) < 2:
        raise ValueError(f"estimating the variance of differences needs at least 2 runs, got {len(runs)}")
    status(f"evaluating {len(runs)} runs")
    result = experiment_result(runs, None, qrels, measures, bootstrap=None)
    if len(result.qids) < 2:
        raise ValueError(f"estimating the variance of per-topic differences needs at least 2 judged topics, the "
                         f"qrels judge {len(result.qids)}; give --variance instead")
    n_systems = len(runs) if args.all_pairs else args.systems
    streams = np.random.default_rng(seed).spawn(len(result.measures))
    rows = [(m, topic_set_size(result.values[:, :, j], n_systems=n_systems, n_resamples=args.n_resamples,
                               rng=streams[j], max_memory=args.max_memory, **options))
            for j, m in enumerate(result.measures)]
    return rows, args.at or [len(result.qids)], f"{len(runs)} runs x {len(result.qids)} topics"


def _table(rows, at, comparisons, args):
    """One row per measure: the variance, effect size, topics needed (with intervals) and the power at ``at``."""
    from ..meta.design.topic_set_size import all_pairs_power
    from ..stats.power import paired_power

    table = []
    for label, res in rows:
        entry = {"measure": label, "variance": res.variance, "variance ci_low": None, "variance ci_high": None,
                 "effect size": res.effect_size, "topics needed": res.topics_needed,
                 "topics ci_low": None, "topics ci_high": None, "achieved power": res.achieved_power}
        if res.variance_interval is not None:
            entry["variance ci_low"], entry["variance ci_high"] = res.variance_interval
            entry["topics ci_low"], entry["topics ci_high"] = res.confidence_interval
        for n in at:
            if comparisons == "pair":
                power = paired_power(n, res.effect_size, alpha=args.alpha)
            else:
                power = all_pairs_power(n, res.effect_size, res.n_systems, adjustment=args.adjustment,
                                        alpha=args.alpha)
            entry[f"power with {n} topics"] = float(power)
        table.append(entry)
    return pd.DataFrame(table)


def _print_table(frame, at, from_runs, design, source, seed, args):
    width = _text.terminal_width()
    print(_text.wrap(f"Topic-set size: {design}, two-sided alpha = {args.alpha:g}, target power "
                     f"{args.power:g}, difference {abs(args.difference):g}; variance of per-topic differences "
                     f"from {source}.", width))
    print()
    print(_text.render_table(_display(frame, at, from_runs), width=width))
    print()
    notes = ["variance: of per-topic score differences between two systems (sigma_d^2)",
             "effect size: difference / sigma_d", "achieved: the power with the topics needed",
             "power@N: the power with N topics"]
    if from_runs:
        notes.append(f"[ ]: 95% topic-bootstrap percentile intervals ({args.n_resamples:,} resamples, seed {seed})")
    print(_text.wrap("; ".join(notes) + ".", width))


def _display(frame, at, from_runs):
    out = {"measure": frame["measure"]}

    def interval(value, low, high, fmt):
        return f"{value:{fmt}}" + (f" [{low:{fmt}}, {high:{fmt}}]" if from_runs and pd.notna(low) else "")

    out["variance"] = [interval(v, lo, hi, ".4f") for v, lo, hi in
                       zip(frame["variance"], frame["variance ci_low"], frame["variance ci_high"], strict=True)]
    out["effect size"] = [f"{v:.3f}" for v in frame["effect size"]]
    out["topics needed"] = [f"{int(v)}" + (f" [{int(lo)}, {int(hi)}]" if pd.notna(lo) else "") for v, lo, hi in
                            zip(frame["topics needed"], frame["topics ci_low"], frame["topics ci_high"], strict=True)]
    out["achieved"] = [f"{v:.3f}" for v in frame["achieved power"]]
    for n in at:
        out[f"power@{n}"] = [f"{v:.3f}" for v in frame[f"power with {n} topics"]]
    return pd.DataFrame(out)
