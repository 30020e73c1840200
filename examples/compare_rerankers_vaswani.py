# %% [markdown]
# # Comparing rerankers with honest uncertainty
#
# A notebook-style script (cells marked `# %%`; run it whole with `python`, or cell by cell in VS Code
# or Jupyter). It indexes the Vaswani collection with PISA, compares four first-stage models and a
# reranker built on BM25, and asks `pt.boot.Experiment` how far the differences can be trusted:
# across topics (topic bootstrap), across collections drawn from the same population of documents
# (corpus bootstrap), and both.
#
# Offline: Vaswani comes from an ir_datasets cache: set `IR_DATASETS_HOME` to a folder holding a
# copy of one that has it (e.g. the `~/.ir_datasets` of a machine that ran this once). If
# `IR_DATASETS_HOME` is not set and this repository sits beside `../shared/irds_home` (where the
# tests find their copy), a temporary copy of that cache is used.
#
# With network access, the same script runs on TREC DL 2019 passage ranking: set
# `DATASET = "irds:msmarco-passage/trec-dl-2019/judged"` (ir_datasets then downloads MS MARCO,
# about 1 GB; indexing 8.8M passages with PISA takes a few minutes), and use
# `"AP(rel=2)"`, `"nDCG@10"` and `"RR(rel=2)@10"`, the track's measures at its relevance cut.

# %%
import os
import shutil
import tempfile
from pathlib import Path

SHARED_CACHE = Path(__file__).resolve().parents[2] / "shared" / "irds_home"
if "IR_DATASETS_HOME" not in os.environ and SHARED_CACHE.is_dir():
    home = Path(tempfile.mkdtemp(prefix="irds_"))
    shutil.copytree(SHARED_CACHE, home, dirs_exist_ok=True)
    os.environ["IR_DATASETS_HOME"] = str(home)  # before ir_datasets is imported

import pyterrier as pt  # noqa: E402  (pt.boot is pyterrier_boot, loaded by its entry point)

DATASET = "irds:vaswani"
MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]

# %% [markdown]
# ## Index and retrieve

# %%
try:  # the first use downloads the collection into ir_datasets' cache
    topics, qrels = pt.boot.read_topics(DATASET), pt.boot.read_qrels(DATASET)
except ValueError as error:  # offline and not in the cache: one line saying what to do, nothing left behind
    raise SystemExit(str(error)) from None
from pyterrier_pisa import PisaIndex  # noqa: E402  (it imports ir_datasets, which makes its cache folders)

dataset = pt.get_dataset(DATASET)
index = PisaIndex(tempfile.mkdtemp(prefix="vaswani_pisa_") + "/index", text_field="text", threads=1)
index.index(dataset.get_corpus_iter(verbose=False))

bm25 = index.bm25()


def coverage(row):
    """A simple reranker: BM25 score plus a bonus for covering more of the query's terms."""
    terms = set(row["query"].lower().split())
    words = set(row["text"].lower().split())
    return row["score"] + 2.0 * len(terms & words) / max(len(terms), 1)


rerank = bm25 % 100 >> pt.text.get_text(dataset, "text") >> pt.apply.doc_score(coverage)
systems = {"BM25": bm25, "DPH": index.dph(), "PL2": index.pl2(), "QLD": index.qld(),
           "BM25 >> coverage": rerank}

# %% [markdown]
# ## The topic bootstrap: same call as pt.Experiment, plus intervals
#
# Means, `+`/`-` and t-test p-values are pt.Experiment's; each mean and each difference from the
# baseline gets a 95% BCa interval from 10,000 topic resamples.

# %%
topic = pt.boot.experiment_result(systems, topics, qrels, MEASURES, baseline="BM25", correction="holm", round=4,
                           rng=42)
print(topic.table()[["name", "map", "map ci_low", "map ci_high", "map diff", "map diff ci_low",
                     "map diff ci_high", "map p-value corrected"]].to_string(index=False))

# %% [markdown]
# ## The corpus bootstrap: would the ranking hold on another collection?
#
# 1,000 corpus images (each document present k ~ Poisson(1) times). The runs are not re-executed;
# the values are recomputed on each image (Cormack & Lynam 2006; Zobel & Rashidi 2020).

# %%
corpus = pt.boot.experiment_result(systems, topics, qrels, MEASURES, baseline="BM25", bootstrap="corpus",
                            rng=42, verbose=True)
print(corpus.table()[["name", "map", "map ci_low", "map ci_high", "map diff", "map diff ci_low",
                      "map diff ci_high"]].round(4).to_string(index=False))
print(corpus.ranks().query("measure == 'map'")[["name", "rank", "ci_low", "ci_high", "p_first"]].to_string(index=False))

# %% [markdown]
# ## Both at once, every pair, and a table for the paper

# %%
both = pt.boot.experiment_result(systems, topics, qrels, ["map", "ndcg_cut_10"], bootstrap="both", rng=42)
print(both.pairwise(correction="holm")[["measure", "system_a", "system_b", "difference", "ci_low", "ci_high",
                                        "p-value corrected"]].round(4).to_string(index=False))
print(both.to_latex(caption="Vaswani: means with 95% topic-and-corpus bootstrap intervals."))
