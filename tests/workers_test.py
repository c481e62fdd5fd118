from __future__ import annotations

import os

import pytest

from tests import workers


def auto(config: pytest.Config) -> int:
    """What `-n auto` starts: pytest-xdist asks this hook chain (the suite's hook, then its own)."""
    return int(config.hook.pytest_xdist_auto_num_workers(config=config))


def test_auto_starts_one_worker_more_than_the_cores(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(workers.OVERRIDE, raising=False)
    assert workers.cores() == len(os.sched_getaffinity(0))
    assert auto(pytestconfig) == workers.cores() + 1


def test_the_variable_still_decides(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(workers.OVERRIDE, '7')
    assert auto(pytestconfig) == 7
