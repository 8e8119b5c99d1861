"""The README and the pages of ``docs/`` say what the code does.

- Every ```python block of ``README.md`` and ``docs/**/*.md`` runs as written, in a fresh
  namespace and an empty working folder. A block preceded by the comment
  ``<!-- skip-test: REASON -->`` is skipped with that reason (for a block that needs a
  browser or a dependency the test extra does not install; use it rarely).
- Printed output shown in a document comes from a script: ``<!-- output-of: SCRIPT -->``
  before a ```text block means the block is what ``python SCRIPT`` prints (a line ``...``
  stands for any number of lines); ``<!-- code-of: SCRIPT -->`` before a ```python block
  means the block is the script's code, verbatim; ``<!-- numbers-from: SOURCE -->`` before a
  paragraph means every number in the paragraph is printed by SOURCE: a script under
  ``examples/`` (run), a script whose output a document records under
  ``<!-- recorded-output-of: SCRIPT -->`` (read there: measurements too long to rerun), or a
  committed report (read).
- The README's benchmark table is the summary of ``benchmarks/results/bench_frontier.md``
  (the test prints the expected table when the report changes; docs/tao.md's figures are
  checked against the same report by tests/test_shallow.py), its test command is the one
  ``.ci/run`` runs, it counts the Chromium tests right, and it stays a landing page (at most
  15,000 characters).
- Every relative link of the documents points to a file that exists.

The blocks fit small trees on scikit-learn's bundled data sets, so the whole module takes
about a minute once the numba kernels are cached.
"""

import os
import pathlib
import re
import subprocess
import sys
from dataclasses import dataclass

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCUMENTS = [README] + sorted(p for p in (ROOT / "docs").rglob("*.md")
                              if "_build" not in p.relative_to(ROOT / "docs").parts)
MARKER = re.compile(r"<!--\s*([a-z-]+):\s*(.*?)\s*-->")
NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?![\w])")
README_LIMIT = 15_000


@dataclass
class Block:
    """A fenced block of a document, with the marker comment just before it."""

    path: pathlib.Path
    line: int  # of the opening fence, from 1
    lang: str
    text: str
    marker: tuple  # (name, argument) or ()

    @property
    def id(self):
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _marker_before(lines, index):
    """The marker comment on the last non-blank line before ``lines[index]``, or ()."""
    for j in range(index - 1, -1, -1):
        if lines[j].strip():
            match = MARKER.fullmatch(lines[j].strip())
            return (match[1], match[2]) if match else ()
    return ()


def _blocks(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        fence = re.match(r"^(`{3,})\s*([\w{}-]*)", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(fence[1]))
        blocks.append(Block(path, i + 1, fence[2], "\n".join(lines[i + 1:end]) + "\n",
                            _marker_before(lines, i)))
        i = end + 1
    return blocks


def _paragraphs_after_markers(path, name):
    """``(argument, paragraph, line)`` of every ``<!-- name: argument -->`` followed by a
    paragraph (the lines up to the next blank line)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for i, line in enumerate(lines):
        match = MARKER.fullmatch(line.strip())
        if match and match[1] == name:
            end = next((j for j in range(i + 1, len(lines)) if not lines[j].strip()), len(lines))
            found.append((match[2], " ".join(lines[i + 1:end]), i + 1))
    return found


BLOCKS = [b for path in DOCUMENTS for b in _blocks(path)]
PYTHON = [b for b in BLOCKS if b.lang == "python"]


def _numbers(text):
    return {float(n.replace(",", "")) for n in NUMBER.findall(text)}


# --------------------------------------------------------------------------- scripts
_OUTPUTS = {}


def _script_output(script, tmp_path_factory):
    """What ``python script`` prints: run once per session for an ``examples/`` script,
    else the output a document records for it."""
    if script not in _OUTPUTS:
        if script.startswith("examples/"):
            command = [sys.executable, str(ROOT / script)]
            if "--out" in (ROOT / script).read_text(encoding="utf-8"):
                command += ["--out", str(tmp_path_factory.mktemp("figures"))]
            done = subprocess.run(command, capture_output=True, text=True, check=False,
                                  cwd=tmp_path_factory.mktemp("run"),
                                  env=dict(os.environ, MPLBACKEND="Agg"))
            assert done.returncode == 0, f"{script} failed:\n{done.stderr[-3000:]}"
            _OUTPUTS[script] = done.stdout
        elif script.endswith(".md"):
            _OUTPUTS[script] = (ROOT / script).read_text(encoding="utf-8")
        else:
            recorded = [b for b in BLOCKS if b.marker == ("recorded-output-of", script)]
            assert recorded, f"no document records the output of {script}"
            _OUTPUTS[script] = recorded[0].text
    return _OUTPUTS[script]


def _matches(shown, printed):
    """Whether the ``shown`` lines are the ``printed`` ones, a line ``...`` standing for
    any number of lines; trailing spaces do not count."""
    pattern = "".join(r"(?:.*\n)*?" if line.strip() == "..." else re.escape(line.rstrip()) + r"\n"
                      for line in shown.splitlines())
    text = "".join(line.rstrip() + "\n" for line in printed.splitlines())
    return re.fullmatch(pattern, text) is not None


# --------------------------------------------------------------------------- the blocks run
@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_every_python_block_runs_as_written(block, tmp_path, monkeypatch):
    if block.marker and block.marker[0] == "skip-test":
        pytest.skip(f"{block.id}: {block.marker[1]}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    try:
        exec(compile(block.text, block.id, "exec"), {"__name__": "__document__"})  # noqa: S102
    finally:
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            plt.close("all")


def test_the_documents_have_blocks_and_markers():
    """The parser sees the documents' blocks (a broken fence would hide them)."""
    assert len(PYTHON) >= 15
    assert {b.marker[0] for b in BLOCKS if b.marker} >= {"code-of", "output-of",
                                                        "recorded-output-of"}


# --------------------------------------------------------------------------- printed output
CODE_OF = [b for b in BLOCKS if b.marker and b.marker[0] == "code-of"]
OUTPUT_OF = [b for b in BLOCKS if b.marker and b.marker[0] == "output-of"]
NUMBERS_FROM = [(path, *found) for path in DOCUMENTS
                for found in _paragraphs_after_markers(path, "numbers-from")]


@pytest.mark.parametrize("block", CODE_OF, ids=[b.id for b in CODE_OF])
def test_a_code_block_is_its_script_s_code(block):
    source = (ROOT / block.marker[1]).read_text(encoding="utf-8")
    assert block.text in source, f"{block.id} is not the code of {block.marker[1]}"


@pytest.mark.parametrize("block", OUTPUT_OF, ids=[b.id for b in OUTPUT_OF])
def test_shown_output_is_what_the_script_prints(block, tmp_path_factory):
    printed = _script_output(block.marker[1], tmp_path_factory)
    assert _matches(block.text, printed), (
        f"{block.id} does not show what {block.marker[1]} prints; it prints:\n{printed}")


@pytest.mark.parametrize("path, source, paragraph, line", NUMBERS_FROM,
                         ids=[f"{p.relative_to(ROOT)}:{n}" for p, _, _, n in NUMBERS_FROM])
def test_quoted_numbers_are_printed_by_their_source(path, source, paragraph, line,
                                                    tmp_path_factory):
    printed = _numbers(_script_output(source, tmp_path_factory))
    quoted = _numbers(paragraph)
    assert quoted, f"{path.name}:{line}: a numbers-from paragraph without numbers"
    missing = sorted(quoted - printed)
    assert not missing, (f"{path.relative_to(ROOT)}:{line} quotes {missing}, which {source} "
                         f"does not print")


# --------------------------------------------------------------------------- the benchmark table
FRONTIER = ROOT / "benchmarks" / "results" / "bench_frontier.md"
#: the README table's rows: label, the report's tool name.
FRONTIER_TOOLS = [
    ("bivtree `ShallowTreeClassifier(max_depth=D)`", "bivtree-shallow"),
    ("the same, `alpha` tuned by 3-fold CV", "bivtree-shallow-tuned"),
    ("bivtree `BivariateTreeClassifier(max_depth=D)` (greedy)", "bivtree-greedy"),
    ("STreeD, optimal univariate", "streed"),
    ("FIGS", "figs"),
    ("FIGS, tuned by 3-fold CV", "figs-tuned"),
    ("obliquetree, bivariate", "obliquetree"),
    ("scikit-learn `DecisionTreeClassifier`", "sklearn"),
]


def _frontier_summary(report):
    """``{(tool, depth): (accuracy, leaves, cpu)}`` from the report's summary tables."""
    summary = {}
    for depth in (2, 3, 4):
        part = report.split(f"## Depth {depth}", 1)[1].split("\n## ", 1)[0]
        for _, tool in FRONTIER_TOOLS:
            row = re.search(rf"^\| {re.escape(tool)} \| 12/12 \| ([^|]+) \| ([^|]+) \| "
                            r"([^|]+) \|", part, re.MULTILINE)
            assert row is not None, f"bench_frontier.md: no full row for {tool} at depth {depth}"
            summary[tool, depth] = tuple(cell.strip() for cell in row.groups())
    return summary


def frontier_table(report):
    """The README's benchmark table rows for ``report`` (bench_frontier.md's text)."""
    summary = _frontier_summary(report)
    rows = []
    for label, tool in FRONTIER_TOOLS:
        cells = [" / ".join(summary[tool, d][k] for d in (2, 3, 4)) for k in range(3)]
        rows.append(f"| {label} | {' | '.join(cells)} |")
    return rows


def _table_after(text, marker):
    lines = text.splitlines()
    start = lines.index(marker) + 1
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append(line)
    return table[2:]  # past the header and its rule


def test_the_readme_benchmark_table_is_bench_frontier_s_summary():
    expected = frontier_table(FRONTIER.read_text(encoding="utf-8"))
    shown = _table_after(README.read_text(encoding="utf-8"),
                         "<!-- table-from: benchmarks/results/bench_frontier.md -->")
    assert shown == expected, ("the README's table is not bench_frontier.md's summary; "
                               "replace its rows by:\n" + "\n".join(expected))


# --------------------------------------------------------------------------- the README
def test_the_readme_test_command_is_the_one_ci_runs():
    readme = README.read_text(encoding="utf-8")
    commands = [b.text.strip() for b in _blocks(README) if b.lang == "bash"]
    test_command = next(c for c in commands if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci, f"{test_command!r} is not a line of .ci/run"
    assert 'pip install ".[pandas]" && bivtree demo' in commands
    assert readme.count("```bash\npip install") == 2


def test_the_readme_counts_the_chromium_tests():
    source = (ROOT / "tests" / "test_html_page.py").read_text(encoding="utf-8")
    tests = re.split(r"\n(?=def |@)", source)
    needing = [t for t in tests if t.startswith("def test_") and "_chromium()" in t]
    words = {3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven"}
    said = f"{words.get(len(needing), len(needing))} tests open the interactive page in headless"
    assert said in " ".join(README.read_text(encoding="utf-8").split()), (
        f"{len(needing)} tests need Chromium: {[t.split('(')[0][4:] for t in needing]}")


def test_the_readme_is_a_landing_page():
    size = len(README.read_text(encoding="utf-8"))
    assert size <= README_LIMIT, f"README.md has {size} characters, more than {README_LIMIT}"


# --------------------------------------------------------------------------- links
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("path", DOCUMENTS, ids=[str(p.relative_to(ROOT)) for p in DOCUMENTS])
def test_relative_links_point_to_files(path):
    broken = []
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = target.split("#", 1)[0]
        if not (path.parent / file).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)} links to missing files: {broken}"
