"""Context experiments: how length, distractors, order and a missing answer change a model's answers.

One design per kind (``design``), one plan of questions x levels (``plan``), one loop that asks
the model (``run``), and the same paired statistics for every kind (``evidence``): McNemar's
exact test between levels with Holm's correction, Cochran's Q, Wilson intervals, and the
stop-when-resolved schedule of the position curve. ``window`` checks every level against the
model's window before anything is sent; ``files`` writes the result in the curve file's columns.
"""

from __future__ import annotations

from .design import DISTRACTOR_KINDS, KINDS, ExperimentSettings, parse_levels
from .evidence import LevelDifference, LevelEvidence, LevelPoint, level_effect, level_power_lines
from .files import experiment_csv, experiment_table, write_experiment
from .plan import ExperimentCase, ExperimentPlan, plan_experiment
from .refusals import REFUSAL_PHRASES, is_refusal
from .request import ExperimentOutcome, ExperimentRequest, measure_experiment
from .run import ExperimentResult, ExperimentRow, run_experiment, run_experiment_until_resolved
from .window import LevelCost, check_window, level_costs, served_window

__all__ = [
    "DISTRACTOR_KINDS",
    "KINDS",
    "REFUSAL_PHRASES",
    "ExperimentCase",
    "ExperimentOutcome",
    "ExperimentPlan",
    "ExperimentRequest",
    "ExperimentResult",
    "ExperimentRow",
    "ExperimentSettings",
    "LevelCost",
    "LevelDifference",
    "LevelEvidence",
    "LevelPoint",
    "check_window",
    "experiment_csv",
    "experiment_table",
    "is_refusal",
    "level_costs",
    "level_effect",
    "level_power_lines",
    "measure_experiment",
    "parse_levels",
    "plan_experiment",
    "run_experiment",
    "run_experiment_until_resolved",
    "served_window",
    "write_experiment",
]
