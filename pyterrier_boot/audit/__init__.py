"""Which significance test for this collection: Type I error, power and Type III error measured on
the user's own topics (Urbano, Lima & Hanjalic 2019; Otero, Parapar & Barreiro 2025).

Modules, one concept each:

* ``support``: where a measure's scores live (the range, the values of P@k and RR).
* ``margins``: one system's score distribution, chosen by AIC, with atoms and discreteness; tilts.
* ``copulas``: pair copulas and the joint copula (pyvinecopulib), pseudo-observations.
* ``model``: :class:`~.model.ScoreModel`, margins and copulas fitted to a matrix.
* ``goodness``: the model against the matrix, with stated tolerances.
* ``simulation``: simulated topic sets under the null and under effects.
* ``battery``: the package's tests (by registry name) and the corrections on those sets.
* ``rates``: Type I, Type III, power, FWER, FDR with Monte Carlo standard errors.
* ``audit``: :func:`audit_tests`, the door.
* ``result``: :class:`TestAudit`; ``sentence``, ``display``, ``plots``: its sentence, tables, figures.
"""
from .audit import audit_tests
from .result import TestAudit

__all__ = ["audit_tests", "TestAudit"]
