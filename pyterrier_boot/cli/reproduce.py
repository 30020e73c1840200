"""``pyterrier-boot reproduce``: how closely reproduced runs match the original runs (Breuer et al.
2020's measures with topic-bootstrap intervals, t-tests and TOST equivalence tests)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from . import _common, _text

if TYPE_CHECKING:
    import pandas as pd


EXAMPLES = """\
examples:
  # runs matched by name (run tag, else file name) between the two folders
  pyterrier-boot reproduce --original orig/ --reproduced repro/ --qrels qrels.txt --out report/

  # with a baseline (Effect Ratio, Delta RI) and an equivalence margin of 0.01 for the TOST
  pyterrier-boot reproduce --original orig/ --reproduced repro/ --qrels qrels.txt \\
      --measures AP nDCG@10 --baseline bm25 --margin 0.01 --out report/

writes: reproducibility.csv (one row per run and measure), per_topic.csv, ordering.csv (per-topic
KTU and RBO) and report.html (a self-contained page) in --out.
how: KTU, RBO, RMSE, ER and DeltaRI as defined by Breuer et al. (2020), with percentile intervals
from one topic-bootstrap plan; the t-test and TOST of reproduced against original scores (paired,
or --unpaired). See pyterrier_boot.reproduction.

exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""

INTERVAL_COLUMNS = ("KTU", "RBO", "RMSE", "ER", "DeltaRI", "TOST")


def printed_table(table: pd.DataFrame) -> pd.DataFrame:
    """The table as text cells: estimates with their intervals as ``[low, high]``."""
    shown = table[["name", "measure", "original", "reproduced"]].copy()
    for column in ("original", "reproduced"):
        shown[column] = table[column].map("{:.4f}".format)

    def interval(low, high, digits=3):
        return "" if low != low else f"[{low:.{digits}f}, {high:.{digits}f}]"

    for stat in INTERVAL_COLUMNS:
        if stat != "TOST":
            shown[stat] = table[stat].map(lambda v: "" if v != v else f"{v:.4f}")
            shown[f"{stat} ci"] = [interval(lo, hi) for lo, hi in zip(table[f"{stat} ci_low"], table[f"{stat} ci_high"],
                                                                      strict=True)]
    shown["t p-value"] = table["t p-value"].map(lambda v: "" if v != v else f"{v:.3g}")
    if table["TOST p-value"].notna().any():
        shown["TOST ci"] = [interval(lo, hi, 4) for lo, hi in zip(table["TOST ci_low"], table["TOST ci_high"], strict=True)]
        shown["TOST p-value"] = table["TOST p-value"].map(lambda v: "" if v != v else f"{v:.3g}")
        shown["equivalent"] = table["equivalent"].map(lambda v: "" if v is None or v != v else ("yes" if v else "no"))
    return shown


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "reproduce", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="did a reproduction find what the original runs found? (KTU, RBO, RMSE, ER, TOST)",
        description="Compare reproduced runs with the original runs on the same test collection: Kendall's tau "
                    "Union, RBO, RMSE, Effect Ratio and Delta RI (Breuer et al. 2020) with topic-bootstrap "
                    "intervals, t-tests, and TOST equivalence tests with a margin you set.",
        epilog=EXAMPLES)
    p.add_argument("--original", nargs="+", required=True, metavar="RUN", help="original run files or folders")
    p.add_argument("--reproduced", nargs="+", required=True, metavar="RUN", help="reproduced run files or folders")
    p.add_argument("-q", "--qrels", required=True, metavar="QRELS", help="relevance judgements (TREC qrels file)")
    p.add_argument("-m", "--measures", nargs="+", action="extend", metavar="MEASURE",
                   help=f"measures (default: {' '.join(_common.DEFAULT_MEASURES)})")
    p.add_argument("--match", choices=("name", "file"), default="name",
                   help="match runs by name (run tag, else file name; default) or by file name")
    p.add_argument("--baseline", metavar="NAME", help="baseline run, for the Effect Ratio and Delta RI of the others")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--margin", type=float, help="equivalence margin for TOST, in score units (e.g. 0.01)")
    group.add_argument("--relative-margin", type=float, metavar="SHARE",
                       help="equivalence margin as a share of each original mean (e.g. 0.05)")
    p.add_argument("--unpaired", action="store_true", help="unpaired t-test and TOST (default: paired over topics)")
    p.add_argument("--alpha", type=float, default=0.05, help="level of each one-sided TOST test (default 0.05)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    p.add_argument("--depth", type=int, default=1000, help="rank cut-off of KTU and RBO (default 1000)")
    p.add_argument("--ktu-pairing", choices=("position", "document"), default="position",
                   help="KTU rank by rank as Breuer et al. and repro-eval (position, default) or the textbook "
                        "tau between the documents' ranks (document)")
    p.add_argument("--rbo-p", type=float, default=0.95, help="RBO persistence (default 0.95)")
    p.add_argument("--n", type=_common.count, default=10_000, dest="n_resamples", metavar="N",
                   help="topic resamples (default 10000)")
    _common.add_rng_argument(p)
    _common.add_output_arguments(p, "output folder (created)", required=True)
    p.add_argument("-f", "--format", choices=("table", "csv"), default="table", help="what to print (default table)")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    for name in ("margin", "relative_margin"):
        value = getattr(args, name)
        if value is not None and not value > 0:
            parser.error(f"--{name.replace('_', '-')} must be positive, got {value}")
    if not 0 < args.alpha < 0.5:
        parser.error(f"--alpha must be between 0 and 0.5, got {args.alpha}")
    if not 0 < args.confidence < 1:
        parser.error(f"--confidence must be between 0 and 1, got {args.confidence}")
    if args.depth < 1:
        parser.error(f"--depth must be at least 1, got {args.depth}")
    if not 0 < args.rbo_p < 1:
        parser.error(f"--rbo-p must be between 0 and 1, got {args.rbo_p}")
    if args.n_resamples < 2:
        parser.error(f"--n must be at least 2, got {args.n_resamples}")
    if not args.measures:
        args.measures = list(_common.DEFAULT_MEASURES)


def _by_file_name(paths, option):
    """``file name (without .gz) -> path`` for the files given and those in the folders given."""
    files = {}
    for item in map(Path, paths):
        found = sorted(f for f in item.iterdir() if f.is_file() and not f.name.startswith(".")) \
            if item.is_dir() else [item]
        for f in found:
            name = f.name[:-3] if f.name.endswith(".gz") else f.name
            if name in files:
                raise ValueError(f"{option}: two runs have the file name {name!r}: '{files[name]}' and '{f}'")
            files[name] = str(f)
    return files


def _reproduce(args, status, seed, out):
    """Compare the runs; write the tables and the report into ``out`` (the staging folder)."""
    from ..reproduction.analysis import reproducibility

    measures = _common.parse_measures_rel(args.measures, None)
    if args.match == "file":
        original, reproduced = _by_file_name(args.original, "--original"), _by_file_name(args.reproduced, "--reproduced")
    else:
        original, reproduced = list(args.original), list(args.reproduced)
    status(f"comparing original and reproduced runs on {args.qrels} (seed {seed})")
    result = reproducibility(original, reproduced, args.qrels, measures, baseline=args.baseline, margin=args.margin,
                             relative_margin=args.relative_margin, paired=not args.unpaired, alpha=args.alpha,
                             confidence_level=args.confidence, n_resamples=args.n_resamples, depth=args.depth,
                             rbo_p=args.rbo_p, ktu_pairing=args.ktu_pairing, rng=seed)
    _common.write_csv(out / "reproducibility.csv", result.table)
    _common.write_csv(out / "per_topic.csv", result.per_topic)
    _common.write_csv(out / "ordering.csv", result.ordering)
    settings = {"command": args.command_line, "original": " ".join(args.original),
                "reproduced": " ".join(args.reproduced), "qrels": args.qrels, "seed": seed}
    _common.write_text(out / "report.html", result.html(settings=settings))
    return result


def run(args: argparse.Namespace) -> int:
    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    seed = _common.seed(args.rng)
    with _common.output_folder(args, "reproduce") as out:
        result = _reproduce(args, status, seed, out)
    status(f"wrote reproducibility.csv, per_topic.csv, ordering.csv and report.html to {Path(args.out)}")
    if args.format == "csv":
        print(result.table.to_csv(index=False), end="")
    else:
        shown = printed_table(result.table)
        print(_text.render_table(shown, key_columns=2))
        print()
        print(_text.wrap(result.note()))
    return 0
