"""How long the set-up commands of the README take: the numba compile and the tests.

bivtree's numba kernels are compiled on first use and cached on disk. This script
measures, each in a fresh process with a numba cache of its own (``NUMBA_CACHE_DIR``
pointed at an empty temporary folder, so the kernels already cached on this machine
are neither used nor touched):

1. ``bivtree demo`` with an empty cache: the README's first command after its
   ``pip install .``, i.e. the first compile of the default search's kernels plus the
   demo's fits;
2. ``bivtree demo`` again, with the kernels now cached (what every later run costs);
3. ``bivtree compile`` with an empty cache: every kernel of every splitter and TAO;
4. with ``--tests``: ``python -m pytest -q`` (the README's test command after its
   installs), with the cache of step 3 warm, its last line and its wall time.

It prints wall-clock seconds, the machine and its load. Run from the repository root
(about 3 minutes without ``--tests``; the tests take much longer)::

    python scripts/measure_first_run.py [--tests]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time


def timed(command, cache, must_pass=True, **kwargs):
    """Run ``command`` with ``NUMBA_CACHE_DIR=cache``; return (seconds, completed process)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False,
                          **kwargs)
    seconds = time.perf_counter() - start
    if done.returncode != 0 and must_pass:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return seconds, done


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", action="store_true",
                        help="also time the whole test suite (python -m pytest -q)")
    args = parser.parse_args(argv)

    from bivtree.experiments.machine import machine_description, machine_load

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bivtree = [sys.executable, "-m", "bivtree.cli"]
    print(f"machine: {machine_description()}")
    print(f"load before: {machine_load()}")
    with tempfile.TemporaryDirectory() as demo_cache, \
            tempfile.TemporaryDirectory() as all_cache:
        seconds, _ = timed([*bivtree, "demo"], demo_cache)
        print(f"bivtree demo, empty numba cache (first compile): {seconds:.1f} s")
        seconds, _ = timed([*bivtree, "demo"], demo_cache)
        print(f"bivtree demo, kernels cached: {seconds:.1f} s")
        seconds, _ = timed([*bivtree, "compile"], all_cache)
        print(f"bivtree compile, empty numba cache (every kernel): {seconds:.1f} s")
        if args.tests:
            seconds, done = timed([sys.executable, "-m", "pytest", "-q"], all_cache,
                                  must_pass=False, cwd=root)
            last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "(no output)"
            print(f"python -m pytest -q, kernels cached: {seconds:.0f} s ({last})")
    print(f"load after: {machine_load()}")


if __name__ == "__main__":
    main()
