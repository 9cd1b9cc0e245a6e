"""Evaluation on labelled questions: which settings keep the answer where the model reads it.

The same functions the ``contextlab eval`` command and the lab's Evaluate view call::

    from contextlab.evaluation import RunOptions, run_evaluation, write_results

    result = run_evaluation(None, ["max_context_tokens=256,1024", "placement=lost_in_the_middle,relevance"],
                            RunOptions(limit=300))   # None: the bundled NaturalQuestions-Open set
    for row in result.summaries():
        print(row["config"], row["gold_in_block"], row["expected_accuracy"])
    write_results(result, "results.csv", "summary.json")

``expected_accuracy`` is an estimate from the curves Liu et al. published ("Lost in the
Middle", TACL 2024), never a measurement of your model; see ``EXPECTED_ACCURACY_NOTE``.
"""

from __future__ import annotations

from .aggregate import Aggregator, RunReport, aggregate
from .analysis import (
    ZONES,
    disagreements,
    find_configuration,
    gold_zone_shares,
    pareto_front,
    setting_table,
    sort_by_difference,
)
from .chunks import evaluate_chunk
from .grid import GRID_KEYS, Configuration, expand_grid, grid_keys, parse_grid
from .metrics import (
    EXPECTED_ACCURACY_NOTE,
    METRIC_COLUMNS,
    RATE_METRICS,
    SUMMARY_METRICS,
    PreparedQuestion,
    gold_zone,
    prepare_question,
    question_metrics,
)
from .options import DEFAULT_TOP_K, RunOptions
from .output import (
    evaluate_to_files,
    gains_lines,
    results_csv,
    stream_to_files,
    summary_table,
    write_results,
)
from .recommendation import METRIC_WORDS, Recommendation
from .rows import EvalRow, ModelReply, QuestionMetrics
from .run import EvalResult, RunPlan, plan_run, run_evaluation
from .sets import (
    BUNDLED_SET,
    BundledCorpus,
    EvalQuestion,
    EvalSet,
    StoreRetriever,
    bundled_set_path,
    load_bundled_set,
    load_eval_bytes,
    load_eval_set,
    normalize_answer,
    parse_eval_records,
    question_documents,
)
from .stats import bootstrap_interval

__all__ = [
    "EvalRow",
    "ModelReply",
    "QuestionMetrics",
    "METRIC_WORDS",
    "Recommendation",
    "RunReport",
    "BUNDLED_SET",
    "DEFAULT_TOP_K",
    "EXPECTED_ACCURACY_NOTE",
    "GRID_KEYS",
    "METRIC_COLUMNS",
    "RATE_METRICS",
    "SUMMARY_METRICS",
    "ZONES",
    "BundledCorpus",
    "Configuration",
    "EvalQuestion",
    "EvalResult",
    "EvalSet",
    "PreparedQuestion",
    "RunOptions",
    "RunPlan",
    "StoreRetriever",
    "Aggregator",
    "aggregate",
    "bootstrap_interval",
    "bundled_set_path",
    "disagreements",
    "evaluate_chunk",
    "evaluate_to_files",
    "expand_grid",
    "gains_lines",
    "find_configuration",
    "gold_zone",
    "gold_zone_shares",
    "grid_keys",
    "load_bundled_set",
    "load_eval_bytes",
    "load_eval_set",
    "normalize_answer",
    "parse_eval_records",
    "question_documents",
    "parse_grid",
    "pareto_front",
    "plan_run",
    "prepare_question",
    "question_metrics",
    "results_csv",
    "run_evaluation",
    "setting_table",
    "sort_by_difference",
    "stream_to_files",
    "summary_table",
    "write_results",
]
