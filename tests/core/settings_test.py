from __future__ import annotations

import pytest

from execlease_hook.core import settings
from execlease_hook.core.errors import CannotRun


@pytest.mark.parametrize(
    ('value', 'default', 'expected'),
    [
        (None, True, True),
        ('', False, False),
        ('1', False, True),
        ('TRUE', False, True),
        ('on', False, True),
        ('0', True, False),
        ('false', True, False),
        ('No', True, False),
        (' off ', True, False),
    ],
    ids=repr,
)
def test_one_rule_for_every_switch(monkeypatch, value, default, expected):
    if value is None:
        monkeypatch.delenv('EXECLEASE_TEST_SWITCH', raising=False)
    else:
        monkeypatch.setenv('EXECLEASE_TEST_SWITCH', value)
    assert settings.switch_env('EXECLEASE_TEST_SWITCH', default) is expected


def test_a_switch_that_is_neither_on_nor_off_names_the_variable(monkeypatch):
    monkeypatch.setenv('EXECLEASE_JVM_SPARE', 'disabled')
    with pytest.raises(
        CannotRun, match=r"EXECLEASE_JVM_SPARE='disabled': give 1 \(on\) or 0 \(off\)"
    ):
        settings.switch_env('EXECLEASE_JVM_SPARE', True)
