"""User variance: evaluate with a measure's user parameter drawn from a distribution (Kanoulas).

A user-model measure has a parameter that differs between users: RBP's persistence ``p``, a
rank cutoff, INST's target ``T``. Evaluating at one fixed value describes an average user only.
Kanoulas (slides "Choosing parameter values" to "Distribution of RBP") fits a distribution of the
parameter to logged behaviour (e.g. a Beta posterior for RBP's ``p``) and evaluates over it.

:func:`user_variance` draws ``n_users`` parameter values (users) from a frozen scipy distribution,
evaluates the measure at each value with the project's measure engine, and gives per-system
distributions over users. A *user* here applies one parameter value to every topic: the system's
score for that user is its mean over topics, and the interval is the percentile interval of that
mean over users (the spread due to users, not to topics). Per-topic values per user are kept.
"""
from __future__ import annotations

import numbers
import string
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..._checks import check_confidence_level, check_positive_int
from ..._deprecation import keyword_only, renamed_keywords
from ..._random import as_generator
from ..._results import ConfidenceInterval, TupleLike

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

    from ..._typing import MeasureLike, QrelsLike, RngLike, RunsLike, TopicsLike


__all__ = ["user_variance", "UserVarianceResult"]

#: Valid ranges of known measure parameters: (low, high, low_open, high_open).
KNOWN_RANGES = {
    ("RBP", "p"): (0.0, 1.0, True, True),
    ("INSQ", "T"): (0.0, np.inf, True, True),
    ("INST", "T"): (0.0, np.inf, True, True),
}
_CHUNK = 256  # measures evaluated per engine call (bounds memory: systems x topics x chunk)


@dataclass(frozen=True, slots=True)
class UserVarianceResult(TupleLike):
    """Scores over a population of users; unpacks as ``statistic, confidence_interval``.

    Attributes:
        statistic: ``(S,)`` each system's mean score averaged over the drawn users.
        confidence_interval: ``ConfidenceInterval`` of ``(S,)`` arrays: percentile interval of the
            system's mean score over users.
        distribution: ``(S, n_users)`` the system's mean score over topics for each user.
        values: ``(S, Q, n_users)`` per-topic values for each user.
        parameters: ``(n_users,)`` the drawn parameter values.
        at_mean: ``(S,)`` the system's mean score at the distribution's mean parameter (the
            "average user" evaluation a fixed parameter gives).
        systems, qids: labels; measure: the template (or the callable's name); parameter: the
            measure parameter drawn (e.g. ``"p"``), when it could be identified.
        confidence_level: as used.
    """

    statistic: Any
    confidence_interval: ConfidenceInterval
    distribution: Any
    values: Any
    parameters: Any
    at_mean: Any
    systems: tuple
    qids: tuple
    measure: str
    parameter: str | None
    confidence_level: float
    _tuple_fields: ClassVar[tuple[str, ...]] = ("statistic", "confidence_interval")

    def to_frame(self) -> pd.DataFrame:
        """One row per system: ``name, mean, sd, ci_low, ci_high, at_mean_parameter``."""
        import pandas as pd

        return pd.DataFrame({
            "name": list(self.systems),
            "mean": self.statistic,
            "sd": self.distribution.std(axis=1, ddof=1) if self.distribution.shape[1] > 1 else np.nan,
            "ci_low": self.confidence_interval.low,
            "ci_high": self.confidence_interval.high,
            "at_mean_parameter": self.at_mean,
        })

    @keyword_only("ax")
    def plot(self, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
        """Distribution over users per system (:func:`~pyterrier_boot.meta.plots.plot_user_variance`)."""
        from ..plots import plot_user_variance

        return plot_user_variance(self, ax=ax, **kwargs)

    def _repr_html_(self):
        return self.to_frame()._repr_html_()


def _template_field(template):
    fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    if len(fields) != 1:
        raise ValueError(
            f"'measure' template {template!r} must have exactly one replacement field for the "
            f"parameter, as in 'RBP(p={{p}})' or 'nDCG@{{k}}'; found {len(fields)}"
        )
    return fields[0]


def _measure_maker(measure):
    """``(make(value) -> measure, label)`` for a template string or a callable."""
    if isinstance(measure, str):
        field = _template_field(measure)

        def make(value):
            return measure.format(value) if field == "" else measure.format(**{field: value})

        return make, measure
    if callable(measure):
        def make(value):
            made = measure(value)
            import ir_measures

            if not isinstance(made, (str, ir_measures.Measure)):
                raise TypeError(f"'measure' callable must return a measure string or an ir_measures "
                                f"measure, got {type(made).__name__} for {value!r}")
            return made

        return make, getattr(measure, "__name__", "callable")
    raise TypeError(f"'measure' must be a template string such as 'RBP(p={{p}})' or a callable "
                    f"value -> measure; got {type(measure).__name__}")


def _check_distribution(distribution):
    from scipy.stats import rv_continuous, rv_discrete

    if isinstance(distribution, (rv_continuous, rv_discrete)):
        raise TypeError("'distribution' must be a frozen scipy distribution with its parameters, e.g. "
                        "scipy.stats.beta(2, 5), not the family scipy.stats."
                        f"{getattr(distribution, 'name', 'beta')}")
    if not (hasattr(distribution, "rvs") and hasattr(distribution, "support") and hasattr(distribution, "mean")):
        raise TypeError("'distribution' must be a frozen scipy distribution (with rvs, support and mean), "
                        f"got {type(distribution).__name__}")
    from scipy.stats import rv_discrete as discrete

    return isinstance(getattr(distribution, "dist", None), discrete)


def _as_value(v, discrete):
    return int(round(float(v))) if discrete else float(v)


def _parameter_of(measure_obj, value):
    """Name of the measure parameter that holds ``value`` (None if not found)."""
    for key, param in getattr(measure_obj, "params", {}).items():
        if isinstance(param, numbers.Number) and not isinstance(param, bool) and param == value:
            return key
    return None


def _range_text(low, high, low_open, high_open):
    return f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def _check_range(draws, support, low, high, low_open, high_open, what, hint):
    s_low, s_high = (float(v) for v in support)
    # the support's ends may touch an open bound: continuous distributions put no mass there
    if s_low < low or s_high > high:
        raise ValueError(
            f"'distribution' has support [{s_low:g}, {s_high:g}], outside the valid range "
            f"{_range_text(low, high, low_open, high_open)} of {what}; use a distribution supported "
            f"inside it ({hint})"
        )
    below = (draws <= low) if low_open else (draws < low)
    above = (draws >= high) if high_open else (draws > high)
    bad = below | above
    if bad.any():
        raise ValueError(
            f"'distribution' drew {int(bad.sum())} value(s) outside the valid range "
            f"{_range_text(low, high, low_open, high_open)} of {what}, e.g. {draws[bad][0]:g}"
        )


def _user_variance_iv(n_users, confidence_level, distribution, measure, valid_range):
    n_users = check_positive_int(n_users, "n_users", minimum=2)
    confidence_level = check_confidence_level(confidence_level)
    discrete = _check_distribution(distribution)
    make, label = _measure_maker(measure)
    if valid_range is not None:
        try:
            low, high = (float(v) for v in valid_range)
        except (TypeError, ValueError):
            raise TypeError("'valid_range' must be a pair (low, high)") from None
        if not low < high:
            raise ValueError(f"'valid_range' must have low < high, got {valid_range}")
        valid_range = (low, high, False, False)
    return n_users, confidence_level, discrete, make, label, valid_range


@renamed_keywords(n_draws="n_users")
def user_variance(runs: RunsLike, qrels: QrelsLike, measure: MeasureLike, distribution: Any, *,
                  n_users: int = 1000, confidence_level: float = 0.95, rng: RngLike = None,
                  valid_range: tuple[float, float] | None = None, topics: TopicsLike | None = None) -> UserVarianceResult:
    """Evaluate runs with a measure parameter drawn from ``distribution`` (one draw per user).

    Args:
        runs, qrels, topics: as :func:`pyterrier_boot.evaluate` (topics for transformer runs).
        measure: a template with one field for the parameter (``"RBP(p={p})"``, ``"nDCG@{k}"``) or
            a callable ``value -> measure``.
        distribution: a frozen scipy distribution of the parameter (``scipy.stats.beta(a, b)`` for
            RBP's persistence, ``scipy.stats.randint(5, 21)`` for a cutoff, passed as integers).
        n_users: users drawn. confidence_level: of the percentile interval over users.
        rng: seed or Generator (SPEC 7), drawing ``distribution.rvs(size=n_users, random_state=rng)``.
        valid_range: closed ``(low, high)`` for a parameter we do not know (known: RBP ``p`` in
            (0, 1), INSQ/INST ``T`` > 0, cutoffs >= 1); a draw outside is a ValueError before any
            evaluation.

    Returns:
        UserVarianceResult (``to_frame()``: per system mean over users, sd, interval, and the
        score at the mean parameter; ``plot()``). Each distinct drawn value is evaluated once.

    Example:
        >>> import pandas as pd, scipy.stats
        >>> qrels = pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "b", "c"], "label": [1, 0, 1]})
        >>> runs = {"good": pd.DataFrame({"qid": ["1"] * 3, "docno": ["a", "c", "b"], "score": [3., 2., 1.]}),
        ...         "late": pd.DataFrame({"qid": ["1"] * 3, "docno": ["b", "a", "c"], "score": [3., 2., 1.]}),
        ...         "bad": pd.DataFrame({"qid": ["1"] * 2, "docno": ["b", "c"], "score": [2., 1.]})}
        >>> res = user_variance(runs, qrels, "RBP(p={p})", scipy.stats.beta(8, 2), n_users=200, rng=1)
        >>> res.to_frame().round(3)[["name", "mean", "ci_low", "ci_high", "at_mean_parameter"]]
           name   mean  ci_low  ci_high  at_mean_parameter
        0  good  0.318   0.060    0.690              0.360
        1  late  0.241   0.058    0.384              0.288
        2   bad  0.136   0.029    0.247              0.160

    References:
        Kanoulas, E., experimental-design slides ("Choosing parameter values", "Patience
        distribution for RBP", "Distribution of RBP"); Moffat, A. & Zobel, J. (2008).
        Rank-biased precision for measurement of retrieval effectiveness. ACM TOIS 27(1).
    """
    n_users, confidence_level, discrete, make, label, valid_range = _user_variance_iv(
        n_users, confidence_level, distribution, measure, valid_range)
    draws, mean_value = _draw_parameters(distribution, n_users, as_generator(rng), discrete)
    distinct, inverse = np.unique(draws, return_inverse=True)
    first, value = _first_measure(distinct, make, discrete)
    parameter = _parameter_of(first.measure, value)
    valid_range, what, hint = _valid_range(first.measure, parameter, valid_range, discrete)
    _check_range(draws, distribution.support(), *valid_range, what, hint)  # type: ignore[call-arg]
    if discrete:
        mean_value = float(np.round(mean_value))
    arrays, per_value, at_mean = _scores_per_value(runs, qrels, topics, distinct, mean_value, discrete, make)
    values = per_value[..., inverse]
    dist = values.mean(axis=1)  # (S, n_users)
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(dist, [tail, 1 - tail], axis=1)
    return UserVarianceResult(
        statistic=dist.mean(axis=1), confidence_interval=ConfidenceInterval(low, high), distribution=dist,
        values=values, parameters=draws, at_mean=at_mean, systems=tuple(arrays.systems),
        qids=tuple(arrays.qids), measure=label, parameter=parameter, confidence_level=confidence_level,
    )


def _scores_per_value(runs, qrels, topics, distinct, mean_value, discrete, make):
    """Every run scored once per distinct parameter value and at the mean value: the evaluated
    arrays, scores ``(S, Q, distinct)`` and the mean at the mean parameter ``(S,)``."""
    from ...inputs.qrels import read_qrels
    from ...inputs.runs import read_runs
    from ...measures.parsing import require_mean_aggregated

    labelled = _measures_of([_as_value(v, discrete) for v in distinct] + [_as_value(mean_value, discrete)], make)
    require_mean_aggregated(labelled, context="a distribution over users")
    with warnings.catch_warnings():
        read = read_runs(runs, topics=topics)
    arrays, columns = _evaluate_by_label(read, read_qrels(qrels), labelled)
    per_value = np.stack([columns[lm.label] for lm in labelled[:-1]], axis=-1)
    return arrays, per_value, columns[labelled[-1].label].mean(axis=1)


def _draw_parameters(distribution, n_users, gen, discrete):
    """One parameter value per user (rounded for a discrete distribution), and the distribution's mean."""
    draws = np.asarray(distribution.rvs(size=n_users, random_state=gen), dtype=float)
    if not np.all(np.isfinite(draws)):
        raise ValueError("'distribution' drew non-finite values")
    if discrete:
        draws = np.round(draws)
    mean_value = float(distribution.mean())
    if not np.isfinite(mean_value):
        raise ValueError("'distribution' has no finite mean")
    return draws, mean_value


def _first_measure(distinct, make, discrete):
    """The measure of the first drawn value that gives a valid one, and that value."""
    from ...measures.parsing import parse_measures

    first_error = None
    for value in (_as_value(v, discrete) for v in distinct):
        try:
            return parse_measures([make(value)])[0], value
        except ValueError as error:
            first_error = first_error or ValueError(f"parameter value {value!r} gives an invalid measure: {error}")
    raise first_error


def _valid_range(measure, parameter, valid_range, discrete):
    """``(valid_range, what, hint)``: the parameter's allowed values, its name and an example distribution."""
    name = getattr(measure, "NAME", str(measure))
    what = f"{name}'s {parameter!r}" if parameter else "the parameter"
    if valid_range is None:
        if parameter == getattr(measure, "AT_PARAM", None) and parameter is not None:
            valid_range = (1.0, np.inf, False, True)
            what = f"{name}'s cutoff"
            if not discrete:
                raise ValueError(f"the parameter is {name}'s rank cutoff, an integer: use a discrete "
                                 "distribution such as scipy.stats.randint(5, 21)")
        else:
            valid_range = KNOWN_RANGES.get((name, parameter), (-np.inf, np.inf, False, False))
    if valid_range[:2] == (1.0, np.inf):
        hint = "e.g. scipy.stats.randint(1, 101) for a cutoff"
    else:
        hint = ("e.g. scipy.stats.beta(a, b) for a probability, scipy.stats.truncnorm for a "
                "truncated normal")
    return valid_range, what, hint


def _measures_of(values, make):
    """The labelled measure of each parameter value."""
    from ...measures.parsing import parse_measures

    labelled = []
    for v in values:
        made = make(v)
        try:
            labelled.append(parse_measures([made])[0])
        except ValueError as error:
            raise ValueError(f"parameter value {v!r} gives an invalid measure: {error}") from None
    return labelled


def _evaluate_by_label(read, qrels, labelled):
    """Per-topic scores ``{label: (S, Q)}`` of every distinct measure, ``_CHUNK`` measures per pass."""
    from ...measures.arrays import JudgedRuns
    from ...measures.engine import Evaluator

    arrays = JudgedRuns.build(read, qrels.frame)
    ones = np.ones((1, arrays.n_docs), np.int32)
    # measures of the same value may repeat (e.g. a callable ignoring decimals): evaluate by label
    unique_labels = list(dict.fromkeys(lm.label for lm in labelled))
    by_label = {lm.label: lm for lm in labelled}
    columns = {}
    for start in range(0, len(unique_labels), _CHUNK):
        chunk = [by_label[lbl] for lbl in unique_labels[start:start + _CHUNK]]
        evaluator = Evaluator(arrays, chunk, runs=read, qrels=qrels.frame)
        out = evaluator.evaluate(ones, identity=True)[0]  # (S, Q, chunk)
        for j, lm in enumerate(chunk):
            columns[lm.label] = out[..., j]
    return arrays, columns
