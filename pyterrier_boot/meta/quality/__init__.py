"""Which measure is better: how often a measure separates systems, how stable its verdicts are,
and how its rankings agree with another's.

* ``discriminative_power``: Sakai's bootstrap sensitivity (ASL per pair, sensitivity, the
  estimated difference required, ASL curves).
* ``swap``: Sakai's bootstrap swap method (swap rate per difference bin).
* ``stability``: Sakai's stability method (minority rate and proportion of ties, MR-PT curves).
* ``rank_correlation``: Kendall's tau with Sakai's Z0 test, tau_AP, all pairs of measures.
"""
