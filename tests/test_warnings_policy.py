"""The test suite's warning policy: a default run prints no warning of ours that a test did not ask for.

pyproject.toml's ``filterwarnings`` turns every pyterrier_boot warning into an error, so a test that
triggers one must assert it (``pytest.warns``) or filter it by its message
(``@pytest.mark.filterwarnings("ignore:<message start>:pyterrier_boot.BootWarning")``); nothing is
ignored suite-wide, so warnings from new code are seen."""
import warnings

import pytest

import pyterrier_boot as ptb


def test_an_unasserted_warning_of_ours_fails_its_test():
    for category in (ptb.BootWarning, ptb.InputWarning, ptb.DegenerateWarning, ptb.FallbackWarning, ptb.FitWarning):
        with pytest.raises(category, match="not asked for"):
            warnings.warn(category("not asked for"), stacklevel=1)


def test_asserted_and_filtered_warnings_pass():
    with pytest.warns(ptb.InputWarning, match="asked for"):
        warnings.warn(ptb.InputWarning("asked for"), stacklevel=1)


@pytest.mark.filterwarnings("ignore:filtered by its message:pyterrier_boot.BootWarning")
def test_a_filtered_warning_passes():
    warnings.warn(ptb.BootWarning("filtered by its message"), stacklevel=1)
    with pytest.raises(ptb.BootWarning):
        warnings.warn(ptb.BootWarning("any other message"), stacklevel=1)


def test_nothing_is_ignored_suite_wide(pytestconfig):
    filters = pytestconfig.getini("filterwarnings")
    assert "error::pyterrier_boot.BootWarning" in filters
    assert not [f for f in filters if not f.startswith("error")], filters
