"""conftest.py for running PyTerrier's own Experiment tests without Java (see test_pyterrier_suite.py).

Copied as ``conftest.py`` next to PyTerrier's ``tests/`` package. It replaces what needs Terrier
by stand-ins on the same Vaswani fixture: ``pt.IndexFactory.of`` gives a PISA index of the fixture's
documents, ``pt.terrier.Retriever(index, wmodel=...)`` the PISA retriever of that weighting model
(named ``TerrierRetr(<wmodel>)`` as Terrier's), and ``pt.get_dataset("vaswani")`` reads the
fixture's topics and qrels. With ``PTB_EXPERIMENT=boot`` ``pt.Experiment`` is
``pyterrier_boot.Experiment``.
"""
import os
import re
from pathlib import Path

import pyterrier as pt

FIXTURE = Path(__file__).parent / "fixtures" / "vaswani_npl"
INDEX = Path(os.environ["PTB_PISA_INDEX"])
_models = {"BM25": "bm25", "DPH": "dph", "PL2": "pl2", "DIRICHLETLM": "qld"}


def _documents():
    text = (FIXTURE / "corpus" / "doc-text.trec").read_text()
    for match in re.finditer(r"<DOCNO>\s*(\S+?)\s*</DOCNO>(.*?)</DOC>", text, re.S):
        yield {"docno": match.group(1), "text": match.group(2).strip()}


def _index():
    from pyterrier_pisa import PisaIndex

    index = PisaIndex(str(INDEX), stemmer="porter2")
    if not index.built():
        index.index(_documents())
    return index


class TerrierStandIn(pt.Transformer):
    """A PISA retriever standing in for ``pt.terrier.Retriever(index, wmodel=...)``."""

    def __init__(self, index, wmodel="DPH", num_results=1000, **kwargs):
        self.wmodel = wmodel
        self.num_results = num_results
        self._retriever = getattr(_index(), _models[wmodel.upper()])(num_results=num_results)

    def transform(self, topics):
        return self._retriever.transform(topics)

    def transform_outputs(self, input_columns):
        return list(input_columns) + ["docno", "docid", "score", "rank"]

    def __repr__(self):
        return f"TerrierRetr({self.wmodel})"

    def __eq__(self, other):
        return isinstance(other, TerrierStandIn) and (self.wmodel, self.num_results) == (other.wmodel, other.num_results)

    def __hash__(self):
        return hash((self.wmodel, self.num_results))


class FixtureDataset:
    def get_topics(self, variant=None):
        return pt.io.read_topics(str(FIXTURE / "query-text.trec"))

    def get_qrels(self, variant=None):
        return pt.io.read_qrels(str(FIXTURE / "qrels"))


_get_dataset = pt.get_dataset


def _dataset(name, *args, **kwargs):
    return FixtureDataset() if name == "vaswani" else _get_dataset(name, *args, **kwargs)


class _IndexFactory:
    @staticmethod
    def of(location, *args, **kwargs):
        return _index()


pt.java.started = lambda: True
pt.java.init = lambda *args, **kwargs: None
pt.java.set_log_level = lambda *args, **kwargs: None
pt.IndexFactory = _IndexFactory
pt.terrier.Retriever = TerrierStandIn
pt.get_dataset = pt.datasets.get_dataset = _dataset
if os.environ.get("PTB_EXPERIMENT") == "boot":
    import pyterrier_boot

    pt.Experiment = pyterrier_boot.Experiment
