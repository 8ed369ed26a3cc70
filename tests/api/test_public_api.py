"""The front door: every name in dplab.__all__ resolves to the object of its module, and unknown names fail."""

import importlib

import pytest

import dplab


@pytest.mark.parametrize("name", [name for name in dplab.__all__ if name != "__version__"])
def test_public_name_is_the_module_object(name):
    assert getattr(dplab, name) is getattr(importlib.import_module(dplab._PUBLIC[name]), name)


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        dplab.no_such_name  # noqa: B018


def test_all_lists_exactly_the_public_names():
    assert sorted(dplab.__all__) == sorted(["__version__", *dplab._PUBLIC])
