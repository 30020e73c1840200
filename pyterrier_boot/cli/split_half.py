"""``pyterrier-boot split-half``: check that corpus-bootstrap intervals hold on another corpus, on your
own runs and qrels (Cormack & Lynam 2006, §6; :func:`pyterrier_boot.split_half_validation`)."""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from . import _common, _text

EXAMPLES = """\
examples:
  pyterrier-boot split-half --qrels qrels.txt runs/ --measures AP nDCG@10
  pyterrier-boot split-half --qrels qrels.txt runs/ --splits 50 --n 200 --rng 1 --out calibration/

how: the documents are split at random into halves A and B (runs and qrels follow their documents),
each half is bootstrapped (--n Poisson images), and each 95% interval from one half is checked
against the value on the other half. A calibrated interval holds it 83.4% of the time (8.3% below,
8.3% above) and z = (theta_B - theta_A) / sqrt(h_A^2 + h_B^2) has sd 1 (h: the half width towards
the other value over 1.96). Repeated over --splits random splits, both directions pooled.

exit status: 0 success (also when some intervals are not calibrated), 1 error, 2 wrong usage.
"""

SHOWN = ["kind", "measure", "statistic", "method", "small_r", "n", "below", "inside", "above", "sd_z",
         "calibrated"]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "split-half", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="check corpus-bootstrap intervals on random halves of your collection",
        description="Split-half validation of every corpus-bootstrap interval (per topic, per system, "
                    "differences) over many random document splits of your own runs and qrels.",
        epilog=EXAMPLES)
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files or folders of run files")
    p.add_argument("-q", "--qrels", metavar="QRELS", required=True, help="relevance judgements (file or irds:<id>)")
    p.add_argument("-m", "--measures", nargs="+", action="extend", metavar="MEASURE",
                   help=f"measures (default: {' '.join(_common.DEFAULT_MEASURES)})")
    p.add_argument("--rel", type=int, metavar="N", help="relevance cut for binary measures (as in evaluate)")
    p.add_argument("--rel-remap", action="store_true", help="with --rel N, set grades 1..N-1 to 0 (as in evaluate)")
    p.add_argument("--splits", type=_common.count, default=20, metavar="N", help="random document splits (default 20)")
    p.add_argument("--n", type=_common.count, default=100, dest="n_images", metavar="N",
                   help="Poisson corpus images per half (default 100)")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals checked (default 0.95)")
    _common.add_rng_argument(p)
    p.add_argument("--all", action="store_true", help="show every row (default: AP-like per-topic, system and "
                   "difference rows of the main methods)")
    _common.add_output_arguments(p, "also write split-half.csv and split-half-z.png (z plot) here")
    p.add_argument("-f", "--format", choices=("table", "csv", "json"), default="table", help="output format")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    args.measures, args.runs = _common.split_measures(args.measures, args.runs)
    if not args.runs:
        parser.error("give at least one RUN file or folder")
    if args.splits < 2:
        parser.error(f"--splits must be at least 2, got {args.splits}")
    if args.n_images < 10:
        parser.error(f"--n must be at least 10, got {args.n_images}")
    if not 0 < args.confidence < 1:
        parser.error(f"--confidence must be between 0 and 1, got {args.confidence}")
    if args.rel_remap and args.rel is None:
        parser.error("--rel-remap needs --rel N")
    _common.check_output_arguments(args, parser)
    if not args.measures:
        args.measures = list(_common.DEFAULT_MEASURES)


def _main_rows(frame):
    """The rows most users read: per topic (normal; logit with small-R), systems (normal; percentile
    for the mean, whose default it is; parametric with the default rules: "mixed" for MAP,
    "empirical_bayes" for L-MAP and G-MAP), differences (percentile, normal) of the mean."""
    from ..corpus.result import DEFAULT_VARIANCES

    topic = (frame["kind"] == "topic") & (((frame["method"] == "logit") & frame["small_r"])
                                          | ((frame["method"] == "normal") & ~frame["small_r"]))
    default = frame["method"] == frame["statistic"].map(
        lambda statistic: f"parametric:{DEFAULT_VARIANCES.get(statistic)}")
    # measures without counts (Bpref, ...): L-MAP's and G-MAP's default is the image variance
    counted = set(frame.loc[default & (frame["statistic"] != "mean"), "measure"])
    image = frame["method"] == frame["statistic"].map({"logit_mean": "parametric:logit", "gmean": "parametric:score"})
    default |= image & ~frame["measure"].isin(counted)
    percentile = (frame["method"] == "percentile") & (frame["statistic"] == "mean")
    system = (frame["kind"] == "system") & ((frame["method"] == "normal") | percentile | default)
    difference = (frame["kind"] == "difference") & (frame["statistic"] == "mean") & \
        frame["method"].isin(["percentile", "normal"])
    return frame[topic | system | difference]


def _validate(args, status, seed, out):
    """Read, validate; write the files into ``out`` (the staging folder) when given."""
    from ..corpus.validation import split_half_validation

    measures = _common.parse_measures_rel(args.measures, args.rel)
    status(f"reading the qrels {args.qrels}")
    qrels = _common.read_qrels(args.qrels, rel=args.rel, remap=args.rel_remap)
    runs = _common.read_runs(args.runs, qrels, verbose=_common.progress_enabled(args))
    status(f"{args.splits} random splits x 2 halves x {args.n_images} images of {len(runs)} runs (seed {seed})")
    result = split_half_validation(runs, qrels, measures, n_splits=args.splits, n_images=args.n_images, rng=seed,
                                   confidence_level=args.confidence, verbose=_common.progress_enabled(args))
    if out is not None:
        _common.write_csv(out / "split-half.csv", result.to_frame())
        if _common.matplotlib_available():
            _common.use_agg()
            import matplotlib.pyplot as plt

            ax = result.plot()
            ax.figure.savefig(out / "split-half-z.png", dpi=120, bbox_inches="tight")
            plt.close(ax.figure)
    return runs, result


def run(args: argparse.Namespace) -> int:
    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    seed = _common.seed(args.rng)
    with _common.output_folder(args, "split-half") as out:
        runs, result = _validate(args, status, seed, out)
    if args.out:
        status(f"wrote split-half.csv to {Path(args.out)}")
    frame = result.to_frame()
    shown = frame if args.all else _main_rows(frame)
    if args.format == "csv":
        print(shown.to_csv(index=False).rstrip("\n"))
        return 0
    if args.format == "json":
        print(_text.dumps({"splits": args.splits, "images": args.n_images, "seed": seed,
                           "confidence_level": args.confidence, "model_share": result.model_share,
                           "salts": list(result.salts), "table": _text.records(shown)}))
        return 0
    width = _text.terminal_width()
    print(_text.wrap(f"Split-half validation: {len(runs)} runs x {len(result.qids)} topics, {args.splits} random "
                     f"document splits x 2 halves x {args.n_images} Poisson images (seed {seed}).", width))
    print()
    print(_text.render_table(_display(shown), width=width, key_columns=4))
    print()
    bad = int((~frame["calibrated"]).sum())
    print(_text.wrap(f"A calibrated {args.confidence:.0%} interval holds the other half's value "
                     f"{result.model_share:.1%} of the time (below/in/above: the other half's value w.r.t. the "
                     f"interval) and sd(z) = 1 (< 1: too wide, > 1: too narrow). ± is a standard error over "
                     f"splits, [a, b] the range of the per-split sd(z); 'no' marks |sd(z) - 1| beyond both "
                     f"{result.sd_tolerance:g} and 3 standard errors, or a share off the model. {bad} of {len(frame)} "
                     f"intervals checked are not calibrated{'' if args.all else ' (--all shows every row)'}.", width))
    return 0


def _display(frame):
    def pct(values):
        return [f"{100 * v:.1f}%" for v in values]

    return pd.DataFrame({
        "kind": frame["kind"], "measure": frame["measure"], "statistic": frame["statistic"],
        "method": [m + (", small-R" if r else "") for m, r in zip(frame["method"], frame["small_r"], strict=True)],
        "n": frame["n"], "below": pct(frame["below"]),
        "in": [f"{100 * v:.1f}% ±{100 * s:.1f}" for v, s in zip(frame["inside"], frame["inside_se"], strict=True)],
        "above": pct(frame["above"]),
        "sd(z)": [f"{v:.2f} ±{se:.2f} [{lo:.2f}, {hi:.2f}]" for v, se, lo, hi in
                  zip(frame["sd_z"], frame["sd_z_se"], frame["sd_z_min"], frame["sd_z_max"], strict=True)],
        "calibrated": ["yes" if c else "no" for c in frame["calibrated"]],
    })
