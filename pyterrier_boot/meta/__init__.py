"""Meta-evaluation and experimental design: which measure, how many topics, where the variance is.

A functional core on numpy arrays and pandas frames (Sakai 2007; Kanoulas; pt_docs/methods.md, sections 6-9). Modules, one concept each:

* ``discriminative_power``: Sakai's bootstrap sensitivity (ASL per pair, sensitivity, the
  estimated difference required, ASL curves).
* ``swap``: Sakai's bootstrap swap method (swap rate per difference bin).
* ``stability``: Sakai's stability method (minority rate and proportion of ties, MR-PT curves).
* ``rank_correlation``: Kendall's tau with Sakai's Z0 test, tau_AP, all pairs of measures.
* ``topic_set_size``: topics needed for a difference, one pair or all pairs (Kanoulas).
* ``meta_analysis``: fixed/random-effects pooling of per-topic effects (Cormack & Lynam §9).
* ``variance_decomposition``: the mixed model ``score ~ system + (1|topic) + (1|topic:system)``.
* ``user_variance``: measure parameters drawn from a distribution of users (Kanoulas).
* ``pooling``: qrels restricted to a shallow pool of chosen runs (Zobel & Rashidi §7).
* ``corpus_stability``: SDs over corpus images of scores and differences, per measure (Zobel &
  Rashidi Tables 3-4).
* ``shallow_pools``: a two-system comparison over corpus images at several pool depths (Zobel &
  Rashidi §7, Fig. 6-7).
* ``corpus_variance``: the mixed model fitted to corpus-bootstrap images (Kanoulas).
* ``corpus_meta_analysis``: per-topic effects and SDs from corpus images, meta-analysed
  (Cormack & Lynam §9).
* ``plots``: matplotlib figures of the results (imported lazily).

Import the public names from ``pyterrier_boot`` (loaded lazily) or from these modules.
"""
