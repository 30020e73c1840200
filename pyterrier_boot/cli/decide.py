"""``pyterrier-boot decide``: a saved sequence of judged topics, updated with the topics of each new
qrels file, and which pairs of runs it has decided (anytime-valid, so the table may be read after
every update: :class:`pyterrier_boot.sequential.evaluation.SequentialEvaluation`)."""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

from . import _common, _text

if TYPE_CHECKING:
    import pandas as pd

    from ..sequential.evaluation import SequentialEvaluation

EXAMPLES = """\
examples:
  # day 1: create the state from the topics judged so far
  pyterrier-boot decide --state state.tsv --qrels qrels.txt runs/ -m nDCG@10 --margin 0.01

  # each later day: the same command; the topics of qrels.txt not yet in the state are added
  pyterrier-boot decide --state state.tsv --qrels qrels.txt runs/ --margin 0.01 --out today/

  # every run against a baseline, false discovery rate control (e-BH) instead of family-wise
  pyterrier-boot decide --state state.tsv --qrels qrels.txt runs/ --baseline bm25 --correction e-bh

  # people label a judging plan's sample of documents (plan/to_judge.txt of 'judge-plan'), topic
  # by topic: --qrels holds every label so far; a topic enters once its sample is labelled
  pyterrier-boot decide --state state.tsv --plan plan/plan.txt --qrels labels.qrels runs/ -m nDCG@10

what is printed, per measure and pair (a - b):
  difference   the mean difference over the topics so far, with its confidence sequence
               (with e-bh: its e-BY interval, which excludes 0 exactly when e-BH decides)
  decision     better / worse (the sequence excludes 0), equivalent (it lies within
               [-margin, margin]) or undecided
  more topics  for an undecided pair, a rough projection of the topics still needed
  more labels  with --plan: those topics times the plan's sampled documents per topic

The state file keeps the topics in the order they were added (judge topics in a random order),
the runs, the measures, --baseline, --correction and --confidence; they cannot change once the
state exists. Scores of topics already in the state are not recomputed (with --plan they are,
and labels that change them are refused). With --plan the measures are AP, nDCG, R or Rprec.
exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "decide", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="judge until decided: which pairs of runs are decided, updated as topics are judged",
        description="Anytime-valid comparisons of runs over a growing sequence of judged topics: the state file "
                    "(created when absent) gains the topics of --qrels it does not hold yet, and the table says "
                    "per pair better, worse, equivalent within --margin, or undecided, valid however often it "
                    "is read (betting confidence sequences, Bonferroni or e-BH over the pairs).",
        epilog=EXAMPLES)
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files in TREC format (plain or .gz) or folders of them")
    p.add_argument("--state", required=True, metavar="FILE",
                   help="the state file: created when absent, else updated with the new topics of --qrels")
    p.add_argument("--qrels", required=True, metavar="QRELS",
                   help="judgments: a TREC qrels file or 'irds:<id>'; with --plan, every human label of the plan's "
                        "sample given so far")
    p.add_argument("--plan", metavar="FILE",
                   help="a judging plan (plan.txt of 'pyterrier-boot judge-plan', made from these runs): the state "
                        "takes a topic once every document of it the plan sampled is labelled in --qrels, scored by "
                        "the plan's estimators (the automatic labels are the plan's); fixed when the state is created")
    p.add_argument("-m", "--measures", nargs="+", action="extend", metavar="MEASURE",
                   help="ir_measures or trec_eval names, scores in [0, 1] (default: nDCG@10 when the state is "
                        "created; the state's measures after)")
    p.add_argument("-b", "--baseline", metavar="NAME",
                   help="compare every run with this one (default: every pair); fixed when the state is created")
    p.add_argument("--correction", choices=("bonferroni", "e-bh"),
                   help="bonferroni (default: family-wise error) or e-bh (false discovery rate) over the pairs "
                        "of each measure; fixed when the state is created")
    p.add_argument("--confidence", type=float, metavar="LEVEL",
                   help="confidence level of the family of pairs (default 0.95); fixed when the state is created")
    p.add_argument("--margin", type=float, default=0.0, metavar="DELTA",
                   help="differences within [-DELTA, DELTA] do not matter: 'equivalent' (default 0: none)")
    p.add_argument("--rel", type=int, metavar="N", help="binary measures count grade >= N as relevant (trec_eval -l N)")
    p.add_argument("--digits", type=int, default=3, help="decimals in the printed table (default 3)")
    _common.add_output_arguments(p, "also write decisions.csv (every column) and decisions.md")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    args.measures, args.runs = _common.split_measures(args.measures, args.runs)
    if not args.runs:
        parser.error("give at least two RUN files or a folder of them (after the options, or after '--')")
    if args.confidence is not None and not 0 < args.confidence < 1:
        parser.error(f"--confidence must be between 0 and 1, got {args.confidence}")
    if not (math.isfinite(args.margin) and args.margin >= 0):
        parser.error(f"--margin must be a number >= 0 (the half-width of the differences that do not matter), "
                     f"got {args.margin:g}")
    if args.rel is not None and args.rel < 1:
        parser.error(f"--rel must be a grade of at least 1, got {args.rel}")
    if not 0 <= args.digits <= 10:
        parser.error(f"--digits must be between 0 and 10, got {args.digits}")
    _common.check_output_arguments(args, parser)


def run(args: argparse.Namespace) -> int:
    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    with _common.output_folder(args, "decide") as out:
        state, added = _updated_state(args, status)
        table = state.decisions(args.margin)
        if out is not None:
            _common.write_csv(out / "decisions.csv", table)
            _common.write_text(out / "decisions.md", _markdown(state, table, args))
        if added:
            state.save(args.state)
    print(_text_blocks(state, table, args))
    if args.out:
        status(f"wrote the tables to {Path(args.out)}")
    return 0


def _updated_state(args, status) -> tuple[SequentialEvaluation, list[str]]:
    """The state read from ``--state`` and updated with the new topics (or created); the topics added."""
    from ..sequential.evaluation import SequentialEvaluation

    status(f"reading the qrels {args.qrels}")
    qrels = _common.read_qrels(args.qrels)
    plan = _plan(args, status)
    topics = qrels if plan is None else _common.read_qrels(
        plan.pool[["qid", "docno", "auto_label"]].rename(columns={"auto_label": "label"}))
    runs = _common.read_runs(args.runs, topics, verbose=_common.progress_enabled(args))
    path = Path(args.state)
    if not path.exists():
        measures = [m.label for m in _common.parse_measures_rel(args.measures or ["nDCG@10"], args.rel)]
        options = {"baseline": args.baseline, "correction": args.correction or "bonferroni",
                   "confidence_level": 0.95 if args.confidence is None else args.confidence}
        if args.baseline is not None:
            _common.check_baselines([args.baseline], list(runs))
        state = (SequentialEvaluation.from_runs(runs, qrels, measures, **options) if plan is None else
                 SequentialEvaluation.from_plan(runs, plan, qrels.frame, measures, **options))
        status(f"created the state {path} with {_topics(state.n_topics)}, {len(runs)} runs, {', '.join(measures)}")
        _report_waiting(state, status)
        return state, state.qids
    state = SequentialEvaluation.load(path)
    _check_same_settings(state, args, runs, path)
    if (plan is None) != (state.settings["plan"] is None):
        raise ValueError(f"the state {path} was made {'without' if plan is not None else 'with'} a judging plan: "
                         f"{'leave --plan out' if plan is not None else 'give its --plan'}, or start a new --state")
    added = state.update_from_runs(runs, qrels) if plan is None else state.update_from_plan(runs, plan, qrels.frame)
    if added:
        status(f"added {_topics(len(added))} to {path} (now {state.n_topics})")
    else:
        status(f"no topic of {args.qrels} is new: {path} is unchanged ({_topics(state.n_topics)})")
    _report_waiting(state, status)
    return state, added


def _topics(n: int) -> str:
    return f"{n} topic{'' if n == 1 else 's'}"


def _report_waiting(state, status) -> None:
    """With a plan, the topics partly labelled (they enter once their sample is complete)."""
    if state.waiting:
        status(f"{_topics(len(state.waiting))} partly labelled (e.g. {state.waiting[0]!r}) wait for the rest of "
               "their sampled documents")


def _plan(args, status):
    """The judging plan of ``--plan``, or None."""
    if args.plan is None:
        return None
    from ..judging import JudgingPlan

    status(f"reading the judging plan {args.plan}")
    return JudgingPlan.load(args.plan)


def _check_same_settings(state, args, runs, path) -> None:
    """The options and runs given agree with the state's (a ValueError naming the first that does not)."""
    settings = state.settings
    given = {"--baseline": (args.baseline, settings["baseline"]), "--correction": (args.correction, settings["correction"]),
             "--confidence": (args.confidence, settings["confidence_level"])}
    for flag, (value, saved) in given.items():
        if value is not None and value != saved:
            created = f"without {flag}" if saved is None else f"with {flag} {saved}"
            raise ValueError(f"the state {path} was created {created}, not {flag} {value}: these settings are "
                             "fixed for a sequence (leave the option out, or start a new --state)")
    if args.measures or args.rel is not None:  # --rel alone re-reads the state's measures with it
        measures = [m.label for m in _common.parse_measures_rel(args.measures or state.measures, args.rel)]
        if measures != state.measures:
            raise ValueError(f"the state {path} holds the measures {' '.join(state.measures)}, not "
                             f"{' '.join(measures)}: leave --measures out, or start a new --state")
    if sorted(runs) != sorted(state.systems):
        extra = sorted(set(runs) - set(state.systems))
        absent = sorted(set(state.systems) - set(runs))
        raise ValueError(f"the runs are not those of the state {path} (new: {extra or 'none'}; missing: "
                         f"{absent or 'none'}): give the same runs, or start a new --state")


def _header(state, args) -> str:
    settings = state.settings
    alpha = f"{1 - settings['confidence_level']:.3g}"
    control = ("family-wise error (Bonferroni over the pairs)" if settings["correction"] == "bonferroni"
               else "false discovery rate (e-BH over the pairs)")
    against = f"against {settings['baseline']}" if settings["baseline"] else "all pairs"
    planned = ("" if settings["plan"] is None else
               f" (scores estimated from a judging plan's sample, {settings['plan']['labels_per_topic']:.0f} labels "
               "per topic)")
    return (f"{_topics(state.n_topics)}{planned}, {len(state.systems)} runs, {against}; {control} at most {alpha}, "
            f"{_intervals(settings['correction'], alpha)}; margin {args.margin:g}")


def _intervals(correction: str, alpha: str) -> str:
    """What the printed intervals are, in words."""
    if correction == "bonferroni":
        return f"anytime-valid betting confidence sequences at level 1 - {alpha}/pairs"
    return "e-BY intervals of the same bets at the last topic (0 outside exactly when decided)"


def _display(table: pd.DataFrame, digits: int) -> pd.DataFrame:
    import pandas as pd

    def interval(v, lo, hi):
        return f"{v:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]" if hi == hi else f"{v:+.{digits}f} [empty]"

    def more(v):
        return "" if v == 0 else "?" if v != v else "never" if math.isinf(v) else f"~{v:.0f}"

    shown = pd.DataFrame({
        "a": table["system_a"], "b": table["system_b"],
        "difference a - b": [interval(*row) for row in zip(table["estimate"], table["ci_low"], table["ci_high"],
                                                             strict=True)],
        "decision": table["decision"], "more topics": table["topics_needed"].map(more),
    })
    if "labels_needed" in table:
        shown["more labels"] = table["labels_needed"].map(more)
    return shown


def _text_blocks(state, table, args) -> str:
    lines = [_header(state, args)]
    for measure, rows in table.groupby("measure", sort=False):
        lines += ["", f"{measure}:", _text.render_table(_display(rows, args.digits), key_columns=2)]
    return "\n".join(lines)


def _markdown(state, table, args) -> str:
    parts = [f"# Decisions\n\n{_header(state, args)}.\n"]
    for measure, rows in table.groupby("measure", sort=False):
        parts.append(f"## {measure}\n\n{_text.markdown_table(_display(rows, args.digits))}\n")
    parts.append("`more topics` is a rough projection (the sequence narrowing as sqrt(log n / n) with the "
                 "current mean), not a promise.\n")
    return "\n".join(parts)
