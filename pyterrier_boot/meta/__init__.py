"""Meta-evaluation and experimental design: which measure, how many topics, where the variance is.

A functional core on numpy arrays and pandas frames (Sakai 2007; Kanoulas; pt_docs/methods.md, sections 6-9),
in folders by the question they answer:

* ``quality``: which measure is better (discriminative power, swap and stability methods, rank
  correlation);
* ``design``: how to design an experiment (topic-set size and power, variance decomposition, user
  variance);
* ``pools``: how deep to judge (shallow pools of qrels, a comparison over pool depths);
* ``meta_analysis``: fixed/random-effects pooling of per-topic effects (Cormack & Lynam §9);
* ``corpus``: the same questions over corpus-bootstrap images (stability, variance, meta-analysis);
* ``plots``: matplotlib figures of the results (imported lazily).

Import the public names from ``pyterrier_boot`` (loaded lazily) or from these modules. The modules
of the earlier flat layout (``pyterrier_boot.meta.swap``, ``pyterrier_boot.meta.corpus_stability``,
...) still import, as the same module objects.
"""
import importlib
import importlib.abc
import importlib.util
import sys

# earlier module -> where it lives now
MOVED = {
    "discriminative_power": "quality.discriminative_power",
    "swap": "quality.swap",
    "stability": "quality.stability",
    "rank_correlation": "quality.rank_correlation",
    "topic_set_size": "design.topic_set_size",
    "variance_decomposition": "design.variance_decomposition",
    "user_variance": "design.user_variance",
    "pooling": "pools.pooling",
    "shallow_pools": "pools.shallow_pools",
    "corpus_stability": "corpus.stability",
    "corpus_variance": "corpus.variance",
    "corpus_meta_analysis": "corpus.meta_analysis",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``pyterrier_boot.meta.<earlier name>`` as the module where it lives now (one object)."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(f"{__name__}.{MOVED[spec.name.rpartition('.')[2]]}")
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self.own_spec  # the import system gave it the alias's spec; it keeps its own


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name):
    if name in MOVED:  # ``from pyterrier_boot.meta import swap``
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
