"""The examples in the meta-evaluation docstrings run and print what they claim; the docs page
covers every public name."""
import doctest
import importlib
from pathlib import Path

import pytest

import pyterrier_boot

MODULES = ["discriminative_power", "swap", "stability", "rank_correlation", "topic_set_size",
           "meta_analysis", "variance_decomposition", "user_variance", "pooling", "corpus_stability",
           "corpus_variance", "corpus_meta_analysis"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"pyterrier_boot.meta.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0


def test_docs_page_mentions_every_public_function():
    page = (Path(pyterrier_boot.__file__).parent / "pt_docs" / "meta_evaluation.md").read_text()
    for name in ["discriminative_power", "swap_method", "stability_method", "kendall_tau", "tau_ap",
                 "rank_correlations", "topic_set_size", "meta_analysis", "logit_difference",
                 "variance_decomposition", "user_variance", "pool", "plot_asl_curves", "plot_forest",
                 "corpus_stability", "shallow_pool_comparison", "plot_pool_pvalues", "plot_pool_differences",
                 "corpus_variance_decomposition", "corpus_replicates", "corpus_meta_analysis",
                 "corpus_topic_effects"]:
        assert f"{name}(" in page, name
