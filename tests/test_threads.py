"""Threads and Ctrl-C: inner limits honoured, concurrent fits share the cores, SIGINT stops a fit.

Speed is never asserted here (benchmarks/bench_peers.py measures it); these
tests check the decisions that make more threads never much slower, and that a
long fit stops with ``KeyboardInterrupt`` soon after SIGINT.
"""

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import contextmanager

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from bivtree import BivariateTreeClassifier, BivariateTreeRegressor, _threads
from bivtree._threads import _budget, inner_thread_limit, numba_threads, work_chunks
from bivtree.growing import TreeGrower
from bivtree.splitters.auto import AutoSplitter

needs_two_threads = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2,
                                       reason="numba runs one thread here")


@needs_two_threads
def test_n_jobs_is_capped_by_omp_num_threads(monkeypatch):
    # joblib's worker processes get OMP_NUM_THREADS = their inner thread limit
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    with numba_threads(2) as granted:
        assert granted == 1
        assert numba.get_num_threads() == 1


@needs_two_threads
def test_n_jobs_is_capped_by_threadpoolctl():
    with threadpool_limits(limits=1, user_api="openmp"):
        assert inner_thread_limit() == 1
        with numba_threads(-1) as granted:
            assert granted == 1


@needs_two_threads
def test_concurrent_fits_share_the_threads():
    entered, release, granted = threading.Event(), threading.Event(), []

    def second_fit():
        with numba_threads(2) as n:
            granted.append(n)
            entered.set()
            release.wait(10)

    with numba_threads(2) as first:
        worker = threading.Thread(target=second_fit)
        worker.start()
        entered.wait(10)
        release.set()
        worker.join()
    assert first == 2 and granted == [1]
    assert _budget.in_use == 0


def test_the_previous_thread_count_is_restored():
    before = numba.get_num_threads()
    with numba_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before


def test_work_chunks_cover_every_item_once():
    slices = list(work_chunks(1000, 10_000))
    covered = np.concatenate([np.arange(1000)[s] for s in slices])
    assert covered.tolist() == list(range(1000))
    assert len(slices) > 1
    assert list(work_chunks(5, 1)) == [slice(0, 5)]


@needs_two_threads
def test_work_chunks_hold_a_multiple_of_the_threads():
    # three features' worth of work per chunk would leave one of two threads idle a third
    # of the time: chunks of two
    with numba_threads(2):
        sizes = [s.stop - s.start for s in work_chunks(18, 600_000)]
        assert sizes == [2] * 9
        assert [s.stop - s.start for s in work_chunks(5, 10**9)] == [2, 2, 1]


_LONG_FIT = textwrap.dedent("""
    import signal
    import sys
    import numpy as np
    from bivtree import BivariateTreeClassifier
    # a child started from a background job inherits an ignored SIGINT
    signal.signal(signal.SIGINT, signal.default_int_handler)
    splitter, n_jobs = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200_000, 30))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    BivariateTreeClassifier(splitter=splitter, max_depth=1).fit(X[:300], y[:300])  # compiles
    print("fitting", flush=True)
    BivariateTreeClassifier(splitter=splitter, n_jobs=n_jobs).fit(X, y)
    print("finished", flush=True)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
@pytest.mark.parametrize(("splitter", "n_jobs"),
                         [("auto", 1), ("orientations", 1), ("optimal", 1), ("auto", 2)])
def test_sigint_stops_a_long_fit_with_keyboard_interrupt(splitter, n_jobs):
    # with two threads the signal may come while subtrees grow on helper threads
    child = subprocess.Popen(
        [sys.executable, "-c", _LONG_FIT, splitter, str(n_jobs)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "fitting"
        time.sleep(1.0)
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=30)
        stopped_after = time.perf_counter() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert "KeyboardInterrupt" in err, err[-2000:]
    assert "SystemError" not in err and "Segmentation" not in err
    assert child.returncode != 0
    assert stopped_after < 10.0, stopped_after


def test_a_fit_leaves_the_sigint_handler_as_it_was():
    before = signal.getsignal(signal.SIGINT)
    BivariateTreeClassifier(max_depth=2).fit(np.random.default_rng(0).normal(size=(50, 3)),
                                             np.arange(50) % 2)
    assert signal.getsignal(signal.SIGINT) is before


@contextmanager
def sigint_handler(handler):
    """SIGINT handled by ``handler`` inside the block, whatever the process inherited (a
    process started as a background job ignores SIGINT, and so do the fits, as they should)."""
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_sigint_during_a_fit_in_the_main_thread_raises_keyboard_interrupt():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40_000, 12))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    BivariateTreeClassifier(max_depth=1).fit(X[:200], y[:200])
    sent = []
    timer = threading.Timer(0.3, lambda: (sent.append(time.perf_counter()),
                                          os.kill(os.getpid(), signal.SIGINT)))
    with sigint_handler(signal.default_int_handler):
        timer.start()
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            # until the signal comes; a lost one fails with what the handler held, not a hang
            while time.perf_counter() - start < 60.0:
                BivariateTreeClassifier(splitter="orientations").fit(X, y)
            pytest.fail(f"no KeyboardInterrupt 60 s after the start (SIGINT sent at "
                        f"{[round(t - start, 2) for t in sent]} s); SIGINT handler "
                        f"{signal.getsignal(signal.SIGINT)!r}, the fits' flag "
                        f"{vars(_threads._sigint)!r}")
        timer.join()


def test_a_fit_honours_an_ignored_sigint():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20_000, 8))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    sent = []
    timer = threading.Timer(0.2, lambda: (os.kill(os.getpid(), signal.SIGINT),
                                          sent.append(time.perf_counter())))
    with sigint_handler(signal.SIG_IGN):
        timer.start()
        est = BivariateTreeClassifier(splitter="orientations").fit(X, y)
        done = time.perf_counter()
        timer.join()
    assert sent and sent[0] < done  # the signal came during the fit
    assert est.tree_.node_count > 1


def test_ctrl_c_handed_over_as_the_fit_installs_its_handler_is_not_lost(monkeypatch, request):
    # Python runs a signal's handler at its next check, so a Ctrl-C that came just before
    # the fit swapped handlers can reach the fit's handler right after the swap
    install = signal.signal
    # the fit hands a Ctrl-C to a handler installed before it (not Python's default) instead
    # of raising: start from the default one, whatever an earlier test or library left
    previous = install(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: install(signal.SIGINT, previous))

    def install_then_deliver(signum, handler):
        previous = install(signum, handler)
        if handler is _threads._sigint:
            handler(signum, None)
        return previous

    monkeypatch.setattr(_threads.signal, "signal", install_then_deliver)
    with pytest.raises(KeyboardInterrupt), _threads.deferred_sigint():
        pass


def _grown_subtrees(monkeypatch):
    """Record the sizes of the nodes a fit hands to its growing threads."""
    sizes = []
    grow_pending = TreeGrower._grow_pending

    def spy(self, data, samples, pending, *args):
        sizes.extend(node.end - node.start for node in pending)
        return grow_pending(self, data, samples, pending, *args)

    monkeypatch.setattr(TreeGrower, "_grow_pending", spy)
    return sizes


@needs_two_threads
@pytest.mark.parametrize("splitter", ["univariate", "orientations", "auto", "diagonal"])
@pytest.mark.parametrize("estimator", [BivariateTreeClassifier, BivariateTreeRegressor])
def test_subtrees_grown_on_threads_give_the_one_thread_tree(monkeypatch, splitter, estimator):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2600, 4)).round(2)  # ties: the numbering must still agree
    y = ((X[:, 0] + X[:, 1] * X[:, 2] > 0) ^ (rng.random(2600) < 0.2)).astype(int)
    if estimator is BivariateTreeRegressor:
        y = y + X[:, 3]
    sizes = _grown_subtrees(monkeypatch)
    options = {"n_orientations": 6} if splitter == "orientations" else None
    one = estimator(splitter=splitter, splitter_options=options, n_jobs=1).fit(X, y)
    assert sizes == []
    two = estimator(splitter=splitter, splitter_options=options, n_jobs=2).fit(X, y)
    assert len(sizes) >= 2  # the parallel growth really ran
    assert two.tree_.to_dict() == one.tree_.to_dict()
    assert two.split_info_ == one.split_info_


@needs_two_threads
def test_random_feature_draws_and_best_first_grow_on_one_thread(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(2600, 4))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    sizes = _grown_subtrees(monkeypatch)
    BivariateTreeClassifier(max_features=2, random_state=0, n_jobs=2).fit(X, y)
    BivariateTreeClassifier(max_leaf_nodes=20, n_jobs=2).fit(X, y)
    BivariateTreeClassifier(splitter="hillclimb", max_depth=4, n_jobs=2).fit(X, y)
    assert sizes == []


@needs_two_threads
def test_an_error_in_a_subtree_thread_stops_the_fit(monkeypatch):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2600, 3))
    y = rng.integers(0, 2, 2600)  # noise: hundreds of nodes per subtree
    after_failure = []
    failed = threading.Event()
    find_split = AutoSplitter.find_split

    def failing(self, data, samples, features):
        if failed.is_set():
            after_failure.append(samples.shape[0])
        elif samples.shape[0] < 20 and threading.current_thread().name.startswith("bivtree"):
            failed.set()
            raise ValueError("search failed")
        return find_split(self, data, samples, features)

    monkeypatch.setattr(AutoSplitter, "find_split", failing)
    before = threading.active_count()
    with pytest.raises(ValueError, match="search failed"):
        BivariateTreeClassifier(n_jobs=2).fit(X, y)
    assert threading.active_count() == before  # no thread left growing
    # the other thread stops at its next node, queued subtrees never start
    assert len(after_failure) <= 1, after_failure


@needs_two_threads
def test_verbose_growth_on_threads_reports_progress(capsys):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(2600, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    BivariateTreeClassifier(n_jobs=2, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert re.search(r"\d+ nodes in \d+ subtrees", out), out


@needs_two_threads
def test_subtree_threads_rest_while_other_fits_hold_the_cores(monkeypatch):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(2600, 3))
    y = rng.integers(0, 2, 2600)
    alone = BivariateTreeClassifier(n_jobs=2).fit(X, y)
    # another fit took the thread this one would use: only its first thread grows
    monkeypatch.setattr("bivtree.growing.threads_over_budget", lambda: 1)
    threads = set()
    find_split = AutoSplitter.find_split

    def spy(self, data, samples, features):
        threads.add(threading.current_thread().name)
        return find_split(self, data, samples, features)

    monkeypatch.setattr(AutoSplitter, "find_split", spy)
    crowded = BivariateTreeClassifier(n_jobs=2).fit(X, y)
    assert threads == {"MainThread", "bivtree-grow_0"}
    assert crowded.tree_.to_dict() == alone.tree_.to_dict()


def _kernel_receiving_sigint(kernel, finished):
    """``kernel`` that gets SIGINT while it runs, as a compiled call would, then finishes."""

    def wrapped(*args):
        os.kill(os.getpid(), signal.SIGINT)
        # a handler that raised now would stop the call half-way, as it would stop numba
        # building a kernel's result tuple (a crash in compiled code)
        for _ in range(1000):
            pass
        result = kernel(*args)
        finished.append(True)
        return result

    return wrapped


@pytest.mark.parametrize("view", ["apply", "decision_path", "plot"])
def test_ctrl_c_outside_a_fit_is_raised_after_the_compiled_call(monkeypatch, view):
    """Pictures, explanations and predictions call kernels outside any fit: there too
    SIGINT only raises ``KeyboardInterrupt`` once the compiled call has returned."""
    from bivtree import tree
    from bivtree.export import plot

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    est = BivariateTreeClassifier(max_depth=2).fit(X, y)
    finished = []
    if view == "apply":
        monkeypatch.setattr(tree, "apply_rows", _kernel_receiving_sigint(tree.apply_rows,
                                                                         finished))
        call = lambda: est.tree_.apply(X)
    elif view == "decision_path":
        monkeypatch.setattr(tree, "decision_path_rows", _kernel_receiving_sigint(
            tree.decision_path_rows, finished))
        call = lambda: est.tree_.decision_path(X)
    else:
        from bivtree.splitters import univariate

        pytest.importorskip("matplotlib")
        monkeypatch.setattr(univariate, "univariate_search", _kernel_receiving_sigint(
            univariate.univariate_search, finished))
        call = lambda: plot._best_second(est, plot._Data(est, X, y), 0, 0)
    with sigint_handler(signal.default_int_handler), pytest.raises(KeyboardInterrupt):
        call()
    assert finished == [True]


def test_a_fork_of_a_process_running_openmp_threads_is_refused_not_left_to_hang():
    # joblib's multiprocessing backend forks; after a fit has started the OpenMP threads the
    # forked workers die ("fork() called from a process already using GNU OpenMP") and the
    # selector waited for ever: it now refuses before forking, naming the way out
    script = textwrap.dedent("""
        import joblib
        from sklearn.datasets import make_classification
        from bivtree import BivariateTreeClassifier, TAOTreeClassifierCV
        from bivtree._threads import _threading_layer
        X, y = make_classification(200, 4, random_state=0)
        BivariateTreeClassifier(n_jobs=2).fit(X, y)
        print("layer", _threading_layer())
        try:
            with joblib.parallel_config(backend="multiprocessing"):
                TAOTreeClassifierCV(max_depth=2, inits=["bivariate"], n_jobs=2).fit(X, y)
            print("fitted")
        except RuntimeError as error:
            print("refused:", error)
    """)
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True,
                          text=True, timeout=240, env={**os.environ, "NUMBA_NUM_THREADS": "2"})
    assert done.returncode == 0, done.stderr
    if "layer omp" not in done.stdout:
        pytest.skip(f"numba's threading layer here is not OpenMP: {done.stdout!r}")
    assert "refused: TAOTreeClassifierCV: joblib's 'multiprocessing' backend" in done.stdout
    assert "loky" in done.stdout and "fitted" not in done.stdout


def test_which_forks_are_unsafe():
    from joblib._parallel_backends import (
        LokyBackend,
        MultiprocessingBackend,
        ThreadingBackend,
    )

    assert _threads.forks_unsafely(MultiprocessingBackend(), "fork", "omp")
    assert not _threads.forks_unsafely(MultiprocessingBackend(), "spawn", "omp")
    assert not _threads.forks_unsafely(MultiprocessingBackend(), "forkserver", "omp")
    assert not _threads.forks_unsafely(MultiprocessingBackend(), "fork", "workqueue")
    assert not _threads.forks_unsafely(MultiprocessingBackend(), "fork", None)  # not started
    assert not _threads.forks_unsafely(LokyBackend(), "fork", "omp")
    assert not _threads.forks_unsafely(ThreadingBackend(), "fork", "omp")

    class PoolOfAnotherLibrary(MultiprocessingBackend):  # as Ray's backend is
        pass

    assert not _threads.forks_unsafely(PoolOfAnotherLibrary(), "fork", "omp")
