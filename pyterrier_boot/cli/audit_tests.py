"""``pyterrier-boot audit-tests``: which significance test keeps its Type I error and has the power,
measured on your own runs and measure (Urbano, Lima & Hanjalic 2019; :func:`pyterrier_boot.audit_tests`)."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from .._batches import check_scheduler, executor_from
from . import _common, _text

EXAMPLES = """\
examples:
  pyterrier-boot audit-tests --qrels qrels.txt runs/ --measure AP
  pyterrier-boot audit-tests --scores ap.csv --measure AP --topics 25 50 100 --out audit/
  pyterrier-boot audit-tests --qrels qrels.txt runs/ -m P@10 --tests t randomization --corrections none holm

how: a model of the per-topic scores is fitted (a margin per run on the measure's range, with its
atoms at 0 and 1 and the values P@k or RR can take; a copula per pair of runs, and one for all); topic
sets are simulated from it: under the null both runs of a random pair are drawn through one run's
margin with the pair's copula, under an effect one of them through that margin moved up by the
effect. Each test's Type I error is the share of null topic sets it calls significant (with its
Monte Carlo standard error), its power the share of effect sets it calls significant in the right
direction. Families of --family-size runs give the corrections' family-wise error and false
discovery rates. --scores reads a CSV with one column per run and one row per topic (a first column
named qid or topic holds the topic ids).

exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    from ..audit.audit import DEFAULT_EFFECTS, DEFAULT_TESTS
    from ..audit.battery import CORRECTIONS

    p = subparsers.add_parser(
        "audit-tests", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="which test for this collection: Type I error and power measured on your own topics",
        description="Type I error, Type III error and power of the paired tests and of multiple-comparison "
                    "corrections, simulated from a model fitted to your runs' per-topic scores.",
        epilog=EXAMPLES)
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files or folders of run files (with --qrels)")
    p.add_argument("-q", "--qrels", metavar="QRELS", help="relevance judgements (file or irds:<id>)")
    p.add_argument("--scores", metavar="CSV", help="a score matrix instead of runs: one column per run, one row per topic")
    p.add_argument("-m", "--measure", metavar="MEASURE",
                   help="the measure (with runs: required; with --scores: what the scores are, e.g. P@10)")
    p.add_argument("--rel", type=int, metavar="N", help="relevance cut for binary measures (as in evaluate)")
    p.add_argument("--topics", type=int, nargs="+", metavar="N", help="topic-set sizes to simulate (default: the data's)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--tests", nargs="+", default=list(DEFAULT_TESTS), metavar="TEST",
                   help=f"tests (default: {' '.join(DEFAULT_TESTS)})")
    p.add_argument("--corrections", nargs="+", default=list(CORRECTIONS), metavar="CORRECTION",
                   help=f"corrections over families of runs (default: {' '.join(CORRECTIONS)}); 'none' alone for "
                        "uncorrected families only")
    p.add_argument("--no-families", action="store_true", help="pairs only: skip the family simulations")
    p.add_argument("--alternatives", nargs="+", default=["two-sided"], choices=("two-sided", "greater", "less"))
    p.add_argument("--effects", type=float, nargs="+", default=list(DEFAULT_EFFECTS), metavar="DELTA",
                   help=f"true differences of means for power (default: {' '.join(map(str, DEFAULT_EFFECTS))})")
    p.add_argument("--n", type=_common.count, default=10_000, dest="n_simulations", metavar="N",
                   help="simulated topic sets per topic count (default 10,000)")
    p.add_argument("--families", type=_common.count, metavar="N", help="simulated families per topic count "
                   "(default: --n / 10)")
    p.add_argument("--family-size", type=int, metavar="K", help="runs per family (default: 5, or fewer runs)")
    p.add_argument("--resamples", type=_common.count, default=1000, metavar="B",
                   help="resamples of the bootstrap and randomization tests (default 1000)")
    p.add_argument("--rng", type=int, metavar="SEED",
                   help="random seed; the same seed gives the same output (default: 42, as rng=None in Python)")
    p.add_argument("--workers", type=_common.count, metavar="N", help="run the simulations on N worker processes "
                   "(the output is the same)")
    p.add_argument("--scheduler", metavar="KIND", help="processes (default with --workers), threads, dask or a "
                   "dask scheduler address (see pt_docs/scale.md)")
    _common.add_output_arguments(p, "also write audit.zip (TestAudit.load), table.csv and the figures here")
    p.add_argument("-f", "--format", choices=("table", "csv", "json"), default="table", help="output format")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    if args.scores and (args.runs or args.qrels):
        parser.error("give either --scores CSV, or --qrels and RUN files")
    if not args.scores and not (args.runs and args.qrels):
        parser.error("give --qrels and RUN files (or --scores CSV)")
    if args.runs and not args.measure:
        parser.error("--measure is required with runs (one measure, e.g. AP)")
    if not 0 < args.alpha < 1:
        parser.error(f"--alpha must be between 0 and 1, got {args.alpha}")
    if args.rel is not None and (args.rel < 1 or args.scores):
        parser.error("--rel N (N >= 1) applies to runs and qrels")
    try:
        check_scheduler(args.workers, args.scheduler)
    except ValueError as error:
        parser.error(str(error))
    _common.check_output_arguments(args, parser)


def read_score_matrix(path: str) -> pd.DataFrame:
    """A CSV with one column per run and one row per topic, as a systems x topics frame."""
    try:
        frame = pd.read_csv(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"no score matrix at '{path}'") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read the score matrix '{path}': {error}") from None
    first = str(frame.columns[0]).lower() if len(frame.columns) else ""
    if first in ("qid", "topic", "query_id", "topic_id"):
        frame = frame.set_index(frame.columns[0])
    bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        raise ValueError(f"the score matrix '{path}' has non-numeric columns {bad[:5]}: expected one column of "
                         "per-topic scores per run (and optionally a first column named qid)")
    frame.index = pd.Index([str(q) for q in frame.index], name="qid")
    return frame.T


def _audit(args, status, seed):
    from ..audit.audit import audit_tests

    if args.scores:
        scores, qrels, measure = read_score_matrix(args.scores), None, args.measure
    else:
        measure = _common.parse_measures_rel([args.measure], args.rel)[0].label
        status(f"reading the qrels {args.qrels}")
        qrels = _common.read_qrels(args.qrels, rel=args.rel)
        scores = _common.read_runs(args.runs, qrels, verbose=_common.progress_enabled(args))
    corrections = None if args.no_families else args.corrections
    status(f"fitting the model and simulating {args.n_simulations:,} topic sets per topic count (seed {seed})")
    with executor_from(args.workers, args.scheduler) as executor:
        return audit_tests(scores, qrels, measure, n_topics=args.topics, alpha=args.alpha, tests=args.tests,
                           corrections=corrections, alternatives=args.alternatives, effects=args.effects,
                           n_simulations=args.n_simulations, n_families=args.families, family_size=args.family_size,
                           n_resamples=args.resamples, rng=seed, executor=executor,
                           verbose=_common.progress_enabled(args))


def _write(audit, out):
    audit.save(out / "audit.zip")
    _common.write_csv(out / "table.csv", audit.table())
    _common.write_csv(out / "goodness-of-fit.csv", audit.goodness.systems)
    if _common.matplotlib_available():
        _common.use_agg()
        import matplotlib.pyplot as plt

        for kind in ("type_i", "power") if audit.effects else ("type_i",):
            ax = audit.plot(kind)
            ax.figure.savefig(out / f"{kind.replace('_', '-')}.png", dpi=120, bbox_inches="tight")
            plt.close(ax.figure)


def run(args: argparse.Namespace) -> int:
    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    seed = _common.seed(args.rng)
    with _common.output_folder(args, "audit-tests") as out:
        audit = _audit(args, status, seed)
        if out is not None:
            _write(audit, out)
    if args.out:
        status(f"wrote audit.zip, table.csv and the figures to {Path(args.out)}")
    table = audit.table()
    if args.format == "csv":
        print(table.to_csv(index=False).rstrip("\n"))
        return 0
    if args.format == "json":
        print(_text.dumps({"recommendation": audit.recommendation(), "seed": seed, "table": _text.records(table),
                           "goodness_of_fit": _text.records(audit.goodness.summary())}))
        return 0
    width = _text.terminal_width()
    print(_text.wrap(audit.recommendation(), width))
    print()
    print(_text.render_table(_display(table), width=width, key_columns=3))
    print()
    print(_text.wrap("type_i: Type I error (+- its Monte Carlo standard error; '!' above alpha plus two standard "
                     "errors); with more than 2 systems, the family-wise error rate of the correction. type_iii: "
                     "significant with the wrong sign. power@d / fdr@d: at a true difference d.", width))
    print()
    print(_text.render_table(audit.goodness.summary().round(3).astype(str), width=width))
    return 0


def _display(table):
    from ..audit.sentence import kept

    out = table[["test", "correction", "n_topics", "systems"]].astype(str)
    flag = np.where(kept(table), "", " !")
    out["type_i"] = [f"{v:.3f} +-{se:.3f}{f}" for v, se, f in zip(table["type_i"], table["type_i_se"], flag, strict=True)]
    if table["alternative"].nunique() > 1:
        out.insert(2, "alternative", table["alternative"])
    for column in [c for c in table.columns if c == "type_iii" or c.startswith(("power@", "fdr@"))]:
        out[column] = ["" if pd.isna(v) else f"{v:.3f}" for v in table[column]]
    return out
