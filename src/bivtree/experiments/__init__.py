"""Evaluation of tree learners on many data sets, as the papers evaluate theirs.

* protocols: :class:`CrossValidation` (repeated stratified k-fold, the BiDT and
  Bioch protocols) and :class:`HoldOut` (the KDD 2024 protocol);
* :func:`run_experiment`: named estimators x named data sets under a protocol,
  parallel with joblib (any backend, Dask included), resumable from its CSV;
* statistics: :func:`average_ranks`, :func:`friedman_test`, :func:`holm_test`;
* reports: :func:`summarize`, :func:`markdown_report`, :func:`write_report`,
  :func:`plot_accuracy_vs_size`;
* :func:`run_bench` and ``bivtree bench``: named configurations.

Names are imported on first use, so ``import bivtree.experiments`` (and the
command line, which registers ``bench``) needs neither pandas nor matplotlib.
"""

import importlib

_EXPORTS = {
    "CrossValidation": "protocols",
    "HoldOut": "protocols",
    "Split": "protocols",
    "run_experiment": "runner",
    "load_results": "runner",
    "tree_summary": "runner",
    "RESULT_COLUMNS": "runner",
    "average_ranks": "statistics",
    "rank_table": "statistics",
    "friedman_test": "statistics",
    "holm_test": "statistics",
    "FriedmanResult": "statistics",
    "HolmComparison": "statistics",
    "summarize": "summary",
    "measure_table": "report",
    "markdown_report": "report",
    "write_report": "report",
    "MEASURES": "report",
    "plot_accuracy_vs_size": "plotting",
    "run_bench": "bench",
    "get_config": "bench",
    "register_bench_command": "bench",
    "CONFIG_NAMES": "bench",
    "machine_description": "machine",
}

__all__ = [
    "CONFIG_NAMES",
    "MEASURES",
    "RESULT_COLUMNS",
    "CrossValidation",
    "FriedmanResult",
    "HoldOut",
    "HolmComparison",
    "Split",
    "average_ranks",
    "friedman_test",
    "get_config",
    "holm_test",
    "load_results",
    "machine_description",
    "markdown_report",
    "measure_table",
    "plot_accuracy_vs_size",
    "rank_table",
    "register_bench_command",
    "run_bench",
    "run_experiment",
    "summarize",
    "tree_summary",
    "write_report",
]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
