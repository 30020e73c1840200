"""Confidence sequences and the regression gate on real per-topic scores (issue 27, item 5).

    python benchmarks/sequential_validation.py [--sequences 10000] [--gate-sequences 200] [--seed 0]

retrieval-eval-gate comes with the ``bench`` extra (``pip install -e ".[dev,bench]"``).

Populations (each the full topic set of a collection, systems as submitted):

* TREC-5..8 ad hoc AP and Web 2010-2013 nDCG@20: the per-topic score matrices of Urbano, Lima &
  Hanjalic (SIGIR 2019), ``urbano-sigir2019-scores/`` of the shared data;
* TREC DL 2019 and 2020 passage nDCG@10 and AP(rel=2), computed here with ``ptb.evaluate``.

Each of ``--sequences`` sequences per setting picks a system (means) or an ordered pair of distinct
systems (paired differences) at random and draws topics either iid with replacement (``--length``
topics) or as a random order of the whole set (without replacement). Printed, per setting:

1. **Time-uniform miss rate**: the share of sequences whose 95% sequence ever excludes the full-set
   mean (an empty betting sequence counts as a miss), with its binomial SE, for
   ``method="betting"`` and ``"asymptotic"``.
2. **Widths** at n = 10, 25, 50 (iid sequences): the median width of the betting and asymptotic
   sequences and of the fixed-n Student t interval (valid at one n chosen in advance only), and
   the median ratio of the betting width to retrieval-eval-gate's
   (``rag_eval_gate.sequential.ConfidenceSequence(alpha=0.05)``, its documented class, fed with
   ``extend()``; pure Python, so run on the first ``--gate-sequences`` sequences only; a
   difference is rescaled to [0, 1] as its ``paired_gate`` does).
3. **Gate false alarms** (margin ``--margin``, checked after every topic of iid sequences):
   "worse" on pairs whose full-set difference is within the margin (``-margin <= d <= margin``), and
   "not worse" on pairs worse by more than the margin (``d < -margin``); each at most alpha.
4. **Topics to decide** every ordered pair of DL 2020 runs (nDCG@10), by the size of the full-set
   difference: the share decided within the 54 judged topics (a random order of them) and
   within ``--length`` iid draws, the median number of topics a decided pair needed, and the
   share of wrong verdicts.
"""
from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import pyterrier_boot as ptb
from pyterrier_boot.sequential.gate import gate_verdicts

SHARED = Path(os.environ.get("PYTERRIER_BOOT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
URBANO = {f"TREC-{k} AP": f"adhoc{k}_ap.csv" for k in (5, 6, 7, 8)} | \
         {f"Web {y} nDCG@20": f"web{y}_ndcg20.csv" for y in (2010, 2011, 2012, 2013)}
DL = {2019: "qrels.dl19-passage.txt", 2020: "qrels.dl20-passage.txt"}
DL_MEASURES = ("nDCG@10", "AP(rel=2)")
LOOKS = (10, 25, 50)
ALPHA = 0.05


def populations() -> dict[str, np.ndarray]:
    """Setting -> topics x systems matrix of per-topic scores."""
    out = {name: pd.read_csv(SHARED / "data" / "urbano-sigir2019-scores" / file).to_numpy(float)
           for name, file in URBANO.items()}
    for year, qrels in DL.items():
        folder = SHARED / "data" / f"trec-dl-{year}-passage"
        frame = ptb.evaluate(ptb.read_runs(folder / "runs"), ptb.read_qrels(folder / qrels).frame, list(DL_MEASURES))
        for measure in DL_MEASURES:
            table = frame[frame["measure"] == measure].pivot(index="qid", columns="name", values="value")
            out[f"DL {year} {measure}"] = table.to_numpy(float)
    return out


def draws(n_topics: int, length: int, count: int, iid: bool, rng) -> np.ndarray:
    """Topic indices, length x count: iid with replacement, or a random order of all topics."""
    if iid:
        return rng.integers(0, n_topics, (length, count))
    return np.argsort(rng.random((n_topics, count)), axis=0)


def sequences(scores, kind, length, count, iid, rng):
    """``(x, y or None, full-set means)`` for ``count`` random systems (``kind="mean"``) or
    ordered pairs of distinct systems (``"difference"``)."""
    topics = draws(scores.shape[0], length, count, iid, rng)
    first = rng.integers(0, scores.shape[1], count)
    x = scores[topics, first]
    if kind == "mean":
        return x, None, scores.mean(axis=0)[first]
    second = (first + rng.integers(1, scores.shape[1], count)) % scores.shape[1]
    means = scores.mean(axis=0)
    return x, scores[topics, second], means[first] - means[second]


def sequence(x, y, method):
    with warnings.catch_warnings():  # an empty betting sequence is counted as a miss
        warnings.simplefilter("ignore", ptb.DegenerateWarning)
        return ptb.confidence_sequence(x, y, method=method)


def miss_rate(cs, truth):
    missed = (cs.ci_low > truth + 1e-12) | (cs.ci_high < truth - 1e-12) | np.isnan(cs.ci_low)
    share = missed.any(axis=0).mean()
    return share, np.sqrt(share * (1 - share) / missed.shape[1])


def t_widths(d):
    return np.stack([2 * stats.t.ppf(1 - ALPHA / 2, n - 1) * d[:n].std(axis=0, ddof=1) / np.sqrt(n) for n in LOOKS])


def reg_widths(d, lo):
    """retrieval-eval-gate's widths at LOOKS for each column of ``d`` (in [lo, lo + 1 - lo])."""
    from rag_eval_gate.sequential import ConfidenceSequence as GateSequence

    scale = 1.0 - lo
    z = (d - lo) / scale
    out = np.empty((len(LOOKS), z.shape[1]))
    for k in range(z.shape[1]):
        cs, seen = GateSequence(alpha=ALPHA), 0
        for row, n in enumerate(LOOKS):
            low, high = cs.extend(z[seen:n, k])
            out[row, k], seen = (high - low) * scale, n
    return out


def validate(name, scores, args, rng):
    rows, widths = [], []
    for kind in ("mean", "difference"):
        for iid in (True, False):
            x, y, truth = sequences(scores, kind, args.length, args.sequences, iid, rng)
            row = {"setting": name, "quantity": kind, "draws": f"iid {args.length}" if iid else
                   f"order of {scores.shape[0]}"}
            for method in ("betting", "asymptotic"):
                cs = sequence(x, y, method)
                share, se = miss_rate(cs, truth)
                row[f"{method} miss"] = f"{share:.4f} ({se:.4f})"
                if iid and method == "betting":
                    betting = (cs.ci_high - cs.ci_low)[[n - 1 for n in LOOKS]]
                elif iid:
                    asymptotic = (cs.ci_high - cs.ci_low)[[n - 1 for n in LOOKS]]
            rows.append(row)
            if iid:
                d = x if y is None else x - y
                g = args.gate_sequences
                reg = reg_widths(d[:, :g], 0.0 if y is None else -1.0)
                t = t_widths(d)
                t[t == 0] = np.nan  # all differences alike so far: the t interval has no width
                for i, n in enumerate(LOOKS):
                    widths.append({"setting": name, "quantity": kind, "n": n, "betting": np.nanmedian(betting[i]),
                                   "asymptotic": np.median(asymptotic[i]), "t (fixed n)": np.median(t[i]),
                                   "betting / t": np.nanmedian(betting[i] / t[i]),
                                   "betting / REG": np.nanmedian(betting[i, :g] / reg[i]),
                                   "asymptotic / REG": np.median(asymptotic[i, :g] / reg[i])})
    return rows, widths


def false_alarms(name, scores, args, rng):
    """Rates of wrong gate verdicts ever reached, checked after every topic."""
    means = scores.mean(axis=0)
    d = means[:, None] - means[None, :]
    np.fill_diagonal(d, np.nan)
    out = {"setting": name}
    for label, mask, wrong in (("'worse', |d| <= margin", np.abs(d) <= args.margin, 1),
                               ("'not worse', d < -margin", d < -args.margin, 0)):
        first, second = np.nonzero(mask)
        if len(first) == 0:
            out[label] = "no pairs"
            continue
        pick = rng.integers(0, len(first), args.sequences)
        topics = draws(scores.shape[0], args.length, args.sequences, True, rng)
        cs = sequence(scores[topics, first[pick]], scores[topics, second[pick]], "betting")
        share = (gate_verdicts(cs.ci_low, cs.ci_high, args.margin) == wrong).any(axis=0).mean()
        out[label] = f"{share:.4f} ({np.sqrt(share * (1 - share) / args.sequences):.4f}), {len(first)} pairs"
    return out


def topics_to_decide(scores, args, rng, repeats=3):
    """Decisions on every ordered pair of DL 2020 runs, binned by the full-set difference."""
    first, second = np.nonzero(~np.eye(scores.shape[1], dtype=bool))
    means = scores.mean(axis=0)
    truth = np.repeat(means[first] - means[second], repeats)
    first, second = np.repeat(first, repeats), np.repeat(second, repeats)
    results = {}
    for label, iid, length in (("all topics, random order", False, scores.shape[0]),
                               (f"iid {args.length}", True, args.length)):
        topics = draws(scores.shape[0], length, len(first), iid, rng)
        cs = sequence(scores[topics, first], scores[topics, second], "betting")
        codes = gate_verdicts(cs.ci_low, cs.ci_high, args.margin)
        decided = codes != 2
        results[label] = (codes[-1], np.where(decided.any(axis=0), decided.argmax(axis=0) + 1, np.nan))
    edges = [-np.inf, -0.1, -0.05, -args.margin, 0.0, 0.05, 0.1, np.inf]
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        inside = (truth >= lo) & (truth < hi)
        row = {"full-set d": f"[{lo:g}, {hi:g})", "pairs": int(inside.sum()) // repeats}
        for label, (final, when) in results.items():
            wrong = np.where(truth[inside] < -args.margin, final[inside] == 0, final[inside] == 1)
            row[f"decided ({label})"] = (final[inside] != 2).mean()
            row[f"median topics ({label})"] = np.nanmedian(when[inside]) if (final[inside] != 2).any() else np.nan
            row[f"wrong ({label})"] = wrong.mean()
        rows.append(row)
    return pd.DataFrame(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequences", type=int, default=10_000, help="sequences per setting (default 10000)")
    parser.add_argument("--gate-sequences", type=int, default=200,
                        help="of those, how many retrieval-eval-gate's (pure Python) sequence is run on (default 200)")
    parser.add_argument("--length", type=int, default=250, help="topics of an iid sequence (default 250)")
    parser.add_argument("--margin", type=float, default=0.01, help="margin of the gate (default 0.01)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    data = populations()
    rows, widths, alarms = [], [], []
    for name, scores in data.items():
        r, w = validate(name, scores, args, rng)
        rows += r
        widths += w
        alarms.append(false_alarms(name, scores, args, rng))
        print(f"{name}: done at {time.perf_counter() - started:.0f} s", flush=True)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 20)
    print(f"\nTime-uniform miss rate at 95% (SE), {args.sequences} sequences per row")
    print(pd.DataFrame(rows).to_markdown(index=False))
    print(f"\nMedian widths (iid sequences); ratios to retrieval-eval-gate (REG) on the first {args.gate_sequences}")
    print(pd.DataFrame(widths).to_markdown(index=False, floatfmt=".3f"))
    print(f"\nGate false alarms at margin {args.margin}, checked after every topic of {args.length} iid draws (SE)")
    print(pd.DataFrame(alarms).to_markdown(index=False))
    print(f"\nTopics to decide ordered DL 2020 nDCG@10 pairs, margin {args.margin}, 3 sequences per pair")
    print(topics_to_decide(data["DL 2020 nDCG@10"], args, rng).to_markdown(index=False, floatfmt=".3f"))
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
