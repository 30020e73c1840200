"""How deep to judge: qrels restricted to shallow pools, and what shallow pools do to a comparison.

* ``pooling``: qrels restricted to a shallow pool of chosen runs (Zobel & Rashidi §7).
* ``shallow_pools``: a two-system comparison over corpus images at several pool depths (Zobel &
  Rashidi §7, Fig. 6-7).
"""
