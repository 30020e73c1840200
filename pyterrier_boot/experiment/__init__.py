"""``Experiment``: pt.Experiment with confidence intervals, in PyTerrier pipelines.

* :mod:`.experiment`: the ``Experiment`` function (arguments, orchestration);
* :mod:`.execution`: running each system once (batches, shared prefixes, ``save_dir``);
* :mod:`.uncertainty`: intervals of means and differences from the topic / corpus / joint bootstrap;
* :mod:`.result`: :class:`ExperimentResult` and the pt.Experiment-style tables.
"""
