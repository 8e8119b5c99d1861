"""Extreme magnitudes of X, y and weights, odd labels and class weights, huge parameters.

Every finite input either fits (the same tree as at ordinary scale where a
power of two relates the two) or raises a ValueError saying what to rescale.
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
    to_json,
)
from bivtree.estimators import RESOURCE_LIMITS
from bivtree.splitters import SPLITTERS

CLASSIFIER_SPLITTERS = sorted(SPLITTERS)
REGRESSOR_SPLITTERS = sorted(name for name, cls in SPLITTERS.items()
                             if "regression" in cls.tasks)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    targets = 2.0 * X[:, 0] + X[:, 1]
    return X, y, targets


def estimators(splitters=None):
    """(estimator, is_classifier) for every splitter and both TAO trees."""
    out = [(BivariateTreeClassifier(splitter=s, max_depth=3), True)
           for s in (splitters or CLASSIFIER_SPLITTERS)]
    out += [(BivariateTreeRegressor(splitter=s, max_depth=3), False)
            for s in REGRESSOR_SPLITTERS]
    out += [(TAOTreeClassifier(max_depth=2, max_iter=3), True),
            (TAOTreeRegressor(max_depth=2, max_iter=3), False)]
    return out


ESTIMATORS = estimators()
IDS = [f"{type(est).__name__}-{getattr(est, 'splitter', 'tao')}" for est, _ in ESTIMATORS]


def target(data, classifier):
    return data[1] if classifier else data[2]


def assert_same_partition(leaves, expected):
    """The same groups of samples, whatever the leaves' numbers (a rule may be mirrored)."""
    pairs = set(zip(leaves.tolist(), expected.tolist()))
    assert len(pairs) == len(set(leaves.tolist())) == len(set(expected.tolist()))


# ------------------------------------------------------------------------ X
@pytest.mark.parametrize("est, classifier", ESTIMATORS, ids=IDS)
def test_subnormal_features_are_refused(data, est, classifier):
    # the branch and bound divided by zero on such values
    with pytest.raises(ValueError, match=r"X column 0 has nonzero values as small as .* "
                                         r"\|x\| >= 1e-100 .* rescale the column"):
        est.fit(data[0] * 1e-310, target(data, classifier))


@pytest.mark.parametrize("est, classifier", ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("scale", [1.7e308, 1e300])
def test_huge_features_are_refused(data, est, classifier, scale):
    # overflow in the optimal splitter, infinite thresholds, LDA's infinite covariances
    X = np.clip(data[0], -1, 1) * scale
    with pytest.raises(ValueError, match=r"X column 0 has values up to .* in magnitude; "
                                         r"bivtree needs \|x\| <= 1e\+100 .*StandardScaler"):
        est.fit(X, target(data, classifier))


def test_feature_messages_name_the_column(data):
    import pandas as pd

    X = pd.DataFrame(data[0], columns=["a", "b", "c"])
    X["c"] *= 1e200
    with pytest.raises(ValueError, match=re.escape("X column 2 ('c') has values up to")):
        BivariateTreeClassifier().fit(X, data[1])


@pytest.mark.parametrize("est, classifier", ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("exponent", [320, -320])
def test_features_at_the_edges_of_the_range_give_the_same_partitions(data, est, classifier,
                                                                      exponent):
    X = data[0]
    X_scaled = np.ldexp(X, exponent)
    assert np.abs(X_scaled).max() <= 1e100 and np.abs(X_scaled).min() >= 1e-100
    y = target(data, classifier)
    plain = est.fit(X, y).apply(X)
    scaled = est.fit(X_scaled, y)
    np.testing.assert_array_equal(scaled.apply(X_scaled), plain)
    importances = scaled.feature_importances_
    assert np.all(np.isfinite(importances))
    assert np.all(np.isfinite(scaled.tree_.impurity))
    to_json(scaled)  # a model file holds only finite numbers


# ------------------------------------------------------------------ weights
@pytest.mark.parametrize("est, classifier", ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("weight", [1e-170, 1e200, 5e-324])
def test_the_scale_of_the_weights_does_not_change_the_tree(data, est, classifier, weight):
    # 1e-170: division by zero in growth; 1e200: overflowing impurities, one leaf
    X, y = data[0], target(data, classifier)
    plain = est.fit(X, y)
    leaves, tree = plain.apply(X), plain.tree_
    weighted = est.fit(X, y, sample_weight=np.full(40, weight))
    # 1e-170 is no power of two: near-ties may break the other way between two
    # mirrored rules of the same partition, and impurities agree up to rounding
    assert_same_partition(weighted.apply(X), leaves)
    np.testing.assert_allclose(np.sort(weighted.tree_.impurity), np.sort(tree.impurity),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weighted.feature_importances_, plain.feature_importances_,
                               rtol=1e-12, atol=1e-12)
    # node weights are reported in the weights' own units
    np.testing.assert_allclose(weighted.tree_.weighted_n_node_samples,
                               tree.weighted_n_node_samples * weight, rtol=1e-12)


def test_weights_summing_past_the_largest_float_are_refused(data):
    with pytest.raises(ValueError, match="sample_weight .* sums to more than .*divide the "
                                         "weights by a constant"):
        BivariateTreeClassifier().fit(data[0], data[1], sample_weight=np.full(40, 1e307))


def test_ordinary_weights_are_used_unchanged(data):
    from bivtree.estimators import _rescale_weights

    w = np.linspace(1e-6, 1e6, 40)
    used, exponent = _rescale_weights(w)
    assert exponent == 0 and used is w


# ------------------------------------------------------------------ targets
@pytest.mark.parametrize("splitter", REGRESSOR_SPLITTERS)
@pytest.mark.parametrize("scale", [1e160, 1e-160])
def test_targets_whose_squares_overflow_or_underflow_are_refused(data, splitter, scale):
    with pytest.raises(ValueError, match=r"y has values up to .* between 1e-100 and 1e\+100 "
                                         r".*rescale y"):
        BivariateTreeRegressor(splitter=splitter).fit(data[0], data[2] * scale)
    with pytest.raises(ValueError, match="rescale y"):
        TAOTreeRegressor(max_depth=2).fit(data[0], data[2] * scale)


@pytest.mark.parametrize("splitter", REGRESSOR_SPLITTERS)
# up only: the purity test (impurity below float64's epsilon, as in
# scikit-learn) and the margin a bivariate split must beat the univariate one
# by are absolute, so targets much smaller than 1 may grow another tree
@pytest.mark.parametrize("exponent", [320, 20])
def test_targets_scaled_by_a_power_of_two_give_the_same_partitions(data, splitter, exponent):
    X, targets = data[0], data[2]
    est = BivariateTreeRegressor(splitter=splitter, max_depth=3)
    plain = est.fit(X, targets).apply(X)
    scaled = est.fit(X, np.ldexp(targets, exponent))
    np.testing.assert_array_equal(scaled.apply(X), plain)
    assert np.all(np.isfinite(scaled.tree_.impurity))


# ------------------------------------------------------------ class weights
@pytest.mark.parametrize("value", [-1.0, np.nan, np.inf, "heavy", None])
def test_invalid_class_weight_values_are_refused(data, value):
    # a negative weight used to give a silent one-leaf model
    with pytest.raises(ValueError, match=r"class_weight for class 0 must be a finite number "
                                         r">= 0, got "):
        BivariateTreeClassifier(class_weight={0: value, 1: 1.0}).fit(data[0], data[1])
    with pytest.raises(ValueError, match="class_weight for class 0"):
        TAOTreeClassifier(class_weight={0: value, 1: 1.0}).fit(data[0], data[1])


def test_class_weight_list_is_multi_output_and_refused(data):
    with pytest.raises(ValueError, match="class_weight as a list of dicts is for multi-output"):
        BivariateTreeClassifier(class_weight=[{0: 1.0, 1: 2.0}]).fit(data[0], data[1])


def test_balanced_class_weight_still_fits(data):
    est = BivariateTreeClassifier(class_weight="balanced").fit(data[0], data[1])
    assert est.score(data[0], data[1]) == 1.0


# ------------------------------------------------------------------- labels
@pytest.mark.parametrize("odd, names", [(None, "NoneType and str"), (3, "int and str")])
def test_labels_of_mixed_types_are_refused(data, odd, names):
    y = np.array(["a", "b"] * 20, dtype=object)
    y[3] = odd
    with pytest.raises(ValueError, match=f"y mixes {names} labels"):
        BivariateTreeClassifier().fit(data[0], y)


def test_string_labels_in_an_object_array_still_fit(data):
    y = np.array(["a", "b"] * 20, dtype=object)
    est = BivariateTreeClassifier(max_depth=1).fit(data[0], y)
    assert list(est.classes_) == ["a", "b"]


# -------------------------------------------------------- resource limits
@pytest.mark.parametrize("make", [
    lambda n: BivariateTreeClassifier(n_orientations=n),
    lambda n: BivariateTreeClassifier(splitter_options={"n_orientations": n}),
    lambda n: TAOTreeClassifier(n_orientations=n),
])
def test_n_orientations_is_bounded_before_allocating(data, make):
    # 10**9 directions used to exhaust memory within seconds
    with pytest.raises(ValueError, match=r"n_orientations=1000000000 is more than 100000.*"
                                         r"splitter='optimal'"):
        make(10**9).fit(data[0], data[1])


def test_max_pairs_is_bounded(data):
    largest = RESOURCE_LIMITS["max_pairs"][0]
    with pytest.raises(ValueError, match=f"max_pairs={largest + 1} is more than {largest}"):
        BivariateTreeClassifier(max_pairs=largest + 1).fit(data[0], data[1])
    BivariateTreeClassifier(max_pairs=largest, max_depth=1).fit(data[0], data[1])


# ------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(k=st.integers(-500, 500), splitter=st.sampled_from(CLASSIFIER_SPLITTERS),
       seed=st.integers(0, 1000))
def test_weights_times_a_power_of_two_give_the_same_tree(data, k, splitter, seed):
    rng = np.random.default_rng(seed)
    X, y = data[0], data[1]
    w = rng.integers(1, 4, size=40).astype(float)
    est = BivariateTreeClassifier(splitter=splitter, max_depth=3)
    plain = est.fit(X, y, sample_weight=w)
    leaves, tree = plain.apply(X), plain.tree_
    scaled = est.fit(X, y, sample_weight=np.ldexp(w, k))
    np.testing.assert_array_equal(scaled.apply(X), leaves)
    np.testing.assert_array_equal(scaled.tree_.children_left, tree.children_left)
    np.testing.assert_array_equal(scaled.tree_.children_right, tree.children_right)
    np.testing.assert_array_equal(scaled.tree_.weighted_n_node_samples,
                                  np.ldexp(tree.weighted_n_node_samples, k))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(k=st.integers(-320, 320), splitter=st.sampled_from(CLASSIFIER_SPLITTERS))
def test_features_times_a_power_of_two_give_the_same_partitions(data, k, splitter):
    X, y = data[0], data[1]
    est = BivariateTreeClassifier(splitter=splitter, max_depth=3)
    leaves = est.fit(X, y).apply(X)
    X_scaled = np.ldexp(X, k)
    np.testing.assert_array_equal(est.fit(X_scaled, y).apply(X_scaled), leaves)
