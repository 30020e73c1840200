"""Prediction-powered inference: intervals for scores judged mostly automatically (e.g. by an LLM)
and partly by people (Angelopoulos et al. 2023; PPI++, Angelopoulos, Duchi & Zrnic 2024).

* :mod:`.intervals`: the functional core on arrays of per-topic scores (``ppi_mean_ci``, ...);
* :mod:`.evaluation`: runs + automatic and human qrels -> intervals (``ppi_evaluate``);
* :mod:`.judge`: a simulated judge of known bias and noise (``simulate_judge``);
* :mod:`.experiment`: the ``human_qrels=`` door of ``pt.boot.Experiment``;
* :mod:`.sampled`: intervals from a judging plan's sample of documents (``ppi_evaluate(plan=)``);
* :mod:`.coverage`, :mod:`.measured_coverage`: the coverage measured for plans, and the flags from it;
* :mod:`.forecast`: what a plan's budget will support, before judging (``JudgingPlan.forecast``).

See ``pt_docs/ppi.md``.
"""
