"""CorpusImage and CorpusSplit in PyTerrier pipelines, and their function twins."""
import hashlib

import ir_measures
import numpy as np
import pandas as pd
import pytest

from pyterrier_boot import (
    CorpusBootstrap,
    CorpusImage,
    CorpusSplit,
    corpus_image,
    corpus_image_qrels,
    corpus_split,
)
from pyterrier_boot.measures.materialisation import image_qrels, image_run

pt = pytest.importorskip("pyterrier")


def collection(seed=2, n_topics=5, n_docs=50):
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in range(1, n_topics + 1)]
    docs = [f"doc-{i}" for i in range(n_docs)]
    qrels = pd.DataFrame([(q, d, int(rng.random() < 0.3) * int(rng.integers(1, 3))) for q in qids for d in docs[::2]],
                         columns=["qid", "docno", "label"])
    rows = []
    for q in qids:
        score = rng.normal(size=n_docs)
        for r, d in enumerate(np.argsort(-score)[:20]):
            rows.append((q, f"query {q}", docs[d], r, float(score[d])))
    results = pd.DataFrame(rows, columns=["qid", "query", "docno", "rank", "score"])
    topics = pd.DataFrame({"qid": qids, "query": [f"query {q}" for q in qids]})
    return results, topics, qrels


def test_pipeline_gives_the_image_run():
    results, topics, _ = collection()
    pipeline = pt.Transformer.from_df(results) >> CorpusImage(3, rng=42)
    out = pipeline.transform(topics)
    docnos = results["docno"].unique()
    mapping = pd.Series(CorpusImage(3, rng=42).multiplicities(docnos), index=docnos)
    expected = image_run(results, mapping)
    pd.testing.assert_frame_equal(out.reset_index(drop=True), expected)
    pd.testing.assert_frame_equal(corpus_image(results, 3, rng=42), expected)  # the function twin
    assert {"query", "source_docno"} <= set(out.columns)
    assert out.groupby("qid")["score"].apply(lambda s: s.is_monotonic_decreasing).all()


def test_pt_experiment_on_an_image_equals_the_bootstrap():
    results, topics, qrels = collection()
    system = pt.Transformer.from_df(results)
    measures = ["AP", "nDCG@10", "P@5", "RR", "R@10"]
    res = CorpusBootstrap(qrels, n_images=6, rng=42, verbose=False).evaluate({"s": results}, measures)
    img = CorpusImage(4, rng=42)
    table = pt.Experiment([system >> img], topics, img.qrels(qrels),
                          eval_metrics=[ir_measures.parse_measure(m) for m in measures], perquery=True)
    pivot = table.pivot(index="qid", columns="measure", values="value").reindex(list(res.qids)).fillna(0.0)
    np.testing.assert_allclose(pivot[measures].to_numpy(), res.bootstrap_distribution[4, 0], atol=1e-12)
    pd.testing.assert_frame_equal(corpus_image_qrels(qrels, 4, rng=42), img.qrels(qrels))
    mapping = pd.Series(img.multiplicities(qrels["docno"].unique()), index=qrels["docno"].unique())
    pd.testing.assert_frame_equal(img.qrels(qrels), image_qrels(qrels, mapping))


def test_constructor_arguments_are_attributes():
    img = CorpusImage(3, rng=42)
    attributes = {a.name: a.value for a in pt.inspect.transformer_attributes(img)}
    assert attributes == {"image": 3, "rng": 42, "model": "poisson", "corpus_size": None, "documents": None}
    assert repr(img) == "CorpusImage(3, rng=42)"
    split = CorpusSplit("B")
    assert {a.name: a.value for a in pt.inspect.transformer_attributes(split)} == {"half": "B", "salt": None}
    assert repr(split) == "CorpusSplit('B')"
    salted = CorpusSplit("A", salt=7)
    assert {a.name: a.value for a in pt.inspect.transformer_attributes(salted)} == {"half": "A", "salt": 7}
    assert repr(salted) == "CorpusSplit('A', salt=7)"


def test_a_generator_is_consumed_once_at_construction():
    generator = np.random.default_rng(42)
    img = CorpusImage(2, rng=generator)
    assert img.key == CorpusImage(2, rng=42).key
    results, _, qrels = collection()
    pd.testing.assert_frame_equal(img.transform(results), img.transform(results))  # same key every time


def md5_half(docno):
    return "A" if hashlib.md5(docno.encode("utf-8")).digest()[-1] % 2 == 0 else "B"


def test_corpus_split_halves():
    results, topics, qrels = collection()
    a = (pt.Transformer.from_df(results) >> CorpusSplit("A")).transform(topics)
    b = CorpusSplit("B").transform(results)
    assert set(a.docno).isdisjoint(b.docno)
    assert len(a) + len(b) == len(results)
    assert all(md5_half(d) == "A" for d in a.docno) and all(md5_half(d) == "B" for d in b.docno)
    for frame in (a, b):  # ranks recomputed within each topic, order kept
        assert (frame.groupby("qid")["rank"].apply(lambda r: list(r) == list(range(len(r))))).all()
    qa, qb = corpus_split(qrels, "A"), corpus_split(qrels, "B")
    assert len(qa) + len(qb) == len(qrels) and all(md5_half(d) == "A" for d in qa.docno)
    many = pd.DataFrame({"docno": [f"LA{i:06d}" for i in range(4000)]})
    assert abs(len(corpus_split(many, "A")) - 2000) < 4 * np.sqrt(1000)  # halves of about equal size


@pytest.mark.slow  # 4 s: the splits checked against a pure-Python hash of many docnos
def test_salted_splits_are_other_random_halves():
    """A salt gives another split: reproducible, a partition, about half the documents, independent
    of the MD5 split and of other salts (agreement with them near 50%), and the bit defined in
    corpus.split: the lowest bit of splitmix64(FNV-1a(docno) ^ splitmix64(salt ^ c))."""
    from pyterrier_boot.corpus.multiplicity import _SPLIT_SALT, finalise_reference, fnv1a_reference

    docnos = [f"LA{i:06d}" for i in range(4000)]
    many = pd.DataFrame({"docno": docnos, "qid": "1", "rank": np.arange(4000)})
    a7, b7 = corpus_split(many, "A", salt=7), corpus_split(many, "B", salt=7)
    assert len(a7) + len(b7) == 4000 and set(a7.docno).isdisjoint(b7.docno)
    assert abs(len(a7) - 2000) < 4 * np.sqrt(1000)
    assert list(a7["rank"]) == list(range(len(a7)))
    pd.testing.assert_frame_equal(CorpusSplit("A", salt=7).transform(many.assign(score=0.0)),
                                  corpus_split(many.assign(score=0.0), "A", salt=7))
    in_md5 = set(corpus_split(many, "A").docno)
    in_8 = set(corpus_split(many, "A", salt=8).docno)
    for other in (in_md5, in_8):
        agree = sum((d in other) == (d in set(a7.docno)) for d in docnos) / 4000
        assert abs(agree - 0.5) < 4 * np.sqrt(0.25 / 4000)
    key = finalise_reference(7 ^ _SPLIT_SALT)
    for d in docnos[:50]:
        bit = finalise_reference(fnv1a_reference(d) ^ key) & 1
        assert (d in set(a7.docno)) == (bit == 0)
    with pytest.raises(ValueError, match=r"'salt' must be a non-negative integer or None, got -1"):
        corpus_split(many, "A", salt=-1)
    with pytest.raises(TypeError, match=r"'salt' must be a non-negative integer or None, got str"):
        CorpusSplit("A", salt="x")


def test_bad_transformer_arguments():
    with pytest.raises(ValueError, match=r"'half' must be one of 'A', 'B'; got 'C'"):
        CorpusSplit("C")
    with pytest.raises(ValueError, match=r"'image' must be a non-negative integer \(the image index\), got -1"):
        CorpusImage(-1, rng=1)
    with pytest.raises(TypeError, match=r"missing 1 required keyword-only argument: 'rng'"):
        CorpusImage(1)
    with pytest.raises(ValueError, match=r"'model' must be one of 'poisson', 'multinomial'; got 'x'"):
        CorpusImage(1, rng=1, model="x")
    with pytest.raises(ValueError, match=r"model='multinomial' needs corpus_size=\.\.\."):
        CorpusImage(1, rng=1, model="multinomial")
    with pytest.raises(ValueError, match=r"model='multinomial' draws the counts of a fixed set of documents jointly: "
                                         r"pass documents=\.\.\."):
        CorpusImage(1, rng=1, model="multinomial", corpus_size=100)
    img = CorpusImage(1, rng=1, model="multinomial", corpus_size=100, documents=["a", "b"])
    with pytest.raises(ValueError, match=r"1 docno\(s\) are not among 'documents', e.g. 'c'"):
        img.multiplicities(["a", "c"])
    with pytest.raises(ValueError, match=r"'frame' needs a 'docno' column to be split"):
        corpus_split(pd.DataFrame({"qid": ["1"]}), "A")


@pytest.mark.integration
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame:DeprecationWarning")  # pyterrier 1.1 on pandas 3.1
@pytest.mark.filterwarnings(r"ignore:\d+ topic\(s\) not found in qrels:UserWarning")  # pt.Experiment on an image
def test_pisa_bm25_on_vaswani_image(irds_home, tmp_path):
    pisa = pytest.importorskip("pyterrier_pisa")
    dataset = pt.get_dataset("irds:vaswani")
    index = pisa.PisaIndex(str(tmp_path / "vaswani.pisa"), text_field="text", threads=1)
    index.index(dataset.get_corpus_iter(verbose=False))
    bm25 = index.bm25(num_results=100)
    topics, qrels = dataset.get_topics(), dataset.get_qrels()
    boot = CorpusBootstrap("irds:vaswani", n_images=5, rng=7, verbose=False)
    res = boot.evaluate({"BM25": bm25}, ["AP", "nDCG@10", "P@10"], topics=topics)
    img = CorpusImage(2, rng=7)
    # any ir_measures measure on the image, including one without a kernel (infAP)
    metrics = [ir_measures.parse_measure(m) for m in ["AP", "nDCG@10", "P@10", "infAP"]]
    table = pt.Experiment([bm25 >> img], topics, img.qrels(qrels), eval_metrics=metrics, perquery=True)
    raw = table.pivot(index="qid", columns="measure", values="value").reindex(list(res.qids))
    pivot = raw.fillna(0.0)  # a topic whose judged documents all vanished from the image scores 0
    np.testing.assert_allclose(pivot[["AP", "nDCG@10", "P@10"]].to_numpy(), res.bootstrap_distribution[2, 0],
                               atol=1e-12)
    assert raw["infAP"].notna().sum() >= 90 and raw["infAP"].between(0, 1).sum() >= 90
