"""How to design an experiment: how many topics, and where the variance of scores comes from.

* ``topic_set_size``: topics needed for a difference, one pair or all pairs (Kanoulas).
* ``variance_decomposition``: the mixed model ``score ~ system + (1|topic) + (1|topic:system)``.
* ``user_variance``: measure parameters drawn from a distribution of users (Kanoulas).
"""
