"""Judging plans: which (topic, document) pairs to give people, with known inclusion probabilities.

plan.py      judging_plan and JudgingPlan
pool.py      the pool: the runs' top-depth documents and the automatic qrels' pairs, statAP priors
designs.py   strategies (uniform, stratified, active), targets capped at 1, the Poisson and
             stratified draws
storage.py   the plan as a text file with a checksum
"""
from .plan import JudgingPlan, judging_plan

__all__ = ["JudgingPlan", "judging_plan"]
