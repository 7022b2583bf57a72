"""Pytest setup for the security tests: the checks in the helper modules are plain ``assert`` statements, and
pytest only explains a failing assert (both sides of ``==``, the message) in modules it rewrites, which by
default are test and conftest files alone. Registering the helpers here, before any test module imports them,
gives a failing check in ``checks.py`` the same report as one written in the test."""

import pytest

pytest.register_assert_rewrite(
    "security.reference", "security.payloads", "security.article", "security.checks", "security.fuzzer"
)
