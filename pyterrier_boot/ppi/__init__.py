"""Prediction-powered inference: intervals for scores judged mostly automatically (e.g. by an LLM)
and partly by people (Angelopoulos et al. 2023; PPI++, Angelopoulos, Duchi & Zrnic 2024).

* :mod:`.intervals`: the functional core on arrays of per-topic scores (``ppi_mean_ci``, ...);
* :mod:`.evaluation`: runs + automatic and human qrels -> intervals (``ppi_evaluate``);
* :mod:`.judge`: a simulated judge of known bias and noise (``simulate_judge``);
* :mod:`.experiment`: the ``human_qrels=`` door of ``pt.boot.Experiment``.

See ``pt_docs/ppi.md``.
"""
