"""Seeds and collections: a learned reranker on four small test collections, offline.

Indexes Vaswani, Cranfield, CACM and CISI with PISA, retrieves with four first stages (BM25, DPH,
QLD, PL2), trains LightGBM's LambdaMART over their scores with several seeds, cross-validated over
topics, and asks pyterrier_boot how far the reranker's gain over BM25 can be trusted: on each
collection, with the seed variance in its intervals (a new seed of the same recipe), on these four
collections (their average), and on collections of this kind in general and on a new one (a
random-effects meta-analysis with its prediction interval). The output and its reading are in
``pyterrier_boot/pt_docs/example_four_corpora.md``.

Usage::

    pip install -e ".[examples]"
    python examples/seeds_and_collections.py [SHARED] [--out DIR] [--seeds 5]

``SHARED`` is the folder holding ``data/vaswani``, ``data/cranfield``, ``data/cacm`` and
``data/cisi`` (default: ``$PYTERRIER_BOOT_SHARED``, else ``../shared`` beside this repository).
Everything runs on one core: about a minute and a half.
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

COLLECTIONS = ("vaswani", "cranfield", "cacm", "cisi")
FIRST_STAGES = ("BM25", "DPH", "QLD", "PL2")
RERANKER = "LambdaMART"
MEASURE = "nDCG@10"
DEPTH = 100  # the reranker reorders BM25's top 100
N_FOLDS = 5
#: bagging (subsample) and feature sampling (colsample_bytree) make the seed matter
LAMBDAMART = dict(objective="lambdarank", n_estimators=100, learning_rate=0.05, num_leaves=7,
                  min_child_samples=50, subsample=0.7, subsample_freq=1, colsample_bytree=0.7,
                  n_jobs=1, verbose=-1)


# ---------------------------------------------------------------------------------------- reading

def _words(text: str) -> str:
    """Lower case, letters and digits only: the form Vaswani's documents come in."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def smart_records(lines):
    """The records of a SMART file (``.I id`` then fields ``.T``, ``.W``, ...): dicts of
    ``id`` and each field's text."""
    record, field = None, None
    for line in lines:
        marker = re.match(r"^\.([A-Z])(?:\s+(\S+))?\s*$", line)
        if marker and marker[1] == "I":
            if record is not None:
                yield record
            record, field = {"id": marker[2]}, None
        elif marker and marker[2] is None:
            field = marker[1]
            record.setdefault(field, "")
        elif record is not None and field is not None:
            record[field] += " " + line.strip()
    if record is not None:
        yield record


def smart_documents(path: Path) -> pd.DataFrame:
    """``docno, text`` of a gzipped SMART corpus: the title and the abstract."""
    with gzip.open(path, "rt", errors="replace") as lines:
        rows = [(str(int(r["id"])), _words(r.get("T", "") + " " + r.get("W", ""))) for r in smart_records(lines)]
    return pd.DataFrame(rows, columns=["docno", "text"])


def smart_topics(path: Path, *, by_position: bool = False) -> pd.DataFrame:
    """``qid, query`` of a SMART query file; ``by_position``: numbered 1, 2, ... in file order
    (Cranfield's qrels number its queries so). A record ``.I 0`` (CACM's end marker) is dropped."""
    with open(path, errors="replace") as lines:
        records = [r for r in smart_records(lines) if int(r["id"]) > 0]
    return pd.DataFrame({"qid": [str(i if by_position else int(r["id"])) for i, r in enumerate(records, 1)],
                         "query": [_words(r.get("W", "")) for r in records]})


def _table(path: Path, columns: list[str]) -> pd.DataFrame:
    return pd.read_csv(path, sep=r"\s+", header=None, names=columns, dtype=str, usecols=range(len(columns)))


def read_vaswani(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    with gzip.open(folder / "doc-text.trec.gz", "rt") as f:
        docs = re.findall(r"<DOCNO>\s*(\S+?)\s*</DOCNO>(.*?)</DOC>", f.read(), re.S)
    topics = re.findall(r"<num>\s*(\S+?)\s*</num>\s*<title>(.*?)</title>", (folder / "query-text.trec").read_text(), re.S)
    qrels = _table(folder / "qrels", ["qid", "iteration", "docno", "label"])
    return (pd.DataFrame([(d, _words(t)) for d, t in docs], columns=["docno", "text"]),
            pd.DataFrame([(q, _words(t)) for q, t in topics], columns=["qid", "query"]), qrels)


def read_cranfield(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Cleverdon's codes run from 1 (a complete answer) to 4 (minimal interest): gain ``5 - code``;
    the unexplained ``-1`` is taken as not relevant."""
    qrels = _table(folder / "cranqrel", ["qid", "docno", "code"])
    code = qrels.pop("code").astype(int)
    qrels["label"] = np.where(code < 0, 0, 5 - code)
    return smart_documents(folder / "cran.all.1400.gz"), smart_topics(folder / "cran.qry", by_position=True), qrels


def read_cacm(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    qrels = _table(folder / "qrels.text", ["qid", "docno"]).assign(label=1)
    return smart_documents(folder / "cacm.all.gz"), smart_topics(folder / "query.text"), qrels


def read_cisi(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    qrels = _table(folder / "CISI.REL", ["qid", "docno"]).assign(label=1)
    return smart_documents(folder / "CISI.ALL.gz"), smart_topics(folder / "CISI.QRY"), qrels


READERS = {"vaswani": read_vaswani, "cranfield": read_cranfield, "cacm": read_cacm, "cisi": read_cisi}


def read_collection(data: Path, name: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Documents, topics and qrels of one collection; ids as plain integers in text ("01" is "1"),
    and only the topics with at least one relevant document."""
    docs, topics, qrels = READERS[name](data / name)
    qrels = qrels.assign(qid=qrels["qid"].astype(int).astype(str), docno=qrels["docno"].astype(int).astype(str),
                         label=qrels["label"].astype(int))[["qid", "docno", "label"]]
    judged = set(qrels.loc[qrels["label"] > 0, "qid"])
    topics = topics[topics["qid"].isin(judged) & (topics["query"] != "")].reset_index(drop=True)
    return docs, topics, qrels[qrels["qid"].isin(set(topics["qid"]))].reset_index(drop=True)


# ------------------------------------------------------------------------------------ first stages

@contextlib.contextmanager
def silenced():
    """PISA's library writes its progress (thousands of lines) straight to the process's output:
    send file descriptors 1 and 2 to a temporary file for the block, shown only if the block fails."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile(mode="w+b") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        failed = True
        try:
            yield
            failed = False
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in zip((1, 2), saved):
                os.dup2(copy, fd)
                os.close(copy)
            if failed:
                log.seek(max(0, log.seek(0, 2) - 2000))
                print(f"PISA's last output:\n{log.read().decode(errors='replace')}", file=sys.stderr)


def first_stages(docs: pd.DataFrame, topics: pd.DataFrame, folder: Path) -> dict[str, pd.DataFrame]:
    """The runs of BM25, DPH, QLD and PL2 (1,000 documents per topic) over a PISA index in ``folder``."""
    from pyterrier_pisa import PisaIndex

    index = PisaIndex(str(folder), text_field="text", threads=1)
    with silenced():
        index.index(docs.to_dict("records"))
        models = {"BM25": index.bm25(), "DPH": index.dph(), "QLD": index.qld(), "PL2": index.pl2()}
        return {name: model.transform(topics)[["qid", "docno", "score"]] for name, model in models.items()}


# -------------------------------------------------------------------------------------- the reranker

def features(runs: dict[str, pd.DataFrame], docs: pd.DataFrame, topics: pd.DataFrame) -> pd.DataFrame:
    """BM25's top ``DEPTH`` per topic with a row of features each: every first stage's score (its
    lowest score of the topic where it did not retrieve the document) and rank, the query's length,
    the document's (log) length, and how many (what fraction) of the query's words it holds."""
    frame = runs["BM25"].sort_values(["qid", "score"], ascending=[True, False]).groupby("qid").head(DEPTH)
    frame = frame[["qid", "docno"]].reset_index(drop=True)
    for name, run in runs.items():
        score = frame.merge(run, on=["qid", "docno"], how="left")["score"]
        frame[name] = score.fillna(frame["qid"].map(run.groupby("qid")["score"].min())).to_numpy()
        frame[f"{name} rank"] = frame.groupby("qid")[name].rank(ascending=False)
    query = topics.set_index("qid")["query"].str.split().map(set)
    text = docs.set_index("docno")["text"].str.split()
    words = frame["docno"].map(text)
    frame["query length"] = frame["qid"].map(query.map(len)).astype(float)
    frame["log length"] = np.log1p(words.map(len).astype(float))
    frame["matched"] = [float(len(query[q] & set(w))) for q, w in zip(frame["qid"], words)]
    frame["matched fraction"] = frame["matched"] / frame["query length"]
    return frame


def topic_folds(qids: np.ndarray, n_folds: int = N_FOLDS) -> np.ndarray:
    """Fold of each topic: a fixed random split of the topics into ``n_folds`` (the same for every
    seed, so that the seeds differ only in the training's own randomness)."""
    unique = np.unique(qids)
    fold_of = dict(zip(unique, np.random.default_rng(0).permutation(len(unique)) % n_folds))
    return np.array([fold_of[q] for q in qids])


def lambdamart_run(frame: pd.DataFrame, labels: np.ndarray, seed: int) -> pd.DataFrame:
    """One cross-validated run of LambdaMART trained with ``seed``: each fold's topics reranked by
    the model trained on the other folds' topics."""
    import lightgbm

    columns = [c for c in frame.columns if c not in ("qid", "docno")]
    x, qids = frame[columns].to_numpy(), frame["qid"].to_numpy()
    folds, score = topic_folds(qids), np.empty(len(frame))
    for fold in range(N_FOLDS):
        train = np.flatnonzero(folds != fold)
        train = train[np.argsort(qids[train], kind="stable")]  # each topic's rows together
        _, group = np.unique(qids[train], return_counts=True)
        model = lightgbm.LGBMRanker(random_state=seed, **LAMBDAMART)
        model.fit(x[train], labels[train], group=group)
        score[folds == fold] = model.predict(x[folds == fold])
    return frame[["qid", "docno"]].assign(score=score)


def lambdamart_runs(frame: pd.DataFrame, qrels: pd.DataFrame, n_seeds: int) -> list[pd.DataFrame]:
    """The reranker's runs, one per seed ``0 .. n_seeds - 1``."""
    label = qrels.set_index(["qid", "docno"])["label"]
    labels = label.reindex(pd.MultiIndex.from_frame(frame[["qid", "docno"]])).fillna(0).to_numpy(int)
    return [lambdamart_run(frame, labels, seed) for seed in range(n_seeds)]


# ------------------------------------------------------------------------------------------ the runs

def collection_runs(data: Path, name: str, folder: Path, n_seeds: int) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """Every system's runs on one collection (the reranker's as a list, one run per seed), its topics
    and its qrels."""
    docs, topics, qrels = read_collection(data, name)
    runs = first_stages(docs, topics, folder / name)
    reranked = lambdamart_runs(features(runs, docs, topics), qrels, n_seeds)
    return {**runs, RERANKER: reranked}, topics, qrels


def shared_data(argument: str | None) -> Path:
    """The ``data`` folder: the argument, ``$PYTERRIER_BOOT_SHARED``, or ``../shared`` beside the
    repository; a clear exit when it does not hold the four collections."""
    folder = Path(argument or os.environ.get("PYTERRIER_BOOT_SHARED") or Path(__file__).resolve().parents[2] / "shared")
    data = folder / "data" if (folder / "data").is_dir() else folder
    missing = [name for name in COLLECTIONS if not (data / name).is_dir()]
    if missing:
        raise SystemExit(f"the collections {', '.join(missing)} are not in {data}: pass the folder holding "
                         "data/vaswani, data/cranfield, data/cacm and data/cisi (or set PYTERRIER_BOOT_SHARED)")
    return data


def experiment(runs: dict, topics: pd.DataFrame, qrels: pd.DataFrame, n_resamples: int, seeds: str = "random"):
    """One collection's :class:`~pyterrier_boot.ExperimentResult`: every system against BM25, the
    reranker's seeds a sample of its recipe (``"random"``) or these models (``"fixed"``)."""
    import pyterrier_boot as ptb

    return ptb.experiment_result(runs, topics, qrels, [MEASURE], baseline="BM25", n_resamples=n_resamples,
                                 seeds=seeds, rng=42)


def _show(title: str, frame: pd.DataFrame) -> None:
    """Print ``frame`` under ``title``, numbers to 3 decimals (and no ``-0.000``)."""
    numbers = frame.select_dtypes("float").columns
    frame = frame.assign(**{c: frame[c].round(3) + 0.0 for c in numbers})
    print(f"\n{title}\n{frame.to_string(index=False)}")


def _difference_interval(result, seeds: str) -> str:
    """The reranker's interval of its difference from BM25 in ``result``'s table, as ``[low, high]``."""
    row = result.table().set_index("name").loc[RERANKER]
    low, high = (row[f"{MEASURE} diff {end} (seeds {seeds})"] for end in ("ci_low", "ci_high"))
    return f"[{low:.3f}, {high:.3f}]"


def seed_table(results: dict, fixed: dict) -> pd.DataFrame:
    """Per collection, the reranker's seeds: the mean of its lowest and highest run, the seed SD
    (how far a run's mean moves from seed to seed, beyond what its topics explain), the SD of the
    topic-by-seed interaction (how far a topic's score moves), and the seeds' share of the variance
    of its difference from BM25; that difference with its interval for these runs (seeds fixed) and
    for a new seed of the recipe (seeds random)."""
    rows = []
    for name, res in results.items():
        parts = res.variance_components().set_index("name").loc[RERANKER]
        scores = res.run_scores
        run_means = scores.values[scores.system == res.names.index(RERANKER), :, 0].mean(axis=1)
        rows.append({"collection": name, "runs": int(parts["runs"]),
                     "lowest run": run_means.min(), "highest run": run_means.max(),
                     "seed sd": np.sqrt(parts["seed variance"]),
                     "topic-by-seed sd": np.sqrt(parts["topic-by-seed variance"]),
                     "seed share of diff": parts["seed share of difference"], "difference": parts["difference"],
                     "seeds fixed": _difference_interval(fixed[name], "fixed"),
                     "seeds random": _difference_interval(res, "random")})
    return pd.DataFrame(rows)


def across_table(across) -> None:
    """Print the differences from BM25 per collection, their average and their pooled mean."""
    per_collection = across.per_collection().astype({"n_topics": int})
    _show(f"{MEASURE} difference from BM25 per collection (topics, and the reranker's seeds)",
          per_collection[["collection", "system", "estimate", "ci_low", "ci_high", "n_topics"]])
    _show("average over these four collections",
          across.average()[["system", "estimate", "ci_low", "ci_high", "p-value"]])
    pooled = across.pooled().assign(tau=lambda f: np.sqrt(f["tau2"]))
    _show("pooled over collections of this kind (random effects), and a new collection (prediction interval)",
          pooled[["system", "estimate", "ci_low", "ci_high", "pi_low", "pi_high", "tau", "i2"]])


def report(results: dict, fixed: dict, out: Path) -> None:
    """Print the figures over the four collections and save the forest plot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import pyterrier_boot as ptb

    means = pd.DataFrame({name: res.table().set_index("name")[MEASURE] for name, res in results.items()})
    _show(f"mean {MEASURE} ({RERANKER}: over its seeds)", means.reset_index())
    _show(f"{RERANKER}'s seeds, and its {MEASURE} difference from BM25 with 95% intervals",
          seed_table(results, fixed))
    across = ptb.across_collections(results, MEASURE, baseline="BM25")
    across_table(across)
    figure, axes = plt.subplots(2, 2, figsize=(11, 6.5), layout="constrained")
    across.plot_forest(axes=axes)
    figure.savefig(out / "forest.png", dpi=72, bbox_inches="tight")
    across.save(out / "across.zip")
    print(f"forest plot: {out / 'forest.png'}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shared", nargs="?", help="the folder holding data/vaswani, data/cranfield, data/cacm "
                        "and data/cisi (default: $PYTERRIER_BOOT_SHARED, else ../shared beside the repository)")
    parser.add_argument("--out", type=Path, default=Path("four_corpora"), help="where the plot goes (four_corpora/)")
    parser.add_argument("--seeds", type=int, default=5, help="LambdaMART runs, one per seed (5)")
    parser.add_argument("--n-resamples", type=int, default=10_000, help="topic resamples per collection (10,000)")
    args = parser.parse_args(argv)
    if args.seeds < 2:
        parser.error(f"--seeds {args.seeds}: the seed variance needs at least 2 runs")
    data = shared_data(args.shared)
    args.out.mkdir(parents=True, exist_ok=True)
    start, results, fixed = time.perf_counter(), {}, {}
    with tempfile.TemporaryDirectory(prefix="four_corpora_") as folder:
        for name in COLLECTIONS:
            runs, topics, qrels = collection_runs(data, name, Path(folder), args.seeds)
            results[name] = experiment(runs, topics, qrels, args.n_resamples)
            fixed[name] = experiment(runs, topics, qrels, args.n_resamples, seeds="fixed")
            print(f"{name}: {len(topics)} topics, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    report(results, fixed, args.out)
    print(f"done in {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
