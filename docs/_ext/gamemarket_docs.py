"""gamemarket's own Sphinx extension: the pages that are generated from the code, and the checks that keep the
committed ones true.

- ``docs/reference/study-file.md`` is :func:`gamemarket.studies.schema.study_file_reference`'s output, committed
  (so that it reads on a repository browser and a schema change shows its documentation change in review). A
  build whose copy differs from the code's warns, which fails the ``-W`` build; ``python
  docs/_ext/gamemarket_docs.py`` writes it again. ``tests/test_docs.py`` checks the same.
- ``{benchmark-results}``: every ``benchmarks/results/*.txt`` as it is (and the figures beside them), found
  when the page is built, so that a new benchmark's figures appear without retyping a number.
- ``cli_parser()``: the command line's parser as ``docs/reference/cli.md`` documents it (examples as code
  blocks).
- ``{registry}``: a table of a registry's entries (schedulers, payment schemes, mechanisms), read from the code.
- ``{job-table-columns}``: the job table's declared columns, read from the code that checks a table.
- ``{exit-codes}``: the command's exit codes and their meanings, from the constants the commands return.
- ``{bibliography}``: the project's one bibliography (the ``## References`` list of a Markdown file, ``- [Key]
  text`` a line) as citations, so that a docstring's ``[Key]_`` and a page's ``{cite}`Key``` link to it.
- The Python API's pages (``docs/reference/generated/``, not committed): one per module, found by walking the
  package at every build, so that a module that moves or appears needs no page edit.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
STUDY_FILE = DOCS / "reference" / "study-file.md"
#: what a committed generated page starts with (MyST and GitHub both hide an HTML comment)
GENERATED_NOTE = (
    "<!-- Generated from gamemarket/studies/schema.py by `python docs/_ext/gamemarket_docs.py`; "
    "do not edit (tests/test_docs.py and the docs build fail when it is stale). -->\n\n"
)

logger = logging.getLogger(__name__)


def generated_pages() -> dict[Path, str]:
    """The committed pages that are generated from the code: path -> the text the code gives now."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from gamemarket.studies.schema import study_file_reference

    return {STUDY_FILE: GENERATED_NOTE + study_file_reference()}


def stale_pages() -> list[Path]:
    """The generated pages whose committed text differs from what the code gives now."""
    return [p for p, text in generated_pages().items() if not p.exists() or p.read_text() != text]


def cli_parser():
    """``gamemarket.cli.build_parser()`` as ``docs/reference/cli.md``'s ``argparse`` blocks read it: each command's
    examples (its epilog, ``examples:`` and one command a line indented by two, kept as lines by the terminal's
    help formatter) made a code block (indented by four: the page is MyST Markdown, which sphinx-argparse parses
    an epilog as), which it would otherwise run together into one paragraph.
    """
    import argparse

    from gamemarket.cli import build_parser

    def literal(parser: argparse.ArgumentParser) -> None:
        if parser.epilog and parser.epilog.startswith("examples:\n"):
            lines = parser.epilog.split("\n")[1:]
            parser.epilog = "Examples:\n\n" + "\n".join("  " + line for line in lines)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    literal(sub)

    parser = build_parser()
    literal(parser)
    return parser


def _check_generated(app) -> None:
    for path in stale_pages():
        logger.warning(
            f"{path.relative_to(ROOT)} is not what the code generates now; "
            "write it again with `python docs/_ext/gamemarket_docs.py` and commit it"
        )


# ---------------------------------------------------------------------------- the API's pages
API_DIR = DOCS / "reference" / "generated"


def _summary(obj) -> str:
    """The first paragraph of an object's docstring, on one line."""
    return (inspect.getdoc(obj) or "").split("\n\n")[0].replace("\n", " ")


def api_pages() -> dict[str, str]:
    """One reST page per module of gamemarket, found by walking the package: name -> page text.

    A package's page holds its docstring, its public names (``__all__``) with a link to where each is documented,
    and its modules; a module's page documents its members (autodoc, numpydoc). The pages are written here rather
    than by autosummary, which resolves ``gamemarket.market.simulate`` to the function the package exports under
    the module's name and so would document the function in place of the module.
    """
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import gamemarket

    names = ["gamemarket"] + [
        m.name
        for m in pkgutil.walk_packages(gamemarket.__path__, "gamemarket.")
        if not any(part.startswith("_") for part in m.name.split("."))  # __main__ runs the command on import
    ]
    modules = {name: importlib.import_module(name) for name in names}
    pages = {}
    for name, module in modules.items():
        title = f"{name}\n{'=' * len(name)}\n\n"
        if not hasattr(module, "__path__"):
            pages[name] = title + f".. automodule:: {name}\n   :members:\n   :show-inheritance:\n"
            continue
        children = [n for n in names if n.rpartition(".")[0] == name]
        text = title + f".. automodule:: {name}\n\n"
        public = []
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            where = getattr(obj, "__module__", None)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and where:
                public.append(f"- :py:obj:`{attr} <{where}.{obj.__qualname__}>`: {_summary(obj)}")
        if public:
            text += f".. rubric:: Public names\n\n``from {name} import ...``:\n\n" + "\n".join(public) + "\n\n"
        if children:
            text += ".. rubric:: Modules\n\n"
            text += "\n".join(f"- :doc:`{c}`: {_summary(modules[c])}" for c in children) + "\n\n"
            text += ".. toctree::\n   :hidden:\n\n" + "".join(f"   {c}\n" for c in children)
        pages[name] = text
    return pages


def _write_api_pages(app) -> None:
    """Write the API pages that changed, and remove those of modules that are gone (the folder is ours)."""
    API_DIR.mkdir(parents=True, exist_ok=True)
    pages = api_pages()
    for name, text in pages.items():
        path = API_DIR / f"{name}.rst"
        if not path.exists() or path.read_text() != text:  # unchanged pages keep their time: no re-read
            path.write_text(text)
    for path in API_DIR.glob("*.rst"):
        if path.stem not in pages:
            path.unlink()


# ---------------------------------------------------------------------------- {benchmark-results}
class BenchmarkResults(SphinxDirective):
    """Every ``*.txt`` of a folder (relative to the repository root) as a section with its text, and every
    ``*.png`` as a figure; other files are named."""

    required_arguments = 1

    def run(self):
        folder = ROOT / self.arguments[0]
        files = sorted(folder.iterdir()) if folder.is_dir() else []
        if not files:
            return [self.state.document.reporter.warning(f"no benchmark results in {folder}", line=self.lineno)]
        out = []
        for f in files:
            self.env.note_dependency(str(f))
        for f in [f for f in files if f.suffix == ".txt"]:
            section = nodes.section(ids=[nodes.make_id(f"bench-{f.stem}")], names=[nodes.fully_normalize_name(f.name)])
            section += nodes.title(text=f.name)
            text = f.read_text()
            script = re.search(r"benchmarks/\w+\.py", text)
            if script:  # the command line the file records; the file's own first lines say more
                section += nodes.paragraph(text=f"Printed by {script.group(0)}.")
            block = nodes.literal_block(text, text)
            block["language"] = "text"
            section += block
            self.state.document.note_implicit_target(section)
            out.append(section)
        pictures = [f for f in files if f.suffix == ".png"]
        others = [f.name for f in files if f.suffix not in (".txt", ".png")]
        if pictures or others:
            section = nodes.section(ids=["bench-figures-and-data"], names=["figures and data"])
            section += nodes.title(text="Figures and data")
            here = (Path(self.env.srcdir) / self.env.docname).parent
            for f in pictures:
                fig = nodes.figure()
                fig += nodes.image(uri=os.path.relpath(f, here), alt=f.name)
                fig += nodes.caption(text=f.name)
                section += fig
            if others:
                section += nodes.paragraph(text="Raw data beside them: " + ", ".join(others) + ".")
            self.state.document.note_implicit_target(section)
            out.append(section)
        return out


# ---------------------------------------------------------------------------- {registry}
class RegistryTable(SphinxDirective):
    """A table of a registry's entries (``gamemarket.registry.Registry``): the name, then the attributes named
    by ``:columns:`` (comma-separated), read when the page is built, so that a newly registered scheduler,
    payment scheme or mechanism is listed without editing a page."""

    required_arguments = 1  # module.ATTRIBUTE, e.g. gamemarket.market.SCHEDULERS
    option_spec = {"columns": lambda text: [c.strip() for c in text.split(",") if c.strip()]}

    def run(self):
        module, _, attr = self.arguments[0].rpartition(".")
        registry = getattr(importlib.import_module(module), attr)
        columns = self.options.get("columns", ["description"])
        rows = [[name] + [getattr(item, c) for c in columns] for name, item in registry.items()]
        return [_table([registry.what] + [c.replace("_", " ") for c in columns], rows)]


def _table(header: list[str], rows: list[list], literal_first: bool = True) -> nodes.table:
    """A docutils table: the header, then the rows (the first cell of each as code)."""
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body

    def row(cells, literal):
        r = nodes.row()
        for k, cell in enumerate(cells):
            entry = nodes.entry()
            if literal and k == 0:
                entry += nodes.paragraph("", "", nodes.literal(text=str(cell)))
            else:
                entry += nodes.paragraph(text="yes" if cell is True else "no" if cell is False else str(cell))
            r += entry
        return r

    head += row(header, False)
    for cells in rows:
        body += row(cells, literal_first)
    return table


class JobTableColumns(SphinxDirective):
    """The job table's declared columns (``gamemarket.io.jobtable.COLUMNS``): name, kind, rule, required, meaning."""

    required_arguments = 1  # module.ATTRIBUTE of a sequence of ``Column``

    def run(self):
        module, _, attr = self.arguments[0].rpartition(".")
        columns = getattr(importlib.import_module(module), attr)
        rows = [[c.name, "integer" if c.integer else "number", c.expected(), c.required, c.meaning] for c in columns]
        return [_table(["column", "type", "values", "required", "meaning"], rows)]


class ExitCodes(SphinxDirective):
    """The command's exit codes and what each means (``gamemarket.cli.options.EXIT_CODES``, the constants the
    commands return), a table; a meaning's `` `code` `` spans set as code."""

    required_arguments = 1  # module.ATTRIBUTE of a dict code -> meaning

    def run(self):
        module, _, attr = self.arguments[0].rpartition(".")
        codes = getattr(importlib.import_module(module), attr)
        table = _table(["exit code", "meaning"], [[code, ""] for code in sorted(codes)])
        for entry_row, code in zip(table.findall(nodes.row), [None, *sorted(codes)]):
            if code is not None:
                entry = entry_row.children[1]
                entry.clear()
                entry += _inline_code(codes[code])
        return [table]


def _inline_code(text: str) -> nodes.paragraph:
    """A paragraph of ``text`` whose `` `...` `` spans are code (the rest plain)."""
    para = nodes.paragraph()
    for k, part in enumerate(text.split("`")):
        if part:
            para += nodes.literal(text=part) if k % 2 else nodes.Text(part)
    return para


# ---------------------------------------------------------------------------- {bibliography}
class Bibliography(SphinxDirective):
    """The ``- [Key] text`` lines of a Markdown file's ``## References`` section, as citations."""

    required_arguments = 1

    def run(self):
        path = (Path(self.env.srcdir) / self.env.docname).parent / self.arguments[0]
        path = path.resolve()
        self.env.note_dependency(str(path))
        text = path.read_text()
        section = text.split("\n## References", 1)[-1] if "\n## References" in text else ""
        entries = re.findall(r"^- \[([\w-]+)\] (.+)$", section, flags=re.M)
        if not entries:
            return [self.state.document.reporter.warning(f"no '- [Key] text' references in {path}")]
        out = []
        for key, ref in entries:
            citation = nodes.citation()
            citation += nodes.label(text=key)
            para = nodes.paragraph()  # the entry's Markdown (a title in *italics*) read as the page's own text
            para += self.parse_inline(ref, lineno=self.lineno)[0]
            citation += para
            citation["names"].append(nodes.fully_normalize_name(key))
            citation["ids"].append(nodes.make_id(f"cite-{key}"))
            citation["docname"] = self.env.docname
            self.state.document.note_citation(citation)
            self.state.document.note_explicit_target(citation, citation)
            # also a label, for the {cite} role of Markdown pages (MyST has no citation references)
            std = self.env.get_domain("std")
            std.note_hyperlink_target(citation["ids"][0], self.env.docname, citation["ids"][0], f"[{key}]")
            out.append(citation)
        return out


def cite_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{cite}`Key```: a link to the bibliography's entry ``Key``, shown as ``[Key]``; a warning where none is."""
    node = addnodes.pending_xref(
        rawtext,
        refdomain="std",
        reftype="ref",
        reftarget=nodes.make_id(f"cite-{text}"),
        refexplicit=True,
        refwarn=True,
    )
    node += nodes.inline(text=f"[{text}]")
    return [node], []


def setup(app):
    app.connect("builder-inited", _write_api_pages)
    app.connect("builder-inited", _check_generated)
    app.add_directive("benchmark-results", BenchmarkResults)
    app.add_directive("bibliography", Bibliography)
    app.add_directive("registry", RegistryTable)
    app.add_directive("job-table-columns", JobTableColumns)
    app.add_directive("exit-codes", ExitCodes)
    app.add_role("cite", cite_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    for page, page_text in generated_pages().items():
        page.write_text(page_text)
        print(f"wrote {page.relative_to(ROOT)}")
