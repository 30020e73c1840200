"""Anytime-valid inference over topics: intervals that stay valid however often they are looked at.

* :mod:`.betting`: the hedged betting confidence sequence for a bounded mean (Waudby-Smith &
  Ramdas 2024) and its anytime p-value;
* :mod:`.asymptotic`: the asymptotic confidence sequence (Waudby-Smith, Arbour, Sinha, Kennedy &
  Ramdas 2024) and its anytime p-value;
* :mod:`.result`: :class:`ConfidenceSequence`, what both return;
* :mod:`.sequence`: :func:`confidence_sequence`, the public entry point (argument checks, the
  rescaling to [0, 1], one sequence per column);
* :mod:`.comparisons`: many systems over one topic sequence (all pairs or against a baseline),
  Bonferroni or e-BH over the pairs, verdicts and the projection of the topics still needed;
* :mod:`.evaluation`: :class:`SequentialEvaluation`, the state that grows topic by topic;
* :mod:`.storage`: its checksummed text file.
* :mod:`.gate`: :func:`regression_gate`, non-inferiority of a candidate against a baseline for CI.
"""
