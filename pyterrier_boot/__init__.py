"""pyterrier_boot: honest uncertainty for PyTerrier experiments.

Corpus bootstrap (Cormack & Lynam 2006; Zobel & Rashidi 2020), topic bootstrap intervals and
significance tests (Sakai 2007; Park 2010), and meta-evaluation tools, inside PyTerrier pipelines.

Public names are loaded on first use, so ``import pyterrier`` (which loads this plugin as
``pt.boot`` through its entry point) does not pay for numba, scipy or statsmodels.
"""
import importlib

__version__ = "0.1.0"

# public name -> module defining it
_EXPORTS = {
    # warnings
    "BootWarning": "pyterrier_boot._warnings",
    "InputWarning": "pyterrier_boot._warnings",
    "FallbackWarning": "pyterrier_boot._warnings",
    "DegenerateWarning": "pyterrier_boot._warnings",
    # inputs
    "read_run": "pyterrier_boot.inputs.runs",
    "read_runs": "pyterrier_boot.inputs.runs",
    "Runs": "pyterrier_boot.inputs.runs",
    "read_qrels": "pyterrier_boot.inputs.qrels",
    "Qrels": "pyterrier_boot.inputs.qrels",
    "read_topics": "pyterrier_boot.inputs.topics",
    # measures
    "evaluate": "pyterrier_boot.measures.evaluation",
    "parse_measures": "pyterrier_boot.measures.parsing",
    "Q": "pyterrier_boot.measures.sakai",
    "nCG": "pyterrier_boot.measures.sakai",
    # Experiment
    "Experiment": "pyterrier_boot.experiment.experiment",
    "ExperimentResult": "pyterrier_boot.experiment.result",
    "experiment_result": "pyterrier_boot.experiment.experiment",
    "load_result": "pyterrier_boot.experiment.storage",
    # statistics core (topic bootstrap, tests, corrections)
    "ResamplePlan": "pyterrier_boot.stats.resampling",
    "SignFlipPlan": "pyterrier_boot.stats.resampling",
    "resample_plan": "pyterrier_boot.stats.resampling",
    "sign_flip_plan": "pyterrier_boot.stats.resampling",
    "gmean": "pyterrier_boot.stats.aggregates",
    "logit_mean": "pyterrier_boot.stats.aggregates",
    "bootstrap_ci": "pyterrier_boot.stats.intervals",
    "IntervalResult": "pyterrier_boot.stats.intervals",
    "standardize": "pyterrier_boot.stats.standardization",
    "portable_report": "pyterrier_boot.stats.standardization",
    "paired_bootstrap_test": "pyterrier_boot.stats.significance",
    "unpaired_bootstrap_test": "pyterrier_boot.stats.significance",
    "randomization_test": "pyterrier_boot.stats.significance",
    "t_test": "pyterrier_boot.stats.significance",
    "wilcoxon_test": "pyterrier_boot.stats.significance",
    "sign_test": "pyterrier_boot.stats.significance",
    "PairedTestResult": "pyterrier_boot.stats.significance",
    "UnpairedTestResult": "pyterrier_boot.stats.significance",
    "correct_pvalues": "pyterrier_boot.stats.correction",
    "CorrectionResult": "pyterrier_boot.stats.correction",
    "tukey_hsd": "pyterrier_boot.stats.tukey",
    "randomized_tukey_hsd": "pyterrier_boot.stats.tukey",
    "TukeyHSDResult": "pyterrier_boot.stats.tukey",
    "effect_size": "pyterrier_boot.stats.power",
    "paired_power": "pyterrier_boot.stats.power",
    "topics_needed": "pyterrier_boot.stats.power",
    "power_analysis": "pyterrier_boot.stats.power",
    "PowerAnalysis": "pyterrier_boot.stats.power",
    "compare": "pyterrier_boot.stats.comparison",
    "rank_intervals": "pyterrier_boot.stats.ranking",
    "RankIntervals": "pyterrier_boot.stats.ranking",
    "compact_letter_display": "pyterrier_boot.stats.letters",
    "leaderboard": "pyterrier_boot.leaderboards.board",
    "Leaderboard": "pyterrier_boot.leaderboards.board",
    # equivalence tests and reproducibility (Breuer et al. 2020)
    "paired_tost": "pyterrier_boot.stats.equivalence",
    "unpaired_tost": "pyterrier_boot.stats.equivalence",
    "EquivalenceTestResult": "pyterrier_boot.stats.equivalence",
    "reproducibility": "pyterrier_boot.reproduction.analysis",
    "ReproducibilityResult": "pyterrier_boot.reproduction.analysis",
    "kendall_tau_union": "pyterrier_boot.reproduction.measures",
    "rank_biased_overlap": "pyterrier_boot.reproduction.measures",
    "effect_ratio": "pyterrier_boot.reproduction.measures",
    "delta_relative_improvement": "pyterrier_boot.reproduction.measures",
    # which test for this collection (Urbano, Lima & Hanjalic 2019)
    "audit_tests": "pyterrier_boot.audit.audit",
    "TestAudit": "pyterrier_boot.audit.result",
    # simulation
    "simulate_collection": "pyterrier_boot.simulation.collection",
    "SimulatedCollection": "pyterrier_boot.simulation.collection",
    "CollectionModel": "pyterrier_boot.simulation.model",
    "simulate_scores": "pyterrier_boot.simulation.scores",
    "simulate_null_scores": "pyterrier_boot.simulation.scores",
    "SimulatedScores": "pyterrier_boot.simulation.scores",
    # corpus bootstrap
    "CorpusBootstrap": "pyterrier_boot.corpus.bootstrap",
    "CorpusBootstrapResult": "pyterrier_boot.corpus.result",
    "CorpusDifference": "pyterrier_boot.corpus.result",
    "CorpusImage": "pyterrier_boot.corpus.transformers",
    "CorpusSplit": "pyterrier_boot.corpus.transformers",
    "corpus_image": "pyterrier_boot.corpus.transformers",
    "corpus_image_qrels": "pyterrier_boot.corpus.transformers",
    "corpus_split": "pyterrier_boot.corpus.split",
    "split_half_validation": "pyterrier_boot.corpus.validation",
    "SplitHalfValidation": "pyterrier_boot.corpus.validation",
    "interval_agreement": "pyterrier_boot.corpus.validation",
    "image_interval": "pyterrier_boot.corpus.intervals",
    "image_pvalue": "pyterrier_boot.corpus.intervals",
    "silver_bullet_limit": "pyterrier_boot.corpus.small_r",
    "lead_balloon_limit": "pyterrier_boot.corpus.small_r",
    # meta-evaluation
    "FitWarning": "pyterrier_boot._warnings",
    "discriminative_power": "pyterrier_boot.meta.quality.discriminative_power",
    "DiscriminativePowerResult": "pyterrier_boot.meta.quality.discriminative_power",
    "swap_method": "pyterrier_boot.meta.quality.swap",
    "SwapResult": "pyterrier_boot.meta.quality.swap",
    "stability_method": "pyterrier_boot.meta.quality.stability",
    "StabilityResult": "pyterrier_boot.meta.quality.stability",
    "kendall_tau": "pyterrier_boot.meta.quality.rank_correlation",
    "KendallTauResult": "pyterrier_boot.meta.quality.rank_correlation",
    "tau_ap": "pyterrier_boot.meta.quality.rank_correlation",
    "rank_correlations": "pyterrier_boot.meta.quality.rank_correlation",
    "topic_set_size": "pyterrier_boot.meta.design.topic_set_size",
    "TopicSetSizeResult": "pyterrier_boot.meta.design.topic_set_size",
    "all_pairs_power": "pyterrier_boot.meta.design.topic_set_size",
    "meta_analysis": "pyterrier_boot.meta.meta_analysis",
    "random_effects": "pyterrier_boot.meta.random_effects",
    "RandomEffects": "pyterrier_boot.meta.random_effects",
    "MetaAnalysisResult": "pyterrier_boot.meta.meta_analysis",
    "logit_difference": "pyterrier_boot.meta.meta_analysis",
    "variance_decomposition": "pyterrier_boot.meta.design.variance_decomposition",
    "VarianceDecompositionResult": "pyterrier_boot.meta.design.variance_decomposition",
    "user_variance": "pyterrier_boot.meta.design.user_variance",
    "UserVarianceResult": "pyterrier_boot.meta.design.user_variance",
    "pool": "pyterrier_boot.meta.pools.pooling",
    "plot_asl_curves": "pyterrier_boot.meta.plots",
    "plot_swap_rates": "pyterrier_boot.meta.plots",
    "plot_mr_pt": "pyterrier_boot.meta.plots",
    "plot_forest": "pyterrier_boot.meta.plots",
    "plot_user_variance": "pyterrier_boot.meta.plots",
    "plot_pool_pvalues": "pyterrier_boot.meta.plots",
    "plot_pool_differences": "pyterrier_boot.meta.plots",
    "corpus_stability": "pyterrier_boot.meta.corpus.stability",
    "CorpusStabilityResult": "pyterrier_boot.meta.corpus.stability",
    "shallow_pool_comparison": "pyterrier_boot.meta.pools.shallow_pools",
    "ShallowPoolResult": "pyterrier_boot.meta.pools.shallow_pools",
    "corpus_variance_decomposition": "pyterrier_boot.meta.corpus.variance",
    "CorpusVarianceResult": "pyterrier_boot.meta.corpus.variance",
    "corpus_replicates": "pyterrier_boot.meta.corpus.variance",
    "corpus_meta_analysis": "pyterrier_boot.meta.corpus.meta_analysis",
    "corpus_topic_effects": "pyterrier_boot.meta.corpus.meta_analysis",
    # several test collections
    "across_collections": "pyterrier_boot.across.analysis",
    "AcrossCollections": "pyterrier_boot.across.result",
    "CollectionsBoard": "pyterrier_boot.across.board",
    # prediction-powered inference (automatic + human judgments)
    "ppi_mean_ci": "pyterrier_boot.ppi.intervals",
    "classical_mean_ci": "pyterrier_boot.ppi.intervals",
    "ppi_lambda": "pyterrier_boot.ppi.intervals",
    "PPIResult": "pyterrier_boot.ppi.intervals",
    "ppi_evaluate": "pyterrier_boot.ppi.evaluation",
    "PPIEvaluation": "pyterrier_boot.ppi.evaluation",
    "simulate_judge": "pyterrier_boot.ppi.judge",
    "judging_plan": "pyterrier_boot.judging.plan",
    "JudgingPlan": "pyterrier_boot.judging.plan",
    # anytime-valid inference (confidence sequences over topics)
    "confidence_sequence": "pyterrier_boot.sequential.sequence",
    "ConfidenceSequence": "pyterrier_boot.sequential.result",
    "SequentialEvaluation": "pyterrier_boot.sequential.evaluation",
    "sequential_comparisons": "pyterrier_boot.sequential.comparisons",
    "regression_gate": "pyterrier_boot.sequential.gate",
    "GateResult": "pyterrier_boot.sequential.gate",
    # command line, reports and plots
    "plot_means": "pyterrier_boot.plotting",
    "plot_pairwise": "pyterrier_boot.plotting",
    "plot_topics": "pyterrier_boot.plotting",
    "plot_ranks": "pyterrier_boot.plotting",
    "plot_pvalues": "pyterrier_boot.plotting",
    "plot_differences": "pyterrier_boot.plotting",
    "plot_topic_differences": "pyterrier_boot.plotting",
    "plot_rank_intervals": "pyterrier_boot.plotting",
    "summary_table": "pyterrier_boot.report",
    "html_report": "pyterrier_boot.report",
    "write_report": "pyterrier_boot.report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'pyterrier_boot' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
