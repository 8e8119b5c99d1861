"""The parameter checker and the messages of the estimators, splitters and protocols."""

import inspect
import re

import numpy as np
import pytest

from bivtree import (
    BivariateTreeClassifier,
    BivariateTreeRegressor,
    TAOTreeClassifier,
    TAOTreeRegressor,
)
from bivtree._validation import (
    InstanceOf,
    Integral,
    Interval,
    Options,
    Real,
    RealNotInt,
    check_params,
    reject_unknown,
)
from bivtree.experiments.protocols import CrossValidation, HoldOut
from bivtree.splitters import SPLITTERS, Splitter, get_splitter
from bivtree.tao.estimators import tao_path


def small_data(n=30, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, 3))
    return X, (X[:, 0] > 0).astype(int)


# ------------------------------------------------------------------- the checker
@pytest.mark.parametrize("interval, inside, outside", [
    (Interval(Integral, 1, None, closed="left"), [1, 7, np.int64(3), 10**30],
     [0, -1, True, 1.0, 2.5, "2", None, np.nan]),
    (Interval(Integral, None, -1, closed="right"), [-1, -5], [0, 1, False]),
    # an int beyond the largest double is no real number a float can hold
    (Interval(Real, 0.0, None, closed="left"), [0, 0.0, 1e300, np.float32(2.0), 10**300],
     [-1e-300, np.inf, np.nan, True, np.bool_(False), "0.1", [0.1], None, 10**400]),
    (Interval(Real, 0.0, 1.0, closed="neither"), [0.5, 1e-9], [0.0, 1.0, 0, 1]),
    (Interval(Real, 0.0, 1.0, closed="both"), [0, 1, 0.0, 1.0], [1.0001, -0.0001]),
    (Interval(Real, 0.0, 1.0, closed="right"), [1.0], [0.0]),
    (Interval(RealNotInt, 0.0, 1.0, closed="right"), [0.5, 1.0, np.float64(0.25)],
     [1, np.int64(1), True, np.nan]),
])
def test_interval(interval, inside, outside):
    for value in inside:
        assert interval.is_satisfied_by(value), value
    for value in outside:
        assert not interval.is_satisfied_by(value), value


@pytest.mark.parametrize("interval, text", [
    (Interval(Integral, 1, None, closed="left"), "an int in [1, inf)"),
    (Interval(Integral, None, -1, closed="right"), "an int in (-inf, -1]"),
    (Interval(Real, 0.0, 0.5, closed="both"), "a number in [0, 0.5]"),
    (Interval(RealNotInt, 0.0, 1.0, closed="neither"), "a float in (0, 1)"),
    (Interval(Integral, 0, 2**32 - 1, closed="both"), "an int in [0, 4294967295]"),
])
def test_interval_text(interval, text):
    assert str(interval) == text


def test_interval_rejects_a_bad_kind_or_closure():
    with pytest.raises(ValueError, match="kind"):
        Interval(float, 0, 1)
    with pytest.raises(ValueError, match="closed"):
        Interval(Real, 0, 1, closed="open")


def test_options_need_a_string_and_follow_a_live_registry():
    registry = {"a": 1}
    options = Options(registry)
    assert options.is_satisfied_by("a")
    assert not options.is_satisfied_by("b")
    registry["b"] = 2  # registered after the table was written
    assert options.is_satisfied_by("b")
    assert not Options({"1"}).is_satisfied_by(1)
    assert str(Options({"x"})) == "'x'"
    assert str(Options({"y", "x"})) == "one of ['x', 'y']"


CONSTRAINTS = {
    "depth": [None, Interval(Integral, 1, None, closed="left")],
    "size": [Interval(Integral, 1, None, closed="left"),
             Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    "draw": [None, {"sqrt", "log2"}, Interval(Integral, 1, None, closed="left")],
    "kind": [{"fast", "exact"}],
    "flag": ["boolean"],
    "values": ["array-like"],
    "hook": [None, callable],
    "table": [None, dict],
    "state": [InstanceOf(np.random.RandomState, "a RandomState")],
}


@pytest.mark.parametrize("name, value", [
    ("depth", None), ("depth", 3), ("size", 2), ("size", 0.3), ("draw", "sqrt"), ("draw", 4),
    ("kind", "fast"), ("flag", False), ("flag", np.bool_(True)), ("values", [1, 2]),
    ("values", (1.0,)), ("values", np.zeros(3)), ("hook", len), ("table", {}),
    ("state", np.random.RandomState(0)),
])
def test_check_params_accepts(name, value):
    check_params("Thing", {name: value}, CONSTRAINTS)


@pytest.mark.parametrize("name, value, message", [
    ("depth", 0, "depth must be None or an int in [1, inf), got 0"),
    ("depth", True, "depth must be None or an int in [1, inf), got True"),
    ("size", 1.0, "size must be an int in [1, inf) or a float in (0, 1), got 1.0"),
    ("draw", "half",
     "draw must be None, 'log2', 'sqrt' or an int in [1, inf), got 'half'"),
    ("kind", "slow", "kind must be one of ['exact', 'fast'], got 'slow'"),
    ("flag", 1, "flag must be a bool, got 1"),
    ("values", "ab", "values must be an array-like, got 'ab'"),
    ("values", 3, "values must be an array-like, got 3"),
    ("hook", 3, "hook must be None or a callable, got 3"),
    ("table", [1], "table must be None or an instance of dict, got [1]"),
    ("state", 0, "state must be a RandomState, got 0"),
])
def test_check_params_message(name, value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        check_params("Thing", {name: value}, CONSTRAINTS)


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown parameter 'bogus' for Thing; valid ones are "
                                         r"\['depth', 'draw'"):
        check_params("Thing", {"bogus": 1}, CONSTRAINTS)
    with pytest.raises(ValueError, match="unknown option 'x', 'y' for nobody; it takes none"):
        reject_unknown(["y", "x"], [], what="option", owner="nobody")
    reject_unknown(["depth"], CONSTRAINTS, what="option", owner="Thing")


def test_a_malformed_table_is_refused():
    with pytest.raises(ValueError, match="unknown constraint"):
        check_params("Thing", {"a": 1}, {"a": ["integer"]})
    with pytest.raises(ValueError, match="cannot use"):
        check_params("Thing", {"a": 1}, {"a": [3]})


# -------------------------------------------------------------------- the tables
@pytest.mark.parametrize("cls", [BivariateTreeClassifier, BivariateTreeRegressor,
                                 TAOTreeClassifier, TAOTreeRegressor])
def test_every_estimator_parameter_has_constraints_its_default_meets(cls):
    params = cls().get_params(deep=False)
    assert set(params) == set(cls._parameter_constraints)
    check_params(cls.__name__, params, cls._parameter_constraints)


@pytest.mark.parametrize("name", sorted(SPLITTERS))
def test_every_splitter_option_has_constraints(name):
    cls = SPLITTERS[name]
    if cls.__init__ is Splitter.__init__:  # a splitter without options
        options = set()
    else:
        options = set(inspect.signature(cls.__init__).parameters) - {"self"}
    assert options == set(cls._parameter_constraints)
    assert set(cls.estimator_params) <= options
    get_splitter(name)  # the defaults pass


# ------------------------------------------------------------------- the messages
@pytest.mark.parametrize("params, message", [
    ({"max_depth": 0}, "max_depth must be None or an int in [1, inf), got 0"),
    ({"max_depth": 2.0}, "max_depth must be None or an int in [1, inf), got 2.0"),
    ({"min_samples_leaf": 1.0},
     "min_samples_leaf must be an int in [1, inf) or a float in (0, 1), got 1.0"),
    ({"max_features": "half"},
     ("max_features must be None, 'log2', 'sqrt', an int in [1, inf) or a float in (0, 1], "
     "got 'half'")),
    ({"max_features": 4}, ("max_features must be None, 'sqrt', 'log2', an int in [1, 3] or a "
                          "float in (0, 1], got 4")),
    ({"ccp_alpha": np.nan}, "ccp_alpha must be a number in [0, inf), got nan"),
    ({"max_pairs": "x"}, "max_pairs must be None or an int in [0, inf), got 'x'"),
    ({"n_jobs": "a"}, "n_jobs must be None, an int in (-inf, -1] or an int in [1, inf), got 'a'"),
    ({"n_jobs": 0}, "n_jobs must be None, an int in (-inf, -1] or an int in [1, inf), got 0"),
    ({"random_state": -1}, ("random_state must be None, an int in [0, 4294967295] or an "
                           "instance of RandomState, got -1")),
    ({"verbose": -1}, "verbose must be an int in [0, inf) or a bool, got -1"),
    ({"splitter_options": [1]}, "splitter_options must be None or a dict, got [1]"),
    ({"criterion": "squared_error"}, ("criterion must be one of ['entropy', 'gini', "
                                     "'log_loss', 'misclassification'], got 'squared_error'")),
    ({"class_weight": "even"}, ("class_weight must be None, 'balanced', a dict or a list of "
                               "dicts, got 'even'")),
])
def test_classifier_messages(params, message):
    X, y = small_data()
    with pytest.raises(ValueError, match=re.escape(message)):
        BivariateTreeClassifier(**params).fit(X, y)


def test_regressor_criterion_message():
    X, y = small_data()
    with pytest.raises(ValueError, match=re.escape(
            "criterion must be 'squared_error', got 'gini'")):
        BivariateTreeRegressor(criterion="gini").fit(X, y.astype(float))


def test_parameters_are_checked_at_fit_not_at_construction():
    est = BivariateTreeClassifier(max_depth=-3, splitter_options={"bogus": 1})
    assert est.get_params()["max_depth"] == -3
    with pytest.raises(ValueError, match="max_depth"):
        est.fit(*small_data())


@pytest.mark.parametrize("splitter, valid", [
    ("orientations", "['n_orientations']"),
    ("hillclimb", "['gammas', 'max_cycles', 'min_relative_improvement', 'tol']"),
    ("optimal", "['bound', 'epsilon', 'fit_time_limit', 'method', 'time_limit', 'verbose']"),
])
def test_unknown_splitter_option_lists_the_valid_keys(splitter, valid):
    X, y = small_data()
    est = BivariateTreeClassifier(splitter=splitter, splitter_options={"bogus": 1})
    with pytest.raises(ValueError, match=re.escape(
            f"unknown splitter_options key 'bogus' for the {splitter!r} splitter; "
            f"valid ones are {valid}")):
        est.fit(X, y)


def test_a_splitter_without_options_says_so():
    X, y = small_data()
    with pytest.raises(ValueError, match="'univariate' splitter; it takes none"):
        BivariateTreeClassifier(splitter="univariate", splitter_options={"tol": 1}).fit(X, y)
    with pytest.raises(ValueError, match="unknown parameter 'tol'"):
        get_splitter("diagonal", tol=1)


@pytest.mark.parametrize("name, options, message", [
    ("orientations", {"n_orientations": 0}, "n_orientations must be an int in [1, inf), got 0"),
    ("hillclimb", {"max_cycles": 1.5}, "max_cycles must be an int in [1, inf), got 1.5"),
    ("hillclimb", {"tol": np.inf}, "tol must be a number in [0, inf), got inf"),
    ("lda", {"n_split_features": True}, ("n_split_features must be None or an int in [1, 3], "
                                        "got True")),
    ("lda", {"gain": "gini"}, ("gain must be one of ['balanced_gain_ratio', 'criterion', "
                              "'information_gain'], got 'gini'")),
    ("lda", {"compare_univariate": "yes"}, "compare_univariate must be a bool, got 'yes'"),
    ("optimal", {"epsilon": 1.0}, "epsilon must be a number in [0, 1), got 1.0"),
    ("optimal", {"method": "magic"}, ("method must be one of ['auto', 'branch_and_bound', "
                                     "'sweep'], got 'magic'")),
    ("optimal", {"time_limit": -1}, "time_limit must be None or a number in [0, inf), got -1"),
])
def test_splitter_option_messages(name, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        get_splitter(name, **options)


def test_estimator_parameters_reach_the_splitters_that_take_them():
    X, y = small_data()
    est = BivariateTreeClassifier(n_orientations=7, max_depth=1).fit(X, y)
    assert est._make_splitter().n_orientations == 7
    # a splitter option of the same name wins
    est.set_params(splitter_options={"n_orientations": 5})
    assert est._make_splitter().n_orientations == 5
    est = BivariateTreeClassifier(splitter="optimal", verbose=True, max_depth=1)
    assert est._make_splitter().verbose == 1
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    est = BivariateTreeClassifier(splitter="lda", max_depth=1,
                                  splitter_options={"categorical_features": None}).fit(frame, y)
    assert est._make_splitter().feature_names == ["a", "b", "c"]


@pytest.mark.parametrize("params, message", [
    ({"alpha": np.nan}, "alpha must be a number in [0, inf), got nan"),
    ({"feature_cost": 0}, "feature_cost must be a number in (0, inf), got 0"),
    ({"init": "greedy"}, ("init must be 'auto', 'bivariate', 'univariate', a bivtree Tree, a "
                         "bivtree tree estimator or a list of initial trees, got 'greedy'")),
    ({"time_limit": 0}, "time_limit must be None or a number in (0, inf), got 0"),
    ({"warm_start": 1}, "warm_start must be a bool, got 1"),
    ({"max_depth": 0}, "max_depth must be None or an int in [1, inf), got 0"),
])
def test_tao_messages(params, message):
    X, y = small_data()
    with pytest.raises(ValueError, match=re.escape(message)):
        TAOTreeClassifier(**params).fit(X, y)


def test_tao_path_max_steps_message():
    X, y = small_data()
    with pytest.raises(ValueError, match=re.escape(
            "max_steps must be None or an int in [1, inf), got 0")):
        tao_path(TAOTreeClassifier(), X, y, max_steps=0)


@pytest.mark.parametrize("make, message", [
    (lambda: CrossValidation(n_splits=1), "n_splits must be an int in [2, inf), got 1"),
    (lambda: CrossValidation(max_splits=0), ("max_splits must be None or an int in [1, inf), "
                                            "got 0")),
    (lambda: CrossValidation(random_state=True), ("random_state must be an int in [0, inf), "
                                                 "got True")),
    (lambda: HoldOut(test_size=1.5), "test_size must be a number in (0, 1), got 1.5"),
])
def test_protocol_messages(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


def test_prune_tree_message():
    from bivtree.pruning import prune_tree

    tree = BivariateTreeClassifier(max_depth=2).fit(*small_data()).tree_
    with pytest.raises(ValueError, match=re.escape(
            "ccp_alpha must be a number in [0, inf), got '0.1'")):
        prune_tree(tree, "0.1")


def test_a_regressor_names_a_non_numeric_target():
    X = np.arange(20.0).reshape(10, 2)
    for estimator in (BivariateTreeRegressor(), TAOTreeRegressor()):
        with pytest.raises(ValueError, match="y holds the non-numeric value 'a': a regressor"):
            estimator.fit(X, ["a", "b"] * 5)
        with pytest.raises(ValueError, match="y holds the non-numeric value None"):
            estimator.fit(X, [1.0, None] * 5)
    # numeric strings are numbers, as in scikit-learn
    BivariateTreeRegressor(max_depth=1).fit(X, ["1.5", "2"] * 5)


def test_real_parameters_are_floats_however_they_are_written():
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    # a huge Python int is a valid cost; it used to overflow numpy's integer arithmetic
    assert np.isfinite(TAOTreeClassifier(feature_cost=10**19).fit(X, y).objective_)
    with pytest.raises(ValueError, match=r"alpha must be a number in \[0, inf\), got 1000"):
        TAOTreeClassifier(alpha=10**400).fit(X, y)
