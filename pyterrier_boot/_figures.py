"""Figure conventions shared by every plot (private): matplotlib imported only when a plot is drawn,
a new figure with constrained layout when no ``ax`` is given."""


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
