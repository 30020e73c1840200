"""The examples in the statistics docstrings run and print what they claim."""
import doctest
import importlib

import pytest

MODULES = ["resampling", "aggregates", "intervals", "standardization", "significance", "correction",
           "tukey", "power", "comparison"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"pyterrier_boot.stats.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0
