"""Input checks shared by the meta-evaluation functions built on a corpus bootstrap (private).

They take a :class:`~pyterrier_boot.corpus.result.CorpusBootstrapResult` and pick systems and
measures from it by label, with the same error messages everywhere.
"""
import numpy as np

from ..._checks import describe

MIN_IMAGES = 2


def check_corpus_result(result, name="result"):
    """Raise unless ``result`` is a CorpusBootstrapResult with at least 2 images (an SD needs 2)."""
    from ...corpus.result import CorpusBootstrapResult

    if not isinstance(result, CorpusBootstrapResult):
        raise TypeError(f"{name!r} must be a CorpusBootstrapResult (from CorpusBootstrap(...).evaluate(runs, "
                        f"measures)); got {type(result).__name__}")
    B = result.bootstrap_distribution.shape[0]
    if B < MIN_IMAGES:
        raise ValueError(f"{name!r} has {B} corpus image(s); a standard deviation over images needs at "
                         f"least {MIN_IMAGES} (use n_images >= 100, as Zobel & Rashidi)")
    return result


def measure_indices(result, measures, name="measures"):
    """Positions of ``measures`` (labels, a label, or None for all) in ``result.measures``."""
    if measures is None:
        return list(range(len(result.measures)))
    if isinstance(measures, str):
        measures = [measures]
    try:
        measures = list(measures)
    except TypeError:
        raise TypeError(f"{name!r} must be a measure label or a list of labels, got "
                        f"{type(measures).__name__}") from None
    if not measures:
        raise ValueError(f"{name!r} is empty: name at least one of {describe(result.measures)}")
    unknown = [m for m in measures if m not in result.measures]
    if unknown:
        raise ValueError(f"{name!r}: {describe(unknown)} not in the corpus-bootstrap result, whose "
                         f"measures are {describe(result.measures)} (labels as written to evaluate())")
    return [result.measures.index(m) for m in dict.fromkeys(measures)]


def one_measure(result, measure, name="measure"):
    """Position of one measure; ``None`` is allowed only when the result has a single measure."""
    if measure is None:
        if len(result.measures) == 1:
            return 0
        raise ValueError(f"{name!r} is required: the result has {len(result.measures)} measures "
                         f"{describe(result.measures)}")
    if not isinstance(measure, str):
        raise TypeError(f"{name!r} must be one measure label (a string), got {type(measure).__name__}")
    return measure_indices(result, [measure], name)[0]


def system_indices(result, systems, name="systems", minimum=2):
    """Positions of ``systems`` (labels, or None for all) in ``result.systems``."""
    if systems is None:
        index = list(range(len(result.systems)))
    else:
        if isinstance(systems, str):
            systems = [systems]
        systems = list(dict.fromkeys(systems))
        unknown = [s for s in systems if s not in result.systems]
        if unknown:
            raise ValueError(f"{name!r}: unknown system(s) {describe(unknown)}; the result's systems are "
                             f"{describe(result.systems)}")
        index = [result.systems.index(s) for s in systems]
    if len(index) < minimum:
        raise ValueError(f"{name!r}: need at least {minimum} systems, got {len(index)}")
    return index


def one_system(result, system, name):
    if system not in result.systems:
        raise ValueError(f"unknown system {system!r} for {name!r}: the result's systems are "
                         f"{describe(result.systems)}")
    return result.systems.index(system)


def constant_rows(values, axis=0):
    """True where every value along ``axis`` is the same (an SD of exactly 0)."""
    return np.ptp(values, axis=axis) == 0
