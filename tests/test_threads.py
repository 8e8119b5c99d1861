"""Threads and Ctrl-C: inner limits honoured, concurrent fits share the cores, SIGINT stops a fit.

Speed is never asserted here (benchmarks/bench_peers.py measures it); these
tests check the decisions that make more threads never much slower, and that a
long fit stops with ``KeyboardInterrupt`` soon after SIGINT.
"""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from bivtree import BivariateTreeClassifier
from bivtree._threads import _budget, inner_thread_limit, numba_threads, work_chunks

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


_LONG_FIT = textwrap.dedent("""
    import signal
    import sys
    import numpy as np
    from bivtree import BivariateTreeClassifier
    # a child started from a background job inherits an ignored SIGINT
    signal.signal(signal.SIGINT, signal.default_int_handler)
    splitter = sys.argv[1]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200_000, 30))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    BivariateTreeClassifier(splitter=splitter, max_depth=1).fit(X[:300], y[:300])  # compiles
    print("fitting", flush=True)
    BivariateTreeClassifier(splitter=splitter).fit(X, y)
    print("finished", flush=True)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX")
@pytest.mark.parametrize("splitter", ["auto", "orientations", "optimal"])
def test_sigint_stops_a_long_fit_with_keyboard_interrupt(splitter):
    child = subprocess.Popen(
        [sys.executable, "-c", _LONG_FIT, splitter], stdout=subprocess.PIPE,
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


def test_sigint_during_a_fit_in_the_main_thread_raises_keyboard_interrupt():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40_000, 12))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    BivariateTreeClassifier(max_depth=1).fit(X[:200], y[:200])
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        for _ in range(200):  # until the signal comes
            BivariateTreeClassifier(splitter="orientations").fit(X, y)
    timer.join()
