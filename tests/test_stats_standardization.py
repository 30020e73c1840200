"""Score standardisation (Webber et al.; Park §5) and the portable report (Park §6)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import ndtr

from pyterrier_boot._warnings import DegenerateWarning
from pyterrier_boot.stats.standardization import portable_report, standardize


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    # systems as rows, as the index's name says (a frame without it has one row per topic)
    return pd.DataFrame(rng.random((6, 12)), index=pd.Index([f"run{i}" for i in range(6)], name="name"),
                        columns=[f"q{i}" for i in range(12)])


def test_formula(frame):
    x = frame.to_numpy()
    z = standardize(frame)
    expected = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
    np.testing.assert_allclose(z.to_numpy(), expected, rtol=1e-12)
    assert list(z.index) == list(frame.index) and list(z.columns) == list(frame.columns)
    np.testing.assert_allclose(standardize(frame, cdf=True).to_numpy(), ndtr(expected), rtol=1e-12)


def test_reference_by_label_position_or_matrix(frame):
    x = frame.to_numpy()
    ref = x[[1, 3, 4]]
    expected = (x - ref.mean(axis=0)) / ref.std(axis=0, ddof=1)
    np.testing.assert_allclose(standardize(frame, ["run1", "run3", "run4"]).to_numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(standardize(x, [1, 3, 4]), expected, rtol=1e-12)
    np.testing.assert_allclose(standardize(x, ref), expected, rtol=1e-12)
    shuffled = frame.iloc[[1, 3, 4]][list(reversed(frame.columns))]
    np.testing.assert_allclose(standardize(frame, shuffled).to_numpy(), expected, rtol=1e-12)


def test_flat_topics_warn_and_get_zero(frame):
    frame = frame.copy()
    frame["q3"] = 0.0
    with pytest.warns(DegenerateWarning, match=r"the reference systems all score the same on 1 topic\(s\) \['q3'\]"):
        z = standardize(frame)
    assert (z["q3"] == 0).all()


def test_portable_report(frame):
    report = portable_report(frame, ["run0", "run1", "run2", "run3", "run4"], confidence_level=0.9)
    x = frame.to_numpy()
    ref = x[:5]
    z = (x - ref.mean(axis=0)) / ref.std(axis=0, ddof=1)
    ci = stats.ttest_1samp(z, 0, axis=1).confidence_interval(0.9)
    np.testing.assert_allclose(report["z_ci_low"], ci.low, rtol=1e-12)
    np.testing.assert_allclose(report["z_mean"], z.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(report["mean"], x.mean(axis=1), rtol=1e-12)
    assert (report["n_topics"] == 12).all()
    assert report["standardized_by"].iloc[0] == "run0, run1, run2, run3, run4"


def test_bad_references(frame):
    with pytest.raises(ValueError, match="'reference_systems' entry 'bm25' is neither a system label nor a row position"):
        standardize(frame, ["bm25", "run1"])
    with pytest.raises(ValueError, match="'reference_systems' must hold at least 2 systems"):
        standardize(frame, ["run1"])
    with pytest.raises(ValueError, match="'reference_systems' has 3 topics, 'scores' has 12"):
        standardize(frame.to_numpy(), np.ones((2, 3)))


def test_a_frame_of_topics_by_systems_comes_back_in_its_layout(frame):
    """A frame with one row per topic and one column per system (no axis names) is standardised
    per topic over its columns, and returned in its own layout."""
    wide = frame.T.rename_axis(index=None, columns=None)
    np.testing.assert_allclose(standardize(wide).to_numpy(), standardize(frame).to_numpy().T, rtol=1e-12)
    assert list(standardize(wide, ["run1", "run2"]).columns) == list(frame.index)
