"""Globally optimal bivariate splits: the BiDT branch and bound (Bollwein & Westphal, 2021).

The search is :mod:`bivtree._kernels.bnb_search`, with its bounds in
:mod:`bivtree._kernels.bnb_bounds` and its exploration criteria in
:mod:`bivtree._kernels.bnb_explore`: for every feature pair, the rule
``a z_j1 + b <= z_j2`` of least weighted child impurity, ``z`` being the node's
features normalized by their median and interquartile range, starting from the
best univariate split as incumbent.

The winning rule is written back in original units (section 4.1) and its
threshold re-scanned with the routing arithmetic; the proven lower bound of the
search (from the boxes pruned by ``epsilon`` or left when ``time_limit`` ran
out) is reported in ``Split.info`` as a relative gap.

The same splitter runs the exact sweep on every pair with ``method="sweep"``;
it also handles ``squared_error``, where the impurity is not a concave function
of class counts and the paper's bounds do not apply.

**Missing values.** NaN in ``X`` is a missing value. For a pair, the rows
missing either feature form a block held aside: its statistics go, together,
to the left or to the right of every rule (the branch and bound starts its root
box with the block in ``A``, then in ``B``; the sweep scores every cut with the
block on each side, and the cut putting every complete row against the block),
so both searches are exact for this problem: the best over the univariate
candidates (each with its own missing rows on either side, as
:func:`~bivtree.splitters.univariate.best_univariate_split` defines them) and,
per pair, over every partition of the pair's complete rows by a line times the
side of the rows missing one of its features. The lower bounds stay valid with
the block fixed on one side (they bound the impurity of any assignment of the
undecided points given the decided ones, whatever those hold). The median / IQR
normalization of a feature uses its known values; the written-back rule is
re-scanned with both sides of its missing rows, which sets ``missing_left``.

**Constraints** (:mod:`bivtree.constraints`). Only the pairs the interaction
groups allow are searched. Under monotonic constraints the univariate
incumbent is the best admissible univariate split, a pair of two free features
is searched as without constraints (an unordered split is not checked), and a
pair with a constrained feature is solved by the exact sweep over its
admissible partitions (:func:`~bivtree._kernels.sweep.sweep_constrained`: the
order of its children fixed by the constrained feature's sign, for two
constrained features only the lines whose signs agree, a quarter-turn of
directions), whatever ``method`` says: the branch and bound's pruning and
closing of boxes assume that every partition is allowed. So the split
returned is the best admissible one: the best, over the admissible univariate
cuts and, per allowed pair, over every partition of its complete rows by a line
(times the side of the rows missing one of its features) whose children
respect the order the line's signs require and the node's bounds; a pair of
two free features needs no order. ``epsilon`` and the time limits apply to the
branch and bound's pairs as before; a sweep stopped by a time limit proves no
bound (the node's root bound is reported for it).
"""

import time
from typing import ClassVar

import numba
import numpy as np

from .._config import SQUARED_ERROR
from .._kernels.bnb_bounds import PAPER, VERTEX, root_lower_bound
from .._kernels.bnb_search import bnb_search, node_features
from .._kernels.scan import gather_node
from .._kernels.sweep import StopTimer, node_statistics, sweep_constrained, sweep_search
from .._threads import PARALLEL_MIN_WORK, call_stoppable
from .._validation import Integral, Interval, Options, Real, check_params
from ..constraints import UNBOUNDED
from ._base import BEATS_TOLERANCE, Splitter, candidate_pairs, register
from ._pairs import finish_bivariate
from .univariate import best_univariate_split

#: a round of the parallel search holds at least this many pairs, and more for
#: small nodes: about ``ROUND_WORK`` sample-pairs, so that starting a parallel
#: region costs little next to the work in it. Rounds depend on the node's size
#: only, never on the number of threads.
PAIRS_PER_ROUND = 16
ROUND_WORK = 20_000
#: a pair whose search needs more than ``max(SWEEP_MIN_BOXES, m^2 / SWEEP_BOX_RATIO)``
#: subproblems (``m`` distinct points) is solved by the exact sweep instead.
SWEEP_MIN_BOXES = 4096
SWEEP_BOX_RATIO = 16

#: after ``fit_time_limit``, the remaining nodes get univariate splits for this
#: fraction of the limit plus these seconds, then become leaves: growing the rest
#: of a large tree univariately can take long, and the limit should hold whatever
#: the data's size.
FIT_LIMIT_GRACE_FRACTION = 0.05
FIT_LIMIT_GRACE_SECONDS = 0.25

#: ``method="auto"`` runs the branch and bound for the classification criteria
#: (faster than the sweep on all but the smallest nodes, where both take well under
#: a millisecond; see benchmarks/bench_optimal.py) and the sweep for
#: ``squared_error``, where the bounds do not apply.
METHODS = ("auto", "branch_and_bound", "sweep")
#: lower bounds of the branch and bound (see
#: :func:`bivtree._kernels.bnb_bounds.lower_bound`).
BOUNDS = {"paper": PAPER, "vertex": VERTEX}


# ------------------------------------------------------------- the splitter
@register
class OptimalSplitter(Splitter):
    """Globally optimal bivariate splits (BiDT branch and bound, or the exact rotational sweep).

    Parameters
    ----------
    method : {"auto", "branch_and_bound", "sweep"}, default="auto"
        ``"branch_and_bound"``: the BiDT algorithm (gini, entropy,
        misclassification); ``"sweep"``: the exact rotational sweep of every
        feature pair (any criterion, ``O(n^2 log n)`` per pair);
        ``"auto"``: the branch and bound for the classification criteria, the
        sweep for ``squared_error``.
    epsilon : float in [0, 1), default=0.0
        Relative optimality gap of the branch and bound (section 5.1): the
        returned split's impurity ``G`` satisfies ``(1 - epsilon) G <= G*``.
    bound : {"vertex", "paper"}, default="vertex"
        Lower bound of a subproblem. ``"paper"``: Theorem 4, improved by
        Theorems 5 (entropy) and 6 (gini); ``"vertex"``: Theorem 1 used as a
        bound (the best assignment of whole classes of the undecided points to
        either side), never weaker and usually far stronger.
    time_limit : float, default=None
        Seconds one node's search may take; the best split found by then is
        used and its proven gap reported.
    fit_time_limit : float, default=None
        Seconds the searches of a whole fit may take together. The node in
        flight stops with the best split found; once spent, every remaining
        node gets its best univariate split without a pair search (with the
        gap to the node's root bound), and once ``FIT_LIMIT_GRACE_FRACTION``
        of the limit plus ``FIT_LIMIT_GRACE_SECONDS`` more have passed, every
        remaining node becomes a leaf.
    verbose : int, default=0
        Print a line for every node search longer than a second (every node
        search with ``verbose >= 2``).
    """

    name = "optimal"
    max_node_features = 2
    searches_pairs = True
    supports_constraints = True
    _parameter_constraints: ClassVar[dict] = {
        "method": [Options(METHODS)],
        "epsilon": [Interval(Real, 0.0, 1.0, closed="left")],
        "bound": [Options(BOUNDS)],
        "time_limit": [None, Interval(Real, 0.0, None, closed="left")],
        "fit_time_limit": [None, Interval(Real, 0.0, None, closed="left")],
        # the estimators' verbose
        "verbose": [Interval(Integral, 0, None, closed="left"), "boolean"],
    }
    estimator_params = ("verbose",)

    def __init__(self, method="auto", epsilon=0.0, bound="vertex", time_limit=None,
                 fit_time_limit=None, verbose=0):
        check_params(f"the {self.name!r} splitter",
                     {"method": method, "epsilon": epsilon, "bound": bound,
                      "time_limit": time_limit, "fit_time_limit": fit_time_limit,
                      "verbose": verbose},
                     self._parameter_constraints)
        self.method = method
        self.bound = bound
        self.epsilon = float(epsilon)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.fit_time_limit = None if fit_time_limit is None else float(fit_time_limit)
        self.verbose = int(verbose)

    def prepare(self, data):
        if data.criterion == SQUARED_ERROR and self.method == "branch_and_bound":
            raise ValueError(
                "the branch and bound needs a concave impurity of class counts (gini, entropy, "
                "misclassification); use method='sweep' (or 'auto') for squared_error")
        self._fit_start = time.perf_counter()
        self._objective = np.int64(data.criterion)  # built-in objective code
        self._params = np.array([float(data.min_samples_leaf), float(data.min_weight_leaf)])

    def _node_method(self, criterion):
        if self.method != "auto":
            return self.method
        return "sweep" if criterion == SQUARED_ERROR else "branch_and_bound"

    def _past_grace(self):
        """Whether the fit's time and its grace are spent: no more splits at all."""
        if self.fit_time_limit is None:
            return False
        grace = FIT_LIMIT_GRACE_FRACTION * self.fit_time_limit + FIT_LIMIT_GRACE_SECONDS
        return time.perf_counter() - self._fit_start >= self.fit_time_limit + grace

    def _node_time_limit(self):
        limit = self.time_limit
        if self.fit_time_limit is not None:
            left = self.fit_time_limit - (time.perf_counter() - self._fit_start)
            limit = left if limit is None else min(limit, left)
        return limit

    def find_split(self, data, samples, features, bounds=UNBOUNDED):
        t0 = time.perf_counter()
        if self._past_grace():
            return None
        # no valid univariate cut (ties with min_samples_leaf) does not rule out a
        # bivariate one: the pair search runs whatever the univariate result
        univariate = best_univariate_split(data, samples, features, bounds)
        n = samples.shape[0]
        method = self._node_method(data.criterion)
        limit = self._node_time_limit()
        if limit is not None and limit <= 0.0:
            # no time left: skip the pair search and its set-up (sorting every feature
            # of the node, a parallel region), which would stop at once anyway
            return self._without_search(data, samples, features, univariate, method, t0)
        Z, order, rank, _, scale = node_features(data.X, samples, features)
        varying = np.flatnonzero(scale > 0)
        pi, pk = candidate_pairs(varying)
        constraints = data.constraints
        if constraints.allowed.shape[0]:  # the pairs of columns of Z the groups allow
            keep = constraints.allowed[features[pi], features[pk]]
            pi, pk = np.ascontiguousarray(pi[keep]), np.ascontiguousarray(pk[keep])
        # the monotonic constraint of every column of Z
        cst = (np.ascontiguousarray(constraints.monotonic[features])
               if constraints.has_monotonic else constraints.monotonic)
        info = {"method": method, "n_pairs": int(pi.size)}
        if pi.size == 0:
            if univariate is None:
                return None
            return self._finish(univariate, univariate.objective, info, t0, n, True)
        inv_scale = np.zeros(data.n_features)
        inv_scale[features[varying]] = 1.0 / scale[varying]
        node_labels, node_targets, node_weight, counts, w_total, _, base = gather_node(
            samples, data.labels, data.targets, data.sample_weight, data.n_classes,
            data.criterion)
        stats = node_statistics(node_labels, node_targets, node_weight, data.n_classes,
                                data.criterion)
        tol = BEATS_TOLERANCE * max(w_total, abs(base))
        incumbent = (np.inf if univariate is None else univariate.objective) - tol
        root_lb = (0.0 if data.criterion == SQUARED_ERROR
                   else root_lower_bound(counts, data.criterion))
        # the timer also bounds the sweep that the write-back may fall back on
        timer = StopTimer(self._node_time_limit())
        try:
            # in a helper thread, so that Ctrl-C can raise the stop flag the kernels poll
            candidate, lower, stopped = call_stoppable(
                self._search, timer.flag, method, data, Z, order, rank, pi, pk, stats,
                incumbent, root_lb, features, info, timer.flag, cst, bounds)
            split = univariate
            if candidate is not None:
                split = self._rule(data, samples, univariate, candidate, inv_scale, tol, Z,
                                   stats, timer.flag, cst, bounds)
                if split is not None and split.objective > candidate[0] + tol:
                    # the written-back rule lost part of what the search found (a
                    # fallback sweep cut short): the search's value still bounds the
                    # optimum, and the gap says what was lost
                    lower = min(lower, candidate[0])
        finally:
            timer.cancel()
        if split is None:
            return None
        return self._finish(split, min(lower, split.objective), info, t0, n, not stopped)

    def _search(self, method, data, Z, order, rank, pi, pk, stats, incumbent, root_lb,
                features, info, stop, cst, bounds):
        """The pair search of a node: ``(candidate or None, proven lower bound, stopped)``.

        The lower bound is the least, over the pairs, of what each proved: nothing
        below the incumbent for a finished pair (``inf``), the least bound of the
        open boxes for a pair stopped mid-search, and ``root_lb`` for a pair stopped
        before it started (or stopped in the sweep, which proves no bound). ``cst``
        is the monotonic constraint of every column of ``Z``: the pairs with a
        constrained column are swept whatever the method (see the module).
        """
        n = Z.shape[0]
        previous_chunk = numba.set_parallel_chunksize(1)  # pairs differ widely in cost
        previous_threads = numba.get_num_threads()
        if n * pi.size < PARALLEL_MIN_WORK:
            # a small node: waking a second thread (which may have to wait for a busy
            # core) costs more than the search; the result is the same either way
            numba.set_num_threads(1)
        try:
            free = np.ones(pi.size, dtype=bool)
            if cst.size and method == "branch_and_bound":
                free = (cst[pi] == 0) & (cst[pk] == 0)
            found = []
            if free.all():
                pairs = (pi, pk)
            else:
                pairs = (np.ascontiguousarray(pi[free]), np.ascontiguousarray(pk[free]))
                found.append(self._sweep(data, Z, pi[~free], pk[~free], stats, incumbent,
                                         root_lb, features, info, stop, cst, bounds))
            if method == "branch_and_bound":
                if pairs[0].size or not found:
                    found.insert(0, self._branch_and_bound(
                        data, Z, order, rank, *pairs, stats, incumbent, root_lb, features,
                        info, stop))
            else:
                found.append(self._sweep(data, Z, pi, pk, stats, incumbent, root_lb, features,
                                         info, stop, cst, bounds))
        finally:
            numba.set_parallel_chunksize(previous_chunk)
            numba.set_num_threads(previous_threads)
        # the least objective (the first search's on ties)
        candidates = [c for c, _, _ in found if c is not None]
        candidate = min(candidates, key=lambda c: c[0]) if candidates else None
        return (candidate, min(lower for _, lower, _ in found),
                any(stopped for _, _, stopped in found))

    def _branch_and_bound(self, data, Z, order, rank, pi, pk, stats, incumbent, root_lb,
                          features, info, stop):
        """:meth:`_search`'s answer for the pairs ``(pi, pk)`` by the branch and bound."""
        n = Z.shape[0]
        best, q, swap, a, _, lb_open, n_boxes, n_swaps, stopped = bnb_search(
            Z, order, rank, pi, pk, stats, data.n_classes, data.criterion,
            float(data.min_samples_leaf), float(data.min_weight_leaf), incumbent,
            self.epsilon, BOUNDS[self.bound], root_lb,
            max(PAIRS_PER_ROUND, ROUND_WORK // n),
            np.array([SWEEP_MIN_BOXES, SWEEP_BOX_RATIO], dtype=np.int64), stop)
        info["n_subproblems"] = int(n_boxes.sum())
        info["n_swept_pairs"] = int(np.count_nonzero(n_swaps))
        lower = float(lb_open.min()) if lb_open.size else np.inf
        candidate = None
        if q >= 0:
            # rule a z1 + b <= z2, i.e. the projection z2 - a z1
            j1, j2 = (pk[q], pi[q]) if swap else (pi[q], pk[q])
            candidate = (best, features[j2], features[j1], 1.0, -a, j2, j1)
        return candidate, lower, bool(stopped)

    def _sweep(self, data, Z, pi, pk, stats, incumbent, root_lb, features, info, stop, cst,
               bounds):
        """:meth:`_search`'s answer for the pairs ``(pi, pk)`` by the exact sweep (over the
        admissible partitions of a pair with a constrained column)."""
        optimum, wu, wv, n_swaps, complete = sweep_search(
            Z, pi, pk, stats, self._objective, self._params, stop, cst, bounds.lower,
            bounds.upper)
        info["n_swaps"] = info.get("n_swaps", 0) + int(n_swaps.sum())
        stopped = not bool(complete.all())
        lower = root_lb if stopped else np.inf
        q = int(np.argmin(optimum))  # first minimum: lowest pair wins ties
        candidate = None
        if optimum[q] < incumbent:
            candidate = self._sweep_candidate(optimum[q], features, pi[q], pk[q], wu[q], wv[q])
        return candidate, lower, stopped

    def _without_search(self, data, samples, features, univariate, method, t0):
        """The univariate split of a node left no time for its pair search, with the
        node's root bound as its proven lower bound."""
        if univariate is None:
            return None
        X = data.X[samples][:, features]
        missing = np.isnan(X)  # a missing value is neither a feature's least nor its largest
        hi = np.where(missing, -np.inf, X).max(axis=0, initial=-np.inf)
        lo = np.where(missing, np.inf, X).min(axis=0, initial=np.inf)
        n_varying = int(np.count_nonzero(hi > lo))
        n_pairs = n_varying * (n_varying - 1) // 2
        info = {"method": method, "n_pairs": n_pairs}
        if n_pairs == 0 or data.criterion == SQUARED_ERROR:
            lower = univariate.objective if n_pairs == 0 else 0.0
        else:
            counts = np.bincount(data.labels[samples], weights=data.sample_weight[samples],
                                 minlength=data.n_classes)
            lower = root_lower_bound(counts, data.criterion)
        return self._finish(univariate, lower, info, t0, samples.shape[0], n_pairs == 0)

    @staticmethod
    def _sweep_candidate(optimum, features, j, k, wu, wv):
        # first coefficient the larger, so the stored rule x_first + w x_second is readable
        if abs(wu) >= abs(wv):
            return (optimum, features[j], features[k], wu, wv, j, k)
        return (optimum, features[k], features[j], wv, wu, k, j)

    def _rule(self, data, samples, univariate, candidate, inv_scale, tol, Z, stats, stop,
              cst, bounds):
        """Stored rule for a winning direction; falls back to the sweep's direction for the
        pair when rounding makes the re-scan miss the partition the search scored.

        The sweep gives up once ``stop`` is raised (its best direction so far is
        re-scanned all the same): unbounded, a sweep of a large node would outlast
        any time limit. The re-scans keep the cuts admissible at a node of
        ``bounds`` (``cst``: the constraint of every column of ``Z``).
        """
        claimed, f1, f2, c1, c2, z1, z2 = candidate
        split = self._rescan(data, samples, univariate, f1, f2, c1, c2, inv_scale, bounds)
        if split is not None and split.objective <= claimed + tol:
            return split
        lo, hi = min(z1, z2), max(z1, z2)
        u = np.ascontiguousarray(Z[:, lo])
        v = np.ascontiguousarray(Z[:, hi])
        c_u, c_v = (int(cst[lo]), int(cst[hi])) if cst.size else (0, 0)
        _, wu, wv, _, _, _, _ = sweep_constrained(u, v, c_u, c_v, stats, self._objective,
                                                  self._params, bounds.lower, bounds.upper,
                                                  stop)
        flo = f1 if z1 == lo else f2
        fhi = f2 if z1 == lo else f1
        if abs(wu) >= abs(wv):
            other = self._rescan(data, samples, univariate, flo, fhi, wu, wv, inv_scale,
                                 bounds)
        else:
            other = self._rescan(data, samples, univariate, fhi, flo, wv, wu, inv_scale,
                                 bounds)
        if other is not None and (split is None or other.objective < split.objective):
            return other
        return split

    @staticmethod
    def _rescan(data, samples, univariate, f1, f2, c1, c2, inv_scale, bounds):
        return finish_bivariate(data, samples, univariate, 0, np.array([f1]), np.array([f2]),
                                np.array([c1]), np.array([c2]), 0, inv_scale, bounds)

    def _finish(self, split, lower, info, t0, n, complete):
        objective = split.objective
        lower = min(lower, objective)
        gap = (objective - lower) / objective if objective > 0.0 else 0.0
        info.update(lower_bound=float(lower), gap=float(max(gap, 0.0)), complete=bool(complete),
                    seconds=time.perf_counter() - t0)
        split.info.update(info)
        if self.verbose >= 2 or (self.verbose and info["seconds"] >= 1.0):
            work = info.get("n_subproblems", info.get("n_swaps", 0))
            print(f"[bivtree] optimal split ({info['method']}): {n} samples, {info['n_pairs']} "
                  f"pairs, {work} {'subproblems' if 'n_subproblems' in info else 'swaps'}, "
                  f"gap {info['gap']:.3g}, {info['seconds']:.2f} s", flush=True)
        return split
