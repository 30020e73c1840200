"""Figure conventions shared by every plot (private): matplotlib imported only when a plot is drawn,
a new figure with constrained layout when no ``ax`` is given, a legend that covers no data."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.legend import Legend


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is an optional dependency
        raise ImportError("plotting needs matplotlib: pip install 'pyterrier-boot[plots]' "
                          "(or pip install matplotlib)") from None
    return plt


def axes(ax, figsize=(6.4, 4.2)):
    """``ax``, or the Axes of a new figure of ``figsize`` when ``ax`` is None."""
    if ax is None:
        _, ax = _pyplot().subplots(figsize=figsize, constrained_layout=True)
    return ax


def grid(n_rows, n_cols, panel=(2.6, 2.3), sharey=False):
    """A new figure of ``n_rows`` x ``n_cols`` panels of size ``panel``: the 2-D array of its Axes."""
    _, panels = _pyplot().subplots(n_rows, n_cols, figsize=(panel[0] * n_cols + 0.6, panel[1] * n_rows + 0.6),
                                   constrained_layout=True, squeeze=False, sharey=sharey)
    return panels


def legend_below(ax: Axes, **kwargs: Any) -> Legend:
    """``ax``'s legend centred under its x-axis label, clear of the data it could otherwise cover
    (``loc="best"`` lessens the overlap, it does not rule it out); a layout engine makes room."""
    from matplotlib import rcParams
    from matplotlib.font_manager import FontProperties
    from matplotlib.transforms import ScaledTranslation

    def height(key):  # points a line of text of rcParams[key]'s size takes
        return 1.3 * FontProperties(size=rcParams[key]).get_size_in_points()

    drop = (rcParams["xtick.major.size"] + rcParams["xtick.major.pad"] + height("xtick.labelsize")
            + rcParams["axes.labelpad"] + height("axes.labelsize"))
    below = ax.transAxes + ScaledTranslation(0, -drop / 72, ax.figure.dpi_scale_trans)  # points to inches
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=below, **kwargs)
