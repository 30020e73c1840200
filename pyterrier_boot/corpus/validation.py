"""Split-half validation of corpus-bootstrap intervals on a user's own collection (Cormack & Lynam 2006, §6).

Split the corpus at random into halves A and B (every document lands in one half; runs and qrels
follow their documents), bootstrap each half, and ask whether the 95% interval computed on one half
holds the value measured on the other. Both halves estimate the same quantity with (about) the same
standard error ``σ``, so ``θ_B - θ_A`` has SD ``σ√2`` and a calibrated 95% interval of A holds ``θ_B``
with probability ``2Φ(1.96/√2) - 1 = 83.5%`` (8.25% below, 8.25% above): the *model share*. The
standardised difference

    ``z = (θ_B - θ_A) / sqrt(h_A² + h_B²)``,

where ``h_A`` is the distance from ``θ_A`` to A's interval endpoint on the side of ``θ_B`` divided by
``z_{0.975}`` (and ``h_B`` likewise from B's interval towards ``θ_A``), has SD 1 when the intervals
are calibrated (for a symmetric interval ``h`` is the standard error; the logit interval, L-MAP and
G-MAP are measured on their logit / log scale, where they are symmetric). ``sd(z) < 1``: intervals
too wide; ``> 1``: too narrow. Both directions (A predicts B, B predicts A) are pooled.

One split is one draw: systems move together between two halves, so system-level rows need many
splits. :func:`split_half_validation` repeats the check over ``n_splits`` salted random splits
(:func:`~pyterrier_boot.corpus.split.split_half` with ``salt``), reusing the runs and qrels interned
once (a half is a mask on the documents: the other half's documents get multiplicity 0,
:meth:`~pyterrier_boot.CorpusBootstrap.evaluate_prepared`), and reports each interval's shares
below / in / above, ``sd(z)`` and their spread over splits. :func:`interval_agreement` scores any
pair of intervals (your own method's too).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import special

from .._batches import check_executor
from .._checks import check_confidence_level, check_eps, check_positive_int
from .._deprecation import renamed_keywords
from .._random import as_generator
from .._warnings import BootWarning, one_warning_per_kind, report
from ..measures.evaluation import prepare
from ..measures.parsing import parse_measures, require_mean_aggregated
from .bootstrap import CorpusBootstrap
from .intervals import EPSILON, image_interval
from .multiplicity import docno_hashes, salted_bits
from .result import SCALES, STATISTIC_VARIANCES

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor

    import numpy.typing as npt
    from matplotlib.axes import Axes

    from .._typing import FloatArray, MeasuresLike, QrelsLike, RngLike, RunsLike, TopicsLike


__all__ = ["SplitHalfValidation", "split_half_validation", "interval_agreement", "model_share", "pooled_sd"]

#: Rows of the table: (kind, statistic, method, small-R correction).
TOPIC_METHODS = ("percentile", "normal", "logit", "bca")
SYSTEM_ROWS = (
    ("mean", "percentile"), ("mean", "normal"), ("mean", "logit"), ("mean", "bca"),
    *(("mean", f"parametric:{v}") for v in STATISTIC_VARIANCES["mean"]),
    ("logit_mean", "percentile"), ("logit_mean", "normal"), ("logit_mean", "bca"),
    *(("logit_mean", f"parametric:{v}") for v in ("logit", "small_r", "empirical_bayes")),
    ("gmean", "percentile"), ("gmean", "normal"), ("gmean", "bca"),
    *(("gmean", f"parametric:{v}") for v in ("score", "empirical_bayes")),
)
DIFFERENCE_ROWS = tuple((s, m) for s in ("mean", "logit_mean", "gmean") for m in ("percentile", "normal", "bca"))
KINDS = ("topic", "system", "difference", "topic difference")
#: Fewer splits than this get a warning when system-level rows are checked.
FEW_SPLITS = 20


def model_share(confidence_level: float = 0.95) -> float:
    """Probability that an independent replicate falls inside the other's interval: ``2Φ(z/√2) - 1``.

    Example:
        >>> round(model_share(0.95), 4)
        0.8342
    """
    z = special.ndtri(1 - (1 - check_confidence_level(confidence_level)) / 2)
    return float(2 * special.ndtr(z / np.sqrt(2)) - 1)


def _transform(scale, eps=EPSILON):
    if scale == "logit":
        return lambda x: special.logit(np.clip(x, eps, 1 - eps))
    if scale == "log":
        return lambda x: np.log(np.asarray(x, dtype=float) + eps)
    return lambda x: np.asarray(x, dtype=float)


def interval_agreement(theta_a: npt.ArrayLike, low_a: npt.ArrayLike, high_a: npt.ArrayLike,
                       theta_b: npt.ArrayLike, low_b: npt.ArrayLike, high_b: npt.ArrayLike, *,
                       confidence_level: float = 0.95, scale: str = "score") -> tuple[FloatArray, FloatArray]:
    """Where ``θ_B`` falls w.r.t. A's interval, and the standardised difference ``z``.

    Args:
        theta_a, low_a, high_a: estimates and intervals from half A (any shape, broadcast).
        theta_b, low_b, high_b: the same from half B.
        confidence_level: the intervals' level (their half widths over ``z_{1-α/2}`` are the SEs).
        scale: ``"score"``, ``"logit"`` or ``"log"``: the scale on which ``z`` is computed
            (the one where the intervals are symmetric; shares do not depend on it).

    Returns:
        ``(position, z)``: ``position`` is -1 (``θ_B`` below A's interval), 0 (inside) or 1 (above);
        ``z`` as in the module docstring: 0 where ``θ_A = θ_B``, ``±inf`` where both intervals have
        zero width towards each other but the values differ.

    Example:
        >>> position, z = interval_agreement(0.3, 0.2, 0.4, 0.35, 0.25, 0.45)
        >>> int(position), round(float(z), 3)
        (0, 0.693)
    """
    confidence_level = check_confidence_level(confidence_level)
    f = _transform(scale)
    ta, la, ha, tb, lb, hb = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in
                                                   (theta_a, low_a, high_a, theta_b, low_b, high_b)))
    position = np.where(tb < la, -1, np.where(tb > ha, 1, 0))
    ta, la, ha, tb, lb, hb = (f(v) for v in (ta, la, ha, tb, lb, hb))
    d = tb - ta
    up = d > 0
    width_a = np.where(up, ha - ta, ta - la)
    width_b = np.where(up, tb - lb, hb - tb)
    spread = np.sqrt(np.maximum(width_a, 0) ** 2 + np.maximum(width_b, 0) ** 2) / special.ndtri(
        1 - (1 - confidence_level) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(d == 0, 0.0, d / spread)
    return position, z


@dataclass(frozen=True, slots=True, eq=False)
class SplitHalfValidation:
    """Split-half calibration of every corpus-bootstrap interval (:func:`split_half_validation`).

    Attributes:
        table: one row per (kind, measure, statistic, method, small_r): ``n`` predictions
            (pooled over splits and both directions), ``below``, ``inside``, ``above`` shares,
            ``inside_se`` (SE of ``inside`` from its spread over splits), ``inside_min`` /
            ``inside_max`` over splits, ``sd_z`` (pooled over finite z), ``sd_z_se`` (its
            delete-a-split jackknife SE, :func:`pooled_sd`), ``sd_z_min`` / ``sd_z_max`` over splits, ``n_infinite`` (z = ±inf: zero-width intervals that differ),
            and ``calibrated`` (not detectably miscalibrated): ``|sd_z - 1| <= max(sd_tolerance,
            3 sd_z_se)`` and ``inside`` within ``max(3 inside_se, 0.02)`` of the model share.
        z: the pooled ``z`` of each row, keyed by ``(kind, measure, statistic, method, small_r)``.
        model_share: the share a calibrated interval holds (``2Φ(z/√2) - 1``: 83.4% at 95%).
        salts: the salt of each split (``corpus_split(frame, half, salt=...)`` reproduces it).
        n_images, confidence_level, systems, qids, measures, sd_tolerance.

    Kinds: ``"topic"`` (each system x topic), ``"system"`` (each system's aggregate),
    ``"difference"`` (each pair of systems' aggregate difference, on the statistic's scale), and
    ``"topic difference"`` (each pair on each topic).
    """

    table: pd.DataFrame
    z: dict
    model_share: float
    salts: tuple
    n_images: int
    confidence_level: float
    systems: tuple
    qids: tuple
    measures: tuple
    sd_tolerance: float

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def __repr__(self):
        bad = int((~self.table["calibrated"]).sum())
        return (f"SplitHalfValidation({len(self.salts)} splits x 2 halves x {self.n_images} images, "
                f"{len(self.systems)} systems x {len(self.qids)} topics, {len(self.table)} intervals, "
                f"{bad} not calibrated)")

    def _repr_html_(self):
        head = (f"<p>Split-half validation: {len(self.salts)} random document splits, {self.n_images} images per "
                f"half; a calibrated {self.confidence_level:.0%} interval holds the other half's value "
                f"{self.model_share:.1%} of the time and has sd(z) = 1</p>")
        return head + self.table.to_html(index=False, float_format=lambda v: f"{v:.3f}")

    def plot(self, rows: Any = None, *, ax: Axes | None = None,
             bins: int | None = None) -> Axes:
        """Histograms of ``z`` (density) against the standard normal, one line per row.

        Args:
            rows: keys of :attr:`z` (default: the AP or first measure's per-topic logit small-R,
                system mean normal and parametric, L-MAP's default, and difference rows).
            ax: matplotlib axes (default: a new figure).
            bins: histogram bins on [-4, 4] (default: from 8 to 60, growing with the number of z).
        """
        import matplotlib.pyplot as plt

        if rows is None:
            m = "AP" if "AP" in self.measures else self.measures[0]
            wanted = [("topic", m, "", "logit", True), ("system", m, "mean", "normal", False),
                      ("system", m, "mean", "parametric:mixed", False), ("system", m, "mean", "parametric:logit", False),
                      ("system", m, "logit_mean", "parametric:empirical_bayes", False),
                      ("difference", m, "mean", "percentile", False)]
            rows = [k for k in wanted if k in self.z]
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 4))
        grid = np.linspace(-4, 4, 401)
        for key in rows:
            z = self.z[key]
            z = z[np.isfinite(z)]
            edges = np.linspace(-4, 4, (bins or int(np.clip(np.sqrt(len(z)) / 2, 8, 60))) + 1)
            density, _ = np.histogram(np.clip(z, -4, 4), bins=edges, density=True)
            label = " ".join(str(k) for k in key if k not in ("", False)).replace(" True", " small-R")
            ax.step(edges[:-1], density, where="post", label=f"{label} (sd {z.std(ddof=1):.2f})")
        ax.plot(grid, np.exp(-grid**2 / 2) / np.sqrt(2 * np.pi), "k--", label="N(0, 1)")
        ax.set_xlabel("z = (θ_B − θ_A) / sqrt(h_A² + h_B²)")
        ax.set_ylabel("density")
        ax.legend(fontsize="small")
        return ax


def _split_rows(res_a, res_b, measures, confidence_level, eps, kinds=KINDS):
    """Every (key, scale, theta/low/high of A, theta/low/high of B) of one split, for ``kinds``."""
    out = []
    unit = res_a.unit or (True,) * len(measures)
    S = len(res_a.systems)
    ia, ib = (np.array(v) for v in zip(*combinations(range(S), 2))) if S > 1 else (np.zeros(0, int),) * 2
    for m, label in enumerate(measures):
        idx = [m]
        is_ap = bool((res_a.n_relevant[:, m] >= 0).all())
        for method in TOPIC_METHODS if "topic" in kinds else ():
            if method == "logit" and not unit[m]:
                continue
            for small_r in ((False, True) if is_ap else (False,)):
                values = [(r.statistic[..., idx], *r._topic_interval(idx, method, confidence_level, small_r,
                                                                    eps)[:2]) for r in (res_a, res_b)]
                out.append((("topic", label, "", method, small_r), "logit" if method == "logit" else "score", values))
        for statistic, method in SYSTEM_ROWS if "system" in kinds else ():
            base, _, variance = method.partition(":")
            needs_unit = base in ("logit", "parametric") or statistic == "logit_mean"
            if (needs_unit and not unit[m]) or (variance == "empirical_bayes" and (res_a.found[..., m] < 0).any()):
                continue
            options = {"variance": variance} if variance else {}
            values = []
            for r in (res_a, res_b):
                t = r.per_system(statistic=statistic, method=base, confidence_level=confidence_level,
                                 measures=[label], eps=eps, **options)
                values.append((t[label].to_numpy(), t[f"{label} ci_low"].to_numpy(), t[f"{label} ci_high"].to_numpy()))
            out.append((("system", label, statistic, method, False), SCALES[statistic], values))
        if len(ia) == 0 or not {"difference", "topic difference"} & set(kinds):
            continue
        for statistic in dict.fromkeys(st for st, _ in DIFFERENCE_ROWS):
            if statistic == "logit_mean" and not unit[m]:
                continue
            agg = res_a._aggregate(statistic)
            pairs = [r._pair_differences(ia, ib, idx, agg) for r in (res_a, res_b)]
            for method in (mt for st, mt in DIFFERENCE_ROWS if st == statistic):
                options = {"method": method, "confidence_level": confidence_level}
                if "difference" in kinds:
                    values = [(p["theta"], *image_interval(p["theta"], p["dist"], jackknife=p["jack"], **options))
                              for p in pairs]
                    out.append((("difference", label, statistic, method, False), "score", values))
                if "topic difference" in kinds and method != "bca":  # per-topic BCa of every pair: slow
                    values = [(p["topic_theta"], *image_interval(p["topic_theta"], p["topic_dist"], **options))
                              for p in pairs]
                    out.append((("topic difference", label, statistic, method, False), "score", values))
    return out


@renamed_keywords(epsilon="eps")
@one_warning_per_kind()
def split_half_validation(runs: RunsLike, qrels: QrelsLike, measures: MeasuresLike = ("AP",), *,
                          n_splits: int = 20, n_images: int = 100, rng: RngLike = None,
                          confidence_level: float = 0.95, sd_tolerance: float = 0.1,
                          eps: float = EPSILON, kinds: Sequence[str] = KINDS, verbose: bool = True,
                          topics: TopicsLike | None = None, executor: Executor | None = None) -> SplitHalfValidation:
    """Check on your own collection that corpus-bootstrap intervals hold on another corpus (Cormack & Lynam §6).

    Args:
        runs: the runs (anything :func:`pyterrier_boot.read_runs` accepts: a folder of TREC run
            files, a dict of frames, transformers with ``topics``).
        qrels: the judgements (anything :func:`pyterrier_boot.read_qrels` accepts).
        measures: measures to check (``"AP"``, ``"nDCG@10"``, ...).
        n_splits: random document splits (at least 2; 20 or more for system-level rows).
        n_images: Poisson images per half (at least 10).
        rng: seed or Generator (SPEC 7): draws the splits' salts and the images' keys.
        confidence_level: level of the intervals checked (0.95: model share 83.4%).
        sd_tolerance: ``calibrated`` needs ``|sd(z) - 1|`` at most this (or 3 standard errors).
        eps: ε of the logit intervals and L-MAP.
        kinds: which quantities to check (default all of ``"topic"``, ``"system"``,
            ``"difference"``, ``"topic difference"``; per-topic differences of every pair of many
            systems are the slowest).
        verbose: a progress bar over splits.
        topics: topics to run transformers on.
        executor: evaluates each half's images in batches on it (:class:`~pyterrier_boot.CorpusBootstrap`).

    Returns:
        :class:`SplitHalfValidation`: ``to_frame()``, ``plot()``.

    Every interval method is checked: per topic (percentile, normal, logit, BCa; AP with and
    without the small-R correction), per system (mean, L-MAP, G-MAP with every method, the
    parametric one with each per-topic variance rule), paired differences of every pair of systems
    (aggregate and per topic, on the statistic's scale). A topic is kept in both halves even when
    one half holds none of its judgements (it then scores 0, as on an image).

    Example:
        >>> import pyterrier_boot as ptb
        >>> check = ptb.split_half_validation("runs/", "qrels.txt", ["AP", "nDCG@10"], rng=1)  # doctest: +SKIP
        >>> check.to_frame().query("kind == 'system'")                                      # doctest: +SKIP
    """
    n_splits, n_images, kinds = _check_options(n_splits, n_images, sd_tolerance, verbose, kinds)
    confidence_level, eps = check_confidence_level(confidence_level), check_eps(eps)
    generator = as_generator(rng)
    require_mean_aggregated(parse_measures(measures), context="a corpus-bootstrap interval")
    evaluator, read = prepare(runs, qrels, measures, topics=topics, verbose=verbose)
    arrays = evaluator.arrays
    if arrays.n_docs < 2:
        raise ValueError("a split-half validation needs at least 2 documents retrieved or judged")
    labels = tuple(lm.label for lm in evaluator.measures)
    salts = tuple(int(s) for s in generator.integers(0, 2**62, size=n_splits))
    image_seeds = generator.integers(0, 2**62, size=(n_splits, 2))
    pooled = _run_splits(read, evaluator, salts, image_seeds, n_images, labels, confidence_level, eps, kinds,
                         verbose, check_executor(executor))
    share = model_share(confidence_level)
    table = pd.DataFrame([_summarise(key, entry, share, sd_tolerance) for key, entry in pooled.items()])
    z_by_key = {key: np.concatenate(entry["z"]) for key, entry in pooled.items()}
    return SplitHalfValidation(table=table, z=z_by_key, model_share=share, salts=salts, n_images=n_images,
                               confidence_level=confidence_level, systems=tuple(arrays.systems),
                               qids=tuple(arrays.qids.tolist()), measures=labels, sd_tolerance=float(sd_tolerance))


def _warn_few_splits(n_splits, kinds) -> None:
    """One warning when system-level rows rest on fewer than :data:`FEW_SPLITS` splits."""
    if n_splits < FEW_SPLITS and {"system", "difference"} & set(kinds):
        report(BootWarning, f"n_splits={n_splits} is few for the system and difference rows: the runs move together "
               "between halves, so their sd(z) has a standard error of 0.1-0.3 (its 'sd_z_se'; 'calibrated' allows "
               f"3 of them); use n_splits >= {FEW_SPLITS}", ["n_splits"])


def _check_options(n_splits, n_images, sd_tolerance, verbose, kinds) -> tuple:
    """``n_splits, n_images, kinds`` checked (``kinds`` as a non-empty tuple of :data:`KINDS`), and
    ``sd_tolerance`` and ``verbose``; a warning when system-level rows rest on few splits."""
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    n_images = check_positive_int(n_images, "n_images", minimum=10)
    if isinstance(sd_tolerance, bool) or not isinstance(sd_tolerance, (int, float)) or not sd_tolerance > 0:
        raise ValueError(f"'sd_tolerance' must be a positive number, got {sd_tolerance!r}")
    if not isinstance(verbose, (bool, np.bool_)):
        raise TypeError(f"'verbose' must be True or False, got {type(verbose).__name__}")
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"'kinds' must be a non-empty subset of {KINDS}, got {kinds!r}")
    _warn_few_splits(n_splits, kinds)
    return n_splits, n_images, kinds


def _run_splits(read, evaluator, salts, image_seeds, n_images, labels, confidence_level, eps, kinds,
                verbose, executor=None) -> dict[Any, dict]:
    """Bootstrap both halves of every split and pool each row's predictions (``_pool``), by row key."""
    import pyterrier as pt

    hashes = docno_hashes(evaluator.arrays.docnos)
    pooled: dict[Any, dict] = {}
    with pt.tqdm(total=len(salts), desc="split-half validation", unit="split", disable=not verbose) as bar:
        for salt, seeds in zip(salts, image_seeds):
            halves = _bootstrap_halves(read, evaluator, hashes, salt, seeds, n_images, executor)
            for key, scale, values in _split_rows(*halves, labels, confidence_level, eps, kinds):  # type: ignore[call-arg]  # two halves
                _pool(pooled.setdefault(key, {"position": [], "z": [], "inside": [], "sd": []}), scale, values,
                      confidence_level)
            bar.update(1)
    return pooled


def _bootstrap_halves(read, evaluator, hashes, salt, seeds, n_images, executor=None):
    """The corpus bootstraps of halves A and B of the split ``salt`` (a mask on the interned documents)."""
    in_a = salted_bits(hashes, salt) == 0  # split_half(arrays.docnos, salt=salt) == "A"
    return [CorpusBootstrap(read, n_images=n_images, rng=int(seed), verbose=False, executor=executor)
            .evaluate_prepared(evaluator, keep=keep, hashes=hashes)
            for seed, keep in zip(seeds, (in_a, ~in_a))]


def _pool(entry, scale, values, confidence_level):
    """Add one split's predictions of one row (A predicts B and B predicts A) to ``entry``."""
    va, vb = values
    positions, zs = [], []
    for src, dst in ((va, vb), (vb, va)):
        p, z = interval_agreement(*src, *dst, confidence_level=confidence_level, scale=scale)
        positions.append(p.reshape(-1))
        zs.append(z.reshape(-1))
    p, z = np.concatenate(positions), np.concatenate(zs)
    entry["position"].append(p)
    entry["z"].append(z)
    entry["inside"].append(np.mean(p == 0) if len(p) else np.nan)
    finite = z[np.isfinite(z)]
    entry["sd"].append(finite.std(ddof=1) if len(finite) > 1 else np.nan)


def pooled_sd(groups: Sequence[npt.ArrayLike]) -> tuple[float, float]:
    """SD (ddof=1) of the finite values of all ``groups`` pooled, and its delete-a-group jackknife SE.

    The groups are the splits: the z of one split are correlated (the systems move together between
    two halves), so the SE comes from the spread over splits, not from the number of z
    (Efron & Tibshirani 1993, §11.2: the jackknife of a smooth statistic of group sums). NaN where
    fewer than two groups or values.

    Example:
        >>> sd, se = pooled_sd([[-1.0, 1.0], [-2.0, 2.0], [0.5, -0.5]])
        >>> round(sd, 3), round(se, 3)
        (1.449, 0.567)
    """
    finite = [np.asarray(g, dtype=float).reshape(-1) for g in groups]
    finite = [g[np.isfinite(g)] for g in finite]
    n = np.array([len(g) for g in finite], dtype=float)
    s1 = np.array([g.sum() for g in finite])
    s2 = np.array([(g**2).sum() for g in finite])

    def sd(count, total, squares):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt(np.maximum(squares - total**2 / count, 0) / (count - 1))

    N = n.sum()
    if N < 2:
        return np.nan, np.nan
    full = float(sd(N, s1.sum(), s2.sum()))
    if len(finite) < 2:
        return full, np.nan
    leave_out = sd(N - n, s1.sum() - s1, s2.sum() - s2)
    leave_out = leave_out[np.isfinite(leave_out)]
    G = len(leave_out)
    se = float(np.sqrt((G - 1) / G * ((leave_out - leave_out.mean()) ** 2).sum())) if G > 1 else np.nan
    return full, se


def _summarise(key, entry, share, sd_tolerance) -> dict:
    """One row of the table: shares, sd(z) and their spread over splits, ``calibrated``."""
    kind, measure, statistic, method, small_r = key
    p, z = np.concatenate(entry["position"]), np.concatenate(entry["z"])
    inside, sd = np.asarray(entry["inside"]), np.asarray(entry["sd"])
    sd_z, sd_z_se = pooled_sd(entry["z"])
    inside_se = np.nanstd(inside, ddof=1) / np.sqrt(np.count_nonzero(np.isfinite(inside)))
    inside_all = np.mean(p == 0)
    return {
        "kind": kind, "measure": measure, "statistic": statistic, "method": method, "small_r": small_r,
        "n": len(p), "below": np.mean(p < 0), "inside": inside_all, "above": np.mean(p > 0),
        "inside_se": inside_se, "inside_min": np.nanmin(inside), "inside_max": np.nanmax(inside),
        "sd_z": sd_z, "sd_z_se": sd_z_se,
        "sd_z_min": np.nanmin(sd), "sd_z_max": np.nanmax(sd), "n_infinite": int(np.count_nonzero(np.isinf(z))),
        "calibrated": bool(abs(sd_z - 1) <= max(sd_tolerance, 3 * sd_z_se)
                           and abs(inside_all - share) <= max(3 * inside_se, 0.02)),
    }
