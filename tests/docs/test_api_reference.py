"""The API reference (python -m dplab.workflow.api_reference, pdoc) builds without a single warning, documents every public
module, and fails when pdoc warns."""

import importlib.util

import pytest

from dplab.workflow import api_reference

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pdoc") is None, reason="pdoc is not installed (pip install -e '.[docs]')"
)


def test_reference_builds_without_warnings_and_documents_every_module(tmp_path):
    modules = api_reference.build_api_reference(tmp_path)
    assert {"dplab", "dplab.account", "dplab.audit.accountant_check", "dplab.train"} <= set(modules)
    for name in modules:
        assert (tmp_path / f"{name.replace('.', '/')}.html").stat().st_size > 0
    front_door = (tmp_path / "dplab.html").read_text(encoding="utf-8")
    assert "check_dpsgd_accountant" in front_door and "train_dpsgd" in front_door
    assert (tmp_path / "index.html").exists() and (tmp_path / "search.js").exists()


def test_a_name_that_does_not_resolve_fails_the_build(tmp_path, monkeypatch):
    import dplab.account

    monkeypatch.setattr(dplab.account, "__all__", [*dplab.account.__all__, "no_such_function"])
    monkeypatch.setattr(api_reference, "documented_modules", lambda: ["dplab.account"])
    with pytest.raises(api_reference.DocumentationWarnings, match="no_such_function"):
        api_reference.build_api_reference(tmp_path)


def test_command_line_exits_with_the_warnings(tmp_path, monkeypatch):
    monkeypatch.setattr(api_reference, "build_api_reference", _raise_warnings)
    with pytest.raises(SystemExit, match="1 warning"):
        api_reference.main(["--output", str(tmp_path)])


def _raise_warnings(output):
    raise api_reference.DocumentationWarnings("1 warning(s) while building the API reference:\n- example")
