"""tests/python/test_reproduction.py — docs/REPRODUCTION.md against the binary: the cheap pass of
scripts/studies/reproduction.py (every section, the same commands as the report, the long searches
and trainings left out) finds every line it makes in the document, and the same pass fails, naming
the line, on a copy of the document with one figure changed.

Run by ctest (Python.test_reproduction) with FIVSIM_BINARY and FIVSIM_SOURCE_DIR.
"""

import os
import subprocess
import sys
from pathlib import Path

SOURCE = Path(os.environ.get("FIVSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BINARY = os.environ.get("FIVSIM_BINARY", str(SOURCE / "build" / "fivsim"))
SCRIPT = SOURCE / "scripts" / "studies" / "reproduction.py"
DOC = SOURCE / "docs" / "REPRODUCTION.md"


def check(*args):
    return subprocess.run([sys.executable, str(SCRIPT), "--check", "--fivsim", BINARY] + list(args),
                          capture_output=True, text=True)


def test_every_figure_the_cheap_pass_makes_is_the_documents():
    run = check()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "every line made stands in the document" in run.stdout


def test_a_changed_figure_fails_the_check_and_is_named(tmp_path):
    text = DOC.read_text()
    stops = "**2.00 stops per forcing cycle**"
    assert stops in text
    planted = tmp_path / "REPRODUCTION.md"
    planted.write_text(text.replace(stops, "**2.01 stops per forcing cycle**"))
    run = check("--sections", "sdof", "--doc", str(planted))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "the binary prints" in run.stdout and "2.00 stops per forcing cycle" in run.stdout
    assert "1 line differs from the document" in run.stdout
