"""``pyterrier-boot judge-plan``: which pool pairs to give people, drawn with known inclusion
probabilities (statAP, Aslam, Pavlu & Yilmaz 2006; active inference, Zrnic & Candes 2024)."""
from __future__ import annotations

import argparse
from pathlib import Path

from . import _common

EXAMPLES = """\
examples:
  # 10% of the pool, more of the top ranks (statAP weights), a fixed number per stratum
  pyterrier-boot judge-plan --auto-qrels llm.qrels runs/ --budget 0.1 --out plan/

  # 1,000 labels spent where nDCG@10 and AP (relevant from grade 2) move, with a forecast of the widths
  pyterrier-boot judge-plan --auto-qrels llm.qrels runs/ --budget 1000 --measures nDCG@10 AP --rel 2 \
      --label-map 1:2 --width 0.1 --out plan/

  # an LLM's 0/1 labels read on the people's 0-3 scale: its 1 counts as grade 2 (AP(rel=2), trec_eval -l 2)
  pyterrier-boot judge-plan --auto-qrels llm.qrels runs/ --budget 0.1 --label-map 1:2 --out plan/

  # 500 pairs where the judge is unsure (its probabilities in a qrels-like file: qid iter docno p)
  pyterrier-boot judge-plan --auto-qrels llm.qrels --probabilities llm.prob runs/ --budget 500 \\
      --strategy active --out plan/

files written into --out DIR:
  plan.txt      the whole plan: '#' header lines (settings, fingerprints of the runs' pool and of the
                automatic qrels, a checksum), then one line per pool pair:
                qid docno rank auto_label stratum inclusion_probability sampled
                (read it back in Python with pyterrier_boot.JudgingPlan.load)
  to_judge.txt  the pairs to judge, one 'qid 0 docno' line each, sorted by topic and docno (not by
                rank): add each pair's grade as a 4th field and the file is a TREC qrels file

With --measures the pool keeps the pairs those measures read, the probabilities follow their
sensitivity to a label at each rank, and a forecast is printed: for each measure, the expected
width of the 95% intervals of means and differences (people simulated from the judge's labels),
and whether intervals held at this many labels per topic in our measurements; --width W adds the
labels each measure needs for intervals that wide.
The sample is random with the recorded probabilities: judge every pair of it, and do not choose or
drop pairs after seeing the runs' scores. See the ppi page of the docs ("Judging plans").
exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "judge-plan", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="draw the pool pairs people should judge, with known inclusion probabilities",
        description="A judging plan: the pool (the runs' top --depth documents per topic and the automatic "
                    "qrels' pairs), every pair's inclusion probability, and a random sample of --budget pairs "
                    "for people to judge (uniform, statAP-stratified or active).",
        epilog=EXAMPLES)
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files in TREC format (plain or .gz) or folders of them")
    p.add_argument("--auto-qrels", required=True, metavar="QRELS",
                   help="automatic judgments (e.g. an LLM's) of the pool: a TREC qrels file or 'irds:<id>'")
    p.add_argument("--budget", required=True, metavar="B",
                   help="pairs people can judge: a count (500) or a fraction of the pool (0.1)")
    p.add_argument("--strategy", choices=("uniform", "stratified", "active"), default="stratified",
                   help="uniform; stratified (default: statAP rank weights); active (needs --probabilities)")
    p.add_argument("--design", choices=("poisson", "stratified"),
                   help="poisson (independent draws) or stratified (a fixed number per topic x label x rank "
                        "band); default stratified for --strategy stratified (poisson where two pairs per stratum would "
                        "take more than half of the budget), else poisson")
    p.add_argument("-m", "--measures", nargs="+", action="extend", metavar="MEASURE",
                   help="the measures the labels will serve (AP, nDCG, P, R, RR, Rprec, Success): the plan follows "
                        "them and prints a forecast")
    p.add_argument("--rel", type=int, metavar="N",
                   help="with --measures: binary measures count grade >= N as relevant (trec_eval -l N)")
    p.add_argument("--width", type=float, metavar="W",
                   help="with --measures: also print the labels each measure needs for intervals of width W")
    p.add_argument("--probabilities", metavar="FILE",
                   help="the judge's probability of relevance of its pairs: lines 'qid iter docno p', p in [0, 1]")
    p.add_argument("--depth", type=int, help="the runs' top DEPTH documents enter the pool (default 100; with "
                                           "--measures, their deepest cutoff)")
    p.add_argument("--uniform-share", type=float, default=0.2, metavar="S",
                   help="share of the budget spread uniformly over the pool (default 0.2)")
    p.add_argument("--label-map", nargs="+", metavar="LABEL:GRADE",
                   help="the people's grade of each automatic label, e.g. 1:2 (a 0/1 judge's 1 is grade 2, relevant "
                        "at --rel 2); recorded in the plan, which applies it to --auto-qrels wherever it is used")
    _common.add_rng_argument(p)
    _common.add_output_arguments(p, "write plan.txt (the plan) and to_judge.txt (the pairs for people) here",
                                 required=True)
    p.set_defaults(run=run, parser=p)
    return p


def _budget(text: str, parser: argparse.ArgumentParser) -> float:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    parser.error(f"--budget must be a count of pairs (500) or a fraction of the pool (0.1), got {text!r}")


def _check(args, parser) -> None:
    args.measures, args.runs = _common.split_measures(args.measures, args.runs)
    if not args.runs:
        parser.error("give at least one RUN file or folder (after the options, or after '--')")
    args.budget = _budget(args.budget, parser)
    for option, value in (("--rel", args.rel), ("--width", args.width)):
        if value is not None and not args.measures:
            parser.error(f"{option} needs --measures")
    if args.rel is not None and args.rel < 1:
        parser.error(f"--rel must be a grade of at least 1, got {args.rel}")
    if args.width is not None and not args.width > 0:
        parser.error(f"--width must be a positive width, got {args.width:g}")
    if args.depth is not None and args.depth < 1:
        parser.error(f"--depth must be a positive number of documents, got {args.depth}")
    if not 0 < args.uniform_share <= 1:
        parser.error(f"--uniform-share must be in (0, 1], got {args.uniform_share:g}")
    if args.strategy == "active" and args.probabilities is None:
        parser.error("--strategy active needs the judge's probabilities: --probabilities FILE")
    args.label_map = _common.label_map(args.label_map, parser)


def run(args: argparse.Namespace) -> int:
    from ..judging import judging_plan

    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    seed = _common.seed(args.rng)
    status(f"reading the automatic qrels {args.auto_qrels}")
    with _common.output_folder(args, "judge-plan") as out:
        qrels = _common.read_qrels(args.auto_qrels)
        measures = None if not args.measures else _common.parse_measures_rel(args.measures, args.rel)
        runs = _common.read_runs(args.runs, qrels, verbose=_common.progress_enabled(args))
        plan = judging_plan(runs, _common.with_probabilities(qrels, args.probabilities), args.budget,
                            measures=measures, strategy=args.strategy, design=args.design, depth=args.depth,
                            uniform_share=args.uniform_share, label_map=args.label_map, rng=seed)
        sample = plan.sample
        plan.save(out / "plan.txt")
        _common.write_text(out / "to_judge.txt", "".join(f"{q} 0 {d}\n" for q, d in zip(sample["qid"], sample["docno"])))
    print("\n".join(_summary(plan, seed)))
    if measures:
        status("forecasting the widths (people simulated from the judge's labels)")
        print("\n".join(_forecast_lines(plan.forecast(rng=seed), args.width)))
    status(f"wrote plan.txt and to_judge.txt to {Path(args.out)}")
    return 0


def _forecast_lines(forecast, width: float | None) -> list[str]:
    """The forecast: per measure, the expected widths and whether intervals held there."""
    table = forecast.to_frame()
    table["measured coverage"] = [("not measured" if c != c else f"{c:.1f}% at {int(b)} labels per topic")
                                  for c, b in zip(table["coverage"], table["measured at"])]
    table["holds"] = table["holds"].map({True: "yes", False: "no"})
    table["width"] = table["width"].map(lambda v: f"{v:.3f}")
    lines = ["", f"forecast of the 95% intervals with {forecast.labels} labels ({forecast.labels / forecast.n_topics:.0f} "
                 f"per topic; people simulated from the judge's labels, {forecast.n_draws} draws): the mean width over the "
                 "runs (mean) or the differences from the median run (difference), the lowest coverage we measured "
                 "at this many labels per topic, and whether it held (at least 93%)",
             table[["measure", "column", "estimand", "width", "measured coverage", "holds"]].to_string(index=False)]
    if width is not None:
        lines.append("")
        for measure in forecast.measures:
            shown = {c: ["more than the pool" if n is None else str(n)
                         for n in (forecast.labels_needed(measure, width, estimand=e, column=c)
                                   for e in ("population", "topics"))]
                     for c in forecast.columns}
            parts = [f"means {shown['mean'][0]} (population) / {shown['mean'][1]} (topics)"]
            if "difference" in shown:  # a plan with two runs or more
                parts.append(f"differences {shown['difference'][0]} / {shown['difference'][1]}")
            lines.append(f"labels for intervals {width:g} wide, {measure}: {', '.join(parts)}")
    return lines


def _summary(plan, seed: int) -> list[str]:
    """What the plan is, and what the pool's pairs without an automatic label count as."""
    pool = plan.pool
    lines = [f"{plan.strategy} plan, {plan.describe_design()} (seed {seed}): {int(pool['sampled'].sum())} pairs to judge "
             f"of {len(pool)} pool pairs over {pool['qid'].nunique()} topics (budget {plan.budget}, inclusion "
             f"probabilities {pool['inclusion_probability'].min():.3g} to {pool['inclusion_probability'].max():.3g})"]
    if plan.unlabelled:
        lines.append(f"{plan.unlabelled} of the {len(pool)} pool pairs ({plan.unlabelled / len(pool):.0%}) have no "
                     "automatic label (in a run's top --depth, not in --auto-qrels): they count as automatically "
                     "non-relevant, and people's labels of those sampled correct that")
    if plan.label_map:
        lines.append("automatic labels read on the people's scale: "
                     + ", ".join(f"{k} as {v}" for k, v in plan.label_map.items()))
    if plan.measures:
        lines.append(f"made for {', '.join(plan.measures)}: the pool keeps the pairs they read (the runs' top "
                     f"{plan.depth}) and the probabilities follow their sensitivity to a label at each rank")
    return lines
