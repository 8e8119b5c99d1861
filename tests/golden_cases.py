"""Golden fits: a fixed set of models whose saved JSON must not change by a single byte.

Every splitter (classifier and regressor where it applies), TAO (both initial
trees, the exact reduced problems, a warm-started path), categorical MUST nodes,
weights, pruning and best-first growth. The stored files in ``tests/golden/``
were written by this module from the code before a refactoring; a change that
is meant to alter trees regenerates them explicitly::

    python tests/golden_cases.py --write

and says so in its commit. ``tests/test_golden.py`` compares each fit with its file.
"""

import json
import pathlib
import sys

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
    tao_path,
    to_json,
)

GOLDEN_DIR = pathlib.Path(__file__).with_name("golden")


def _cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).permutation(X.shape[0])[:180]
    return X[rows][:, [0, 1, 6, 7, 20, 27]], y[rows]


def _wine():
    X, y = load_wine(return_X_y=True)
    return X[:, [0, 6, 9, 12]], y


def _cancer_all():
    return load_breast_cancer(return_X_y=True)


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X[:150, [0, 2, 3, 8]], y[:150]


def _categorical():
    rng = np.random.default_rng(3)
    n = 160
    x0 = rng.normal(size=n)
    x1 = rng.normal(size=n)
    colour = rng.integers(0, 7, size=n).astype(float)
    y = ((x0 + 0.5 * x1 > 0) ^ np.isin(colour, [0, 2, 5])).astype(int)
    return np.column_stack([x0, x1, colour]), y


def _weights(n):
    return np.random.default_rng(1).integers(1, 4, size=n).astype(float)


def _classifier(X_y, weighted=False, **params):
    X, y = X_y()
    params.setdefault("splitter", "orientations")  # the cases name their splitter
    return lambda: BivariateTreeClassifier(**params).fit(
        X, y, sample_weight=_weights(len(y)) if weighted else None)


def _regressor(X_y, weighted=False, **params):
    X, y = X_y()
    params.setdefault("splitter", "orientations")
    return lambda: BivariateTreeRegressor(**params).fit(
        X, y, sample_weight=_weights(len(y)) if weighted else None)


def _tao(cls, X_y, **params):
    X, y = X_y()
    # the paper's fixed directions unless a case names the search
    params.setdefault("pair_search", "orientations")
    return lambda: cls(**params).fit(X, y)


def _path(X_y, **params):
    """The last tree of a warm-started ``tao_path`` on a short alpha grid."""
    X, y = X_y()
    params.setdefault("pair_search", "orientations")

    def fit():
        path = tao_path(TAOTreeClassifier(**params), X, y, X_val=X[::3], y_val=y[::3],
                        alphas=[0.0, 0.002, 0.01, 0.05])
        return path.steps[-1].estimator
    return fit


#: name -> function returning a fitted estimator.
CASES = {
    "clf_univariate": _classifier(_cancer, splitter="univariate"),
    "clf_orientations": _classifier(_cancer),
    "clf_orientations_entropy_weighted": _classifier(_cancer, weighted=True,
                                                     criterion="entropy", n_orientations=12),
    "clf_orientations_best_first_pruned": _classifier(_cancer, max_leaf_nodes=8,
                                                      ccp_alpha=0.005),
    "clf_orientations_max_features": _classifier(_cancer, max_features=3, random_state=0),
    "clf_auto": _classifier(_cancer, splitter="auto"),
    "clf_auto_all_features": _classifier(_cancer_all, splitter="auto", criterion="entropy"),
    "clf_auto_sampled_weighted": _classifier(_cancer_all, weighted=True, splitter="auto",
                                             splitter_options={"max_scan_samples": 100}),
    "clf_diagonal": _classifier(_cancer, splitter="diagonal"),
    "clf_hillclimb": _classifier(_cancer, splitter="hillclimb", max_depth=4),
    "clf_lda": _classifier(_cancer, splitter="lda"),
    "clf_lda_must_f_wine": _classifier(_wine, splitter="lda",
                                       splitter_options={"n_split_features": None}),
    "clf_lda_categorical": _classifier(_categorical, splitter="lda",
                                       splitter_options={"categorical_features": [2]}),
    "clf_optimal_bnb": _classifier(_cancer, splitter="optimal", max_depth=4),
    "clf_optimal_bnb_paper_bound": _classifier(
        _cancer, splitter="optimal", max_depth=3, criterion="entropy",
        splitter_options={"bound": "paper"}),
    "clf_optimal_misclassification": _classifier(
        _wine, splitter="optimal", max_depth=3, criterion="misclassification"),
    "clf_optimal_sweep": _classifier(_cancer, splitter="optimal", max_depth=3,
                                     splitter_options={"method": "sweep"}),
    "clf_orientations_wine_weighted": _classifier(_wine, weighted=True,
                                                  class_weight="balanced"),
    "reg_univariate": _regressor(_diabetes, splitter="univariate", max_depth=5),
    "reg_orientations": _regressor(_diabetes, max_depth=5, min_samples_leaf=3),
    "reg_orientations_weighted": _regressor(_diabetes, weighted=True, max_depth=4),
    "reg_auto": _regressor(_diabetes, splitter="auto", max_depth=5),
    "reg_diagonal": _regressor(_diabetes, splitter="diagonal", max_depth=4),
    "reg_hillclimb": _regressor(_diabetes, splitter="hillclimb", max_depth=3),
    "reg_optimal": _regressor(_diabetes, splitter="optimal", max_depth=3),
    "tao_clf_bivariate": _tao(TAOTreeClassifier, _cancer, alpha=0.002, max_depth=5),
    "tao_clf_univariate_init": _tao(TAOTreeClassifier, _cancer, alpha=0.002, max_depth=5,
                                    init="univariate"),
    "tao_clf_exact": _tao(TAOTreeClassifier, _cancer, alpha=0.001, max_depth=5,
                          exact_max_samples=60, feature_cost=1.5),
    "tao_clf_auto_wine": _tao(TAOTreeClassifier, _wine, alpha=0.005, max_depth=4, init="auto",
                              random_state=0),
    "tao_reg": _tao(TAOTreeRegressor, _diabetes, alpha=0.01, max_depth=4),
    # cases where TAO moves: univariate initial trees turned bivariate by a low feature cost
    "tao_clf_moves_directions": _tao(TAOTreeClassifier, _cancer, alpha=0.0, max_depth=3,
                                     init="univariate", feature_cost=0.5),
    "tao_clf_moves_exact": _tao(TAOTreeClassifier, _cancer, alpha=0.001, max_depth=4,
                                init="univariate", feature_cost=0.8, exact_max_samples=200),
    "tao_clf_moves_wine": _tao(TAOTreeClassifier, _wine, alpha=0.0, max_depth=3,
                               init="univariate", feature_cost=0.9),
    "tao_reg_moves_exact": _tao(TAOTreeRegressor, _diabetes, alpha=0.001, max_depth=3,
                                init="univariate", feature_cost=0.8, exact_max_samples=80),
    "tao_path_last": _path(_cancer, max_depth=4),
    # the default coarse-to-fine pair search, where the directions decide (no exact sweep)
    "tao_clf_moves_coarse_to_fine": _tao(TAOTreeClassifier, _cancer, alpha=0.0, max_depth=3,
                                         init="univariate", feature_cost=0.5,
                                         exact_max_samples=0, pair_search="coarse_to_fine"),
    "tao_reg_coarse_to_fine": _tao(TAOTreeRegressor, _diabetes, alpha=0.001, max_depth=3,
                                   init="univariate", feature_cost=0.8,
                                   pair_search="coarse_to_fine"),
}


def model_text(estimator):
    """The saved model without the run-dependent fit time, plus TAO's optimisation record."""
    model = json.loads(to_json(estimator))
    model.pop("fit_time", None)
    extra = {}
    for name in ("objective_", "objective_path_", "n_iter_", "converged_", "next_alpha_",
                 "init_", "init_scores_"):
        if hasattr(estimator, name):
            value = getattr(estimator, name)
            extra[name] = value.tolist() if hasattr(value, "tolist") else value
    if extra:
        model["optimization"] = extra
    return json.dumps(model, indent=1, sort_keys=True) + "\n"


def main(argv):
    if argv[1:] != ["--write"]:
        print(__doc__)
        return 2
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, fit in CASES.items():
        (GOLDEN_DIR / f"{name}.json").write_text(model_text(fit()))
        print("wrote", name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
