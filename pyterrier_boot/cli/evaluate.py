"""``pyterrier-boot evaluate``: every run, every measure, intervals, tests, a report."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._batches import check_scheduler, executor_from
from .._warnings import InputWarning, warn
from ..stats.registry import PAIRED
from . import _common, _text

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from .._typing import QrelsLike
    from ..experiment.result import ExperimentResult


EXAMPLES = """\
examples:
  # the TREC DL 2020 passage runs, all pairs compared (Holm-corrected t-tests), a report in out/
  pyterrier-boot evaluate --qrels qrels.dl20-passage.txt runs/ --measures nDCG@10 AP --rel 2 --out out/

  # two runs against a baseline, corpus bootstrap, 1000 images, as LaTeX
  pyterrier-boot evaluate -q qrels.txt bm25.res.gz dph.res.gz -b bm25 --bootstrap corpus --format latex

  # thousands of runs, randomisation tests of all pairs on a dask cluster (same output as one process)
  pyterrier-boot evaluate -q qrels.txt runs/ --test randomization --workers 8 --scheduler tcp://head:8786

  # an ir_datasets id (needs the qrels in the ir_datasets cache, or the network)
  pyterrier-boot evaluate -q irds:vaswani run1.txt run2.txt -m map P_10

relevance cut:
  --rel N        binary measures (AP, P, R, RR, Rprec, Bpref, Success, infAP, Q, ...) count
                 grade >= N as relevant: AP becomes AP(rel=N). Graded measures (nDCG, ERR) keep
                 every grade. This is trec_eval's -l N; a measure that names its own rel keeps it.
  --rel-remap    also rewrite the qrels: grades 1 .. N-1 become 0, so graded measures see them
                 as non-relevant too (NIST's trec_eval table for TREC DL 2020 was made this way).

exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""

FORMATS = ("table", "csv", "latex", "markdown", "json")
# the tests by the spelling the command line uses (hyphens), pt.Experiment's first
TESTS = ("t", "wilcoxon") + tuple(name.replace("_", "-") for name in PAIRED if name not in ("t", "wilcoxon"))
EXTENSIONS = {"latex": "tex", "markdown": "md", "json": "json"}


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    from ..stats.correction import METHODS as CORRECTIONS

    p = subparsers.add_parser(
        "evaluate", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="evaluate TREC runs: means with confidence intervals, significance tests, a report",
        description="Evaluate runs against relevance judgements: each run's mean with a bootstrap confidence "
                    "interval, paired significance tests (all pairs, or against baselines) with multiple-testing "
                    "correction, and, with --out, CSV tables and a self-contained HTML report with plots.",
        epilog=EXAMPLES)
    p.add_argument("runs", nargs="*", metavar="RUN",
                   help="run files in TREC format (qid Q0 docno rank score tag; plain or .gz) or folders of "
                        "them; a run is named by its tag")
    p.add_argument("-q", "--qrels", required=True, metavar="QRELS",
                   help="relevance judgements: a TREC qrels file (qid iter docno grade; plain or .gz) or an "
                        "ir_datasets id 'irds:<id>'")
    p.add_argument("-m", "--measures", nargs="+", action="extend", metavar="MEASURE",
                   help="ir_measures names (nDCG@10, AP, 'AP(rel=2)', P@10, RR, 'RBP(p=0.8)') or trec_eval names "
                        f"(map, ndcg_cut_10, P_10); several allowed (default: {' '.join(_common.DEFAULT_MEASURES)})")
    p.add_argument("-b", "--baseline", action="append", metavar="NAME",
                   help="compare every run with this run (repeatable); without it, all pairs are compared")
    p.add_argument("--bootstrap", choices=("topic", "corpus", "both", "none"), default="topic",
                   help="what to resample: topics (default), the documents of the corpus (corpus images), both "
                        "at once, or none (means and tests only)")
    p.add_argument("--n", type=_common.count, metavar="N", dest="n_resamples",
                   help="topic resamples (default 10000) or corpus images (default 1000)")
    _add_resource_arguments(p)
    p.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL",
                   help="confidence level of the intervals (default 0.95)")
    p.add_argument("--interval", metavar="METHOD",
                   help="interval method: topic bootstrap studentized (default), bca, percentile, basic, normal, "
                        "t; corpus bootstrap normal (default), percentile, logit, bca; both: normal (default), "
                        "percentile, basic")
    p.add_argument("--test", choices=TESTS, default="t",
                   help="paired significance test over topics (default t)")
    p.add_argument("--correction", choices=(*CORRECTIONS, "none"), default="holm",
                   help="multiple-testing correction within each measure (default holm)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--rel", type=int, metavar="N", help="relevance cut for binary measures (see below)")
    p.add_argument("--rel-remap", action="store_true",
                   help="with --rel N, also set grades 1..N-1 to 0 in the qrels (see below)")
    p.add_argument("--corpus-size", type=int, metavar="N",
                   help="documents in the collection (corpus bootstrap; needed by --model multinomial)")
    p.add_argument("--model", choices=("poisson", "multinomial"), default="poisson",
                   help="corpus image model (default poisson)")
    _common.add_seed_arguments(p)
    _common.add_rng_argument(p)
    p.add_argument("-f", "--format", choices=FORMATS, default="table",
                   help="what to print: a readable table (default), or the full table as csv, latex, markdown "
                        "or json")
    p.add_argument("--digits", type=int, default=3, help="decimals in the printed table (default 3)")
    _common.add_output_arguments(p, "write table.csv, table.tex, table.md, table.json, perquery.csv, pairwise.csv, "
                                    "ranks.csv and report.html to DIR "
                                    "(all or nothing: written beside it and moved into place at the end)")
    p.add_argument("--title", help="title of the HTML report")
    p.add_argument("--no-plots", action="store_true", help="a report without plots (faster)")
    p.set_defaults(run=run, parser=p)
    return p


def _add_resource_arguments(p: argparse.ArgumentParser) -> None:
    """``--max-memory``, ``--workers N`` and ``--scheduler KIND``: how much memory the resampling may
    hold and where it runs (the same output anywhere)."""
    p.add_argument("--max-memory", type=_common.memory_size, default=2**30, metavar="SIZE",
                   help="memory the bootstrap may use, e.g. 512M or 4G (default 1G); a larger --n is refused "
                        "with the estimate")
    p.add_argument("--workers", type=_common.count, metavar="N",
                   help="run the topic bootstrap and the resampling tests on N worker processes (default: this "
                        "process); the output is the same as without it")
    p.add_argument("--scheduler", metavar="KIND",
                   help="where the workers run: processes (default with --workers), threads, dask (a local "
                        "dask.distributed cluster of N processes) or the address of a running dask scheduler "
                        "(tcp://host:8786); see pt_docs/scale.md")


def _check(args, parser):
    _common.check_evaluation_arguments(args, parser, runs_needed="at least one RUN file or folder")
    if args.bootstrap == "none" and args.interval is not None:
        parser.error("--interval needs a bootstrap (not --bootstrap none)")
    try:
        check_scheduler(args.workers, args.scheduler)
    except ValueError as error:
        parser.error(str(error))


def settings(args: argparse.Namespace, seed: int, qrels: Any, runs: Sequence[str] | Mapping[str, Any],
             measures: Sequence[Any]) -> dict[str, Any]:
    from ..stats.registry import test_label

    out = {
        "command": args.command_line,
        "qrels": qrels.source,
        "runs": f"{len(runs)}: " + ", ".join(list(runs)[:12]) + (", ..." if len(runs) > 12 else ""),
        "measures": ", ".join(m.label for m in measures),
        "bootstrap": args.bootstrap,
        "test": f"{test_label(args.test)}, correction {args.correction}, alpha {args.alpha:g}"
                + ("" if args.baseline else ", all pairs"),
        "seed": _common.seed_setting(seed),
    }
    if args.rel is not None:
        out["relevance"] = (f"binary measures count grade >= {args.rel} as relevant"
                            + (f"; qrels grades 1..{args.rel - 1} set to 0" if args.rel_remap else ""))
    return out


def run(args: argparse.Namespace) -> int:
    parser = args.parser
    _check(args, parser)
    status = _common.Status(not args.quiet)
    progress = _common.progress_enabled(args)
    measures = _common.parse_measures_rel(args.measures, args.rel)
    with _common.output_folder(args, "evaluate") as out, executor_from(args.workers, args.scheduler) as executor:
        written = _evaluate(args, measures, status, progress, out, executor)
    if args.out:
        status(f"wrote {', '.join(written)} to {Path(args.out)}")
    return 0


def _evaluate(args, measures, status, progress, out, executor=None):
    """Read, evaluate, print; write the files into ``out`` (the staging folder) when given."""
    seed = _common.seed(args.rng)
    correction = None if args.correction == "none" else args.correction
    bootstrap = None if args.bootstrap == "none" else args.bootstrap

    status(f"reading the qrels {args.qrels}")
    qrels = _common.read_qrels(args.qrels, corpus_size=args.corpus_size, rel=args.rel, remap=args.rel_remap)
    status(f"reading {len(args.runs)} run path{'s' if len(args.runs) > 1 else ''}")
    files: dict[str, str] = {}
    runs = _common.grouped_runs(_read_runs(args.runs, qrels, measures, progress, files), args, files)
    names = _common.system_names(runs)
    _common.check_baselines(args.baseline, names)

    from ..experiment.experiment import experiment_result

    n_text = f", {args.n_resamples:,} resamples" if args.n_resamples else ""
    what = (f"{len(names)} run{'s' if len(names) > 1 else ''}" if len(files) <= len(names) else
            f"{len(names)} systems ({len(files)} runs)")
    status(f"evaluating {what} on {', '.join(m.label for m in measures)}, "
           f"{args.bootstrap} bootstrap{n_text}, seed {seed}")
    result = experiment_result(runs, None, qrels, measures, baseline=args.baseline or None, test=args.test,
                        correction=correction if args.baseline else None, correction_alpha=args.alpha,
                        bootstrap=bootstrap, n_resamples=args.n_resamples, confidence_level=args.confidence,
                        interval=args.interval, corpus_size=args.corpus_size, model=args.model, rng=seed,
                        max_memory=args.max_memory, verbose=progress and bootstrap in ("corpus", "both"),
                        executor=executor, seeds=args.seeds)
    del runs  # the per-topic values are in the result: the rankings are not held through the tests and report
    pairwise = None
    if not args.baseline and len(names) > 1 and len(result.qids) < 2 and bootstrap is None:
        warn(InputWarning(f"only {len(result.qids)} topic is judged: the pairs of runs are not tested (a test needs "
                          "at least 2 topics)"))
    if not args.baseline and len(names) > 1 and len(result.qids) > 1:
        n_pairs = len(names) * (len(names) - 1) // 2
        status(f"testing all {n_pairs:,} pairs of runs ({_common.pair_test_name(args.test, bootstrap)}, correction "
               f"{args.correction})")
        pairwise = result.pairwise(test=args.test, correction=correction, alpha=args.alpha,
                                   rng=np.random.default_rng(seed), max_memory=args.max_memory, executor=executor)
    info = settings(args, seed, qrels, names, measures)
    if result.seeds is not None:
        info["seeds"] = _common.seeds_setting(result)
    print_result(result, pairwise, args, seed, qrels)
    if out is not None:
        return write_outputs(out, result, pairwise, args, info, seed, status)
    return None


def _read_runs(paths, qrels, measures, progress, files=None):
    """The runs interned one at a time when every measure has a kernel (memory stays flat however
    many and deep the runs), else read as frames (ir_measures computes the others from them);
    ``files`` receives each run's file name."""
    from ..measures.lowering import lower

    if all(lower(m.measure) is not None for m in measures):
        return _common.intern_runs(paths, qrels, verbose=progress, files=files)
    return _common.read_runs(paths, qrels, verbose=progress, files=files)


# ---------------------------------------------------------------- printing


def _cells(result):
    """What the cells hold: ``"Cells: mean [95% topic-bootstrap ... intervals (..., seed 42)]"``."""
    from ..report import describe_intervals

    return (f"Cells: mean [{describe_intervals(result)}]" if result.intervals is not None
            else "Cells: mean over topics (no bootstrap, no intervals)")


def caption(result: ExperimentResult, pairwise: Any, args: argparse.Namespace) -> tuple[str, str]:
    """What the readable table holds, in every format that prints it (table, markdown; json as
    text): its cells (the intervals, their seed) and order, and its comparison columns (the
    ``>``/``<`` counts or the differences from a baseline: the test, the correction, alpha)."""
    from ..report import comparison_note

    note = comparison_note(result, pairwise=pairwise, test=args.test, correction=args.correction, alpha=args.alpha)
    return f"{_cells(result)}; sorted by {result.measures[0]}.", note


def _summary_lines(result, pairwise, args, seed, qrels, width):
    from ..report import summary_table

    S, Q = len(result.names), len(result.qids)
    cells, note = caption(result, pairwise, args)
    what = f"{S} run{'s' if S > 1 else ''}" if result.run_scores is None else \
        f"{S} system{'s' if S > 1 else ''} ({len(result.run_scores.runs)} runs)"
    lines = [_text.wrap(f"{what} x {Q} topic{'s' if Q != 1 else ''}; qrels {qrels.source}", width),
             _text.wrap(cells, width)]
    table = summary_table(result, pairwise=pairwise, alpha=args.alpha, digits=args.digits)
    lines += ["", _text.render_table(table, width=width), ""]
    if note:
        lines.append(_text.wrap(note, width))
    if pairwise is not None and len(pairwise):
        p = pairwise["p-value corrected"] if pairwise["p-value corrected"].notna().any() else pairwise["p-value"]
        counts = [f"{m} {int((p[pairwise['measure'] == m] < args.alpha).sum()):,}" for m in result.measures]
        n_pairs = int((pairwise["measure"] == result.measures[0]).sum())
        where = f"{Path(args.out) / 'pairwise.csv'} and report.html" if args.out else "--out DIR (pairwise.csv, report.html)"
        lines.append(_text.wrap(f"Significant pairs of {n_pairs:,}: " + ", ".join(counts)
                                + f". Every pair with its interval and p-value: {where}.", width))
    lines.append(_common.seed_line(seed))
    return lines


def print_result(result: ExperimentResult, pairwise: Any, args: Any, seed: int, qrels: QrelsLike) -> None:
    fmt = args.format
    if fmt == "table":
        width = _text.terminal_width()
        print("\n".join(_summary_lines(result, pairwise, args, seed, qrels, width)))
    else:
        sys.stdout.write(formatted(result, pairwise, args, seed) + "\n")


def formatted(result: ExperimentResult, pairwise: Any, args: argparse.Namespace, seed: int,
              fmt: str | None = None) -> str:
    """The table in a machine-readable format ``fmt`` (default ``--format``: csv, latex, markdown, json)."""
    from ..report import summary_table

    fmt = args.format if fmt is None else fmt
    if fmt == "csv":
        return result.table().to_csv(index=False).rstrip("\n")
    if fmt == "latex":  # letters from the command's own all-pairs tests, when it ran them
        letters = pairwise is not None and len(pairwise) > 0 and result.comparisons is None
        table = result.display(digits=args.digits, alpha=args.alpha, letters=letters,
                               pairwise=pairwise if letters else None, test=args.test, correction=args.correction)
        return table.to_latex()
    if fmt == "markdown":  # the table, its caption below (as Leaderboard.to_markdown)
        table = _text.markdown_table(summary_table(result, pairwise=pairwise, alpha=args.alpha, digits=args.digits))
        return f"{table.rstrip()}\n\n" + _text.markdown_text(" ".join(filter(None, caption(result, pairwise, args))))
    from .. import __version__

    return _text.dumps({
        "pyterrier_boot": __version__,
        "seed": seed,
        "measures": list(result.measures),
        "bootstrap": result.bootstrap,
        "interval": result.interval,
        "confidence_level": result.confidence_level,
        "n_topics": len(result.qids),
        "caption": " ".join(filter(None, caption(result, pairwise, args))),
        "table": _text.records(result.table()),
        "pairwise": _text.records(pairwise if result.comparisons is None else result.comparisons.frame),
    })


def write_outputs(out: Path, result: ExperimentResult, pairwise: Any, args: argparse.Namespace,
                  info: Mapping[str, Any], seed: int, status: Callable[[str], None]) -> list[str]:
    from ..report import write_report

    written = []
    _common.write_csv(out / "table.csv", result.table())
    written.append("table.csv")
    _common.write_csv(out / "perquery.csv", result.per_query())
    written.append("perquery.csv")
    tests = pairwise if result.comparisons is None else result.comparisons.frame
    if tests is not None and len(tests):
        _common.write_csv(out / "pairwise.csv", tests)
        written.append("pairwise.csv")
    if result.distribution_ is not None:
        _common.write_csv(out / "ranks.csv", result.ranks())
        written.append("ranks.csv")
    for fmt, extension in EXTENSIONS.items():  # the table for a paper (LaTeX, Markdown) and for programs
        _common.write_text(out / f"table.{extension}", formatted(result, pairwise, args, seed, fmt) + "\n")
        written.append(f"table.{extension}")
    plots = _common.plots_wanted(args, "the report")
    status("writing the report" + (" (drawing the plots)" if plots else ""))
    write_report(result, out / "report.html", title=args.title or "pyterrier-boot evaluate", settings=info,
                 pairwise=pairwise, test=args.test, correction=None if args.correction == "none" else args.correction,
                 alpha=args.alpha, digits=args.digits, plots=plots, verbose=_common.progress_enabled(args))
    written.append("report.html")
    return written
