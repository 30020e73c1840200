"""Score standardisation (Webber, Moffat & Zobel 2008) and Park's portable report (Park 2010, §5-6).

A topic's scores are standardised against a set of *reference* (standardising) systems:
``z[s,q] = (x[s,q] - mean_r x[r,q]) / sd_r x[r,q]``. Standardised AP is close to normal, so the t
interval of its mean is accurate even with 5 topics and 5 reference systems (Park, Tables 4-6),
whereas the t interval on raw AP undercovers. Results are portable only together with the list
of reference systems, hence :func:`portable_report`.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from .._checks import NAN_POLICIES, check_choice, check_confidence_level, describe, is_pandas
from .._scores import as_score_matrix, oriented
from .._warnings import DegenerateWarning
from .intervals import t_interval

if TYPE_CHECKING:
    from typing import Any

    import pandas as pd

    from .._typing import FloatArray, ScoresLike


__all__ = ["standardize", "portable_report"]


def _reference(matrix, reference_systems):
    """Reference scores (R, n) and their labels."""
    if reference_systems is None:
        return matrix.values, list(matrix.system_labels)
    if is_pandas(reference_systems, "DataFrame") or np.ndim(reference_systems) == 2:
        ref = as_score_matrix(reference_systems, "reference_systems", nan_policy="raise")
        if is_pandas(reference_systems, "DataFrame") and matrix.topics is not None:
            missing = [t for t in matrix.topics if t not in set(ref.topics)]
            if missing:
                raise ValueError(f"'reference_systems' has no scores for topics {describe(missing)} of 'scores'")
            values = oriented(reference_systems, "reference_systems").loc[:, matrix.topics].to_numpy(dtype=float)
        else:
            values = ref.values
            if values.shape[1] != matrix.values.shape[1]:
                raise ValueError(f"'reference_systems' has {values.shape[1]} topics, 'scores' has "
                                 f"{matrix.values.shape[1]}")
        return values, list(ref.system_labels)
    selectors = list(reference_systems)
    labels = list(matrix.system_labels)
    rows = []
    for sel in selectors:
        if matrix.systems is not None and sel in labels:
            rows.append(labels.index(sel))
        elif isinstance(sel, (int, np.integer)) and not isinstance(sel, bool) and 0 <= sel < len(labels):
            rows.append(int(sel))
        else:
            raise ValueError(f"'reference_systems' entry {sel!r} is neither a system label nor a row "
                             f"position of 'scores' (systems: {describe(labels)})")
    return matrix.values[rows], [labels[r] for r in rows]


def _standardize_iv(scores, reference_systems, nan_policy):
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    matrix = as_score_matrix(scores, "scores", nan_policy=nan_policy, min_topics=1)
    ref, ref_labels = _reference(matrix, reference_systems)
    if ref.shape[0] < 2:
        raise ValueError(f"'reference_systems' must hold at least 2 systems (a standard deviation), got {ref.shape[0]}")
    return matrix, ref, ref_labels


def _standardized_values(matrix, ref, cdf):
    centre = ref.mean(axis=0)
    spread = ref.std(axis=0, ddof=1)
    flat = spread == 0
    if flat.any():
        topics = np.asarray(matrix.topics, dtype=object)[flat] if matrix.topics is not None else np.flatnonzero(flat)
        warnings.warn(f"the reference systems all score the same on {int(flat.sum())} topic(s) "
                      f"{describe(topics)}: those topics cannot be standardised and get z = 0",
                      DegenerateWarning, stacklevel=3)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (matrix.values - centre) / spread
    z[:, flat] = 0.0
    if cdf:
        from scipy.special import ndtr

        z = ndtr(z)
    return z


def standardize(scores: ScoresLike, reference_systems: Any = None, *, cdf: bool = False,
                nan_policy: str = "raise") -> FloatArray | pd.DataFrame:
    """Standardise per-topic scores against reference systems (Webber et al. 2008; Park 2010, §5).

    Args:
        scores: a systems x topics array, or a DataFrame with one row per topic and one column per
            system (``pivot(index="qid", columns="name")``; labels read as in ``pt_docs/statistics.md``).
        reference_systems: which systems standardise: None (all systems of ``scores``), a list of
            system labels or positions of ``scores``, or separate reference scores on the same
            topics, read as ``scores`` is (e.g. public baselines).
        cdf: if True return ``Φ(z)`` in (0, 1) (Webber et al.'s final step); Park uses ``z`` itself.
        nan_policy: ``"raise"`` or ``"omit"`` (drop topics not scored for every system).

    Returns:
        Standardised scores, same shape and type (DataFrame labels kept).

    The per-topic spread is the sample standard deviation (ddof=1) of the reference systems'
    scores. A topic on which every reference system scores the same has no spread: its z-scores
    are set to 0 (the topic does not tell systems apart) with a :class:`DegenerateWarning`.

    Example:
        >>> import numpy as np
        >>> x = np.array([[0.2, 0.1], [0.4, 0.5], [0.9, 0.3]])
        >>> standardize(x).round(3)
        array([[-0.832, -1.   ],
               [-0.277,  1.   ],
               [ 1.109,  0.   ]])
    """
    matrix, ref, _ = _standardize_iv(scores, reference_systems, nan_policy)
    z = _standardized_values(matrix, ref, cdf)
    if is_pandas(scores, "DataFrame"):  # in the frame's own layout
        import pandas as pd

        frame: pd.DataFrame = scores  # type: ignore[assignment]  # is_pandas checked it is a DataFrame
        out = pd.DataFrame(z, index=list(matrix.system_labels), columns=list(matrix.topics or []))
        return out if list(frame.index) == list(matrix.system_labels) else out.T
    return z


def portable_report(scores: ScoresLike, reference_systems: Any = None, *,
                    confidence_level: float = 0.95, nan_policy: str = "raise") -> pd.DataFrame:
    """Park's portable report: what others need to compare with your systems (Park 2010, §6).

    For each system: the raw mean and sd of its scores, the number of topics, the mean and sd of
    its standardised scores, the t interval of the population mean standardised score (Park eq. 3
    on standardised scores) and which systems standardised them.

    Args:
        scores, reference_systems, nan_policy: as :func:`standardize`.
        confidence_level: level of the t interval.

    Returns:
        pandas.DataFrame indexed by system with columns ``mean, sd, n_topics, z_mean, z_sd,
        z_ci_low, z_ci_high, standardized_by``.

    Example:
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> report = portable_report(rng.random((6, 20)), reference_systems=[0, 1, 2, 3, 4])
        >>> list(report.columns)[:3]
        ['mean', 'sd', 'n_topics']
    """
    confidence_level = check_confidence_level(confidence_level)
    matrix, ref, ref_labels = _standardize_iv(scores, reference_systems, nan_policy)
    z = _standardized_values(matrix, ref, cdf=False)
    import pandas as pd

    n = z.shape[1]
    z_mean = z.mean(axis=1)
    z_sd = z.std(axis=1, ddof=1) if n > 1 else np.full(z.shape[0], np.nan)
    low, high = t_interval(z_mean, z_sd, n, confidence_level=confidence_level)
    return pd.DataFrame({
        "mean": matrix.values.mean(axis=1),
        "sd": matrix.values.std(axis=1, ddof=1) if n > 1 else np.nan,
        "n_topics": n,
        "z_mean": z_mean,
        "z_sd": z_sd,
        "z_ci_low": low,
        "z_ci_high": high,
        "standardized_by": ", ".join(str(r) for r in ref_labels),
    }, index=pd.Index(matrix.system_labels, name="name"))
