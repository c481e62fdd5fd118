"""What every end-to-end test's children share."""

from __future__ import annotations

import pytest

from tests.e2e import install


@pytest.fixture(autouse=True)
def pip_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """`install.PIP` for the hook environments pre-commit builds (the session's store, and a
    store of a test's own) and every other pip these tests start."""
    for name, value in install.PIP.items():
        monkeypatch.setenv(name, value)
