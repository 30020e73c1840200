"""Real-data validation of the corpus-bootstrap meta-evaluation (issue 7) on TREC DL 2020 and Robust 2003.

1. Corpus stability of measures (Zobel & Rashidi 2020, Tables 3-4): on the 59 TREC DL 2020 passage
   runs (and the top 50 by RBP, as the paper), 100 Poisson images, AP, nDCG@10, P@10, RR and
   RBP(p=0.95); binary measures at DL's official cut rel >= 2, nDCG@10 on the graded labels. Also
   on the 17 Robust 2003 runs (1000 images, rel >= 1).
2. Variance decomposition (Kanoulas) on the Robust 2003 images: the mixed model homoscedastic and
   heteroscedastic, the cell-statistics solver's time on all 1000 images, statsmodels' MixedLM on a
   subsample for comparison, and the model's system effects against the paired t-test.
3. Meta-analysis over topics (Cormack & Lynam §9) of two Robust 2003 pairs: logit(AP) effects with
   SDs over images; forest plot.
4. Shallow pools (Zobel & Rashidi §7) on the same pairs: qrels pooled from the two runs' top 10, 25,
   100, 100 images, AP, RBP(p=0.95) and (for contrast) RBP(p=0.8); Fig. 6 (p-value against
   difference per image) and Fig. 7 plots.

Pairs: the two best Robust 2003 runs by mean RBP(p=0.95) (Zobel & Rashidi's case: "the top two
systems"), and the best against the first run at least 0.06 RBP below it (their pair differed by
about 0.07).

Usage: python benchmarks/meta_corpus_validation.py [--data ../shared/data] [--out /tmp/meta_corpus]
       [--images 1000] [--statsmodels-images 20] [--markdown]
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = Path(os.environ.get("PYTERRIER_BOOT_SHARED", HERE.parents[1] / "shared")) / "data"
DL_MEASURES = ["AP(rel=2)", "nDCG@10", "P(rel=2)@10", "RR(rel=2)", "RBP(p=0.95, rel=2)"]
ROBUST_MEASURES = ["AP", "nDCG", "P@10", "RR", "RBP(p=0.95)"]


def table(frame, markdown, digits=3):
    frame = frame.copy()
    for c in frame.columns:
        if pd.api.types.is_float_dtype(frame[c]):
            frame[c] = frame[c].map(lambda v: f"{v:.{digits}f}" if np.isfinite(v) else "nan")
    if markdown:
        head = "| " + " | ".join(map(str, frame.columns)) + " |"
        rule = "|" + "|".join("---" for _ in frame.columns) + "|"
        rows = ["| " + " | ".join(map(str, r)) + " |" for r in frame.itertuples(index=False)]
        return "\n".join([head, rule, *rows])
    return frame.to_string(index=False)


def stability_section(res, label, markdown, systems=None):
    import pyterrier_boot as pb

    start = time.perf_counter()
    st = pb.corpus_stability(res, systems=systems)
    took = time.perf_counter() - start
    summary = st.summary()
    print(f"\n### Corpus stability, {label}: {len(st.systems)} runs x {len(st.qids)} topics, {st.n_pairs} pairs, "
          f"{st.n_images} images ({took:.2f} s)\n")
    cols = ["measure", "score_sd_mean", "score_sd_sd", "score_sd_p95", "difference_sd_mean", "difference_sd_sd",
            "difference_sd_p95", "mean_sd_mean", "mean_difference_sd_mean"]
    print(table(summary[cols], markdown))
    order = summary.sort_values("difference_sd_mean")["measure"].tolist()
    print(f"\nmost to least stable (mean SD of per-topic differences): {' < '.join(order)}")
    return st


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=Path("/tmp/pyterrier_boot_meta_corpus"))
    parser.add_argument("--images", type=int, default=1000, help="Robust 2003 images (variance, meta-analysis)")
    parser.add_argument("--statsmodels-images", type=int, default=20,
                        help="images of the statsmodels MixedLM comparison (0: skip)")
    parser.add_argument("--rng", type=int, default=1)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    dl = args.data / "trec-dl-2020-passage"
    robust = args.data / "trec-robust2003"
    if not dl.exists() or not robust.exists():
        print(f"data not found under {args.data}; set --data or PYTERRIER_BOOT_SHARED")
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import pyterrier_boot as pb

    md = args.markdown
    # ---------------------------------------------------------------- 1. DL 2020 stability
    start = time.perf_counter()
    runs = pb.read_runs(dl / "runs")
    qrels = pb.read_qrels(dl / "qrels.dl20-passage.txt")
    res = pb.CorpusBootstrap(qrels, n_images=100, rng=args.rng, verbose=False).evaluate(runs, DL_MEASURES)
    print(f"## TREC DL 2020 passage: corpus bootstrap of {len(res.systems)} runs, 100 images: "
          f"{time.perf_counter() - start:.1f} s (reading included)")
    stability_section(res, "DL 2020, all runs", md)
    rbp = res.statistic[..., DL_MEASURES.index("RBP(p=0.95, rel=2)")].mean(axis=1)
    top = [res.systems[i] for i in np.argsort(-rbp, kind="stable")[:50]]
    st50 = stability_section(res, "DL 2020, top 50 by RBP (Zobel & Rashidi's Table 3 setting)", md, systems=top)
    per_system = st50.per_system()
    rows = []
    for rank in (2, 5, 7):
        row = per_system.iloc[rank - 1]
        for m in st50.measures:
            rows.append({"system": f"#{rank} {row['name']}", "measure": m,
                         "topic SD mean ± SD": f"{row[f'{m} topic_sd_mean']:.3f} ± {row[f'{m} topic_sd_sd']:.3f}",
                         "SD of the mean": row[f"{m} mean_sd"]})
    print("\nTable 4 analogue (per-topic SDs of single systems, by RBP rank):\n")
    print(table(pd.DataFrame(rows), md))

    # ---------------------------------------------------------------- Robust 2003
    start = time.perf_counter()
    runs = pb.read_runs(robust / "runs")
    qrels = pb.read_qrels(robust / "qrels.robust2003.txt.gz")
    res = pb.CorpusBootstrap(qrels, n_images=args.images, rng=args.rng, verbose=False).evaluate(runs, ROBUST_MEASURES)
    print(f"\n## TREC Robust 2003: corpus bootstrap of {len(res.systems)} runs x {len(res.qids)} topics, "
          f"{args.images} images: {time.perf_counter() - start:.1f} s (reading included)")
    stability_section(res, "Robust 2003, all runs", md)
    rbp = res.statistic[..., ROBUST_MEASURES.index("RBP(p=0.95)")].mean(axis=1)
    order = [res.systems[i] for i in np.argsort(-rbp, kind="stable")]
    best = order[0]
    far = next(s for s in order[1:] if rbp[res.systems.index(best)] - rbp[res.systems.index(s)] >= 0.06)
    pairs = [(best, order[1]), (best, far)]
    print(f"\npairs: {pairs[0][0]} - {pairs[0][1]} (the top two by RBP), {pairs[1][0]} - {pairs[1][1]}")

    # ---------------------------------------------------------------- 2. variance decomposition
    for measure in ("AP", "RBP(p=0.95)"):
        start = time.perf_counter()
        vd = pb.corpus_variance_decomposition(res, measure, reference=best)
        took = time.perf_counter() - start
        print(f"\n### Variance decomposition of {measure}: {len(res.systems)} x {len(res.qids)} x {vd.n_images} = "
              f"{len(res.systems) * len(res.qids) * vd.n_images:,} rows, both models: {took:.2f} s "
              f"(converged: {vd.homoscedastic.converged}, {vd.heteroscedastic.converged})\n")
        print(table(vd.components_frame(), md, digits=5))
        frame = vd.to_frame()
        sig = {k: int((frame[f"{k} p-value"] < 0.05).sum()) for k in ("homo", "hetero", "t")}
        ratio = frame["homo se"] / frame["t se"]
        print(f"\neffects against {best}: significant at 0.05: model {sig['homo']} (heteroscedastic "
              f"{sig['hetero']}) of {len(frame)}, paired t-test {sig['t']}; model SE / t-test SE "
              f"{ratio.min():.2f}-{ratio.max():.2f}; |effect - t difference| <= "
              f"{(frame['homo effect'] - frame['t difference']).abs().max():.4f}; max |hetero - homo effect| "
              f"{(frame['hetero effect'] - frame['homo effect']).abs().max():.5f}")
        disagree = frame[(frame["homo p-value"] < 0.05) != (frame["t p-value"] < 0.05)]
        if len(disagree):
            print(table(disagree[["system", "homo effect", "homo se", "homo p-value", "t se", "t p-value"]], md, 4))
        few = pb.corpus_variance_decomposition(res, measure, reference=best, images=10)
        f10 = few.to_frame()
        print(f"with the first 10 images: residual {few.homoscedastic.components['residual']:.5f} "
              f"(share {few.homoscedastic.share['residual']:.3f}); max |hetero - homo effect| "
              f"{(f10['hetero effect'] - f10['homo effect']).abs().max():.4f}, hetero SE / homo SE "
              f"{(f10['hetero se'] / f10['homo se']).min():.2f}-{(f10['hetero se'] / f10['homo se']).max():.2f}")
    if args.statsmodels_images:
        k = args.statsmodels_images
        data = pb.corpus_replicates(res, "AP", images=k)
        timings = {}
        fits = {}
        for solver in ("cells", "statsmodels"):
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits[solver] = pb.variance_decomposition(data, reference=best, solver=solver)
            timings[solver] = time.perf_counter() - start
        diff = max(abs(fits["cells"].components[c] / fits["statsmodels"].components[c] - 1)
                   for c in fits["cells"].components)
        se = np.max(np.abs(fits["cells"].effects["standard_error"] / fits["statsmodels"].effects["standard_error"] - 1))
        print(f"\nAP on the first {k} images ({len(data):,} rows): cells solver {timings['cells']:.2f} s, statsmodels "
              f"MixedLM {timings['statsmodels']:.1f} s; components differ by <= {diff:.1e} (relative), effect SEs by "
              f"<= {se:.1e}; log-likelihoods {fits['cells'].log_likelihood:.3f} vs "
              f"{fits['statsmodels'].log_likelihood:.3f}; load average "
              + ", ".join(f"{x:.1f}" for x in os.getloadavg()))

    # ---------------------------------------------------------------- 3. meta-analysis
    for a, b in pairs:
        diff = res.difference(a, b, measures=["AP"])
        print(f"\n### Meta-analysis of {a} - {b} over topics (AP; corpus difference {diff.statistic[0]:.4f}, "
              f"corpus p {diff.pvalue[0]:.4f}, paired t-test p {diff.ttest_pvalue[0]:.4f})\n")
        rows = []
        for effect in ("logit", "difference"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", pb.InputWarning)  # topics with SD 0: counted below
                meta = pb.corpus_meta_analysis(res, a, b, measure="AP", effect=effect)
            dropped = len(res.qids) - meta.n_topics
            for model in ("fixed", "random"):
                p = getattr(meta, model)
                rows.append({"effect": effect, "model": model, "topics": meta.n_topics, "dropped": dropped,
                             "estimate": p.estimate, "ci_low": p.confidence_interval.low,
                             "ci_high": p.confidence_interval.high, "p-value": p.pvalue, "tau2": meta.tau2,
                             "I2": meta.i2, "Stouffer Z": meta.stouffer_statistic,
                             "Stouffer p": meta.stouffer_pvalue})
            if effect == "logit":
                ax = meta.plot(title=f"{a} - {b}: logit(AP) effects, tau2 = {meta.tau2:.3f}, "
                                     f"I2 = {100 * meta.i2:.0f}%")
                path = args.out / f"forest_{a}_{b}.png"
                ax.figure.savefig(path, dpi=90)
                print(f"(forest plot: {path})")
        print(table(pd.DataFrame(rows), md, 4))

    # ---------------------------------------------------------------- 4. shallow pools
    for a, b in pairs:
        start = time.perf_counter()
        shallow = pb.shallow_pool_comparison(runs, qrels, a, b, depths=(10, 25, 100),
                                             measures=["AP", "RBP(p=0.95)", "RBP(p=0.8)"], n_images=100,
                                             rng=args.rng)
        took = time.perf_counter() - start
        print(f"\n### Shallow pools, {a} - {b} (pool of the two runs' top k; 100 images; {took:.1f} s)\n")
        cols = ["measure", "depth", "judgements", "relevant", "difference", "ci_low", "ci_high", "pvalue",
                "ttest_pvalue", "image_ttest_pvalue_median", "image_ttest_pvalue_q025", "image_ttest_pvalue_q975",
                "share_significant", "topic_sd_mean"]
        print(table(shallow.summary()[cols], md, 4))
        axes = shallow.plot()
        path = args.out / f"fig6_{a}_{b}.png"
        axes[0, 0].figure.savefig(path, dpi=90)
        from pyterrier_boot.meta.plots import plot_pool_differences

        boxes = plot_pool_differences(shallow)
        path7 = args.out / f"fig7_{a}_{b}.png"
        boxes[0].figure.savefig(path7, dpi=90)
        print(f"(Fig. 6: {path}; Fig. 7: {path7})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
