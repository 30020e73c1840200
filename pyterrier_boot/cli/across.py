"""``pyterrier-boot across``: the same runs on several test collections: each collection's figure,
the average over these collections, the random-effects mean over a population of collections with
the prediction interval of a new one, and a leaderboard over the collections."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._batches import check_scheduler, executor_from
from . import _common, _text
from .evaluate import _add_resource_arguments

if TYPE_CHECKING:
    from ..across.result import AcrossCollections

EXAMPLES = """\
examples:
  # BM25 and two rerankers on TREC DL 2019 and 2020, differences from BM25 (runs named by their tag)
  pyterrier-boot across -c dl19 qrels.dl19.txt runs19/ -c dl20 qrels.dl20.txt runs20/ \\
      -m nDCG@10 -b bm25 --out across/

  # BEIR collections from ir_datasets, standardised differences, DerSimonian-Laird
  pyterrier-boot across -c scifact irds:beir/scifact/test scifact/ -c nfcorpus irds:beir/nfcorpus/test nf/ \\
      -c fiqa irds:beir/fiqa/test fiqa/ -m nDCG@10 -b bm25 --standardize --tau2 DL

  # five seeds of a reranker per collection (monoT5-seed1.run ...): its seed variance in every interval
  pyterrier-boot across -c dl19 qrels.dl19.txt runs19/ -c dl20 qrels.dl20.txt runs20/ \\
      -m nDCG@10 -b bm25 --group-runs '(.+)-seed[0-9]+'

which figure answers which question:
  per collection  the figure on that collection, its interval varying the topics
  average         the mean over these collections (BEIR's average): the collections fixed
  pooled          the random-effects mean over a population of collections: will it hold in general?
  prediction      where a new collection's figure should fall
  I2              share of a collection's variance that lies between collections (large: they disagree)

exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""

FORMATS = ("table", "csv", "latex", "markdown")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    from ..meta.random_effects import TAU2_METHODS
    from ..stats.correction import METHODS as CORRECTIONS

    p = subparsers.add_parser(
        "across", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="the same runs on several collections: average, pooled mean, prediction for a new collection",
        description="The same runs on several test collections: each collection's mean (or difference from a "
                    "baseline) with its interval, the average over these collections, the random-effects mean over a "
                    "population of collections (REML tau2, Hartung-Knapp-Sidik-Jonkman interval) with the prediction "
                    "interval of a new collection and I2, and the runs ranked over the collections.",
        epilog=EXAMPLES)
    p.add_argument("-c", "--collection", action="append", nargs="+", required=True, metavar="NAME QRELS RUN",
                   help="a collection: its name, its qrels (file or irds:<id>) and its runs (files or folders); "
                        "repeat for each collection (at least two); runs are named by their tag")
    p.add_argument("-m", "--measure", default="nDCG@10",
                   help="the measure compared (ir_measures or trec_eval name; default nDCG@10)")
    p.add_argument("-b", "--baseline", metavar="NAME", help="figures are differences from this run")
    p.add_argument("--standardize", action="store_true",
                   help="with --baseline: each collection's difference over the SD of its per-topic differences "
                        "(Hedges' g), where the measure's scale differs between collections")
    p.add_argument("--systems", nargs="+", metavar="NAME", help="compare these runs only (every collection has them)")
    p.add_argument("--tau2", choices=TAU2_METHODS, default="REML", help="between-collection variance (default REML)")
    p.add_argument("--interval", choices=("hksj", "normal"), default="hksj",
                   help="pooled interval: Hartung-Knapp-Sidik-Jonkman (default) or normal")
    p.add_argument("--prediction", choices=("q-profile", "higgins", "hksj"), default="q-profile",
                   help="prediction interval of a new collection: from tau2's Q-profile confidence distribution "
                        "(default), Higgins et al.'s t(k-2) (3 collections or more) or t(k-1) with the HKSJ "
                        "standard error (metafor's default)")
    p.add_argument("--board", choices=("average", "pooled", "none"), default="average",
                   help="rank the runs by their average over these collections (default), by the pooled mean, or "
                        "print no leaderboard")
    p.add_argument("--correction", choices=(*CORRECTIONS, "none"), default="holm",
                   help="multiple-testing correction of the leaderboard's pairs (default holm)")
    p.add_argument("--bootstrap", choices=("topic", "corpus", "both"), default="topic",
                   help="what each collection's interval varies (default topic)")
    p.add_argument("--n", type=_common.count, metavar="N", dest="n_resamples",
                   help="topic resamples (default 10000) or corpus images (default 1000)")
    p.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL", help="of every interval (default 0.95)")
    p.add_argument("--rel", type=int, metavar="N", help="binary measures count grade >= N as relevant (trec_eval -l N)")
    p.add_argument("--rel-remap", action="store_true", help="with --rel N, also set grades 1..N-1 to 0 in the qrels")
    _common.add_seed_arguments(p)
    _common.add_rng_argument(p)
    p.add_argument("-f", "--format", choices=FORMATS, default="table", help="what to print (default: a table)")
    p.add_argument("--digits", type=int, default=3, help="decimals in the printed tables (default 3)")
    _add_resource_arguments(p)
    _common.add_output_arguments(p, "write the tables (CSV, Markdown, LaTeX), the forest plots and the saved analysis "
                                    "(across.zip, read back with AcrossCollections.load) to DIR (all or nothing)")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    if len(args.collection) < 2:
        parser.error("give two or more collections, one --collection (-c) each: there is nothing to pool across one "
                     "(its intervals are pyterrier-boot evaluate's)")
    for entry in args.collection:
        if len(entry) < 3:
            parser.error(f"--collection {' '.join(entry)}: give a name, the qrels and at least one run")
    if args.standardize and not args.baseline:
        parser.error("--standardize needs --baseline (it standardises differences)")
    _common.check_level_and_relevance(args, parser)
    try:
        check_scheduler(args.workers, args.scheduler)
    except ValueError as error:
        parser.error(str(error))
    _common.check_output_arguments(args, parser)


def _collections(args, status, progress):
    """``{name: (runs, qrels)}`` read from the ``--collection`` entries, each collection's runs
    grouped into systems by ``--group-runs`` or ``--groups`` (the same grouping on every collection)."""
    out = {}
    for name, qrels_source, *paths in args.collection:
        status(f"reading collection {name}: qrels {qrels_source}, {len(paths)} run path{'s' if len(paths) > 1 else ''}")
        qrels = _common.read_qrels(qrels_source, rel=args.rel, remap=args.rel_remap)
        files: dict[str, str] = {}
        runs = _common.read_runs(paths, qrels, verbose=progress, files=files)
        out.setdefault(name, []).append((_common.grouped_runs(runs, args, files), qrels))
    repeated = [name for name, entries in out.items() if len(entries) > 1]
    if repeated:
        raise ValueError(f"--collection names {', '.join(map(repr, repeated))} more than once: name each collection once")
    return {name: entries[0] for name, entries in out.items()}


def run(args: argparse.Namespace) -> int:
    from ..across.analysis import across_collections

    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    progress = _common.progress_enabled(args)
    (measure,) = _common.parse_measures_rel([args.measure], args.rel)
    seed = _common.seed(args.rng)
    with _common.output_folder(args, "across") as out, executor_from(args.workers, args.scheduler) as executor:
        collections = _collections(args, status, progress)
        status(f"evaluating {measure.label} on {len(collections)} collections ({args.bootstrap} bootstrap, seed {seed})")
        result = across_collections(collections, measure.label, baseline=args.baseline, standardize=args.standardize,
                                    tau2_method=args.tau2, hksj=args.interval == "hksj", prediction=args.prediction,
                                    systems=args.systems, seeds=args.seeds,
                                    confidence_level=args.confidence, bootstrap=args.bootstrap,
                                    n_resamples=args.n_resamples, rng=seed, executor=executor,
                                    max_memory=args.max_memory, verbose=progress)
        board = None if args.board == "none" else result.leaderboard(
            which=args.board, correction=None if args.correction == "none" else args.correction)
        _print(result, board, args, seed)
        if out is not None:
            _write(result, board, out, args.digits)
    if args.out:
        status(f"wrote the tables, the forest plots and across.zip to {args.out}")
    return 0


def _print(result: AcrossCollections, board, args, seed):
    if args.format == "csv":
        sys.stdout.write(result.per_collection().to_csv(index=False))
        return
    tables = [result.display(digits=args.digits)] + ([] if board is None else [board.display(digits=args.digits)])
    if args.format == "markdown":
        sys.stdout.write("\n".join(t.to_markdown() for t in tables))
        return
    if args.format == "latex":
        sys.stdout.write("\n\n".join(t.to_latex() for t in tables) + "\n")
        return
    width = _text.terminal_width()
    lines = []
    for table in tables:
        lines += [_text.render_table(table.frame, width=width, key_columns=1 if table is tables[0] else 2), "",
                  _text.wrap(table.caption, width), ""]
    lines.append(_common.seed_line(seed))
    print("\n".join(lines))


def _write(result: AcrossCollections, board, out: Path, digits: int) -> None:
    result.save(out / "across.zip")
    for name in ("per_collection", "average", "pooled"):
        _common.write_csv(out / f"{name}.csv", getattr(result, name)())
    _common.write_text(out / "table.md", result.to_markdown(digits=digits))
    _common.write_text(out / "table.tex", result.to_latex(digits=digits))
    if board is not None:
        _common.write_csv(out / "leaderboard.csv", board.to_frame())
        _common.write_text(out / "leaderboard.md", board.to_markdown(digits=digits))
    if _common.matplotlib_available():
        _common.use_agg()
        import matplotlib.pyplot as plt

        (out / "figures").mkdir()
        rows = result.per_collection()["system"].unique()
        for system in rows:
            ax = result.plot_forest(str(system))
            ax.figure.savefig(out / "figures" / f"forest-{_safe(str(system))}.svg")
            plt.close(ax.figure)


def _safe(name: str) -> str:
    """A file name made of ``name``'s letters, digits, ``-``, ``_`` and ``.``."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "system"
