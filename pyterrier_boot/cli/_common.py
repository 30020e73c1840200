"""Pieces the commands share: reading inputs with command-line error messages, the relevance
cut, the output folder, the seed, status lines and progress bars."""
import argparse
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

DEFAULT_MEASURES = ("AP", "nDCG@10")


class Status:
    """Short status lines on stderr (silent with ``--quiet``)."""

    def __init__(self, enabled):
        self.enabled = enabled

    def __call__(self, message):
        if self.enabled:
            print(message, file=sys.stderr, flush=True)


def progress_enabled(args):
    """Progress bars: ``--progress`` forces them, ``--quiet`` hides them, else only on a terminal."""
    if getattr(args, "quiet", False):
        return False
    if getattr(args, "progress", False):
        return True
    return sys.stderr.isatty()


def seed(value):
    """The seed to use: the one given (``--rng``), else the fixed seed Python's ``rng=None`` stands for
    (:data:`pyterrier_boot._random.DEFAULT_SEED`), so the command line, a notebook and a leaderboard
    give the same numbers for the same runs and the same command gives the same output."""
    from .._random import DEFAULT_SEED

    return int(value) if value is not None else DEFAULT_SEED


def add_rng_argument(parser: argparse.ArgumentParser, what: str = "random seed; the same seed gives the same "
                     "output", *, like: str = "rng=None in Python", printed: bool = True) -> None:
    """``--rng SEED``, the same in every command: unset, it is :func:`seed`'s default (42, Python's
    ``rng=None``), the demo's included."""
    from .._random import DEFAULT_SEED

    parser.add_argument("--rng", type=int, metavar="SEED",
                        help=f"{what} (default: {DEFAULT_SEED}, as {like}{'; printed' if printed else ''})")


def seed_line(seed: int) -> str:
    """The line under every table that drew random numbers: which seed, and how to get it again."""
    return f"Seed {seed}: --rng {seed} reproduces these numbers."


def seed_setting(seed: int) -> str:
    """The seed as a report's or a site's setting."""
    return f"{seed} (--rng {seed} gives the same numbers)"


# ---------------------------------------------------------------- output folder


#: file in every output folder the commands write, naming the command (the demo replaces its own)
MARKER = ".pyterrier-boot"


class OutputFolder:
    """An output folder written all or nothing.

    Created before any long work, so a folder that cannot be written is an error at once. The
    files are written into a hidden staging folder beside the target (same file system), which
    replaces the target by two renames only when everything is written (:meth:`commit`); an error
    or Ctrl-C removes the staging folder and leaves the target as it was. A non-empty target is
    refused unless ``overwrite`` (``--overwrite``), or unless ``replaceable(path)`` says it may be
    replaced (the demo replaces its own earlier output).

    Use as ``with OutputFolder(path, command="evaluate") as staging: ...`` (commits when the block
    ends normally, discards on an exception).
    """

    def __init__(self, path: str | os.PathLike, *, command: str, overwrite: bool = False,
                 replaceable: Callable[[Path], bool] | None = None) -> None:
        self.path = Path(path)
        self.command = command
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"cannot write to the output folder '{self.path}': it exists and is not a folder")
        if (self.path.is_dir() and any(self.path.iterdir()) and not overwrite
                and not (replaceable is not None and replaceable(self.path))):
            raise ValueError(f"the output folder '{self.path}' exists and is not empty: pass --overwrite to "
                             "replace it, or choose another --out")
        parent = self.path.absolute().parent
        blocker = next((p for p in (parent, *parent.parents) if p.exists()), None)
        if blocker is not None and not blocker.is_dir():
            raise ValueError(f"cannot write to the output folder '{self.path}': Not a directory: '{blocker}'")
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.staging = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.partial-", dir=parent))
        except OSError as error:
            raise ValueError(f"cannot write to the output folder '{self.path}': {error.strerror or error}") from None
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.staging, 0o777 & ~umask)  # mkdtemp makes it private; the output is not

    def __enter__(self) -> Path:
        return self.staging

    def __exit__(self, kind, error, traceback):
        if kind is None:
            self.commit()
        else:
            self.discard()
        return False

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

    def commit(self) -> None:
        """Move the staging folder into place (the old folder, if any, is removed after)."""
        if _holds_working_directory(self.path):
            self._commit_into()
            return
        old = None
        try:
            (self.staging / MARKER).write_text(self.command + "\n", encoding="utf-8")
            with _sigint_deferred():
                if self.path.exists():
                    old = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.old-", dir=self.staging.parent))
                    os.replace(self.path, old / "previous")
                try:
                    os.replace(self.staging, self.path)
                except OSError:
                    if old is not None:
                        os.replace(old / "previous", self.path)
                    raise
        except OSError as error:
            self.discard()
            if old is not None and not (old / "previous").exists():  # the old folder is back in place
                shutil.rmtree(old, ignore_errors=True)
            raise ValueError(f"cannot write to the output folder '{self.path}': {error.strerror or error}") from None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


    def _commit_into(self) -> None:
        """The target holds the working directory (``--out .``), so it cannot be renamed: its old
        entries are removed and the staged ones moved into it."""
        try:
            (self.staging / MARKER).write_text(self.command + "\n", encoding="utf-8")
            with _sigint_deferred():
                for entry in list(self.path.iterdir()):
                    shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
                for entry in list(self.staging.iterdir()):
                    os.replace(entry, self.path / entry.name)
        except OSError as error:
            raise ValueError(f"cannot write to the output folder '{self.path}': {error.strerror or error}") from None
        finally:
            self.discard()


def _holds_working_directory(path: Path) -> bool:
    """Whether ``path`` is the working directory (``--out .``), which cannot be renamed."""
    try:
        return path.resolve() == Path.cwd().resolve()
    except OSError:
        return False


def add_output_arguments(parser, help: str, *, required: bool = False) -> None:
    """``-o/--out DIR`` (help: what is written there) and ``--overwrite``."""
    parser.add_argument("-o", "--out", required=required, metavar="DIR", help=help)
    parser.add_argument("--overwrite", action="store_true", help="replace --out DIR when it exists and is not empty")


def check_evaluation_arguments(args: argparse.Namespace, parser: argparse.ArgumentParser, *,
                               runs_needed: str) -> None:
    """The checks ``evaluate`` and ``leaderboard`` share: measures split from the runs (default
    measures when none), levels, resample count, ``--rel``, digits, corpus size and ``--out``."""
    args.measures, args.runs = split_measures(args.measures, args.runs)
    if not args.runs:
        parser.error(f"give {runs_needed} (after the options, or after '--')")
    if not args.measures:
        args.measures = list(DEFAULT_MEASURES)
    if not 0 < args.alpha < 1:
        parser.error(f"--alpha must be between 0 and 1, got {args.alpha}")
    check_level_and_relevance(args, parser)
    if args.corpus_size is not None and args.corpus_size < 1:
        parser.error(f"--corpus-size must be positive, got {args.corpus_size}")
    check_output_arguments(args, parser)


def check_level_and_relevance(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``--confidence``, ``--n``, ``--rel``, ``--rel-remap`` and ``--digits``, as the commands that
    evaluate runs take them."""
    if not 0 < args.confidence < 1:
        parser.error(f"--confidence must be between 0 and 1, got {args.confidence}")
    if args.n_resamples is not None and args.n_resamples < 2:
        parser.error(f"--n must be at least 2, got {args.n_resamples}")
    if args.rel is not None and args.rel < 1:
        parser.error(f"--rel must be a grade of at least 1, got {args.rel}")
    if args.rel_remap and args.rel is None:
        parser.error("--rel-remap needs --rel N")
    if not 0 <= args.digits <= 10:
        parser.error(f"--digits must be between 0 and 10, got {args.digits}")


def check_output_arguments(args, parser) -> None:
    if args.overwrite and not args.out:
        parser.error("--overwrite needs --out DIR")


@contextlib.contextmanager
def output_folder(args, command: str):
    """The staging folder of ``--out`` (None without ``--out``): moved into place when the block ends
    normally, removed on an error (:class:`OutputFolder`)."""
    if not args.out:
        yield None
        return
    with OutputFolder(args.out, command=command, overwrite=args.overwrite) as staging:
        yield staging


def written_by(path: Path, command: str) -> bool:
    """Whether the folder ``path`` holds the marker of ``command``."""
    try:
        return (Path(path) / MARKER).read_text(encoding="utf-8").strip() == command
    except OSError:
        return False


@contextlib.contextmanager
def _sigint_deferred():
    """Hold Ctrl-C during the two renames of a commit; it is raised right after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda *_: received.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def write_text(path, text):
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot write '{path}': {error.strerror or error}") from None


def write_csv(path, frame):
    try:
        frame.to_csv(path, index=False)
    except OSError as error:
        raise ValueError(f"cannot write '{path}': {error.strerror or error}") from None


# ---------------------------------------------------------------- sizes


def count(text: str) -> int:
    """``--n``: a whole number, also written ``10_000`` or ``1e4``."""
    import argparse

    try:
        value = float(text.replace("_", "")) if any(c in text.lower() for c in ".e") else int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if isinstance(value, float):
        if not value.is_integer():
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
        value = int(value)
    return value


_UNITS = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "KIB": 2**10, "M": 2**20, "MB": 2**20, "MIB": 2**20,
          "G": 2**30, "GB": 2**30, "GIB": 2**30, "T": 2**40, "TB": 2**40, "TIB": 2**40}


def memory_size(text: str) -> int:
    """``--max-memory``: bytes, or a size such as ``512M``, ``4G``, ``1.5GiB``."""
    import argparse
    import re

    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][0-9]+)?)\s*([A-Za-z]*)\s*", text)
    unit = match.group(2).upper() if match else None
    if match is None or unit not in _UNITS:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (write bytes, or e.g. 512M, 4G)")
    value = int(float(match.group(1)) * _UNITS[unit])
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


# ---------------------------------------------------------------- measures and the relevance cut


def split_measures(measures, runs):
    """``--measures`` takes several values, so ``--measures AP runs/`` would swallow the runs: the
    values that are existing files or folders and not measures go back to the runs."""
    from ..measures.parsing import parse_measure

    kept, moved = [], []
    for token in measures or []:
        if os.path.exists(token):
            try:
                parse_measure(token)
            except (ValueError, TypeError):
                moved.append(token)
                continue
        kept.append(token)
    return kept, moved + list(runs)


def label_map(words, parser):
    """``--label-map 1:2 ...`` as a dict (None when not given); a usage error for a bad pair."""
    if words is None:
        return None
    from ..judging.labels import parse_label_map

    try:
        return parse_label_map(words)
    except ValueError as error:
        parser.error(str(error))


def parse_measures_rel(tokens, rel):
    """Parse measures and apply ``--rel N``: every measure with a binary relevance threshold
    (ir_measures' ``rel`` parameter, default 1: AP, P, R, RR, Rprec, Bpref, Success, infAP, Q, ...)
    that does not name its own gets ``rel=N`` and is labelled accordingly (``AP`` becomes
    ``AP(rel=2)``); graded measures without a threshold (nDCG, ERR, RBP without ``rel``) keep the
    grades. This is trec_eval's ``-l N``."""
    from ..measures.parsing import LabelledMeasure, parse_measures
    from ..measures.validation import check_measure

    parsed = parse_measures(list(tokens))
    if rel is None:
        return parsed
    out = []
    for lm in parsed:
        spec = lm.measure.SUPPORTED_PARAMS.get("rel")
        binary = spec is not None and isinstance(spec.default, int) and not isinstance(spec.default, bool)
        if binary and "rel" not in lm.measure.params:
            measure = check_measure(lm.measure(rel=rel), f"{lm.label} with --rel {rel}")
            lm = LabelledMeasure(str(measure), measure)
        out.append(lm)
    labels = [lm.label for lm in out]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ValueError(f"with --rel {rel}, {', '.join(map(repr, repeated))} is asked for twice: "
                         "remove one of the measures")
    return out


# ---------------------------------------------------------------- inputs


def read_qrels(source, *, corpus_size=None, rel=None, remap=False):
    """Read the qrels (file or ``irds:`` id); with ``remap``, grades ``1 .. rel-1`` become 0."""
    from ..inputs.qrels import Qrels
    from ..inputs.qrels import read_qrels as read

    qrels = read(source, corpus_size=corpus_size)
    if remap and rel is not None and rel > 1:
        frame = qrels.frame
        label = frame["label"]
        low = (label > 0) & (label < rel)
        frame = frame.assign(label=label.where(~low, 0))
        qrels = Qrels(frame, qrels.corpus_size, f"{qrels.source} (grades 1..{rel - 1} set to 0)")
    return qrels


def with_probabilities(qrels, path):
    """The automatic qrels (read), as a frame with the judge's probability of relevance of each pair
    from ``path`` (lines ``qid iter docno p``; ``--probabilities``), or as they are when ``path`` is None."""
    if path is None:
        return qrels
    import pandas as pd

    try:
        table = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, comment="#")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise ValueError(f"'{path}': not a file of 'qid iter docno probability' lines ({error})") from None
    if table.shape[1] != 4:
        raise ValueError(f"'{path}': lines must be 'qid iter docno probability' (4 fields), got {table.shape[1]} fields")
    table = table.rename(columns={0: "qid", 2: "docno", 3: "probability"})[["qid", "docno", "probability"]]
    merged = qrels.frame.merge(table, on=["qid", "docno"], how="outer", indicator=True)
    extra = merged[merged["_merge"] == "right_only"]
    if len(extra):
        raise ValueError(f"'{path}' has {len(extra)} pairs that are not in --auto-qrels (e.g. topic "
                         f"{extra['qid'].iloc[0]!r}, document {extra['docno'].iloc[0]!r})")
    lacking = merged[merged["_merge"] == "left_only"]
    if len(lacking):
        raise ValueError(f"'{path}' lacks the probability of {len(lacking)} pairs of --auto-qrels (e.g. "
                         f"topic {lacking['qid'].iloc[0]!r}, document {lacking['docno'].iloc[0]!r}): give one for "
                         "every pair")
    return merged.drop(columns="_merge").reset_index(drop=True)


def read_runs(paths, qrels, *, verbose=False, files=None):
    """Read the runs (files, .gz, folders); refuse a run that shares no topic with the qrels and
    drop (with one warning) the results for topics not in the qrels, as trec_eval ignores them
    (:mod:`pyterrier_boot.inputs.overlap`; the commands' evaluation says which runs miss judged topics).
    ``files``, a dict, receives each run's file name."""
    from ..inputs.overlap import TopicOverlap
    from ..inputs.runs import Runs

    overlap = TopicOverlap(qrels.frame["qid"].unique(), missing=False)
    runs = dict(_checked_runs(paths, qrels, verbose, overlap, files=files))
    overlap.report()
    return Runs(runs)  # the frames are read: not checked again


def intern_runs(paths, qrels, *, verbose=False, files=None):
    """The runs as :func:`read_runs` reads and checks them, interned one at a time
    (:class:`~pyterrier_boot.measures.arrays.JudgedRunsBuilder`): only one run frame is held at
    once, so memory stays flat however many and however deep the runs are."""
    from ..inputs.overlap import TopicOverlap
    from ..measures.arrays import JudgedRunsBuilder

    overlap = TopicOverlap(qrels.frame["qid"].unique(), missing=False)
    builder = JudgedRunsBuilder(qrels.frame, warn_unjudged=False)  # warns about the runs missing judged topics
    for name, run in _checked_runs(paths, qrels, verbose, overlap, check_pairs=False, files=files):  # add checks them
        builder.add(name, run)
        del run  # one frame at a time
    overlap.report()
    return builder.build()


def _checked_runs(paths, qrels, verbose, overlap, *, check_pairs=True, files=None):
    """``(name, run)`` one at a time, each run's topics added to ``overlap`` (a run without a topic in
    the qrels is refused) and its rows of topics not in the qrels dropped. ``check_pairs`` as in
    :func:`~pyterrier_boot.inputs.runs.iter_runs`; ``files`` (a dict) receives each run's file name."""
    from ..inputs.runs import check_run, iter_runs

    judged = set(qrels.frame["qid"].unique())
    for name, run in iter_runs(list(paths), verbose=verbose, check_pairs=check_pairs):
        if files is not None:
            files[name] = run.attrs.get("file", name)
        qids = set(run["qid"].unique())
        overlap.add(name, qids)
        if not qids <= judged:  # unjudged topics are ignored, as trec_eval does: one warning for all runs
            if not check_pairs:  # the caller checks only the rows kept
                check_run(run, run.attrs.get("what", f"run {name!r}"))
            run = run[run["qid"].isin(judged)].reset_index(drop=True)
        yield name, run
        del run  # not held while the next run is read


def pair_test_name(test: str, bootstrap: str | None) -> str:
    """The test the pairs get: ``--test``'s, or with the corpus in the bootstrap the replicate test
    that inverts the experiment's intervals (:meth:`~pyterrier_boot.ExperimentResult.pairwise`)."""
    return f"{bootstrap}-bootstrap replicate test" if bootstrap in ("corpus", "both") else f"{test} test"


def check_baselines(baselines, names):
    """Each ``--baseline`` must name a run; suggest close names."""
    import difflib

    for b in baselines or []:
        if b not in names:
            close = difflib.get_close_matches(b, names, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else \
                f"; the runs are {', '.join(map(repr, names[:8]))}{', ...' if len(names) > 8 else ''}"
            raise ValueError(f"unknown --baseline {b!r}: no run has that name{hint}")
    if baselines and len(set(baselines)) < len(baselines):
        raise ValueError("--baseline names a run more than once")


def matplotlib_available():
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def use_agg():
    """Draw off-screen (the command line never opens windows)."""
    from .._environment import configure_matplotlib

    configure_matplotlib()
    import matplotlib

    matplotlib.use("Agg")


def add_seed_arguments(parser: argparse.ArgumentParser) -> None:
    """``--group-runs REGEX`` / ``--groups FILE`` (several runs per system: seeds, folds) and ``--seeds``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--group-runs", metavar="REGEX",
                       help="runs whose file names match REGEX are one system's runs (seeds, folds): the system is "
                            "named by the group 'system' or the first group of the match, e.g. '(.+)-seed[0-9]+'; "
                            "its per-topic score is the mean over its runs; other runs stay systems of their own")
    group.add_argument("--groups", metavar="FILE",
                       help="a two-column file 'run system' (run name or file name; # comments) grouping runs into "
                            "systems, as --group-runs")
    parser.add_argument("--seeds", choices=("random", "fixed"),
                        help="with runs grouped into systems: 'random' (default: every interval, test, rank interval "
                             "and letter includes the seed variance, for a new seed) or 'fixed' (these runs' average)")


def plots_wanted(args: argparse.Namespace, what: str) -> bool:
    """Whether ``what`` (the report, the site) gets plots: not with ``--no-plots``, nor (one
    warning) without matplotlib; the Agg backend is chosen when it does."""
    plots = not args.no_plots
    if plots and not matplotlib_available():
        import warnings

        from .._warnings import BootWarning

        warnings.warn(f"matplotlib is not installed: {what} has no plots (pip install 'pyterrier-boot[plots]')",
                      BootWarning, stacklevel=3)
        plots = False
    if plots:
        use_agg()
    return plots


def grouped_runs(runs, args, files):
    """``runs`` with the systems ``--group-runs`` or ``--groups`` make of them (a
    :class:`~pyterrier_boot.seeds.groups.GroupedRuns`), or ``runs`` unchanged without either."""
    from ..seeds.groups import GroupedRuns, group_names, read_group_file

    if args.group_runs is None and args.groups is None:
        return runs
    names = list(runs.systems) if hasattr(runs, "systems") else list(runs)
    mapping = read_group_file(args.groups) if args.groups is not None else None
    try:
        groups = group_names(names, pattern=args.group_runs, mapping=mapping, files=files)
    except ValueError as error:  # named by the options that gave them
        raise ValueError(str(error).replace("'pattern'", "--group-runs").replace("'mapping'", "--groups")) from None
    return GroupedRuns(runs, groups)


def system_names(runs):
    """The systems' names: of grouped runs, their groups; else the runs' names."""
    if hasattr(runs, "groups"):
        return list(runs.groups)
    return list(runs.systems) if hasattr(runs, "systems") else list(runs)


def seeds_setting(result):
    """The settings line saying how runs were grouped into systems and which seeds question is answered."""
    counts = result.run_scores.n_runs if result.run_scores is not None else []
    question = ("random: intervals, tests, rank intervals and letters include the seed variance (a new seed)"
                if result.seeds == "random" else "fixed: these runs' average (no seed variance)")
    return f"{question}; runs per system: " + ", ".join(f"{n} {k}" for n, k in zip(result.names, counts))
