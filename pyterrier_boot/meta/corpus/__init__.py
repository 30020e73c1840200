"""Meta-evaluation over corpus-bootstrap images (a :class:`~pyterrier_boot.CorpusBootstrapResult`):
the corpus-level counterparts of the topic-level tools.

* ``stability``: SDs over corpus images of scores and differences, per measure (Zobel & Rashidi
  Tables 3-4).
* ``variance``: the mixed model fitted to corpus-bootstrap images (Kanoulas).
* ``meta_analysis``: per-topic effects and SDs from corpus images, meta-analysed (Cormack & Lynam
  §9).
"""
