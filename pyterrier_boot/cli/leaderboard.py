"""``pyterrier-boot leaderboard``: runs ranked with intervals, rank intervals and letter groups; a
static site to publish."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from ..inputs.qrels import IRDS_PREFIX
from ..stats.letters import DEFAULT_METHOD as DEFAULT_LETTERS
from ..stats.letters import METHODS as LETTER_METHODS
from . import _common, _text

EXAMPLES = """\
examples:
  # the 59 TREC DL 2020 passage runs as a site to publish (open site/index.html)
  pyterrier-boot leaderboard --qrels qrels.dl20-passage.txt runs/ --measures nDCG@10 AP --rel 2 --out site/

  # corpus bootstrap as well (rank intervals over corpus images and topics), a baseline
  pyterrier-boot leaderboard -q qrels.txt runs/ -b bm25 --bootstrap both --out site/

  # anytime-valid, to look at every day as topics are judged (qrels listed in the order judged)
  pyterrier-boot leaderboard -q qrels.txt runs/ --sequential --correction e-bh --out site/

reading the table:
  rank [low, high]  the run's rank (1 = best) and its 95% rank interval over bootstrap replicates
  group             runs that share a letter are not significantly different (all pairs tested,
                    Holm-corrected); runs with no letter in common are

exit status: 0 success, 1 error (bad input, unreadable file), 2 wrong usage.
"""

FORMATS = ("table", "csv", "markdown")
TESTS = ("t", "wilcoxon", "paired-bootstrap", "randomization", "sign")
SEQUENTIAL = ("betting confidence sequences, right however often the board is looked at as topics are added; "
              "measures bounded in [0, 1], the topic bootstrap, no --test")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
               common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    from ..stats.correction import METHODS as CORRECTIONS

    p = subparsers.add_parser(
        "leaderboard", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
        help="rank runs with intervals, rank intervals and letter groups; write a static site",
        description="Rank runs by their mean on the first measure, with each mean's bootstrap interval, each run's "
                    "rank interval and groups of runs that are not significantly different (compact letter "
                    "display of all pairs); with --out, a static web site (sortable table, plots, a page per run) "
                    "that can be published as it is.",
        epilog=EXAMPLES)
    p.add_argument("runs", nargs="*", metavar="RUN",
                   help="run files in TREC format (plain or .gz) or folders of them; a run is named by its tag")
    p.add_argument("-q", "--qrels", required=True, metavar="QRELS",
                   help="relevance judgements: a TREC qrels file or an ir_datasets id 'irds:<id>'")
    p.add_argument("-m", "--measures", nargs="+", action="extend", metavar="MEASURE",
                   help="ir_measures or trec_eval names; the first ranks the runs "
                        f"(default: {' '.join(_common.DEFAULT_MEASURES)})")
    p.add_argument("-b", "--baseline", metavar="NAME",
                   help="a run whose per-topic differences are shown on every run's page, with a test against it")
    p.add_argument("--bootstrap", choices=("topic", "corpus", "both"), default="topic",
                   help="replicates of the intervals: topics (default), corpus images, or both; with the corpus, "
                        "rank intervals over topics alone are shown too")
    p.add_argument("--n", type=_common.count, metavar="N", dest="n_resamples",
                   help="topic resamples (default 10000) or corpus images (default 1000)")
    p.add_argument("--max-memory", type=_common.memory_size, default=2**30, metavar="SIZE",
                   help="memory the bootstrap may use, e.g. 512M or 4G (default 1G)")
    p.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL",
                   help="confidence level of the intervals (default 0.95)")
    p.add_argument("--test", choices=TESTS, default="t", help="paired test of every pair of runs (default t)")
    p.add_argument("--correction", choices=(*CORRECTIONS, "none", "e-bh"),
                   help="multiple-testing correction within each measure (default holm; with --sequential "
                        "bonferroni or e-bh, default bonferroni)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--letters", choices=LETTER_METHODS, default=DEFAULT_LETTERS,
                   help="how letter groups are found: a small cover of the indistinguishable pairs (default; Gramm "
                        "et al. 2007) or every maximal group (Piepho 2004; many letters with many close runs)")
    p.add_argument("--sequential", action="store_true",
                   help=f"anytime-valid board over the topics in the qrels' order (the order judged): {SEQUENTIAL}")
    p.add_argument("--rel", type=int, metavar="N", help="relevance cut for binary measures, as trec_eval -l N "
                   "(see pyterrier-boot evaluate --help)")
    p.add_argument("--rel-remap", action="store_true", help="with --rel N, also set grades 1..N-1 to 0 in the qrels")
    p.add_argument("--corpus-size", type=int, metavar="N", help="documents in the collection (corpus bootstrap)")
    _common.add_seed_arguments(p)
    _common.add_rng_argument(p)
    p.add_argument("-f", "--format", choices=FORMATS, default="table",
                   help="what to print: a readable table (default), csv or markdown")
    p.add_argument("--digits", type=int, default=3, help="decimals in the printed table (default 3)")
    _common.add_output_arguments(p, "write the site (index.html, runs/*.html, figures/*.svg, CSV tables) to DIR "
                                    "(all or nothing)")
    p.add_argument("--title", help="title of the site (default: Leaderboard)")
    p.add_argument("--no-plots", action="store_true", help="a site without plots (faster)")
    p.add_argument("--paths", action="store_true",
                   help="show the full paths of the qrels, runs and --out in the site's settings (default: paths "
                        "relative to the working folder, file names for those outside it, so the site can be "
                        "published as it is)")
    p.set_defaults(run=run, parser=p)
    return p


def _check(args, parser):
    _common.check_evaluation_arguments(args, parser, runs_needed="at least two RUN files or a folder of them")


def run(args: argparse.Namespace) -> int:
    _check(args, args.parser)
    status = _common.Status(not args.quiet)
    measures = _common.parse_measures_rel(args.measures, args.rel)
    with _common.output_folder(args, "leaderboard") as out:
        written = _leaderboard(args, measures, status, out)
    if args.out:
        status(f"wrote {written} to {args.out}; open {Path(args.out) / 'index.html'}")
    return 0


def _leaderboard(args, measures, status, out):
    from ..leaderboards.board import DEFAULT_CORRECTION, leaderboard

    seed = _common.seed(args.rng)
    progress = _common.progress_enabled(args)
    status(f"reading the qrels {args.qrels}")
    qrels = _common.read_qrels(args.qrels, corpus_size=args.corpus_size, rel=args.rel, remap=args.rel_remap)
    status(f"reading {len(args.runs)} run path{'s' if len(args.runs) > 1 else ''}")
    files: dict[str, str] = {}
    runs = _common.grouped_runs(_common.read_runs(args.runs, qrels, verbose=progress, files=files), args, files)
    names = _common.system_names(runs)
    if len(names) < 2:
        raise ValueError(f"a leaderboard needs at least 2 runs, got {len(names)}")
    _common.check_baselines([args.baseline] if args.baseline else None, names)
    n_pairs = len(names) * (len(names) - 1) // 2
    correction = {None: DEFAULT_CORRECTION, "none": None}.get(args.correction, args.correction)
    how = (f"anytime-valid, topics in the qrels' order; {n_pairs:,} pairs, betting confidence sequences, "
           f"correction {args.correction or 'bonferroni'}" if args.sequential else
           f"{args.bootstrap} bootstrap; {n_pairs:,} pairs, {_common.pair_test_name(args.test, args.bootstrap)}, "
           f"correction {args.correction or 'holm'}, seed {seed}")
    status(f"ranking {len(names)} runs on {', '.join(m.label for m in measures)} ({how})")
    board = leaderboard(runs, qrels, measures, baseline=args.baseline, test=args.test, correction=correction,
                        alpha=args.alpha, sequential=args.sequential,
                        bootstrap=args.bootstrap, n_resamples=args.n_resamples, confidence_level=args.confidence,
                        corpus_size=args.corpus_size, rng=seed, max_memory=args.max_memory,
                        letters_method=args.letters, seeds=args.seeds,
                        verbose=progress and args.bootstrap != "topic")
    _print(board, args, seed)
    if out is None:
        return None
    plots = _common.plots_wanted(args, "the site")
    status(f"writing the site ({len(names) + 1} pages" + (", drawing the plots)" if plots else ")"))
    command, outside = _shown_command(args)
    settings = {
        "command": command,
        "rerun from": _rerun_from(outside) if not args.paths else "the folder the command was typed in",
        "qrels": args.qrels if args.qrels.startswith(IRDS_PREFIX) else Path(args.qrels),
        "runs": f"{len(names)}" + (f" systems of {len(files)} runs" if len(files) != len(names) else ""),
        "run files": [Path(r) for r in args.runs],
        "measures": ", ".join(m.label for m in measures),
    }
    if args.sequential:
        settings["sequential"] = "anytime-valid: topics in the order they first appear in the qrels"
    else:
        settings["seed"] = _common.seed_setting(seed)
    if args.rel is not None:
        settings["relevance"] = (f"binary measures count grade >= {args.rel} as relevant"
                                 + (f"; qrels grades 1..{args.rel - 1} set to 0" if args.rel_remap else ""))
    if board.result.seeds is not None:
        settings["seeds"] = _common.seeds_setting(board.result)
    board.write(out, title=args.title or "Leaderboard", settings=settings, plots=plots, paths=args.paths)
    return f"index.html and {len(names)} run pages"


def _shown_command(args):
    """The command as typed, to be rerun from the folder it was typed in, and the input files it names
    by their file names alone. A path inside that folder is shown as typed (relative) or relative to
    it (absolute); one outside it by its file name, since the site does not publish the machine's
    folders. With ``--paths``, the command as typed."""
    if args.paths:
        return args.command_line, []
    inputs = {p for p in (args.qrels, *args.runs) if not p.startswith(IRDS_PREFIX)}
    typed = inputs | ({args.out} if args.out else set())
    outside = []

    def path(value):
        relative = _inside_working_folder(value)
        if relative is None and value in inputs:
            outside.append(Path(value).name or value)
        return relative if relative is not None else Path(value).name or value

    def shown(token):
        option, equals, value = token.partition("=")
        if token in typed:
            return path(token)
        if equals and option.startswith("-") and value in typed:
            return f"{option}={path(value)}"
        if token[:1] == "-" and token[1:2] != "-" and token[2:] in typed:  # -qqrels.txt
            return token[:2] + path(token[2:])
        return token

    return shlex.join(shown(t) for t in shlex.split(args.command_line)), sorted(set(outside))


def _inside_working_folder(value):
    """``value`` as a path relative to the working folder (as typed when it already is one), or None
    when the path leads outside it."""
    expanded = os.path.expanduser(value)
    if not os.path.isabs(expanded):
        normal = os.path.normpath(expanded)
        return value if normal != os.pardir and not normal.startswith(os.pardir + os.sep) else None
    here = Path.cwd()
    for target, base in ((Path(os.path.abspath(expanded)), here), (Path(expanded).resolve(), here.resolve())):
        if target.is_relative_to(base):
            return target.relative_to(base).as_posix() if target != base else "."
    return None


def _rerun_from(outside):
    """Where the shown command runs again: the folder it was typed in, holding the inputs it names
    by their file names when they were outside that folder."""
    if not outside:
        return "the folder the command was typed in (its paths are relative to it)"
    names = outside[0] if len(outside) == 1 else f"{', '.join(outside[:-1])} and {outside[-1]}"
    return (f"the folder the command was typed in, with {names} copied into it (typed as paths "
            "outside that folder, which the site does not publish; --paths shows them)")


def _print(board, args, seed):
    if args.format == "csv":
        sys.stdout.write(board.to_frame().to_csv(index=False))
        return
    if args.format == "markdown":
        sys.stdout.write(board.to_markdown(args.digits))
        return
    width = _text.terminal_width()
    groups = ", ".join(f"{m} {board.n_groups(m)}" for m in board.measures)
    lines = [_text.render_table(board.display_frame(args.digits), width=width, key_columns=2), "",
             _text.wrap(board.caption(), width)]
    if board.tested:
        lines.append(_text.wrap(f"Letter groups: {groups}.", width))
    if not board.sequential:  # no randomness in a sequential board
        lines.append(_common.seed_line(seed))
    print("\n".join(lines))
