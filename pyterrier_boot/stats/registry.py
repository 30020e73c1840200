"""The significance tests by name: one table used by ``compare``, ``discriminative_power``,
``Experiment``, the command line and the report.

Each entry says how the test is spelt (its name and the aliases accepted), how it is called in
text, its vectorised core over a (pairs, topics) matrix of differences, the single-pair function,
the resampling plan it draws (if any) and the confidence interval it inverts, so a table that shows
the test's verdict beside an interval shows the interval that matches it.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SignificanceTest", "TESTS", "PAIRED", "get_test", "test_label", "spellings"]


@dataclass(frozen=True)
class SignificanceTest:
    """One test of the registry.

    Attributes:
        name: the canonical name (``"paired_bootstrap"``).
        label: how the test is called in text (``"paired bootstrap test"``).
        function_name: the public single-pair function of :mod:`.significance`
            (``"paired_bootstrap_test"``); ``function`` is that function.
        core_name: its vectorised core on differences ``D`` (pairs x topics), or None for tests that
            do not work on paired differences (the unpaired bootstrap); ``core`` is that function.
        plan: the resampling plan the core takes: ``"resample"`` (:class:`ResamplePlan`),
            ``"sign_flip"`` (:class:`SignFlipPlan`) or None.
        interval: the confidence interval the test inverts.
        aliases: other accepted spellings.
    """

    name: str
    label: str
    function_name: str
    core_name: str | None
    plan: str | None
    interval: str
    aliases: tuple[str, ...] = ()

    @property
    def function(self) -> Callable:
        return getattr(_significance(), self.function_name)

    @property
    def core(self) -> Callable | None:
        return None if self.core_name is None else getattr(_significance(), self.core_name)

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name,) + self.aliases


TESTS: dict[str, SignificanceTest] = {test.name: test for test in (
    SignificanceTest("paired_bootstrap", "paired bootstrap test", "paired_bootstrap_test", "paired_bootstrap_core",
                     "resample", "symmetric bootstrap-t interval of the mean difference",
                     aliases=("paired-bootstrap",)),
    SignificanceTest("unpaired_bootstrap", "unpaired bootstrap test", "unpaired_bootstrap_test", None,
                     None, "percentile interval of the difference, x and y resampled separately",
                     aliases=("unpaired-bootstrap",)),
    SignificanceTest("randomization", "randomization test", "randomization_test", "randomization_core",
                     "sign_flip", "shifts of the mean difference not rejected by the same sign flips"),
    SignificanceTest("t", "paired t-test", "t_test", "t_core", None, "t interval of the mean difference"),
    SignificanceTest("wilcoxon", "Wilcoxon signed-rank test", "wilcoxon_test", "wilcoxon_core", None,
                     "Hodges-Lehmann interval"),
    SignificanceTest("sign", "sign test", "sign_test", "sign_core", None,
                     "order-statistic interval of the median difference"),
)}

#: the tests of paired differences (those ``compare`` and ``Experiment`` run), in registry order
PAIRED: tuple[str, ...] = tuple(name for name, test in TESTS.items() if test.core_name is not None)

def _significance():
    # imported when a test is run, so reading names (the command line's choices) stays light
    return importlib.import_module(".significance", __package__)


_ALIASES = {alias: test.name for test in TESTS.values() for alias in test.aliases}


def canonical(test: object) -> object:
    """The canonical name of a test given by name or alias (``"paired-bootstrap"`` ->
    ``"paired_bootstrap"``); anything else (an unknown name, a callable) is returned as is."""
    return _ALIASES.get(test, test) if isinstance(test, str) else test


def get_test(test: str, *, allowed: tuple[str, ...] = tuple(TESTS), name: str = "test") -> SignificanceTest:
    """The registry entry of ``test`` (a name or alias), if it is one of ``allowed``; else a
    ValueError naming the argument and listing the allowed names."""
    key = canonical(test)
    if not isinstance(key, str) or key not in allowed:
        listed = ", ".join(repr(c) for c in allowed)
        raise ValueError(f"{name!r} must be one of {listed}; got {test!r}")
    return TESTS[key]


def spellings(allowed: tuple[str, ...] = PAIRED) -> dict[str, str]:
    """Every accepted spelling of the ``allowed`` tests, mapped to the canonical name."""
    return {spelling: name for name in allowed for spelling in TESTS[name].spellings}


def test_label(test: object) -> str:
    """How a test is called in text (``"t"`` -> ``"paired t-test"``); a callable by its name."""
    if isinstance(test, str):
        key = canonical(test)
        return TESTS[key].label if key in TESTS else test
    return getattr(test, "__name__", "custom test")
