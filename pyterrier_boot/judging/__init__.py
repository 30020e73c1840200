"""Judging plans: which (topic, document) pairs to give people, with known inclusion probabilities.

plan.py         judging_plan and JudgingPlan
pool.py         the pool: the runs' top-depth documents and the automatic qrels' pairs, statAP priors
sensitivity.py  which pairs the measures read and how much a label there moves them (measures=)
labels.py       the automatic labels on the people's scale: label maps, what a measure's rel needs
designs.py      strategies (uniform, stratified, active), targets capped at 1, the Poisson and
                stratified draws, merged strata
estimation.py   each pair's label estimated from the sample; ranked.py  measures of estimated labels
poststrata.py   the ratio measures' normalisers (R, the ideal DCG's counts) by post-stratification
storage.py      the plan as a text file with a checksum
"""
from .plan import JudgingPlan, judging_plan

__all__ = ["JudgingPlan", "judging_plan"]
