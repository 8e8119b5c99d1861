"""Open bivtree's HTML tree page in headless Chromium, check it, and take a screenshot.

    python scripts/check_html_page.py [--browser chromium] [--out docs/images/tree_page.png]

Fits a depth-4 tree on scikit-learn's breast-cancer data, writes its page with
``bivtree.export_html`` and loads it in headless Chromium (``chromium``,
``chromium-browser`` or ``google-chrome`` on PATH, or ``--browser``; on Debian:
``apt-get install chromium``). The page's script writes its state into ``<body>``;
the checks read it from the DOM dumped after the script ran:

- the page is ready and the root's scatter plot holds every training sample;
- ``#expand=ID`` (a click on a collapsed node) shows the node's two children;
- ``#search=VALUES`` highlights the path ``decision_path`` gives for those values.

Then it takes a screenshot of the page with one sample's path highlighted. Exits
with status 1 and says what failed when a check fails, 2 without a browser.
"""

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from sklearn.datasets import load_breast_cancer

from bivtree import BivariateTreeClassifier, export_html

ROOT = pathlib.Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: flags of every run: no sandbox (it refuses to start as root in containers), no GPU.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
         "--virtual-time-budget=5000"]


def find_browser(name=None):
    """The Chromium executable: ``name`` if given, else the first of BROWSERS on PATH."""
    for candidate in ([name] if name else BROWSERS):
        exe = shutil.which(candidate)
        if exe is not None:
            return exe
    return None


def body_state(browser, page, fragment=""):
    """The ``data-*`` attributes of ``<body>`` after the page's script ran."""
    result = subprocess.run([browser, *FLAGS, "--dump-dom", page.as_uri() + fragment],
                            capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{browser} failed: {result.stderr[-1000:]}")
    body = re.search(r"<body([^>]*)>", result.stdout)
    if body is None:
        raise RuntimeError("no <body> in the dumped DOM")
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', body.group(1)))


def check(condition, message, failures):
    print(("ok    " if condition else "FAIL  ") + message)
    if not condition:
        failures.append(message)


def run_checks(browser, page, clf, X):
    """The checks of the module documentation; returns the list of failures."""
    tree = clf.tree_
    failures = []
    state = body_state(browser, page)
    check(state.get("status") == "ready", f"the page is ready ({state.get('status')}, "
          f"{state.get('error', 'no error')})", failures)
    check(int(state.get("root-points", -1)) == min(X.shape[0], 1000),
          f"the root's plot draws {state.get('root-points')} points", failures)
    visible = int(state.get("visible-nodes", -1))
    deep = [n for n in range(tree.node_count) if not tree.is_leaf[n]
            and tree.node_depth[n] == 3]
    if deep:
        state = body_state(browser, page, f"#expand={deep[0]}")
        check(state.get("expanded") == str(deep[0])
              and int(state.get("visible-nodes", -1)) == visible + 2,
              f"a click opens node {deep[0]} ({visible} -> {state.get('visible-nodes')} "
              "nodes shown)", failures)
    for i in (0, 7, 100):
        typed = ",".join(repr(float(v)) for v in X[i])
        state = body_state(browser, page, f"#search={typed}")
        expected = ",".join(map(str, tree.decision_path(X[i:i + 1]).indices))
        check(state.get("path") == expected, f"sample {i} typed in follows the path "
              f"{expected} (page: {state.get('path')})", failures)
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", help="Chromium executable (default: found on PATH)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "images" / "tree_page.png"),
                        help="screenshot file (default: %(default)s)")
    parser.add_argument("--page", help="also keep the HTML page here")
    args = parser.parse_args(argv)
    browser = find_browser(args.browser)
    if browser is None:
        print("no Chromium found: install one (apt-get install chromium) or pass --browser",
              file=sys.stderr)
        return 2
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target.map(dict(enumerate(data.target_names)))
    clf = BivariateTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    with tempfile.TemporaryDirectory() as folder:
        page = pathlib.Path(folder) / "tree.html"
        export_html(clf, X, y, page, title="Breast cancer: a bivariate tree of depth 4")
        if args.page:
            shutil.copyfile(page, args.page)
        failures = run_checks(browser, page, clf, X.to_numpy())
        # a sample whose leaf the page shows at 3 open levels, so its whole path is drawn
        leaf_depth = clf.tree_.node_depth[clf.apply(X)]
        row = int(np.flatnonzero(leaf_depth == leaf_depth.min())[0])
        typed = ",".join(repr(float(v)) for v in X.to_numpy()[row])
        shot = pathlib.Path(args.out).resolve()
        subprocess.run([browser, *FLAGS, "--window-size=1400,1180", f"--screenshot={shot}",
                        page.as_uri() + "#levels=3&search=" + typed],
                       capture_output=True, timeout=120, check=True)
    print(f"screenshot written to {shot}")
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
