"""Speed of a judging plan and of the intervals from its sample (issue target: under 5 s warm).

TREC DL 2020 passage (59 runs, 54 topics), the GPT-4o labels of its pool (1 read as grade 2), a 10%
budget (stratified strategy and design), measures nDCG@10, AP(rel=2), P(rel=2)@10, RR(rel=2); NIST's
labels stand in for the assessors'. The runs are read once beforehand (reading 3.1 million lines is
not the method's cost); each step is timed warm, best of ``--repeat``, beside the load average:

* ``judging_plan``: pool, probabilities, draw;
* ``ppi_evaluate(..., plan=plan)``: checks, ranks, estimates, for each estimand (``"topics"`` adds
  200 design replicates);
* for scale, ``pb.evaluate`` of the same runs and measures with the full qrels.

Usage: python benchmarks/judging_speed.py [--data ../shared/data] [--repeat 3]
"""
import argparse
import os
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
MEASURES = ["nDCG@10", "AP(rel=2)", "P(rel=2)@10", "RR(rel=2)"]


def best(function, repeat):
    """The shortest wall time of ``repeat`` calls of ``function`` (after one warm-up call), and its result."""
    result = function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    folder, labels = args.data / "trec-dl-2020-passage", args.data / "llm-judgments" / "binary_gpt4o_dl20.txt.gz"
    if not folder.exists() or not labels.exists():
        print(f"TREC DL 2020 or its GPT-4o labels not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1
    import pyterrier_boot as pb

    runs = pb.read_runs(folder / "runs")
    nist = pb.read_qrels(folder / "qrels.dl20-passage.txt").frame
    llm = pb.read_qrels(labels).frame
    llm = llm[llm["qid"].isin(set(nist["qid"]))].assign(label=lambda f: 2 * f["label"])
    print(f"{len(runs)} runs, {nist['qid'].nunique()} topics; load average {os.getloadavg()[0]:.1f} before")
    plan_time, plan = best(lambda: pb.judging_plan(runs, llm, 0.1), args.repeat)
    people = plan.sample.merge(nist, on=["qid", "docno"], how="left").fillna({"label": 0})
    people = people.astype({"label": int})[["qid", "docno", "label"]]
    print(f"judging_plan (10% = {plan.budget} pairs of {len(plan.pool)}): {plan_time:.2f} s")
    for estimand in ("population", "topics"):
        seconds, _ = best(lambda e=estimand: pb.ppi_evaluate(runs, llm, people, MEASURES, plan=plan, estimand=e),
                          args.repeat)
        print(f"ppi_evaluate(plan=, estimand={estimand!r}): {seconds:.2f} s; with the plan "
              f"{plan_time + seconds:.2f} s (target 5 s)")
    seconds, _ = best(lambda: pb.evaluate(runs, nist, MEASURES), args.repeat)
    print(f"for scale, evaluate with the full qrels: {seconds:.2f} s; load average {os.getloadavg()[0]:.1f} after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
