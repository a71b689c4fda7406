"""Sphinx configuration of gamemarket's documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (with the ``docs`` extra installed).
Pages are MyST Markdown; the tutorials are MyST Markdown notebooks executed at every build (myst-nb); the
CLI reference is generated from ``gamemarket.cli.build_parser()`` (sphinx-argparse), the Python API from the
numpydoc docstrings (one page per module, found by walking the package), and the study file reference is checked
against ``gamemarket.studies.schema.study_file_reference()`` by ``_ext/gamemarket_docs.py``.
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))  # the checkout's gamemarket, whatever is installed

import gamemarket  # noqa: E402

project = "gamemarket"
author = "the gamemarket developers"
copyright = "the gamemarket developers"
release = version = gamemarket.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinxarg.ext",
    "gamemarket_docs",
]

exclude_patterns = ["_build", "jupyter_execute", ".jupyter_cache", "README.md"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}

# MyST: heading anchors so that pages can link to a section (``market-model.md#utility``)
myst_enable_extensions = ["colon_fence", "deflist"]  # no math: formulas are code, readable offline
myst_heading_anchors = 3

# myst-nb: the tutorials run at every build; a failing cell fails the build
nb_execution_mode = os.environ.get("GAMEMARKET_DOCS_EXECUTE", "force")
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_merge_streams = True

# the API reference: one page per module, written by _ext/gamemarket_docs.py from a walk of the package
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
suppress_warnings = ["ref.citation"]  # a module docstring's References name works its prose cites by author and year

html_theme = "pydata_sphinx_theme"
html_title = f"gamemarket {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # the page's contents at the right, but not on the executed notebooks: their tables of results (pandas' output,
    # a column per field) need the article's whole width at 1,280 px (tests/test_docs_browser.py)
    "secondary_sidebar_items": {
        "**": ["page-toc"],
        **dict.fromkeys(("tutorials/first-study", "tutorials/first-population-game", "how-to/notebook"), []),
    },
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
html_static_path = ["_static"]
html_css_files = ["gamemarket.css"]
