"""docs/compat.md is generated from the package: it must be current, and every name it calls
supported must exist while every name it calls missing must raise the honest AttributeError."""

import os

import pytest

import distflow as tf
from distflow.tools import compat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_compat_page_is_current():
    with open(os.path.join(ROOT, "docs", "compat.md"), encoding="utf-8") as f:
        assert f.read() == compat.render(), "docs/compat.md is stale: run python -m distflow.tools.compat"


def test_missing_names_say_so_and_supported_ones_exist():
    data = compat.survey()
    for namespace, entry in data.items():
        module = tf if namespace == "tf" else getattr(tf, namespace, None)
        if module is None:
            continue
        for name in entry["missing"][:20]:
            with pytest.raises(AttributeError, match="does not implement"):
                getattr(module, name)
        for name in entry["supported"]:
            assert getattr(module, name) is not None or name == "newaxis", f"{namespace}.{name}"


def test_every_partial_name_is_a_supported_one():
    data = compat.survey()
    for namespace, names in compat.PARTIAL.items():
        for name in names:
            assert name in data[namespace]["supported"], f"{namespace}.{name} is listed as partial but is not there"
