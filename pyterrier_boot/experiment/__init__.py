"""``Experiment``: pt.Experiment with confidence intervals, in PyTerrier pipelines.

* :mod:`.experiment`: the ``Experiment`` function (arguments, orchestration);
* :mod:`.execution`: running each system once (batches, shared prefixes, ``save_dir``);
* :mod:`.uncertainty`: intervals of means and differences from the topic / corpus / joint bootstrap;
* :mod:`.result`: :class:`ExperimentResult` and the pt.Experiment-style tables;
* :mod:`.archive`, :mod:`.storage`: the file a result is saved to, and ``save_result``/``load_result``;
* :mod:`.display`: the readable table of a result.

The result's ``display()`` and ``plot_*()`` methods call the functions of :mod:`.display` and
:mod:`pyterrier_boot.plotting` through :data:`.result.VIEWS`, filled here: the modules that
draw a result import it, and it imports none of them.
"""
from .. import plotting
from . import display, result

result.VIEWS.update({"display": display.result_table,
                     **{name: getattr(plotting, name) for name in plotting.__all__ if name.startswith("plot_")}})
