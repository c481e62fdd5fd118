from __future__ import annotations

import os
import subprocess

import pytest

from tests import jit, needs


@pytest.mark.tlc
def test_a_jvm_the_run_starts_compiles_with_c1_only() -> None:
    said = subprocess.run(
        (needs.java(), '-XX:+PrintFlagsFinal', '-version'),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    level = next(
        line.split()[3] for line in said.stdout.splitlines() if ' TieredStopAtLevel ' in line
    )
    options = os.environ.get(jit.VARIABLE)
    if options is None or jit.C1_ONLY not in options.split():  # the machine's own options
        assert jit.OPTIONS is None
        return
    assert level == '1'
    assert f'Picked up {jit.VARIABLE}: {options}' in said.stderr


def test_options_a_machine_sets_itself_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jit.VARIABLE, '-Xss4m')
    assert jit.c1_for_the_run() is None
    assert os.environ[jit.VARIABLE] == '-Xss4m'


def test_without_options_the_run_sets_c1_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(jit.VARIABLE, raising=False)
    assert jit.c1_for_the_run() == jit.C1_ONLY
    assert os.environ[jit.VARIABLE] == jit.C1_ONLY
