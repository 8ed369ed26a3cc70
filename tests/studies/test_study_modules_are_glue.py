"""Study modules are glue: none imports the numerics packages ``scipy.special`` or ``scipy.integrate`` (special
functions and quadrature belong in the library: dplab.numerics, dplab.distributions, dplab.mechanisms, dplab.theory,
dplab.audit).  Every module under src/dplab/studies is parsed with ``ast`` (nothing is imported or run)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

STUDIES = Path(__file__).resolve().parents[2] / "src" / "dplab" / "studies"
FORBIDDEN = ("scipy.special", "scipy.integrate")

#: Modules that still import a forbidden package, each with the reason it is not fixed yet.  Remove an entry as soon
#: as its module is fixed (``test_allowlist_is_not_stale`` fails otherwise).
ALLOWED: dict[str, str] = {}


def forbidden_imports(source: str) -> list[str]:
    """The forbidden packages that ``source`` imports, in any spelling: ``import scipy.special``, ``import
    scipy.special as s``, ``from scipy.special import erfcx``, ``from scipy import integrate``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [name for name in names if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)]
    return found


def _offenders() -> dict[str, list[str]]:
    return {
        path.relative_to(STUDIES).as_posix(): imports
        for path in sorted(STUDIES.rglob("*.py"))
        if (imports := forbidden_imports(path.read_text(encoding="utf-8")))
    }


def test_no_study_module_imports_scipy_special_or_integrate():
    offenders = {path: imports for path, imports in _offenders().items() if path not in ALLOWED}
    assert not offenders, f"study modules importing numerics (move them into the library): {offenders}"


def test_allowlist_is_not_stale():
    assert set(ALLOWED) <= set(_offenders()), "an allowlisted module no longer imports scipy.special/integrate"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import scipy.special", ["scipy.special"]),
        ("import scipy.integrate as quad_pack", ["scipy.integrate"]),
        ("from scipy.special import erfcx, gammaln", ["scipy.special", "scipy.special.erfcx", "scipy.special.gammaln"]),
        ("from scipy import integrate, stats", ["scipy.integrate"]),
        (
            "from scipy.integrate._quadpack_py import quad",
            ["scipy.integrate._quadpack_py", "scipy.integrate._quadpack_py.quad"],
        ),
        ("def f():\n    from scipy import special\n", ["scipy.special"]),
        ("from scipy import stats, optimize\nimport numpy", []),
        ("from scipy.specialty import x\nimport scipy", []),
        ("from . import integrate", []),
    ],
)
def test_the_detector_sees_every_spelling(source, expected):
    assert forbidden_imports(source) == expected
