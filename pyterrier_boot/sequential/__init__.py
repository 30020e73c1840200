"""Anytime-valid inference over topics: intervals that stay valid however often they are looked at.

* :mod:`.betting`: the hedged betting confidence sequence for a bounded mean (Waudby-Smith &
  Ramdas 2024) and its anytime p-value;
* :mod:`.asymptotic`: the asymptotic confidence sequence (Waudby-Smith, Arbour, Sinha, Kennedy &
  Ramdas 2024) and its anytime p-value;
* :mod:`.result`: :class:`ConfidenceSequence`, what both return;
* :mod:`.sequence`: :func:`confidence_sequence`, the public entry point (argument checks, the
  rescaling to [0, 1], one sequence per column);
* :mod:`.gate`: :func:`regression_gate`, non-inferiority of a candidate against a baseline for CI.
"""
