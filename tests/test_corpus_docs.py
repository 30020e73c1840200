"""The examples in the corpus-bootstrap docstrings run and print what they claim."""
import doctest
import importlib

import pytest

MODULES = ["multiplicity", "intervals", "small_r", "split", "transformers", "validation"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"pyterrier_boot.corpus.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0
