"""Threads of the compiled kernels: how many a fit uses, and how they wait.

Three rules keep more threads from ever being much slower than fewer:

* **Waiting threads sleep.** numba's OpenMP layer (GNU libgomp) makes idle
  threads spin by default, and a spinning thread steals the core another
  process or fit needs: on a busy 2-core machine a 2-thread fit ran 18 times
  slower than a 1-thread one. libgomp reads ``OMP_WAIT_POLICY`` once, when it
  loads, which numba does at its first parallel launch; :func:`start_threads`
  launches it with ``OMP_WAIT_POLICY=PASSIVE`` (unless the user set the
  variable) and then restores the environment, so no other library is
  affected. If another library loaded libgomp first, its setting stands.
* **Inner limits are honoured.** A fit uses at most ``n_jobs`` threads, and no
  more than joblib and threadpoolctl allow where it runs: inside a joblib
  worker process (``OMP_NUM_THREADS``, which joblib sets to its inner thread
  limit) or a ``threadpoolctl.threadpool_limits`` block (the OpenMP runtime's
  limit), like any OpenMP code.
* **Concurrent fits share the cores.** Fits running at once in one process
  (threads, e.g. joblib's threading backend) draw their threads from one
  budget of ``numba.config.NUMBA_NUM_THREADS``: a fit gets what is left, and at
  least one thread.

Results never depend on the thread count (every parallel kernel writes its own
slots and reduces them in a fixed order), only the speed does.

Ctrl-C: if Python raised ``KeyboardInterrupt`` while a compiled function
returns its result (numba builds a named tuple by calling back into Python),
that call would fail half-way, with a crash or a ``SystemError``. So during a
fit (in the main thread) SIGINT only sets a flag, and the fit raises
``KeyboardInterrupt`` itself between compiled calls (:func:`check_interrupt`:
every node, every chunk of a large node's search, see :func:`work_chunks`),
within about a second.

Forks: GNU libgomp, numba's OpenMP layer, is not fork-safe. A process whose kernel
threads have started and that joblib's ``multiprocessing`` backend then forks gets
workers that die at their first parallel kernel ("fork() called from a process already
using GNU OpenMP"), and the parallel call waits for them for ever;
:func:`check_fork_safe` refuses that case with an error that names it before a worker
is forked (joblib's default backend, loky, starts fresh processes and is safe).
"""

import ctypes
import multiprocessing
import os
import signal
import threading
from contextlib import contextmanager

import numba
from joblib import effective_n_jobs
from numba.np.ufunc import parallel as numba_parallel

#: below this many sample scans a search runs on one thread: waking a second
#: thread (which may have to wait for a busy core) costs more than it saves.
PARALLEL_MIN_WORK = 50_000

_start_lock = threading.Lock()
_openmp = None
#: reads the calling thread's kernel thread count once the threading layer runs
_read_num_threads = numba.get_num_threads


def start_threads():
    """Launch numba's threading layer with sleeping (passive) waits; idempotent."""
    global _openmp
    with _start_lock:
        if _openmp is not None:
            return
        user_set = "OMP_WAIT_POLICY" in os.environ
        if not user_set:
            os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
        try:
            numba.get_num_threads()  # loads and starts the threading layer
        finally:
            if not user_set:
                del os.environ["OMP_WAIT_POLICY"]
        _openmp = _openmp_runtimes()
        global _read_num_threads
        # numba.get_num_threads() takes two locks first, to launch the layer once; at
        # every node of a fit that is most of its cost, and under the GIL a chance for
        # the fit's other threads to take over. Launched, the count can be read directly.
        _read_num_threads = _holding_the_gil(
            getattr(numba_parallel, "_get_num_threads", None)) or numba.get_num_threads


def _holding_the_gil(function):
    """``function`` (a ctypes C function without arguments returning an int) called without
    releasing the GIL, or None.

    ctypes releases the GIL around every call of a C function; a fit reads its
    thread count at every node, and each release lets another growing thread
    take the GIL, which this one then waits to get back.
    """
    if function is None:
        return None
    try:
        address = ctypes.cast(function, ctypes.c_void_p).value
    except (TypeError, ctypes.ArgumentError):  # pragma: no cover - not a ctypes function
        return None
    return ctypes.PYFUNCTYPE(ctypes.c_int)(address)


def kernel_threads():
    """The calling thread's kernel thread count (``numba.get_num_threads()``, cheaper)."""
    return _read_num_threads()


def _openmp_runtimes():
    """threadpoolctl's handles on the loaded OpenMP runtimes (empty without threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - scikit-learn depends on it
        return []
    return list(ThreadpoolController().select(user_api="openmp").lib_controllers)


def inner_thread_limit():
    """The most threads the caller's context allows: ``OMP_NUM_THREADS``, threadpoolctl's limit.

    ``None`` when nothing limits it.
    """
    start_threads()
    limits = []
    value = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if value.isdigit() and int(value) > 0:
        limits.append(int(value))
    for runtime in _openmp:
        n = runtime.get_num_threads()
        if n is not None and n > 0:
            limits.append(int(n))
    return min(limits) if limits else None


def _threading_layer():
    """numba's running threading layer (``"omp"``, ``"tbb"``, ``"workqueue"``), or None
    before its first parallel launch."""
    try:
        return numba.threading_layer()
    except ValueError:  # not launched yet
        return None


def forks_unsafely(backend, start_method, layer):
    """Whether a joblib ``backend`` would fork this process (joblib's own multiprocessing
    backend with the ``fork`` start method) after numba's OpenMP ``layer`` started.
    Backends built on it by other libraries (Ray's) start their workers their own way."""
    from joblib._parallel_backends import MultiprocessingBackend

    return (type(backend) is MultiprocessingBackend and start_method == "fork"
            and layer == "omp")


def check_fork_safe(n_jobs, what):
    """Raise ``RuntimeError`` where joblib would run ``what`` on ``n_jobs`` workers forked
    from this process after its OpenMP threads started (see the module)."""
    from joblib.parallel import DEFAULT_MP_CONTEXT, get_active_backend

    if effective_n_jobs(n_jobs) == 1:
        return
    backend, _ = get_active_backend()
    # joblib's pool uses its JOBLIB_START_METHOD context, else multiprocessing's method
    # (read without fixing it: the first of get_all_start_methods is the default)
    start_method = (DEFAULT_MP_CONTEXT.get_start_method() if DEFAULT_MP_CONTEXT is not None
                    else multiprocessing.get_start_method(allow_none=True)
                    or multiprocessing.get_all_start_methods()[0])
    if forks_unsafely(backend, start_method, _threading_layer()):
        raise RuntimeError(
            f"{what}: joblib's 'multiprocessing' backend would fork this process, whose "
            "numba OpenMP threads have started (GNU OpenMP is not fork-safe): the forked "
            "workers would die and the fit wait for them for ever. Use joblib's default "
            "backend (loky) or 'threading', the 'spawn' or 'forkserver' start method "
            "(JOBLIB_START_METHOD), or n_jobs=1.")


class _ThreadBudget:
    """The process's kernel threads, shared by the fits that run at once."""

    def __init__(self, total):
        self.total = total
        self.in_use = 0
        self._lock = threading.Lock()

    def take(self, wanted):
        with self._lock:
            granted = max(1, min(wanted, self.total - self.in_use))
            self.in_use += granted
            return granted

    def give_back(self, granted):
        with self._lock:
            self.in_use -= granted


_budget = _ThreadBudget(numba.config.NUMBA_NUM_THREADS)


@contextmanager
def numba_threads(n_jobs):
    """Run the block with numba using up to ``n_jobs`` threads (joblib's meaning).

    Yields the number granted: ``n_jobs`` resolved by joblib, capped by
    :func:`inner_thread_limit` and by what concurrent fits leave of the
    process's threads, at least 1. The calling thread's previous setting is
    restored afterwards. Ctrl-C is raised only at :func:`check_interrupt`
    meanwhile (see the module).
    """
    start_threads()
    wanted = max(1, min(int(effective_n_jobs(n_jobs)), numba.config.NUMBA_NUM_THREADS))
    limit = inner_thread_limit()
    if limit is not None:
        wanted = max(1, min(wanted, limit))
    granted = _budget.take(wanted)
    previous = numba.get_num_threads()
    numba.set_num_threads(granted)
    try:
        with deferred_sigint():
            yield granted
    finally:
        numba.set_num_threads(previous)
        _budget.give_back(granted)


def threads_over_budget():
    """How many threads the fits running now hold beyond the process's budget (0 if none).

    A fit always gets one thread, so fits started while the others hold every
    thread overdraw the budget; a fit growing subtrees on several threads
    lets this many of them rest meanwhile.
    """
    return max(0, _budget.in_use - _budget.total)


class threads_for_work:  # lower case: a context manager, used like a function
    """One thread for a block of fewer than :data:`PARALLEL_MIN_WORK` sample scans.

    Otherwise the block keeps the fit's threads. Restores the setting afterwards.
    A class rather than a generator: it runs a few times at every node, and a
    generator-based context manager costs several times more Python time there.
    """

    __slots__ = ("previous", "work")

    def __init__(self, work):
        self.work = work
        self.previous = 0

    def __enter__(self):
        previous = kernel_threads()
        # nothing to change at one thread (setting the count costs a node noticeable time)
        if self.work < PARALLEL_MIN_WORK and previous != 1:
            numba.set_num_threads(1)
            self.previous = previous

    def __exit__(self, *exc_info):
        if self.previous:
            numba.set_num_threads(self.previous)
            self.previous = 0


#: the most sample scans one compiled call of a split search does (about a
#: tenth of a second on one core): between calls Python runs, so Ctrl-C
#: (``KeyboardInterrupt``) stops a fit within about a second.
CHUNK_WORK = 2_000_000


def work_chunks(n_items, item_work):
    """Slices of ``range(n_items)`` of at most :data:`CHUNK_WORK` sample scans each.

    ``item_work`` is the scans one item costs. A chunk holds a multiple of the
    fit's thread count of items (at least one per thread), so chunking never
    idles a thread. Before each chunk a pending Ctrl-C is raised
    (:func:`check_interrupt`).
    """
    n_threads = kernel_threads()
    per_chunk = max(1, CHUNK_WORK // max(1, int(item_work)) // n_threads) * n_threads
    for start in range(0, n_items, per_chunk):
        check_interrupt()
        yield slice(start, min(n_items, start + per_chunk))


class _SigintFlag:
    """SIGINT handler of a fit: records Ctrl-C for :func:`check_interrupt` to raise."""

    def __init__(self):
        self.depth = 0
        self.previous = None
        self.pending = False

    def __call__(self, signum, frame):
        self.pending = True


_sigint = _SigintFlag()


@contextmanager
def deferred_sigint():
    """Record SIGINT instead of raising it, in the main thread; nested uses share one handler.

    On leaving, the previous handler is back and a Ctrl-C recorded but not yet
    raised is raised. Besides the fits (:func:`numba_threads`), every call of a
    compiled kernel outside a fit runs inside it: the tree's traversals
    (``Tree.apply``, ``Tree.decision_path``) and the pictures' searches, so Ctrl-C
    while drawing or explaining raises ``KeyboardInterrupt`` and never crashes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread runs Python's signal handlers
        return
    if _sigint.depth == 0:
        # cleared before the handler is in place: a Ctrl-C that Python hands to the new
        # handler right after the swap (it may have come just before it) stays recorded
        _sigint.pending = False
        _sigint.previous = signal.signal(signal.SIGINT, _sigint)
    _sigint.depth += 1
    try:
        yield
    finally:
        _sigint.depth -= 1
        if _sigint.depth == 0:
            signal.signal(signal.SIGINT, _sigint.previous)
            check_interrupt()


def check_interrupt():
    """Raise ``KeyboardInterrupt`` if Ctrl-C came since the last check (see the module).

    Called between compiled calls. A handler that was installed before the
    fit gets the signal instead, if it is not Python's default.
    """
    if not _sigint.pending:
        return
    _sigint.pending = False
    previous = _sigint.previous
    if callable(previous) and previous is not signal.default_int_handler:
        previous(signal.SIGINT, None)
        return
    if previous is not signal.SIG_IGN:
        raise KeyboardInterrupt


def call_stoppable(function, stop_flag, *args):
    """``function(*args)``, a long compiled search that Ctrl-C stops through ``stop_flag``.

    A single compiled call can run for minutes (one node of the optimal
    splitter), and Python's handler cannot run while the calling thread is
    inside it. During a fit in the main thread the call therefore runs in a
    helper thread (the kernels release the GIL) with the fit's thread count,
    while the main thread waits in short steps: on Ctrl-C it sets
    ``stop_flag[0] = 1``, which the kernel polls, and once the search has
    returned, :func:`check_interrupt` raises ``KeyboardInterrupt``. Elsewhere
    it is a plain call.
    """
    if _sigint.depth == 0 or threading.current_thread() is not threading.main_thread():
        return function(*args)
    n_threads = numba.get_num_threads()
    outcome = {}

    def search():
        numba.set_num_threads(n_threads)  # the count is per thread in numba
        try:
            outcome["result"] = function(*args)
        except BaseException as error:  # handed to the waiting thread  # noqa: BLE001
            outcome["error"] = error

    helper = threading.Thread(target=search, name="bivtree-search", daemon=True)
    helper.start()
    while helper.is_alive():
        helper.join(0.05)
        if _sigint.pending:
            stop_flag[0] = 1
    if "error" in outcome:
        raise outcome["error"]
    check_interrupt()
    return outcome["result"]
