"""``audit_tests``: which significance test keeps its error rate, and which has the power, on the
user's own collection and measure (Urbano, Lima & Hanjalic 2019; Otero, Parapar & Barreiro 2025).

The steps: read the per-topic score matrix (from runs and qrels, or given); fit a model of it, a
margin per system and copulas between systems (:mod:`.model`); check the model against the matrix
(:mod:`.goodness`); simulate topic sets of each topic count under the null and under effects of
the given sizes (:mod:`.simulation`); run every test and correction on them (:mod:`.battery`).
Simulations run in blocks of fixed size, each from its own seed spawned from ``rng``
(:func:`~pyterrier_boot._batches.block_seeds`), here or on ``executor``: the same numbers either way.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._batches import block_seeds, check_executor, map_batches
from .._checks import NAN_POLICIES, check_alpha, check_choice
from .._memory import check_n_resamples
from .._random import as_generator
from .._scores import as_score_matrix
from .._warnings import InputWarning, one_warning_per_kind, report
from ..stats.registry import PAIRED, get_test
from .battery import CORRECTIONS, family_block, pair_block
from .goodness import goodness_of_fit
from .model import fit_model
from .rates import mean_and_se
from .result import TestAudit
from .simulation import draw_pairs
from .support import support_for

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor

    from .._typing import QrelsLike, RngLike, ScoresLike
    from .model import ScoreModel

__all__ = ["audit_tests", "DEFAULT_TESTS", "DEFAULT_EFFECTS", "MIN_SYSTEMS", "MIN_TOPICS"]

DEFAULT_TESTS = ("t", "wilcoxon", "sign", "paired-bootstrap", "randomization")
DEFAULT_EFFECTS = (0.01, 0.02, 0.05, 0.1)
MIN_SYSTEMS = 3
MIN_TOPICS = 10
#: simulations per block (a block is one task for an executor; fixed, so results do not depend on it)
PAIR_BLOCK = 500
FAMILY_BLOCK = 100
_CORRECTION_ALIASES = {"bh": "fdr_bh", "tukey": "tukey-hsd", "tukey_hsd": "tukey-hsd", None: "none"}


def _matrix(scores_or_runs: Any, qrels: Any, measure: str | None,
            nan_policy: str) -> tuple[np.ndarray, list, str | None]:
    """The systems x topics matrix, its system labels and the measure's label."""
    if qrels is not None:
        if not isinstance(measure, str):
            raise ValueError("'measure' is required (one measure, e.g. 'AP') when runs and qrels are given")
        from ..inputs.runs import read_runs
        from ..measures.evaluation import evaluate

        runs = dict(read_runs(scores_or_runs))
        long = evaluate(runs, qrels, [measure])
        scores_or_runs = long.pivot(index="name", columns="qid", values="value").reindex(list(runs))
    matrix = as_score_matrix(scores_or_runs, "scores_or_runs", strict=True,
                             nan_policy=check_choice(nan_policy, "nan_policy", NAN_POLICIES))
    return matrix.values, list(matrix.system_labels), measure


def _check_sizes(X: np.ndarray, systems: list) -> tuple[np.ndarray, list]:
    """Refuse a matrix too small or constant; leave out (with one warning) constant systems."""
    S, n = X.shape
    if n < MIN_TOPICS:
        raise ValueError(f"'scores_or_runs' has {n} topics; fitting a model of the scores needs at least "
                         f"{MIN_TOPICS} topics per system")
    if np.ptp(X) == 0:
        raise ValueError(f"the per-topic scores are constant (every system scores {X.flat[0]:g} on every topic): "
                         "there is nothing to model; choose a measure that varies over topics")
    constant = np.ptp(X, axis=1) == 0
    report(InputWarning, "{n} system(s) score the same on every topic and are left out of the model: {cases}",
           [systems[s] for s in np.flatnonzero(constant)])
    X, systems = X[~constant], [s for s, c in zip(systems, constant, strict=True) if not c]
    if len(systems) < MIN_SYSTEMS:
        raise ValueError(f"'scores_or_runs' has {len(systems)} system(s) whose scores vary over topics; fitting "
                         f"margins and copulas needs at least {MIN_SYSTEMS} systems")
    return X, systems


def _topic_counts(n_topics: Any, observed: int) -> tuple[int, ...]:
    counts = (observed,) if n_topics is None else (n_topics,) if np.isscalar(n_topics) else tuple(n_topics)
    if not counts:
        raise ValueError("'n_topics' is empty: give a topic count (e.g. 50) or several (25, 50, 100)")
    for n in counts:
        check_n_resamples(n, "n_topics", minimum=5)
    return tuple(int(n) for n in counts)


def _choices(values: Any, name: str, allowed: Sequence[str], aliases: dict | None = None) -> tuple[str, ...]:
    if values is None or isinstance(values, str):
        values = (values,)
    chosen = tuple(check_choice((aliases or {}).get(v, v), name, tuple(allowed)) for v in values)
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"{name!r} lists a value twice: {list(values)}")
    return chosen


def _tests(tests: Any) -> tuple[str, ...]:
    if isinstance(tests, str):
        tests = (tests,)
    names = tuple(get_test(t, allowed=PAIRED, name="tests").name.replace("_", "-") for t in tests)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"'tests' must name at least one test, each once; got {list(tests)}")
    return names


def _effects(effects: Any) -> tuple[float, ...]:
    try:
        values = tuple(float(e) for e in np.atleast_1d(np.asarray(effects, dtype=float)))
    except (TypeError, ValueError):
        raise TypeError(f"'effects' must be numbers (differences of means), got {effects!r}") from None
    if any(not 0 < e < 1 for e in values) or len(set(values)) != len(values):
        raise ValueError(f"'effects' must be distinct differences of means in (0, 1), e.g. (0.01, 0.05); got {effects!r}")
    return tuple(sorted(values))


def _blocks(rng: np.random.Generator, n_items: int, block: int) -> list[tuple[np.random.SeedSequence, int]]:
    """``(seed, size)`` of each block of ``n_items`` simulations (:func:`block_seeds`)."""
    seeds = block_seeds(rng, n_items, block)
    return [(seed, min(block, n_items - start)) for seed, start in zip(seeds, range(0, n_items, block), strict=True)]


def _drawn_pairs(pair_blocks: dict, n_systems: int) -> set[tuple[int, int]]:
    """The unordered pairs ``(i, j)``, ``i < j``, the pair simulations will draw (from their seeds)."""
    drawn = set()
    for blocks in pair_blocks.values():
        for seed, size in blocks:
            reference, other = draw_pairs(np.random.default_rng(seed), n_systems, size)
            drawn |= set(zip(np.minimum(reference, other).tolist(), np.maximum(reference, other).tolist()))
    return drawn


def _pair_simulations(model: ScoreModel, pair_blocks: dict, settings, executor, bar) -> dict[str, np.ndarray]:
    """Null and effect p-values of every topic count, stacked on a leading axis."""
    stacked: dict[str, list] = {"null": [], "effect": [], "means": []}
    for n, blocks in pair_blocks.items():
        tasks = ((model, n, size, seed, settings["effects"], settings["tests"], settings["alternatives"],
                  settings["n_resamples"]) for seed, size in blocks)
        parts = []
        for part in map_batches(pair_block, tasks, executor):
            parts.append(part)
            bar.update(1)
        for key in stacked:
            stacked[key].append(np.concatenate([p[key] for p in parts], axis=-1))
    return {key: np.stack(value) for key, value in stacked.items()}


def _family_rows(n, blocks, effects) -> list[dict]:
    """The rows of the families frame for one topic count, from the blocks' outcomes (per block,
    per scenario, ``{(test, correction): per-family outcomes}``)."""
    rows = []
    for key in blocks[0][0]:
        for s, delta in enumerate((0.0, *effects)):
            outcome = {k: np.concatenate([block[s][key][k] for block in blocks]) for k in blocks[0][s][key]}
            row = dict(test=key[0], correction=key[1], n_topics=n, effect=delta)
            for name, values in (("fwer", outcome["any_false"]), ("fdr", outcome["fdp"]),
                                 ("power", outcome["power"]), ("type_iii", outcome["type_iii"])):
                row[name], row[f"{name}_se"] = mean_and_se(values)
            rows.append(row)
    return rows


def _family_simulations(model: ScoreModel, family_blocks: dict, settings, executor, bar) -> pd.DataFrame:
    rows = []
    for n, blocks in family_blocks.items():
        tasks = ((model, n, size, settings["family_size"], seed, settings["effects"], settings["tests"],
                  settings["corrections"], settings["alpha"], settings["n_resamples"]) for seed, size in blocks)
        outcomes = []
        for outcome in map_batches(family_block, tasks, executor):
            outcomes.append(outcome)
            bar.update(1)
        rows += _family_rows(n, outcomes, settings["effects"])
    return pd.DataFrame(rows, columns=["test", "correction", "n_topics", "effect", "fwer", "fwer_se", "fdr", "fdr_se",
                                       "power", "power_se", "type_iii", "type_iii_se"])


def _settings(X, alpha, tests, corrections, alternatives, effects, n_simulations, n_families, family_size,
              n_resamples) -> dict[str, Any]:
    S = X.shape[0]
    corrections = () if corrections is None or (not isinstance(corrections, str) and len(corrections) == 0) \
        else _choices(corrections, "corrections", CORRECTIONS, _CORRECTION_ALIASES)
    size = min(5, S) if family_size is None else check_n_resamples(family_size, "family_size", minimum=3)
    if size > S:
        raise ValueError(f"'family_size' is {size} but only {S} systems are modelled")
    n_simulations = check_n_resamples(n_simulations, "n_simulations", minimum=10)
    return dict(alpha=check_alpha(alpha), tests=_tests(tests), corrections=corrections,
                alternatives=_choices(alternatives, "alternatives", ("two-sided", "greater", "less")),
                effects=_effects(effects), n_simulations=n_simulations, family_size=size,
                n_families=n_simulations // 10 if n_families is None else check_n_resamples(n_families, "n_families", 10),
                n_resamples=check_n_resamples(n_resamples, minimum=20))


@one_warning_per_kind()
def audit_tests(scores_or_runs: ScoresLike | Any, qrels: QrelsLike | None = None, measure: str | None = None, *,
                n_topics: int | Sequence[int] | None = None, alpha: float = 0.05,
                tests: Sequence[str] = DEFAULT_TESTS, corrections: Sequence[str] | None = CORRECTIONS,
                alternatives: str | Sequence[str] = ("two-sided",), effects: Sequence[float] = DEFAULT_EFFECTS,
                n_simulations: int = 10_000, n_families: int | None = None, family_size: int | None = None,
                n_resamples: int = 1000, rng: RngLike = None, executor: Executor | None = None,
                nan_policy: str = "raise", verbose: bool = True) -> TestAudit:
    """Type I error, power and Type III error of significance tests, measured on this collection.

    Fits a model of the per-topic score matrix (a margin per system on the measure's support, a
    copula per pair of systems and one for all; Urbano & Nagler 2018) and simulates topic sets from
    it as Urbano, Lima & Hanjalic (2019): under the null both systems of a random pair go through one
    system's margin with the pair's copula; under an effect one of them goes through that margin
    tilted to a mean ``effect`` higher. Families of ``family_size`` systems measure the corrections'
    family-wise error and false discovery rates (Otero, Parapar & Barreiro 2025). See
    pt_docs/test_audit.md for the model and how to read the result.

    Args:
        scores_or_runs: a systems x topics score matrix (a DataFrame labelled as ``compare`` reads
            it, the long frame of ``pt.Experiment(perquery=True)``), or runs with ``qrels``.
        qrels, measure: with runs, the qrels and the one measure to evaluate; with scores,
            ``measure`` names what they are (its support: ``P@10`` takes multiples of 0.1, ``RR``
            reciprocal ranks); read from the scores when None.
        n_topics: topic-set size(s) to simulate (default: the matrix's).
        alpha: the level of every test and correction.
        tests: registry names: ``"t"``, ``"wilcoxon"``, ``"sign"``, ``"paired-bootstrap"``, ``"randomization"``.
        corrections: ``"none"``, ``"bonferroni"``, ``"holm"``, ``"fdr_bh"`` (``"bh"``), ``"tukey-hsd"``;
            None or ``()`` skips the family simulations.
        alternatives: ``"two-sided"``, ``"greater"``, ``"less"`` (pair simulations; families are two-sided).
        effects: true differences of means for power and Type III, in the measure's units.
        n_simulations: simulated topic sets (random pairs) per topic count.
        n_families: simulated families per topic count (default ``n_simulations // 10``).
        family_size: systems per family (default ``min(5, systems)``).
        n_resamples: resamples of the paired bootstrap and randomisation tests.
        rng: SPEC 7 seed (None: the package's fixed seed).
        executor: a ``concurrent.futures.Executor`` for the pair copulas and the blocks of
            simulations (pt_docs/scale.md); the same numbers as without.
        nan_policy: ``"raise"`` or ``"omit"`` (drop the topics some system has no score for, warning).
        verbose: a progress bar over the blocks of simulations.

    Returns:
        :class:`TestAudit`: ``table()``, ``recommendation()``, ``goodness``, ``plot()``, ``save()``.

    Example:
        >>> import pyterrier_boot as pb
        >>> scores, _ = pb.simulate_scores(8, 30, rng=1)
        >>> audit = pb.audit_tests(scores, measure="AP", n_simulations=200, corrections=None,
        ...                        tests=["t", "sign"], verbose=False)   # doctest: +SKIP
        >>> audit.table()[["test", "type_i", "type_i_se"]]                  # doctest: +SKIP
    """
    started = time.perf_counter()
    executor = check_executor(executor)
    X, systems, measure = _matrix(scores_or_runs, qrels, measure, nan_policy)
    support = support_for(measure, X)
    X, systems = _check_sizes(support.snap(X, systems), systems)
    settings = _settings(X, alpha, tests, corrections, alternatives, effects, n_simulations, n_families,
                         family_size, n_resamples)
    counts = _topic_counts(n_topics, X.shape[1])
    return _audit(X, systems, measure, support, counts, settings, rng, executor, verbose, started)


def _audit(X, systems, measure, support, counts, settings, rng, executor, verbose, started) -> TestAudit:
    """Fit, check and simulate (the blocks' seeds drawn first, so the pairs they draw are known)."""
    seed = rng if isinstance(rng, (int, np.integer)) else None
    rng = as_generator(rng)
    pair_blocks = {n: _blocks(rng, settings["n_simulations"], PAIR_BLOCK) for n in counts}
    family_blocks = {n: _blocks(rng, settings["n_families"], FAMILY_BLOCK) for n in counts} \
        if settings["corrections"] else {}
    phases = {"read": time.perf_counter() - started}
    model = fit_model(X, systems, support, rng, joint=bool(family_blocks), executor=executor,
                      pairs=_drawn_pairs(pair_blocks, len(systems)))
    goodness = goodness_of_fit(model, X)
    phases["fit"] = time.perf_counter() - started - sum(phases.values())
    arrays, families = _simulate(model, pair_blocks, family_blocks, settings, executor, verbose, phases)
    provenance = dict(rng=seed, joint_copula=goodness.joint.get("kind"), seconds=time.perf_counter() - started,
                      phases={k: round(v, 2) for k, v in phases.items()},
                      pair_copulas=model.pairs.table["family"].value_counts().to_dict())
    return TestAudit(measure, support.description, tuple(systems), X.shape[1], counts, settings["alpha"],
                     settings["alternatives"], settings["tests"], settings["corrections"], settings["effects"],
                     settings["n_simulations"], settings["n_families"] if settings["corrections"] else 0,
                     settings["family_size"], settings["n_resamples"], arrays["null"], arrays["effect"],
                     arrays["means"], families, goodness, provenance)


def _simulate(model, pair_blocks, family_blocks, settings, executor, verbose, phases):
    import pyterrier as pt

    started = time.perf_counter()
    total = sum(len(b) for b in pair_blocks.values()) + sum(len(b) for b in family_blocks.values())
    with pt.tqdm(total=total, desc="audit_tests", unit="block", disable=not verbose) as bar:
        arrays = _pair_simulations(model, pair_blocks, settings, executor, bar)
        phases["pairs"] = time.perf_counter() - started
        families = _family_simulations(model, family_blocks, settings, executor, bar) if family_blocks \
            else pd.DataFrame(columns=["test", "correction", "n_topics", "effect"])
        phases["families"] = time.perf_counter() - started - phases["pairs"]
    return arrays, families
