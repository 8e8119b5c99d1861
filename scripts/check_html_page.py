"""Open bivtree's HTML tree page in headless Chromium, check it, and take screenshots.

    python scripts/check_html_page.py [--browser chromium] [--out FOLDER] [--page PAGE.html]

Fits a depth-4 tree on scikit-learn's breast-cancer data, writes its page with
``bivtree.export_html`` and loads it in headless Chromium (``chromium``,
``chromium-browser`` or ``google-chrome`` on PATH, or ``--browser``; on Debian:
``apt-get install chromium``). The page's script writes its state into ``<body>``,
and with ``#selftest`` in the address where the tree's view and each node shown
are on the screen; the checks read them from the DOM dumped after the script ran:

- the page is ready and the root's scatter plot holds every training sample;
- at load, in a wide and in a narrow window (where the tree is wider than the
  view), the root is inside the view and centred across it, and so are its
  children when they fit;
- ``#expand=ID`` (a click on a collapsed node) shows the node's two children,
  and the clicked node stays where it was on the screen;
- ``#search=VALUES`` highlights the path ``decision_path`` gives for those values,
  and scrolls so that the matched node (the path's leaf) is inside the view, the
  whole path too when it fits in the view.

Then it takes two screenshots, ``tree_page.png`` (the page as it opens) and
``tree_page_search.png`` (one sample's path highlighted), into a new temporary
folder, or into ``--out``: ``--out docs/images`` replaces the committed ones.
Exits with status 1 and says what failed when a check fails, 2 without a browser.
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
#: the window of the screenshots and of most checks, and a narrow one, in which the
#: depth-4 tree's first levels are wider than the view.
WINDOW, NARROW = (1400, 1000), (900, 800)
#: pixels a box may poke out of the view, or a centre miss the view's (rounding).
TOLERANCE = 2
#: the screenshots: the page as it opens, and with a sample's path highlighted.
SHOTS = ("tree_page.png", "tree_page_search.png")


def find_browser(name=None):
    """The Chromium executable: ``name`` if given, else the first of BROWSERS on PATH."""
    for candidate in ([name] if name else BROWSERS):
        exe = shutil.which(candidate)
        if exe is not None:
            return exe
    return None


def body_state(browser, page, fragment="", window=WINDOW):
    """The ``data-*`` attributes of ``<body>`` after the page's script ran.

    Parameters
    ----------
    browser : str
        The Chromium executable.
    page : pathlib.Path
        The HTML file.
    fragment : str, default=""
        The address fragment, e.g. ``"#selftest&search=row 3"``.
    window : tuple of int, default=WINDOW
        The window's width and height in pixels.

    Returns
    -------
    dict of str
        By attribute name without ``data-``, e.g. ``state["path"]``.
    """
    result = subprocess.run([browser, *FLAGS, f"--window-size={window[0]},{window[1]}",
                             "--dump-dom", page.as_uri() + fragment],
                            capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{browser} failed: {result.stderr[-1000:]}")
    body = re.search(r"<body([^>]*)>", result.stdout)
    if body is None:
        raise RuntimeError("no <body> in the dumped DOM")
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', body.group(1)))


def geometry(state):
    """The view's box and each shown node's box, from a ``#selftest`` state.

    Returns
    -------
    view : tuple of int
        ``(x0, y0, x1, y1)``: the visible part of the tree's view, in client pixels.
    boxes : dict of int to tuple of int
        Per node shown, its card's ``(x0, y0, x1, y1)`` in the same pixels.
    """
    if "view-box" not in state or "boxes" not in state:
        raise RuntimeError(f"the page wrote no geometry (#selftest): {state}")
    view = tuple(int(v) for v in state["view-box"].split(","))
    boxes = {}
    for item in state["boxes"].split():
        node, box = item.split(":")
        boxes[int(node)] = tuple(int(v) for v in box.split(","))
    return view, boxes


def inside(box, view, tolerance=TOLERANCE):
    """Whether ``box`` lies within ``view`` (both ``(x0, y0, x1, y1)``)."""
    return (box[0] >= view[0] - tolerance and box[1] >= view[1] - tolerance
            and box[2] <= view[2] + tolerance and box[3] <= view[3] + tolerance)


def outline(boxes):
    """The smallest box holding every box of ``boxes``."""
    x0, y0, x1, y1 = zip(*boxes)
    return min(x0), min(y0), max(x1), max(y1)


def fits(box, view):
    """Whether a box of ``box``'s size fits in ``view`` (the margins kept included)."""
    return box[2] - box[0] <= view[2] - view[0] and box[3] - box[1] <= view[3] - view[1]


def check(condition, message, failures):
    print(("ok    " if condition else "FAIL  ") + message)
    if not condition:
        failures.append(message)


def check_opening(browser, page, tree, window, failures):
    """At load, the root inside the view and centred across it, its children in view."""
    view, boxes = geometry(body_state(browser, page, "#selftest", window))
    size = f"{window[0]}x{window[1]}"
    root = boxes.get(0)
    check(root is not None and inside(root, view),
          f"{size}: the root {root} is inside the view {view}", failures)
    if root is None:
        return
    off = (root[0] + root[2]) / 2 - (view[0] + view[2]) / 2
    check(abs(off) <= TOLERANCE, f"{size}: the root is centred across the view "
          f"({off:+.0f} pixels off)", failures)
    kids = [boxes[k] for k in (tree.children_left[0], tree.children_right[0]) if k in boxes]
    if not kids:
        return
    # across, wherever they fit; up and down, where they fit below the root
    first = outline([root, *kids])
    if first[2] - first[0] <= view[2] - view[0]:
        check(all(view[0] - TOLERANCE <= k[0] and k[2] <= view[2] + TOLERANCE for k in kids),
              f"{size}: the root's children {kids} are inside the view across", failures)
    if fits(first, view):
        check(all(inside(k, view) for k in kids),
              f"{size}: the root's children {kids} are inside the view", failures)


def check_search(browser, page, tree, x, label, failures, window=WINDOW):
    """A typed sample's path is the tree's, its leaf is in view, the whole path if it fits."""
    typed = ",".join(repr(float(v)) for v in x)
    state = body_state(browser, page, f"#selftest&search={typed}", window)
    path = tree.decision_path(x.reshape(1, -1)).indices.tolist()
    expected = ",".join(map(str, path))
    check(state.get("path") == expected, f"{label} typed in follows the path {expected} "
          f"(page: {state.get('path')})", failures)
    view, boxes = geometry(state)
    drawn = [boxes[i] for i in path if i in boxes]
    check(len(drawn) == len(path), f"{label}: every node of its path is shown", failures)
    if not drawn:
        return
    check(inside(drawn[-1], view), f"{label}: the matched node #{path[-1]} {drawn[-1]} is "
          f"inside the view {view}", failures)
    if fits(outline(drawn), view):
        check(all(inside(b, view) for b in drawn),
              f"{label}: its whole path {outline(drawn)} is inside the view", failures)


def check_expand(browser, page, tree, failures):
    """A click on a collapsed node opens it and leaves it where it was on the screen."""
    deep = [n for n in range(tree.node_count) if not tree.is_leaf[n]
            and tree.node_depth[n] == 3]
    if not deep:
        return
    before = body_state(browser, page, "#selftest")
    state = body_state(browser, page, f"#selftest&expand={deep[0]}")
    visible = int(before.get("visible-nodes", -1))
    check(state.get("expanded") == str(deep[0])
          and int(state.get("visible-nodes", -1)) == visible + 2,
          f"a click opens node {deep[0]} ({visible} -> {state.get('visible-nodes')} "
          "nodes shown)", failures)
    was, now = geometry(before)[1].get(deep[0]), geometry(state)[1].get(deep[0])
    check(was is not None and now is not None and abs(was[0] - now[0]) <= TOLERANCE
          and abs(was[1] - now[1]) <= TOLERANCE,
          f"the clicked node stays in place on the screen ({was} -> {now})", failures)


def run_checks(browser, page, clf, X):
    """The checks of the module documentation; returns the list of failures."""
    tree = clf.tree_
    failures = []
    state = body_state(browser, page)
    check(state.get("status") == "ready", f"the page is ready ({state.get('status')}, "
          f"{state.get('error', 'no error')})", failures)
    check(int(state.get("root-points", -1)) == min(X.shape[0], 1000),
          f"the root's plot draws {state.get('root-points')} points", failures)
    for window in (WINDOW, NARROW):
        check_opening(browser, page, tree, window, failures)
    check_expand(browser, page, tree, failures)
    for i in (0, 7, 100):
        check_search(browser, page, tree, X[i], f"sample {i}", failures)
    row = shallow_row(clf, X)
    check_search(browser, page, tree, X[row], f"sample {row} (a short path)", failures)
    check_search(browser, page, tree, X[0], f"sample 0, {NARROW[0]}x{NARROW[1]}", failures,
                 NARROW)
    return failures


def shallow_row(clf, X):
    """A row whose leaf is the shallowest: its whole path fits in the screenshot."""
    leaf_depth = clf.tree_.node_depth[clf.tree_.apply(np.asarray(X, dtype=np.float64))]
    return int(np.flatnonzero(leaf_depth == leaf_depth.min())[0])


def screenshots(browser, page, folder, typed):
    """The page as it opens and after the search ``typed``, as PNG files in ``folder``."""
    paths = [folder / name for name in SHOTS]
    for path, fragment in zip(paths, ("", "#search=" + typed)):
        subprocess.run([browser, *FLAGS, f"--window-size={WINDOW[0]},{WINDOW[1]}",
                        f"--screenshot={path}", page.as_uri() + fragment],
                       capture_output=True, timeout=120, check=True)
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", help="Chromium executable (default: found on PATH)")
    parser.add_argument("--out", help="folder of the screenshots, e.g. docs/images for the "
                                      "committed ones (default: a new temporary folder)")
    parser.add_argument("--page", help="also keep the HTML page here")
    args = parser.parse_args(argv)
    browser = find_browser(args.browser)
    if browser is None:
        print("no Chromium found: install one (apt-get install chromium) or pass --browser",
              file=sys.stderr)
        return 2
    # by default nothing committed is replaced: the screenshots of a check go elsewhere
    out = pathlib.Path(args.out if args.out else tempfile.mkdtemp(prefix="bivtree-page-"))
    if not out.is_dir():
        print(f"--out {out}: no such folder", file=sys.stderr)
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
        row = shallow_row(clf, X.to_numpy())
        typed = ",".join(repr(float(v)) for v in X.to_numpy()[row])
        shots = screenshots(browser, page, out.resolve(), typed)
    print("screenshots written to " + ", ".join(map(str, shots)))
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
