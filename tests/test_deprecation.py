"""Renamed keywords and the keyword-only ``ax`` keep the old calls working, with a DeprecationWarning."""
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from pyterrier_boot.meta.user_variance import user_variance

from pyterrier_boot._deprecation import keyword_only, renamed_keywords
from pyterrier_boot.corpus.intervals import image_interval

QRELS = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1, 1]})
RUNS = {n: pd.DataFrame({"qid": ["1", "1"], "docno": d, "score": [2., 1.]})
        for n, d in (("r1", ["a", "b"]), ("r2", ["x", "a"]))}


def test_old_keyword_warns_and_gives_the_new_keywords_result():
    new = user_variance(RUNS, QRELS, "RBP(p={p})", scipy.stats.beta(4, 2), n_users=20, rng=0)
    with pytest.warns(DeprecationWarning, match="'n_draws' is deprecated; use 'n_users'"):
        old = user_variance(RUNS, QRELS, "RBP(p={p})", scipy.stats.beta(4, 2), n_draws=20, rng=0)
    np.testing.assert_array_equal(old.parameters, new.parameters)
    np.testing.assert_array_equal(old.distribution, new.distribution)


def test_epsilon_is_eps():
    rng = np.random.default_rng(1)
    dist = rng.beta(1, 30, (200, 3))
    theta = dist.mean(axis=0)
    new = image_interval(theta, dist, method="logit", eps=1e-3)
    with pytest.warns(DeprecationWarning, match="'epsilon' is deprecated; use 'eps'"):
        old = image_interval(theta, dist, method="logit", epsilon=1e-3)
    np.testing.assert_array_equal(old, new)
    assert not np.array_equal(new, image_interval(theta, dist, method="logit", eps=0.05))


def test_old_and_new_keyword_together_is_an_error():
    with pytest.raises(TypeError, match="both 'eps' and its deprecated name 'epsilon'"):
        image_interval(np.zeros(2), np.zeros((5, 2)), method="logit", eps=1e-3, epsilon=1e-3)


def test_new_keyword_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        user_variance(RUNS, QRELS, "RBP(p={p})", scipy.stats.beta(4, 2), n_users=5, rng=0)


def test_keyword_only_maps_positionals_in_order_and_warns():
    @keyword_only("ax", "title")
    def plot(result, *, ax=None, title=None):
        return result, ax, title

    assert plot(1, ax=2) == (1, 2, None)
    with pytest.warns(DeprecationWarning, match=r"passing ax positionally is deprecated; pass ax=\.\.\."):
        assert plot(1, 2) == (1, 2, None)
    with pytest.warns(DeprecationWarning, match="passing ax, title positionally"):
        assert plot(1, 2, 3) == (1, 2, 3)
    with pytest.raises(TypeError, match="takes 1 positional arguments but 4 were given"):
        plot(1, 2, 3, 4)
    with pytest.raises(TypeError, match="multiple values for argument .ax."):
        plot(1, 2, ax=3)


def test_renamed_keywords_keeps_the_signature_for_help():
    @renamed_keywords(old="new")
    def f(*, new=1):
        """Doc."""
        return new

    assert f.__doc__ == "Doc." and f.__name__ == "f"
    with pytest.warns(DeprecationWarning):
        assert f(old=5) == 5


def test_plot_methods_take_ax_by_keyword_and_positional_ax_still_works():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pyterrier_boot.meta.meta_analysis import meta_analysis
    from pyterrier_boot.meta.plots import plot_forest

    res = meta_analysis(np.array([0.1, 0.4, -0.2]), np.array([0.2, 0.3, 0.25]))
    _, ax = plt.subplots()
    assert res.plot(ax=ax) is ax
    with pytest.warns(DeprecationWarning, match="plot\\(\\): passing ax positionally"):
        assert res.plot(ax) is ax
    with pytest.warns(DeprecationWarning, match="plot_forest\\(\\): passing ax positionally"):
        assert plot_forest(res, ax) is ax
    plt.close("all")
