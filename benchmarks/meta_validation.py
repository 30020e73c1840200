"""Real-data validation of the meta-evaluation core: do Sakai's (2007) orderings of measures hold?

Sakai finds, with the paired bootstrap sensitivity method and the swap method, that precision-
like measures (PDoc = P@k) are the least discriminative and that AP, nDCG and Q are among the
most. We compute, for every collection,

* discriminative power: Sakai's paired bootstrap test for every pair of runs, B = 1,000 topic
  resamples shared by all measures, alpha = 0.05: sensitivity (share of pairs with ASL < alpha) and
  the estimated difference required (Fig. 8);
* the swap method (Fig. 19): the difference required for a swap rate <= 5% and the share of the
  B x pairs comparisons that reach it;
* Kendall's tau between the run rankings of the measures,

on all submitted runs (or, with ``--top 30``, the 30 best by AP / nDCG@20, as Sakai), for

* TREC DL 2019 and 2020 passage runs, evaluated here with ``pyterrier_boot.evaluate``: AP, P@10,
  RR and RBP(p=0.8) at the official binary cut rel >= 2, nDCG@10 on the graded labels;
* Urbano, Lima & Hanjalic's (SIGIR 2019) per-topic score matrices: TREC-5..8 ad hoc (AP, P@10, RR)
  and Web 2010-2013 (nDCG@20, ERR@20).

It then checks the orderings qualitatively: (1) AP and nDCG rank first or second in sensitivity
(among AP, nDCG, P@10, RR, RBP); (2) P@10 and RR are less sensitive than AP and nDCG; (3) ERR@20 is
less sensitive than nDCG@20 (ERR is a top-heavy, RR-like measure); and the same for the swap
method's share of comparisons satisfying the 5% threshold. Every failed check is printed.

Usage: python benchmarks/meta_validation.py [--data ../shared/data] [--resamples 1000] [--top 30] [--markdown]
"""
import argparse
import os
import time
import warnings
from pathlib import Path

import pandas as pd

import pyterrier_boot as pb

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
DL_MEASURES = {"AP": "AP(rel=2)", "nDCG@10": "nDCG@10", "P@10": "P(rel=2)@10", "RR": "RR(rel=2)",
               "RBP(0.8)": "RBP(p=0.8,rel=2)"}
URBANO = {
    "adhoc5": {"AP": "ap", "P@10": "p10", "RR": "rr"},
    "adhoc6": {"AP": "ap", "P@10": "p10", "RR": "rr"},
    "adhoc7": {"AP": "ap", "P@10": "p10", "RR": "rr"},
    "adhoc8": {"AP": "ap", "P@10": "p10", "RR": "rr"},
    "web2010": {"nDCG@20": "ndcg20", "ERR@20": "err20"},
    "web2011": {"nDCG@20": "ndcg20", "ERR@20": "err20"},
    "web2012": {"nDCG@20": "ndcg20", "ERR@20": "err20"},
    "web2013": {"nDCG@20": "ndcg20", "ERR@20": "err20"},
}


def load_dl(data, year):
    folder = data / f"trec-dl-{year}-passage"
    qrels = folder / ("qrels.dl19-passage.txt" if year == 2019 else "qrels.dl20-passage.txt")
    long = pb.evaluate([str(folder / "runs")], str(qrels), list(DL_MEASURES.values()))
    rename = {v: k for k, v in DL_MEASURES.items()}
    return {rename[m]: g.pivot(index="name", columns="qid", values="value") for m, g in long.groupby("measure", sort=False)}


def load_urbano(data, collection):
    folder = data / "urbano-sigir2019-scores"
    return {label: pd.read_csv(folder / f"{collection}_{file}.csv").T for label, file in URBANO[collection].items()}


def top_runs(scores, k):
    """Sakai's selection: the ``k`` best runs by the mean of the first measure (AP, or nDCG@20)."""
    if k is None:
        return scores
    first = next(iter(scores.values()))
    keep = first.mean(axis=1).sort_values(ascending=False).index[:k]
    return {m: v.loc[keep] for m, v in scores.items()}


def analyse(name, scores, B):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pb.DegenerateWarning)
        dp = pb.discriminative_power(scores, n_resamples=B, rng=20070101)
        swap = pb.swap_method(scores, plan=dp.plan, rng=20070102)
    identical = sum(str(w.message).count(" vs ") for w in caught)
    corr = pb.rank_correlations(scores)
    table = dp.summary().merge(swap.summary(), on="measure")
    first = next(iter(scores.values()))
    table.insert(0, "collection", name)
    table.attrs.update(runs=first.shape[0], topics=first.shape[1], identical=identical)
    return table, corr


def checks(table):
    """Sakai's qualitative orderings; returns a list of (check, passed, detail)."""
    out = []
    sens = dict(zip(table["measure"], table["sensitivity"], strict=True))
    share = dict(zip(table["measure"], table["share_satisfying"], strict=True))
    name = table["collection"].iloc[0]
    for label, values in (("sensitivity", sens), ("swap share", share)):
        if "AP" in values and "nDCG@10" in values:  # DL: 5 measures
            ranked = sorted(values, key=values.get, reverse=True)
            top_two = set(ranked[:2]) == {"AP", "nDCG@10"}
            out.append((f"{name} {label}: AP and nDCG@10 are the two most discriminative", top_two,
                        " > ".join(ranked)))
        strong = [m for m in ("AP", "nDCG@10", "nDCG@20") if m in values]
        weak = [m for m in ("P@10", "RR", "ERR@20") if m in values]
        for s in strong:
            for w in weak:
                out.append((f"{name} {label}: {w} < {s}", values[w] < values[s],
                            f"{w} {values[w]:.3f} vs {s} {values[s]:.3f}"))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--markdown", action="store_true", help="print the tables as markdown")
    parser.add_argument("--top", type=int, default=None,
                        help="keep the best runs by AP (nDCG@20 for Web), as Sakai kept the top 30")
    args = parser.parse_args()
    if not (args.data / "urbano-sigir2019-scores").is_dir():
        raise SystemExit(f"data not found at {args.data} (pass --data or set PYTERRIER_BOOT_SHARED)")
    start = time.perf_counter()
    collections = {"DL2019": lambda: load_dl(args.data, 2019), "DL2020": lambda: load_dl(args.data, 2020)}
    collections.update({c: (lambda c=c: load_urbano(args.data, c)) for c in URBANO})
    tables, all_checks, correlations = [], [], []
    for name, loader in collections.items():
        table, corr = analyse(name, top_runs(loader(), args.top), args.resamples)
        tables.append(table)
        corr.insert(0, "collection", name)
        correlations.append(corr)
        all_checks += checks(table)
        a = table.attrs
        same = f", {a['identical']} (pair, measure) with identical per-topic scores" if a["identical"] else ""
        print(f"{name}: {a['runs']} runs, {a['topics']} topics, {a['runs'] * (a['runs'] - 1) // 2} pairs{same}")
    result = pd.concat(tables, ignore_index=True)
    shown = result[["collection", "measure", "significant_pairs", "pairs", "sensitivity", "estimated_difference",
                    "required_difference", "share_satisfying"]].rename(columns={
                        "estimated_difference": "diff_required_ASL", "required_difference": "diff_swap_5pct",
                        "share_satisfying": "swap_share"})
    print(f"\nDiscriminative power (paired bootstrap, B = {args.resamples}, alpha = 0.05) and swap method "
          "(5% threshold):")
    print(shown.to_markdown(index=False, floatfmt=".3f") if args.markdown else shown.to_string(index=False,
                                                                                              float_format="%.3f"))
    corr = pd.concat(correlations, ignore_index=True)
    print("\nKendall's tau (Sakai's Z0 test) and symmetric tau_AP between measures:")
    print(corr.to_markdown(index=False, floatfmt=".3f") if args.markdown else corr.to_string(index=False,
                                                                                            float_format="%.3f"))
    passed = sum(ok for _, ok, _ in all_checks)
    print(f"\nSakai's orderings: {passed} of {len(all_checks)} checks hold")
    for check, ok, detail in all_checks:
        if not ok:
            print(f"  DOES NOT HOLD: {check} ({detail})")
    print(f"\ntotal time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
