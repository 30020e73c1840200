"""Coverage and width when the stratified design's minimum does not fit the budget (issue 33, item 12).

The default stratified design needs two pairs in every stratum (topic x automatic label x rank
band) and wants half of the budget left over to follow the targets. Where that does not fit, the
plan can either merge the smallest strata of each topic (``designs.merge_strata``) or draw the
same targets with the Poisson design. This benchmark measures both at the same budget, in two
settings:

* ``simulated``: ``--collections`` simulated collections (30 topics, 4 systems, 4,000 documents,
  runs of depth 50, pools of depth 20; ``simulate_collection`` with seeds 31, 41, ...) with a
  simulated graded judge, a budget of 5 labels per topic (150 pairs), the pool's depth 50;
  measure P@5 (as the slow test in ``tests/test_judging_newuser.py``);
* ``dl20``: the first 15 TREC DL 2020 passage runs (sorted by name), a simulated graded judge
  (``simulate_judge(nist, runs, rng=1)``), a budget of 10% of NIST's qrels (1,139 pairs, about 21
  labels per topic); measures nDCG@10 and P(rel=2)@10.

NIST's (or the simulation's) qrels are the people, 0 where they did not judge a pair, and the truth
is every run's mean over the collection's topics with those qrels. For each plan, ``--draws``
independent redraws of its sample (``designs.draw`` with the plan's probabilities and, stratified,
its ``n_h``) are estimated with ``PlanEstimator`` (PPI, 100 design replicates for the topics
estimand) for both estimands; an interval covers when it holds the run's true mean. Coverage is
over runs and redraws, its standard error clustered by redraw (the runs of one redraw share its
sample); widths are mean interval widths.

Usage: python benchmarks/judging_fallback_coverage.py [--settings simulated dl20] [--draws 600]
       [--dl-draws 200] [--collections 5] [--out results.json]
"""
from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
ESTIMANDS = ("population", "topics")


def simulated(seed: int):
    """Runs, qrels (people and truth), automatic qrels, budget, depth and measures of one simulated collection."""
    import pyterrier_boot as pb

    sim = pb.simulate_collection(n_topics=30, n_systems=4, corpus_size=4000, depth=50, pool_depth=20, rng=seed)
    return sim.runs, sim.qrels, pb.simulate_judge(sim.qrels, sim.runs, rng=seed + 1), 150, 50, ["P@5"]


def dl20():
    """The first 15 DL 2020 runs, NIST's qrels, a simulated graded judge and 10% of the qrels."""
    import pyterrier_boot as pb

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pb.InputWarning)
        runs = pb.read_runs(str(DATA / "trec-dl-2020-passage" / "runs"))
    nist = pb.read_qrels(str(DATA / "trec-dl-2020-passage" / "qrels.dl20-passage.txt")).frame
    fifteen = {name: runs[name] for name in sorted(runs)[:15]}
    return fifteen, nist, pb.simulate_judge(nist, fifteen, rng=1), round(0.1 * len(nist)), 100, \
        ["nDCG@10", "P(rel=2)@10"]


def redraws(plan, runs, qrels, measures, draws: int, seed: int) -> dict:
    """Per estimand and measure: covered (draws x runs) and widths (draws x runs) over redraws of ``plan``."""
    import pyterrier_boot as pb
    from pyterrier_boot.judging import designs
    from pyterrier_boot.ppi.sampled import PlanEstimator

    pool = plan.pool
    human = pool[["qid", "docno"]].merge(qrels, how="left").fillna({"label": 0})["label"].to_numpy(np.int64)
    truth = pb.evaluate(runs, qrels, measures).pivot_table(index="name", columns="measure", values="value")
    truth = truth.reindex(list(runs))
    estimator = PlanEstimator(pb.read_runs(runs), pool, measures, depth=plan.depth)
    pi, stratum = pool["inclusion_probability"].to_numpy(), pool["stratum"].to_numpy()
    take = np.bincount(stratum, weights=pool["sampled"]).astype(np.int64) if plan.design == "stratified" else None
    rng = np.random.default_rng(seed)
    labels = [p.label for p in estimator.parsed]
    out = {(e, m): {"covered": [], "width": []} for e in ESTIMANDS for m in labels}
    for _ in range(draws):
        s = designs.draw(pi, stratum, plan.design, rng, take)
        for estimand in ESTIMANDS:
            res = estimator.estimate(s, human[s], pi[s], stratum=stratum[s] if take is not None else None,
                                     estimand=estimand, n_replicates=100, rng=rng)
            for m in labels:
                ci = res.intervals(m)["ppi"].confidence_interval
                t = truth[m].to_numpy()
                out[(estimand, m)]["covered"].append((ci.low <= t) & (t <= ci.high))
                out[(estimand, m)]["width"].append(ci.high - ci.low)
    return out


def summary(cells: list[dict]) -> dict:
    """Coverage (SE clustered by redraw) and mean width, pooled over the settings' collections."""
    result = {}
    for key in cells[0]:
        covered = np.concatenate([np.asarray(c[key]["covered"], float) for c in cells])
        width = np.concatenate([np.asarray(c[key]["width"]) for c in cells])
        per_draw = covered.mean(axis=1)
        result["/".join(key)] = {"coverage": float(per_draw.mean()),
                                 "se": float(per_draw.std(ddof=1) / np.sqrt(len(per_draw))),
                                 "width": float(width.mean()), "width_se": float(width.mean(axis=1).std(ddof=1)
                                                                               / np.sqrt(len(width))),
                                 "redraws": int(len(per_draw))}
    return result


def run_setting(name: str, draws: int, collections: int) -> dict:
    import pyterrier_boot as pb

    cases = [simulated(31 + 10 * k) for k in range(collections)] if name == "simulated" else [dl20()]
    cells: dict[str, list] = {"merged": [], "poisson": []}
    for k, (runs, qrels, auto, budget, depth, measures) in enumerate(cases):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pb.InputWarning)
            merged = pb.judging_plan(runs, auto, budget, depth=depth, design="stratified", rng=33 + k)
            poisson = pb.judging_plan(runs, auto, budget, depth=depth, design="poisson", rng=33 + k)
        print(f"{name} #{k}: {merged!r}", flush=True)
        for label, plan in (("merged", merged), ("poisson", poisson)):
            start = time.time()
            cells[label].append(redraws(plan, runs, qrels, measures, draws, 34 + k))
            print(f"  {label}: {draws} redraws in {time.time() - start:.0f} s", flush=True)
    return {label: summary(c) for label, c in cells.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--settings", nargs="+", default=["simulated", "dl20"], choices=["simulated", "dl20"])
    parser.add_argument("--draws", type=int, default=600, help="redraws per simulated plan")
    parser.add_argument("--dl-draws", type=int, default=200, help="redraws per plan on DL 2020 (1.5 s each)")
    parser.add_argument("--collections", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    results = {}
    for name in args.settings:
        draws = args.draws if name == "simulated" else args.dl_draws
        results[name] = run_setting(name, draws, args.collections)
        for label, cells in results[name].items():
            for key, r in cells.items():
                print(f"{name:9s} {label:8s} {key:28s} coverage {100 * r['coverage']:5.1f}% +- {100 * r['se']:.1f}"
                      f"  width {r['width']:.3f} ({r['redraws']} redraws)")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
