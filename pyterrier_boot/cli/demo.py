"""``pyterrier-boot demo``: a simulated collection with known truth, the topic and the corpus
bootstrap, a table and a report; no input files, no network."""
from __future__ import annotations

import argparse
import time

import numpy as np

from . import _common, _text

DEFAULT_OUT = "pyterrier-boot-demo"
# effectiveness parameters of the simulated systems (pyterrier_boot.simulate_collection):
# S3 and S4 are equal, so the null hypothesis holds exactly for that pair
SYSTEMS = {"S1": 0.9, "S2": 1.1, "S3": 1.3, "S4": 1.3, "S5": 1.5, "S6": 1.6}
MEASURES = ("AP", "nDCG@10")
TOPIC_RESAMPLES = 10_000
CORPUS_IMAGES = 1_000
TRUTH_TOPICS = 1_000

EXAMPLES = f"""\
examples:
  pyterrier-boot demo                      # writes ./{DEFAULT_OUT}/report.html
  pyterrier-boot demo --out /tmp/demo --rng 7

what it does:
  Simulates a TREC-like collection ({len(SYSTEMS)} systems, 50 topics, 20,000 documents, runs of 1,000,
  pooled judgements to depth 100; see pyterrier_boot.simulate_collection), whose systems' true
  effectiveness is known (S3 and S4 are equally good by construction). Evaluates {' and '.join(MEASURES)}
  with the topic bootstrap ({TOPIC_RESAMPLES:,} resamples) and the corpus bootstrap ({CORPUS_IMAGES:,}
  images), compares all pairs (paired t-test, Holm), estimates the population means from
  {TRUTH_TOPICS:,} fresh topics, prints a table and writes report.html, the runs and the qrels to
  the output folder (default ./{DEFAULT_OUT}, created if needed). The folder is written all or
  nothing; running the demo again replaces the folder an earlier demo wrote (including anything
  added to it, such as the evaluate/ folder suggested below); another non-empty folder needs --overwrite.

exit status: 0 success, 1 error (e.g. the folder cannot be written), 2 wrong usage.
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "demo", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="evaluate a simulated collection with known truth (no files, no network)",
        description="A tour on a simulated collection: topic and corpus bootstrap intervals, all-pairs tests, the "
                    "true population means, and an HTML report.",
        epilog=EXAMPLES)
    p.add_argument("-o", "--out", metavar="DIR", default=DEFAULT_OUT,
                   help=f"folder for report.html, the runs and the qrels (default ./{DEFAULT_OUT}); a folder "
                        "an earlier demo wrote is replaced, any other non-empty folder needs --overwrite")
    p.add_argument("--overwrite", action="store_true", help="replace --out DIR even when another command wrote it")
    p.add_argument("--topics", type=int, default=50, metavar="N", help="topics in the collection (default 50)")
    _common.add_rng_argument(p, "seed of the simulation and the bootstraps", like="every command")
    p.add_argument("--no-plots", action="store_true", help="a report without plots (faster)")
    p.set_defaults(run=run, parser=p)
    return p


def _write_collection(out, sim):
    """The runs (TREC format, gzipped) and the qrels, so ``evaluate`` can be tried on them."""
    runs = out / "runs"
    try:
        runs.mkdir(exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot write to '{runs}': {error.strerror or error}") from None
    for name, run in sim.runs.items():
        frame = run.assign(Q0="Q0", rank=run.groupby("qid", sort=False).cumcount() + 1, tag=name)
        frame = frame[["qid", "Q0", "docno", "rank", "score", "tag"]]
        try:
            frame.to_csv(runs / f"{name}.res.gz", sep=" ", header=False, index=False, float_format="%.6f",
                         compression={"method": "gzip", "compresslevel": 1, "mtime": 0})
        except OSError as error:
            raise ValueError(f"cannot write '{runs / name}.res.gz': {error.strerror or error}") from None
    qrels = sim.qrels.assign(iteration="0")[["qid", "iteration", "docno", "label"]]
    try:
        qrels.to_csv(out / "qrels.txt", sep=" ", header=False, index=False)
    except OSError as error:
        raise ValueError(f"cannot write '{out / 'qrels.txt'}': {error.strerror or error}") from None


def run(args: argparse.Namespace) -> int:
    if args.topics < 2:
        args.parser.error(f"--topics must be at least 2, got {args.topics}")
    status = _common.Status(not args.quiet)
    progress = _common.progress_enabled(args)
    start = time.perf_counter()
    folder = _common.OutputFolder(args.out, command="demo", overwrite=args.overwrite, replaceable=_earlier_demo)
    with folder as staging:
        _demo(args, status, progress, staging, folder.path)
    status(f"done in {time.perf_counter() - start:.1f} s")
    return 0


def _earlier_demo(path):
    """A folder the demo wrote: its marker, or (written before there were markers) nothing but the
    demo's files and the evaluate/ folder it suggests."""
    names = {p.name for p in path.iterdir()}
    return _common.written_by(path, "demo") or (
        _common.MARKER not in names and names <= {"report.html", "qrels.txt", "runs", "evaluate"})


def _demo(args, status, progress, staging, out):
    """Simulate, evaluate, print; write the report, runs and qrels into ``staging`` (moved to ``out``)."""

    from ..experiment.experiment import experiment_result
    from ..inputs.qrels import read_qrels
    from ..simulation.collection import simulate_collection

    seed = _common.seed(args.rng)
    status(f"simulating {len(SYSTEMS)} systems x {args.topics} topics, seed {seed}")
    sim = simulate_collection(n_topics=args.topics, effectiveness=SYSTEMS, rng=seed)
    qrels = read_qrels(sim.qrels, corpus_size=sim.corpus_size)
    status(f"topic bootstrap ({TOPIC_RESAMPLES:,} resamples)")
    topic = experiment_result(sim.runs, None, qrels, list(MEASURES), bootstrap="topic", n_resamples=TOPIC_RESAMPLES, rng=seed)
    status(f"corpus bootstrap ({CORPUS_IMAGES:,} images)")
    corpus = experiment_result(sim.runs, None, qrels, list(MEASURES), bootstrap="corpus", n_resamples=CORPUS_IMAGES, rng=seed, verbose=progress)
    pairwise = topic.pairwise(test="t", correction="holm", rng=np.random.default_rng(seed))
    status(f"population means from {TRUTH_TOPICS:,} fresh simulated topics")
    truth = sim.truth(list(MEASURES), n_topics=TRUTH_TOPICS, rng=seed + 1)
    truth = truth.reindex(list(SYSTEMS))

    width = _text.terminal_width()
    print("\n".join([*_lines(sim, topic, corpus, truth, pairwise, width), _common.seed_line(seed)]))

    status("writing the report, runs and qrels")
    _write_collection(staging, sim)
    plots = not args.no_plots and _common.matplotlib_available()
    if plots:
        _common.use_agg()
    from ..report import write_report

    topic_heading = f"Topic bootstrap ({TOPIC_RESAMPLES:,} resamples)"
    write_report(
        {topic_heading: topic, f"Corpus bootstrap ({CORPUS_IMAGES:,} images)": corpus},
        staging / "report.html", title="pyterrier-boot demo: a simulated collection with known truth",
        settings=_settings(args, sim, seed), pairwise={topic_heading: pairwise},
        tables={f"True population means ({TRUTH_TOPICS:,} fresh simulated topics; Monte Carlo standard error "
                f"about {float(np.nanmax(truth.attrs['standard_error'].to_numpy())):.3f})":
                truth.reset_index(names="name")},
        truth={topic_heading: truth},  # the population over topics: what the topic bootstrap estimates
        test="t", correction="holm", alpha=0.05, plots=plots, verbose=progress)
    print()
    print(_text.wrap(f"Report: {(out / 'report.html').resolve()} (open it in a browser). The runs and qrels are in "
                     f"{out.resolve()}; try: pyterrier-boot evaluate --qrels {out / 'qrels.txt'} "
                     f"{out / 'runs'} --out {out / 'evaluate'}", width))


def _settings(args, sim, seed):
    return {
        "command": args.command_line,
        "collection": (f"simulated (pyterrier_boot.simulate_collection, seed {seed}): {len(sim.runs)} systems, "
                       f"{len(sim.topics)} topics, {sim.corpus_size:,} documents, runs of {sim.model.depth:,}, "
                       f"pool depth {sim.model.pool_depth}, {len(sim.qrels):,} judgements"),
        "effectiveness": ", ".join(f"{k} {v:g}" for k, v in SYSTEMS.items()) + " (S3 = S4: equally good)",
        "tests": "paired t-test over topics, all pairs, Holm correction per measure, alpha 0.05",
        "seed": _common.seed_setting(seed),
    }


def _lines(sim, topic, corpus, truth, pairwise, width):
    import pandas as pd

    from ..report import describe_intervals

    S, Q = len(topic.names), len(topic.qids)
    lines = [
        "pyterrier-boot demo: a simulated TREC-like collection (no files, no network)",
        _text.wrap(f"{S} systems x {Q} topics, {sim.corpus_size:,} documents, runs of {sim.model.depth:,}, "
                   f"judgements pooled to depth {sim.model.pool_depth} ({len(sim.qrels):,}). The systems' "
                   "true effectiveness is known; S3 and S4 are equally good by construction.", width),
    ]
    level = f"{100 * topic.confidence_level:g}%"
    for j, m in enumerate(topic.measures):
        order = np.argsort(-topic.means[:, j], kind="stable")
        rows = pd.DataFrame({
            "system": [topic.names[s] for s in order],
            "mean": [f"{topic.means[s, j]:.3f}" for s in order],
            f"topic bootstrap {level}": [f"[{topic.intervals[s, j, 0]:.3f}, {topic.intervals[s, j, 1]:.3f}]"
                                          for s in order],
            f"corpus bootstrap {level}": [f"[{corpus.intervals[s, j, 0]:.3f}, {corpus.intervals[s, j, 1]:.3f}]"
                                           for s in order],
            "true mean": [f"{truth.loc[topic.names[s], m]:.3f}" for s in order],
        })
        lines += ["", m, _text.render_table(rows, width=width)]
    lines += [
        "",
        _text.wrap(f"Topic bootstrap: {describe_intervals(topic)}. It varies which topics were asked, so its "
                   "interval is about the mean over new topics: the true mean (the population value, from "
                   f"{TRUTH_TOPICS:,} fresh simulated topics) should fall inside it for about "
                   f"{level} of collections.", width),
        _text.wrap(f"Corpus bootstrap: {describe_intervals(corpus)}. It varies which documents are in the "
                   "collection and keeps the topics, so it is narrower and says how much the score depends "
                   "on the documents, not on the topics.", width),
    ]
    p = pairwise["p-value corrected"]
    counts = ", ".join(f"{m} {int((p[pairwise['measure'] == m] < 0.05).sum())}" for m in topic.measures)
    n_pairs = S * (S - 1) // 2
    lines.append(_text.wrap(f"All {n_pairs} pairs, paired t-test, Holm-corrected, p < 0.05: {counts} significant.",
                            width))
    equal = pairwise[(pairwise["system_a"].isin(["S3", "S4"])) & (pairwise["system_b"].isin(["S3", "S4"]))]
    if len(equal):
        parts = [f"{m} {d:+.3f} (p = {pv:.2f})" for m, d, pv in
                 zip(equal["measure"], equal["difference"], equal["p-value corrected"], strict=True)]
        lines.append(_text.wrap("S3 - S4, equal by construction: " + ", ".join(parts) + ".", width))
    return lines
