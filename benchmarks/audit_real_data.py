"""``audit_tests`` on real collections: the model's goodness of fit, and the worked example of
pt_docs/test_audit.md (issue 35).

1. Goodness of fit: the model fitted to every real score matrix at hand -- TREC DL 2019 and 2020
   passage (all submitted runs; AP, P@10 and RR at the official cut rel >= 2, nDCG@10 graded) and
   Urbano et al.'s TREC-5..8 ad hoc (AP, P@10, RR) and Web 2010-13 (nDCG@20, ERR@20) -- checked
   against the matrix (pyterrier_boot.audit.goodness: per-system mean, SD and share of zeros, per-pair
   Kendall tau; the copulas of ``--pairs`` random pairs per matrix): the share of systems and of
   pairs within their sampling-error tolerances and the largest gaps.
2. The worked example: ``audit_tests`` on the 59 DL 2020 runs, nDCG@10, 25 and 54 topics, every
   test and correction, defaults otherwise (10,000 simulations, 1,000 families, 1,000 resamples,
   rng=1): the recommendation and the table, as the docs show them.

Usage: python benchmarks/audit_real_data.py [--part 1 2] [--pairs 300] [--data ../shared/data]
"""
import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import pyterrier_boot as pb
from pyterrier_boot.audit.goodness import goodness_of_fit
from pyterrier_boot.audit.model import fit_model
from pyterrier_boot.audit.support import support_for

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
DL_MEASURES = ("AP(rel=2)", "nDCG@10", "P(rel=2)@10", "RR(rel=2)")
URBANO = {"ap": "AP", "p10": "P@10", "rr": "RR", "ndcg20": "nDCG@20", "err20": "ERR@20"}


def matrices(data: Path):
    """``(collection, measure, systems x topics frame)`` of every real matrix."""
    for year, qrels in (("2019", "qrels.dl19-passage.txt"), ("2020", "qrels.dl20-passage.txt")):
        folder = data / f"trec-dl-{year}-passage"
        long = pb.evaluate([str(folder / "runs")], str(folder / qrels), list(DL_MEASURES))
        for measure in DL_MEASURES:
            part = long[long["measure"] == measure]
            yield f"DL {year}", measure, part.pivot(index="name", columns="qid", values="value")
    for path in sorted((data / "urbano-sigir2019-scores").glob("*.csv")):
        collection, key = path.stem.split("_")
        frame = pd.read_csv(path).T
        frame.columns = pd.Index([str(q) for q in range(frame.shape[1])], name="qid")
        yield collection, URBANO[key], frame


def goodness_rows(data: Path, n_pairs: int) -> pd.DataFrame:
    rows = []
    for seed, (collection, measure, frame) in enumerate(matrices(data)):
        started = time.perf_counter()
        X = frame.to_numpy(dtype=float)
        keep = np.ptp(X, axis=1) > 0  # runs scoring the same everywhere are left out, as audit_tests does
        X, systems = X[keep], [s for s, k in zip(frame.index, keep, strict=True) if k]
        support = support_for(measure, X)
        X = support.snap(X, systems)
        rng = np.random.default_rng(seed)
        S = len(systems)
        all_pairs = [(i, j) for i in range(S) for j in range(i + 1, S)]
        chosen = {all_pairs[k] for k in rng.choice(len(all_pairs), min(n_pairs, len(all_pairs)), replace=False)}
        model = fit_model(X, systems, support, rng, joint=False, pairs=chosen)
        summary = goodness_of_fit(model, X, warn=False).summary().set_index("check")
        row = dict(collection=collection, measure=measure, systems=S, topics=X.shape[1])
        for check, name in (("mean", "mean"), ("sd", "sd"), ("zeros", "zeros"), ("kendall tau (pairs)", "tau")):
            row[f"{name} ok"] = summary.loc[check, "within_tolerance"]
            row[f"{name} gap"] = summary.loc[check, "largest_gap"]
        families = pd.Series([m.family for m in model.margins]).value_counts()
        row["margins"] = ", ".join(f"{k} {v}" for k, v in families.items())
        rows.append(row)
        print(f"{collection} {measure}: {S} systems, {time.perf_counter() - started:.0f} s", flush=True)
    return pd.DataFrame(rows)


def worked_example(data: Path, save: Path | None) -> None:
    folder = data / "trec-dl-2020-passage"
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pb.BootWarning)
        audit = pb.audit_tests(str(folder / "runs"), str(folder / "qrels.dl20-passage.txt"), "nDCG@10",
                               n_topics=[25, 54], rng=1, verbose=False)
    print(f"({time.perf_counter() - started:.0f} s; warnings: {[str(w.message)[:120] for w in caught]})")
    print(audit.recommendation(n_topics=54))
    print(audit.recommendation(n_topics=25))
    if save is not None:
        audit.save(save)
    columns = ["test", "correction", "n_topics", "systems", "type_i", "type_i_se", "type_iii", "power@0.01",
               "power@0.02", "power@0.05", "power@0.1", "fdr@0.05"]
    print(audit.table()[columns].round(3).to_string(index=False))
    print(audit.goodness.summary().round(3).to_string(index=False))
    print(audit.settings)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", type=int, nargs="+", default=[1, 2], choices=(1, 2))
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--save", type=Path, default=None, help="save the worked example's audit here")
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    print(f"load average {os.getloadavg()}", flush=True)
    if 1 in args.part:
        print(goodness_rows(args.data, args.pairs).round(3).to_markdown(index=False), flush=True)
    if 2 in args.part:
        worked_example(args.data, args.save)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
