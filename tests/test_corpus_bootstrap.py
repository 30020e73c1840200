"""The corpus bootstrap engine: image values against ir_measures on materialised images, determinism,
memory batches and bad input."""
import ir_measures
import numba
import numpy as np
import pandas as pd
import pytest

import pyterrier_boot.corpus.bootstrap as bootstrap_module
from pyterrier_boot import CorpusBootstrap, CorpusImage, evaluate
from pyterrier_boot.measures.materialisation import image_qrels, image_run

MEASURES = ["AP", "AP(rel=2)", "nDCG@10", "P@5", "RR", "RBP(p=0.8, rel=1)", "R@20"]


def collection(seed=0, n_topics=6, n_docs=60, systems=("bm25", "dph", "tfidf")):
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in range(1, n_topics + 1)]
    docs = [f"d{i:03d}" for i in range(n_docs)]
    rows = []
    for q in qids:
        judged = rng.choice(n_docs, size=30, replace=False)
        grades = rng.choice([0, 0, 0, 1, 2], size=30)
        rows += [(q, docs[d], int(g)) for d, g in zip(judged, grades)]
    qrels = pd.DataFrame(rows, columns=["qid", "docno", "label"])
    runs = {}
    for s, name in enumerate(systems):
        out = []
        for q in qids:
            grade = qrels[qrels.qid == q].set_index("docno")["label"].reindex(docs).fillna(0).to_numpy()
            score = grade * (s + 0.5) + rng.normal(0, 1.5, n_docs)
            for r, d in enumerate(np.argsort(-score)[:25]):
                out.append((q, docs[d], float(50 - r)))
        runs[name] = pd.DataFrame(out, columns=["qid", "docno", "score"])
    return runs, qrels


@pytest.fixture(scope="module")
def small():
    runs, qrels = collection()
    boot = CorpusBootstrap(qrels, n_images=8, rng=42, verbose=False)
    return runs, qrels, boot, boot.evaluate(runs, MEASURES)


def ir_measures_values(run, qrels, measures, qids):
    """Per-topic values by ir_measures (topics it omits score 0), [topic, measure]."""
    parsed = [ir_measures.parse_measure(m) for m in measures]
    ir_run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    ir_qrels = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    out = np.zeros((len(qids), len(parsed)))
    for metric in ir_measures.iter_calc(parsed, ir_qrels[["query_id", "doc_id", "relevance"]], ir_run):
        if metric.query_id in qids:
            out[qids.index(metric.query_id), parsed.index(metric.measure)] = metric.value
    return out


@pytest.mark.parametrize("image", [0, 5])
def test_image_values_equal_ir_measures_on_the_materialised_image(small, image):
    runs, qrels, _, res = small
    img = CorpusImage(image, rng=42)  # the same image, drawn independently of the bootstrap
    image_qrels_frame = img.qrels(qrels)
    for s, name in enumerate(res.systems):
        expected = ir_measures_values(img.transform(runs[name]), image_qrels_frame, MEASURES, list(res.qids))
        np.testing.assert_allclose(res.bootstrap_distribution[image, s], expected, rtol=1e-12, atol=1e-12)


def test_full_corpus_values_equal_ir_measures(small):
    runs, qrels, _, res = small
    for s, name in enumerate(res.systems):
        expected = ir_measures_values(runs[name], qrels, MEASURES, list(res.qids))
        np.testing.assert_allclose(res.statistic[s], expected, rtol=1e-12, atol=1e-12)


def test_corpus_image_reproduces_the_bootstrap_multiplicities(small):
    runs, qrels, boot, res = small
    docnos = res.documents
    k = boot.multiplicities(docnos)
    assert k.shape == (8, len(docnos))
    assert np.array_equal(CorpusImage(3, rng=42).multiplicities(docnos), k[3])
    # and image 3's values are those of the engine's public evaluate() on that multiplicity
    mapping = pd.Series(k[3], index=docnos)
    values = evaluate(runs, qrels, MEASURES, multiplicity=mapping)
    np.testing.assert_allclose(values["value"].to_numpy(), res.bootstrap_distribution[3].reshape(-1))
    # which is the materialised image
    run = image_run(runs["dph"], mapping)
    assert run["docno"].str.contains("#").any() or (k[3] <= 1).all()
    assert len(image_qrels(qrels, mapping)) == int((mapping.reindex(qrels.docno).to_numpy()).sum())


def test_deterministic_whatever_batch_threads_order_and_other_runs(small, monkeypatch):
    runs, qrels, _, res = small
    again = CorpusBootstrap(qrels, n_images=8, rng=42, verbose=False).evaluate(runs, MEASURES)
    assert np.array_equal(again.bootstrap_distribution, res.bootstrap_distribution)
    assert np.array_equal(again.jackknife_distribution, res.jackknife_distribution)

    monkeypatch.setattr(bootstrap_module, "MAX_BATCH", 3)
    batched = CorpusBootstrap(qrels, n_images=8, rng=42, verbose=False).evaluate(runs, MEASURES)
    assert np.array_equal(batched.bootstrap_distribution, res.bootstrap_distribution)
    monkeypatch.undo()

    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = CorpusBootstrap(qrels, n_images=8, rng=42, verbose=False).evaluate(runs, MEASURES)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(single.bootstrap_distribution, res.bootstrap_distribution)

    reordered = CorpusBootstrap(qrels, n_images=8, rng=42, verbose=False).evaluate(
        {name: runs[name] for name in reversed(list(runs))}, MEASURES)
    order = [reordered.systems.index(s) for s in res.systems]
    assert np.array_equal(reordered.bootstrap_distribution[:, order], res.bootstrap_distribution)

    # with Poisson images a run's values do not depend on which other runs are evaluated
    alone = CorpusBootstrap(qrels, n_images=8, rng=42, verbose=False).evaluate({"dph": runs["dph"]}, MEASURES)
    s = res.systems.index("dph")
    assert np.array_equal(alone.bootstrap_distribution[:, 0], res.bootstrap_distribution[:, s])

    # a Generator seeded with 42 gives the same images as the seed 42
    generator = CorpusBootstrap(qrels, n_images=8, rng=np.random.default_rng(42), verbose=False)
    assert np.array_equal(generator.keys, CorpusBootstrap(qrels, n_images=8, rng=42, verbose=False).keys)


def test_more_images_extend_fewer(small):
    runs, qrels, _, res = small
    fewer = CorpusBootstrap(qrels, n_images=3, rng=42, verbose=False).evaluate(runs, MEASURES)
    assert np.array_equal(fewer.bootstrap_distribution, res.bootstrap_distribution[:3])


def test_vanished_relevant_documents_score_zero():
    qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "label": [1, 0, 1]})
    run = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    res = CorpusBootstrap(qrels, n_images=200, rng=1, verbose=False).evaluate({"r": run}, ["AP", "nDCG"])
    k = CorpusBootstrap(qrels, n_images=200, rng=1, verbose=False).multiplicities(res.documents)
    gone = k[:, list(res.documents).index("a")] == 0
    assert gone.any() and (~gone).any()
    assert np.all(res.bootstrap_distribution[gone, 0, 0] == 0)
    assert np.all(res.bootstrap_distribution[~gone, 0, 0] == 1)  # copies of 'a' fill the top ranks


def test_multinomial_images(small):
    runs, qrels, _, _ = small
    boot = CorpusBootstrap(qrels, n_images=6, model="multinomial", corpus_size=500, rng=3, verbose=False)
    res = boot.evaluate(runs, ["AP", "P@5"])
    assert res.model == "multinomial" and res.corpus_size == 500
    k = boot.multiplicities(res.documents)
    key = boot.keys[2]
    reference = np.random.Generator(np.random.PCG64(int(key))).multinomial(
        500, [1 / 500] * len(res.documents) + [1 - len(res.documents) / 500])[:-1]
    assert np.array_equal(k[2], reference)
    img = CorpusImage(2, rng=3, model="multinomial", corpus_size=500, documents=res.documents)
    assert np.array_equal(img.multiplicities(res.documents), k[2])
    for s, name in enumerate(res.systems):
        expected = ir_measures_values(img.transform(runs[name]), img.qrels(qrels), ["AP", "P@5"], list(res.qids))
        np.testing.assert_allclose(res.bootstrap_distribution[2, s], expected, atol=1e-12)


def test_memory_bound_and_batches(small):
    runs, qrels, _, _ = small
    boot = CorpusBootstrap(qrels, n_images=8, rng=42, verbose=False, max_memory=10_000)
    with pytest.raises(ValueError, match=r"the image distribution \[8 images x \d+ \(system, topic, measure\) cells\] "
                                         r"needs .* MiB \(float64\) plus .* MiB per image evaluated, more than "
                                         r"max_memory=10000 bytes: use fewer images"):
        boot.evaluate(runs, MEASURES)
    cells, docs = 3 * 6 * len(MEASURES), 60
    exact = (8 + 20) * cells * 8 + 2 * (4 * docs + 16 * cells)
    assert CorpusBootstrap(qrels, n_images=8, rng=1, verbose=False, max_memory=exact)._plan(docs, cells) == 2


def test_progress_bar_only_when_verbose(small, capsys):
    runs, qrels, _, _ = small
    CorpusBootstrap(qrels, n_images=2, rng=1, verbose=True).evaluate(runs, ["AP"])
    assert "corpus bootstrap" in capsys.readouterr().err
    CorpusBootstrap(qrels, n_images=2, rng=1, verbose=False).evaluate(runs, ["AP"])
    assert "corpus bootstrap" not in capsys.readouterr().err


# ---------------------------------------------------------------- bad input


def test_bad_input_messages(small):
    runs, qrels, _, _ = small
    with pytest.raises(ValueError, match=r"'model' must be one of 'poisson', 'multinomial'; got 'binomial'"):
        CorpusBootstrap(qrels, model="binomial")
    with pytest.raises(ValueError, match=r"model='multinomial' needs the number of documents in the collection: "
                                         r"pass corpus_size=\.\.\., or qrels from ir_datasets"):
        CorpusBootstrap(qrels, model="multinomial")
    with pytest.raises(ValueError, match=r"'n_images' must be an integer >= 2, got 1"):
        CorpusBootstrap(qrels, n_images=1)
    with pytest.raises(TypeError, match=r"'n_images' must be an integer >= 2, got float"):
        CorpusBootstrap(qrels, n_images=10.0)
    with pytest.raises(ValueError, match=r"'corpus_size' must be a positive integer or None, got 0"):
        CorpusBootstrap(qrels, corpus_size=0)
    with pytest.raises(TypeError, match=r"'verbose' must be True or False, got str"):
        CorpusBootstrap(qrels, verbose="yes")
    boot = CorpusBootstrap(qrels, n_images=2, model="multinomial", corpus_size=50, verbose=False)
    with pytest.raises(ValueError, match=r"corpus_size \(50\) is smaller than the number of distinct documents "
                                         r"retrieved or judged \(60\): the corpus must contain every document seen"):
        boot.evaluate(runs, ["AP"])
    with pytest.raises(ValueError, match=r"'NumRet' is summed over topics, not averaged, so a corpus-bootstrap "
                                         r"interval of a mean would be meaningless"):
        CorpusBootstrap(qrels, n_images=2, verbose=False).evaluate(runs, ["AP", "NumRet"])


@pytest.mark.parametrize("model", ["poisson", "multinomial"])
def test_one_seed_draws_the_same_images_in_every_door(tmp_path, model):
    """Issue 33: CorpusBootstrap(rng=s), Experiment(bootstrap="corpus", rng=s), experiment_result,
    leaderboard and the command line draw the same corpus images and give the same intervals (the
    Experiment took a child stream of the seed)."""
    import warnings

    from conftest import small_collection, write_trec

    import pyterrier_boot as ptb
    from pyterrier_boot.cli import main

    runs, qrels = small_collection(n_topics=8, systems="abc")
    options = dict(n_resamples=60, rng=5, model=model, corpus_size=5000)
    boot = ptb.CorpusBootstrap(qrels, n_images=60, rng=5, model=model, corpus_size=5000, verbose=False)
    images = boot.evaluate(runs, ["AP"]).bootstrap_distribution
    alone = boot.evaluate(runs, ["AP"]).per_system(method="normal").set_index("name")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ptb.experiment_result(runs, None, qrels, ["AP"], bootstrap="corpus", **options)
        table = ptb.Experiment(list(runs.values()), None, qrels, ["AP"], names=list(runs), bootstrap="corpus",
                               **options).set_index("name")
        board = ptb.leaderboard(runs, qrels, ["AP"], bootstrap="corpus", **options)
    np.testing.assert_array_equal(result.corpus.bootstrap_distribution, images)
    np.testing.assert_array_equal(board.result.corpus.bootstrap_distribution, images)
    folder = write_trec(runs, qrels, tmp_path / "data")
    assert main(["evaluate", "-q", str(folder / "qrels.txt"), str(folder / "runs"), "-m", "AP", "--bootstrap",
                 "corpus", "--n", "60", "--rng", "5", "--model", model, "--corpus-size", "5000", "--quiet",
                 "--out", str(tmp_path / "out")]) == 0
    cli = pd.read_csv(tmp_path / "out" / "table.csv", dtype={"name": str}).set_index("name")
    for side in ("ci_low", "ci_high"):
        expected = alone[f"AP {side}"]
        for got in (result.table().set_index("name"), table, board.result.table().set_index("name"), cli):
            np.testing.assert_allclose(got.loc[list(runs), f"AP {side}"], expected.loc[list(runs)], rtol=1e-12)
