"""The API reference: HTML pages built by pdoc from the docstrings of every dplab module.

``python -m dplab.workflow.api_reference --output DIR`` writes ``DIR/index.html`` and one page per module (pdoc is in the
``docs`` extra).  Any warning pdoc raises while building (a name in ``__all__`` that does not resolve, a module
that fails to import, a docstring it cannot render) fails the build with every warning listed: ``.ci/docs`` and
``tests/docs`` run it so.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import warnings
from pathlib import Path

__all__ = ["DocumentationWarnings", "build_api_reference", "documented_modules", "main"]

_LAZY_PACKAGES = ("dplab", "dplab.audit")


class DocumentationWarnings(RuntimeError):
    """pdoc warned while building the reference; the message lists every warning."""


def documented_modules() -> list[str]:
    """``dplab`` and every module under it whose dotted name has no part starting with an underscore (so neither
    private helpers nor ``__main__`` entry points), sorted by name."""
    import dplab

    names = [info.name for info in pkgutil.walk_packages(dplab.__path__, prefix="dplab.")]
    return ["dplab", *sorted(name for name in names if not any(part.startswith("_") for part in name.split(".")))]


def _load_lazy_names() -> None:
    """Import the names that ``dplab`` and ``dplab.audit`` load on first use (PEP 562 ``__getattr__``), so that pdoc,
    which looks names of ``__all__`` up in the module's namespace, finds them."""
    for package in map(importlib.import_module, _LAZY_PACKAGES):
        for name in package.__all__:
            setattr(package, name, getattr(package, name))


def _render(modules: list[str], output: Path) -> None:
    """pdoc's own ``pdoc.pdoc`` loop over an explicit module list: ``pdoc.pdoc("dplab")`` would follow ``__all__``,
    which in ``dplab`` lists the front-door names, not the subpackages, and so would document the front door only."""
    from pdoc import doc, render

    documented = {name: doc.Module(importlib.import_module(name)) for name in modules}  # not from_name's cache
    for name, module in documented.items():
        page = output / f"{name.replace('.', '/')}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(render.html_module(module, documented), encoding="utf-8")
    (output / "index.html").write_text(render.html_index(documented), encoding="utf-8")
    (output / "search.js").write_text(render.search_index(documented), encoding="utf-8")


def build_api_reference(output: str | Path) -> list[str]:
    """Build the reference into the folder ``output`` with pdoc (reStructuredText docstrings, math rendered);
    returns the documented module names.  Raises :class:`DocumentationWarnings` if pdoc warned at all."""
    from pdoc import render

    _load_lazy_names()
    modules = documented_modules()
    render.configure(docformat="restructuredtext", math=True, show_source=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _render(modules, Path(output))
    if caught:
        raise DocumentationWarnings(
            f"{len(caught)} warning(s) while building the API reference:\n"
            + "\n".join(f"- {warning.message}" for warning in caught)
        )
    return modules


def main(argv: list[str] | None = None) -> None:
    """Build the reference into ``--output`` (exit status 1, with the warnings, if pdoc warned)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True, help="folder for the HTML pages")
    args = parser.parse_args(argv)
    try:
        modules = build_api_reference(args.output)
    except DocumentationWarnings as error:
        raise SystemExit(str(error)) from None
    print(f"API reference of {len(modules)} modules written to {args.output}")


if __name__ == "__main__":
    main()
