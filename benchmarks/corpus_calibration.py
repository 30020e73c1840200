"""Calibration of corpus-bootstrap intervals over many random document splits (Cormack & Lynam 2006, §6-8).

For each collection (TREC 2003 Robust, TREC DL 2019 and DL 2020 passage) and measure (AP; nDCG@10),
``split_half_validation`` draws ``--splits`` salted random document splits, bootstraps each half
with ``--images`` Poisson images, and checks every interval of one half against the value on the
other (both directions pooled). A calibrated 95% interval holds the other half's value 83.4% of the
time and has sd(z) = 1. Printed: below / in / above shares with the SE of "in" over splits and its
range over splits, and sd(z) with its SE and range over splits. DL binary measures use the official
cut rel >= 2 (``AP(rel=2)``); nDCG@10 the graded labels.

Then two summary tables (the ones in ``pt_docs/corpus_bootstrap.md``): share inside and sd(z) of
each interval, one column per collection and measure. ``--from-csv`` re-renders them from a saved
``--csv`` without recomputing.

Usage: python benchmarks/corpus_calibration.py [--data ../shared/data] [--splits 20] [--images 100]
       [--rng 1] [--collections robust2003 dl2019 dl2020] [--kinds system ...] [--epsilon 1e-5]
       [--csv out.csv]
       [--from-csv out.csv ...]
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"

COLLECTIONS = {
    "robust2003": ("TREC 2003 Robust", "trec-robust2003", "qrels.robust2003.txt.gz", ["AP", "nDCG@10"]),
    "dl2019": ("TREC DL 2019 passage", "trec-dl-2019-passage", "qrels.dl19-passage.txt", ["AP(rel=2)", "nDCG@10"]),
    "dl2020": ("TREC DL 2020 passage", "trec-dl-2020-passage", "qrels.dl20-passage.txt", ["AP(rel=2)", "nDCG@10"]),
}

#: (kind, statistic, method, small_r) rows shown.
ROWS = [
    ("topic", "", "normal", False), ("topic", "", "normal", True), ("topic", "", "logit", False),
    ("topic", "", "logit", True), ("topic", "", "percentile", True), ("topic", "", "bca", True),
    ("system", "mean", "percentile", False), ("system", "mean", "normal", False), ("system", "mean", "bca", False),
    ("system", "mean", "parametric:mixed", False), ("system", "mean", "parametric:logit", False),
    ("system", "mean", "parametric:small_r", False), ("system", "mean", "parametric:score", False),
    ("system", "logit_mean", "percentile", False), ("system", "logit_mean", "normal", False),
    ("system", "logit_mean", "parametric:logit", False), ("system", "logit_mean", "parametric:small_r", False),
    ("system", "logit_mean", "parametric:empirical_bayes", False),
    ("system", "gmean", "percentile", False), ("system", "gmean", "normal", False),
    ("system", "gmean", "parametric:empirical_bayes", False),
    ("difference", "mean", "percentile", False), ("difference", "mean", "normal", False),
    ("difference", "logit_mean", "normal", False),
    ("topic difference", "mean", "percentile", False), ("topic difference", "mean", "normal", False),
    ("topic difference", "logit_mean", "normal", False),
]


def label(kind, statistic, method, small_r):
    stat = {"": "", "mean": "mean", "logit_mean": "L-mean", "gmean": "G-mean"}[statistic]
    return " ".join(x for x in (kind, stat, method, "small-R" if small_r else "") if x)


SUMMARY = [
    ("topic", "", "normal", False), ("topic", "", "logit", True), ("topic", "", "percentile", True),
    ("system", "mean", "percentile", False), ("system", "mean", "normal", False),
    ("system", "mean", "parametric:mixed", False), ("system", "mean", "parametric:logit", False),
    ("system", "mean", "parametric:small_r", False),
    ("system", "logit_mean", "percentile", False), ("system", "logit_mean", "normal", False),
    ("system", "logit_mean", "parametric:logit", False), ("system", "logit_mean", "parametric:small_r", False),
    ("system", "logit_mean", "parametric:empirical_bayes", False), ("system", "gmean", "percentile", False),
    ("system", "gmean", "normal", False), ("system", "gmean", "parametric:empirical_bayes", False),
    ("difference", "mean", "percentile", False), ("difference", "mean", "normal", False),
    ("difference", "logit_mean", "normal", False), ("topic difference", "mean", "normal", False),
    ("topic difference", "logit_mean", "normal", False),
]


def summary(frame):
    """Two markdown tables: inside share (± SE over splits) and sd(z) (± SE) [range over splits]."""
    columns = list(dict.fromkeys(zip(frame["collection"], frame["measure"])))
    names = {"robust2003": "Robust03", "dl2019": "DL19", "dl2020": "DL20"}
    header = "| interval | " + " | ".join(f"{names.get(c, c)} {m}" for c, m in columns) + " |"
    rule = "|---|" + "---:|" * len(columns)
    table = frame.set_index(["collection", "measure", "kind", "statistic", "method", "small_r"])
    blocks = []
    for title, cell in (("in (model 83.4%) ± SE", lambda r: f"{100 * r.inside:.1f} ± {100 * r.inside_se:.1f}"),
                        ("sd(z) ± SE [range over splits]",
                         lambda r: f"{r.sd_z:.2f} ± {r.sd_z_se:.2f} [{r.sd_z_min:.1f}-{r.sd_z_max:.1f}]")):
        lines = [f"{title}:", "", header, rule]
        for key in SUMMARY:
            cells = []
            for c, m in columns:
                k = (c, m, *key)
                cells.append(cell(table.loc[k]) if k in table.index else "")
            if any(cells):
                lines.append(f"| {label(*key)} | " + " | ".join(cells) + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--images", type=int, default=100)
    parser.add_argument("--rng", type=int, default=1)
    parser.add_argument("--collections", nargs="+", choices=list(COLLECTIONS), default=list(COLLECTIONS))
    parser.add_argument("--csv", type=Path, help="also write every row of every collection here")
    parser.add_argument("--epsilon", type=float, default=1e-5, help="ε of logit intervals, L-MAP and the parametric "
                        "rules (the 'parametric:logit' row with a larger ε is the paper's formula with that ε)")
    parser.add_argument("--kinds", nargs="+", choices=["topic", "system", "difference", "topic difference"],
                        help="quantities to check (default all; per-topic differences only on Robust 2003)")
    parser.add_argument("--from-csv", type=Path, nargs="+", help="only print the summary tables of saved --csv files")
    args = parser.parse_args(argv)
    if args.from_csv:
        print(summary(pd.concat(pd.read_csv(f, keep_default_na=False, dtype={"statistic": str})
                                for f in args.from_csv)))
        return 0

    from pyterrier_boot import DegenerateWarning, split_half_validation

    warnings.simplefilter("ignore", DegenerateWarning)
    frames = []
    for key in args.collections:
        title, folder, qrels, measures = COLLECTIONS[key]
        path = args.data / folder
        if not path.exists():
            print(f"{title}: data not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
            continue
        start, cpu = time.perf_counter(), time.process_time()
        load = os.getloadavg()[0]
        kinds = args.kinds or (("topic", "system", "difference", "topic difference") if key == "robust2003" else
                               ("topic", "system", "difference"))  # every pair of 37-59 runs on every topic: slow
        result = split_half_validation(path / "runs", path / qrels, measures, n_splits=args.splits,
                                       n_images=args.images, rng=args.rng, kinds=kinds, eps=args.epsilon,
                                       verbose=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        frame = result.to_frame()
        frames.append(frame.assign(collection=key))
        print(f"\n{title}: {len(result.systems)} runs x {len(result.qids)} topics, {args.splits} splits x 2 halves x "
              f"{args.images} images, rng={args.rng}: {seconds:.0f} s wall, {cpu:.0f} s CPU (load average {load:.1f} at "
              "start)\n")
        print("| measure | interval | n | below | in (± SE) [range over splits] | above | sd(z) (± SE) [range] |")
        print("|---|---|---:|---:|---:|---:|---:|")
        table = frame.set_index(["measure", "kind", "statistic", "method", "small_r"])
        for measure in measures:
            for kind, statistic, method, small_r in ROWS:
                k = (measure, kind, statistic, method, small_r)
                if k not in table.index:
                    continue
                r = table.loc[k]
                print(f"| {measure} | {label(kind, statistic, method, small_r)} | {r.n} | {100 * r.below:.1f} | "
                      f"{100 * r.inside:.1f} ± {100 * r.inside_se:.1f} [{100 * r.inside_min:.0f}-{100 * r.inside_max:.0f}]"
                      f" | {100 * r.above:.1f} | {r.sd_z:.2f} ± {r.sd_z_se:.2f} [{r.sd_z_min:.2f}-{r.sd_z_max:.2f}] |")
        sys.stdout.flush()
    if frames:
        both = pd.concat(frames)
        print("\n" + summary(both))
        if args.csv:
            both.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
