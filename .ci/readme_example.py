"""The README's examples that need no network, on the files `pyterrier-boot demo` wrote (CI)."""
import sys
from pathlib import Path

import numpy as np
import pyterrier as pt

import pyterrier_boot as ptb

folder = Path(sys.argv[1])
qrels = str(folder / "qrels.txt")
runs = ptb.read_runs(str(folder / "runs"))
run = runs["S1"]

table = pt.boot.Experiment(list(runs.values()), None, qrels, ["map", "ndcg_cut_10"], names=list(runs),
                           baseline=0, correction="holm", bootstrap="both", n_resamples=200, rng=42)
assert {"map ci_low", "map ci_high"} <= set(table.columns), table.columns

docnos = run["docno"].unique()
ptb.evaluate(run, qrels, ["AP", "nDCG@10", "RBP(p=0.8)"], multiplicity={docnos[0]: 0, docnos[1]: 2})
res = ptb.CorpusBootstrap(qrels, n_images=100, rng=1, verbose=False).evaluate(runs, ["AP", "P@10"])
res.per_topic(method="logit")
res.difference("S1", "S2")
ap = ptb.evaluate(runs, qrels, ["AP"]).pivot(index="name", columns="qid", values="value")
ptb.bootstrap_ci(ap.loc["S1"].to_numpy(), method="bca", rng=1)
ptb.compare({"AP": ap.to_numpy()}, test="paired-bootstrap", correction="holm", rng=1)
ptb.discriminative_power({"AP": ap.to_numpy(), "AP again": ap.to_numpy() + 0.0}, rng=1)
try:  # a mistyped file name consults ir_datasets' registry, whose home is unwritable here
    ptb.read_qrels("no-such-qrels")
except FileNotFoundError as error:
    print("as expected:", error)
print("README example: ok", np.round(table["map"].to_numpy(), 3))
