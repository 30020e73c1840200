"""Speed of pyterrier_boot.Experiment against pt.Experiment, the call it replaces (run by hand).

    python benchmarks/experiment_speed.py [--repeat 3] [--resamples 10000] [--corpus] [--fresh]
    python benchmarks/experiment_speed.py --combinations [--tests t wilcoxon] [--corrections holm] [--measures 3 4]

Two workloads, each timed in one process with the calls interleaved (pt.Experiment, ours with
``bootstrap=None``, ours with the default topic bootstrap, then again), best of ``--repeat``,
and the ratios of the bests printed beside the load average:

* Vaswani (93 topics), 3 PISA systems (BM25, DPH, QLD) run by both calls, baseline 0; the
  ir_datasets cache is a temporary copy of ../shared/irds_home (offline) and the PISA index is
  built in a temporary folder (not timed);
* TREC DL 2020 passage: its 59 runs as frames (read once beforehand), baseline 0.

Measures: map, ndcg_cut_10, P_10, recip_rank. Targets (issue 25): ours with ``bootstrap=None``
within 1.1x of pt.Experiment, with the default topic bootstrap (10,000 resamples) within 1.25x.
``--corpus`` adds the corpus bootstrap (1,000 images) on DL 2020; ``--fresh`` the first call in
a fresh process with an empty and a filled numba cache.

``--combinations`` (issue 33) times instead every ``test=`` and ``correction=`` on Vaswani with
3 and 4 measures (the first three above, then all four), our other arguments at their defaults
(the topic bootstrap, 10,000 resamples): pt.Experiment's tests ``"t"``, ``"wilcoxon"`` and a
callable (``scipy.stats.ttest_rel``) against pt.Experiment with the same test, ours
``"paired-bootstrap"``, ``"randomization"`` and ``"sign"`` against pt.Experiment's default t-test;
no correction and each of statsmodels' ten. Each call is timed ``--repeat`` times, interleaved
(every pt.Experiment call, then ours, per correction), and the table gives the best times and the
ratio pt.Experiment / ours (target: at least 1, ours no slower).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from pyterrier_boot.stats.correction import METHODS as CORRECTIONS

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
FOLDER = SHARED / "data" / "trec-dl-2020-passage"
MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]

FRESH = f"""
import time
start = time.perf_counter()
import pyterrier_boot as ptb
runs = ptb.read_runs({str(FOLDER / 'runs')!r})
qrels = ptb.read_qrels({str(FOLDER / 'qrels.dl20-passage.txt')!r}).frame
read = time.perf_counter()
ptb.Experiment(runs, None, qrels, {MEASURES!r}, n_resamples=10_000, rng=0)
print(f"{{read - start:.2f}} {{time.perf_counter() - read:.2f}}")
"""


def load():
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def offline_irds_home():
    """A temporary copy of the shared ir_datasets cache, set as IR_DATASETS_HOME before ir_datasets loads."""
    source = SHARED / "irds_home"
    if not (source / "vaswani").is_dir():
        return None
    home = Path(tempfile.mkdtemp(prefix="irds_"))
    shutil.copytree(source, home, dirs_exist_ok=True)
    os.environ["IR_DATASETS_HOME"] = str(home)
    return home


def vaswani():
    """``(systems, names, topics, qrels, what)``: BM25, DPH and QLD on a fresh PISA index of Vaswani."""
    import pyterrier as pt
    from pyterrier_pisa import PisaIndex

    dataset = pt.get_dataset("irds:vaswani")
    index = PisaIndex(os.path.join(os.environ["IR_DATASETS_HOME"], "vaswani_pisa"), text_field="text")  # removed with it
    index.index(dataset.get_corpus_iter(verbose=False))
    topics, qrels = dataset.get_topics(), dataset.get_qrels()
    return ([index.bm25(), index.dph(), index.qld()], ["BM25", "DPH", "QLD"], topics, qrels,
            f"Vaswani, 3 PISA systems x {topics['qid'].nunique()} topics")


def dl2020():
    import pandas as pd

    import pyterrier_boot as ptb

    runs = ptb.read_runs(FOLDER / "runs")
    qrels = ptb.read_qrels(FOLDER / "qrels.dl20-passage.txt").frame
    topics = pd.DataFrame({"qid": qrels["qid"].unique(), "query": "unused"})
    return [pd.DataFrame(r) for r in runs.values()], list(runs), topics, qrels, "TREC DL 2020, 59 runs as frames"


def best_times(calls, repeat):
    """Each call once to warm (numba's cache loaded, the index opened, each path imported), then all
    of them in turn ``repeat`` times: the best seconds of each, and the load average before."""
    for call in calls.values():
        call()
    best = dict.fromkeys(calls, float("inf"))
    before = load()
    for _ in range(repeat):
        for key, call in calls.items():
            start = time.perf_counter()
            call()
            best[key] = min(best[key], time.perf_counter() - start)
    return best, before


def compare(workload, repeat, resamples):
    """pt.Experiment and ours, interleaved ``repeat`` times: best seconds and ratios to pt.Experiment."""
    from pyterrier import _evaluation

    import pyterrier_boot as ptb

    systems, names, topics, qrels, what = workload
    calls = {
        "pt.Experiment": lambda: _evaluation.Experiment(systems, topics, qrels, MEASURES, names=names, baseline=0),
        "ours, bootstrap=None": lambda: ptb.Experiment(systems, topics, qrels, MEASURES, names=names, baseline=0,
                                                       bootstrap=None),
        f"ours, topic bootstrap ({resamples:,} resamples)": lambda: ptb.Experiment(
            systems, topics, qrels, MEASURES, names=names, baseline=0, n_resamples=resamples),
    }
    best, before = best_times(calls, repeat)
    reference = best["pt.Experiment"]
    print(f"\n{what} x {len(MEASURES)} measures, baseline 0 (best of {repeat}; {before} before, {load()} after):")
    targets = [None, 1.1, 1.25]
    for (label, seconds), target in zip(best.items(), targets):
        verdict = "" if target is None else f" (target <= {target}x: {'met' if seconds / reference <= target else 'NOT met'})"
        print(f"  {label:<42} {seconds:7.2f} s  {seconds / reference:5.2f}x pt.Experiment{verdict}")


def corpus_row(workload, images):
    from pyterrier import _evaluation

    import pyterrier_boot as ptb

    systems, names, topics, qrels, what = workload
    start = time.perf_counter()
    _evaluation.Experiment(systems, topics, qrels, MEASURES, names=names, baseline=0)
    reference = time.perf_counter() - start
    start = time.perf_counter()
    ptb.Experiment(systems, topics, qrels, MEASURES, names=names, baseline=0, bootstrap="corpus", n_resamples=images)
    seconds = time.perf_counter() - start
    print(f"  ours, corpus bootstrap ({images:,} images), {what}: {seconds:.2f} s = {seconds / reference:.2f}x "
          f"pt.Experiment ({reference:.2f} s in the same run; {load()})")


def fresh_process():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cold = subprocess.run([sys.executable, "-W", "ignore", "-c", FRESH], env=env, capture_output=True,
                              text=True, check=True).stdout.split()
        warm = subprocess.run([sys.executable, "-W", "ignore", "-c", FRESH], env=env, capture_output=True,
                              text=True, check=True).stdout.split()
    print(f"  fresh process, topic bootstrap on DL 2020 (reading the 59 runs: {cold[0]} s, then Experiment): "
          f"{cold[1]} s with an empty numba cache (compile included), {warm[1]} s with it filled ({load()})")


PT_TESTS = ("t", "wilcoxon", "ttest_rel")  # the last: scipy.stats.ttest_rel given as a callable
OUR_TESTS = ("paired-bootstrap", "randomization", "sign")  # compared with pt.Experiment's t-test


def combinations(workload, repeat, tests, corrections, n_measures):
    """Every ``test`` x ``correction``, pt.Experiment and ours, best of ``repeat``: one table per measure count."""
    from pyterrier import _evaluation
    from scipy import stats

    import pyterrier_boot as ptb

    systems, names, topics, qrels, what = workload
    callable_test = {"ttest_rel": stats.ttest_rel}
    for n in n_measures:
        measures = MEASURES[:n]

        def pt_call(test, correction, measures=measures):
            return lambda: _evaluation.Experiment(systems, topics, qrels, measures, names=names, baseline=0,
                                                  test=callable_test.get(test, test), correction=correction)

        def our_call(test, correction, measures=measures):
            return lambda: ptb.Experiment(systems, topics, qrels, measures, names=names, baseline=0,
                                          test=callable_test.get(test, test), correction=correction)

        reference = {t: t if t in PT_TESTS else "t" for t in tests}
        calls = {}
        for correction in corrections:
            calls.update({("pt", t, correction): pt_call(t, correction) for t in dict.fromkeys(reference.values())})
            calls.update({("ours", t, correction): our_call(t, correction) for t in tests})
        best, before = best_times(calls, repeat)
        print(f"\n{what} x {n} measures ({', '.join(measures)}), baseline 0, best of {repeat} "
              f"({before} before, {load()} after); ours: topic bootstrap, 10,000 resamples")
        print(f"  {'test':<25} {'correction':<15} {'pt.Experiment':>13} {'ours':>7} {'pt/ours':>8}")
        ratios = []
        for correction in corrections:
            for t in tests:
                theirs, ours = best[("pt", t_ref := reference[t], correction)], best[("ours", t, correction)]
                ratios.append(theirs / ours)
                label = t if t == t_ref else f"{t} (pt: t)"
                print(f"  {label:<25} {str(correction):<15} {theirs:11.2f} s {ours:5.2f} s {theirs / ours:8.2f}")
        print(f"  pt/ours: min {min(ratios):.2f}, median {np.median(ratios):.2f}; ours no slower in "
              f"{sum(r >= 1 for r in ratios)} of {len(ratios)} combinations")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--images", type=int, default=1_000)
    parser.add_argument("--corpus", action="store_true", help="also the corpus bootstrap on DL 2020")
    parser.add_argument("--fresh", action="store_true", help="also a first call in a fresh process")
    parser.add_argument("--combinations", action="store_true", help="every test x correction on Vaswani instead")
    parser.add_argument("--tests", nargs="+", default=list(PT_TESTS + OUR_TESTS), choices=PT_TESTS + OUR_TESTS)
    parser.add_argument("--corrections", nargs="+", default=["none", *CORRECTIONS], choices=["none", *CORRECTIONS])
    parser.add_argument("--measures", nargs="+", type=int, default=[3, 4], choices=[1, 2, 3, 4])
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # e.g. pt.Experiment's advice on shared pipeline prefixes: not timed here
    home = offline_irds_home()
    print(f"{load()} at start")
    try:
        if args.combinations:
            if home is None:
                sys.exit(f"Vaswani not found: no ir_datasets copy at {SHARED / 'irds_home'}")
            corrections = [None if c == "none" else c for c in args.corrections]
            combinations(vaswani(), args.repeat, args.tests, corrections, args.measures)
            return
        if home is None:
            print(f"Vaswani skipped: no ir_datasets copy at {SHARED / 'irds_home'}")
        else:
            compare(vaswani(), args.repeat, args.resamples)
        if not FOLDER.exists():
            sys.exit(f"TREC DL 2020 data not found at {FOLDER} (set PYTERRIER_BOOT_SHARED)")
        runs = dl2020()
        compare(runs, args.repeat, args.resamples)
        if args.corpus:
            corpus_row(runs, args.images)
        if args.fresh:
            fresh_process()
    finally:
        if home is not None:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
