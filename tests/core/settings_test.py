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
def test_one_rule_for_every_switch(value, default, expected):
    assert settings._switch('EXECLEASE_TEST_SWITCH', value or '', default) is expected


def test_a_switch_that_is_neither_on_nor_off_names_the_variable():
    with pytest.raises(
        CannotRun, match=r"EXECLEASE_JVM_SPARE='disabled': give 1 \(on\) or 0 \(off\)"
    ):
        settings.from_environ({'EXECLEASE_JVM_SPARE': 'disabled'})


def test_unset_and_empty_variables_keep_the_defaults():
    assert settings.from_environ({}) == settings.Settings()
    assert settings.from_environ({'EXECLEASE_TLA_JAR': '', 'EXECLEASE_TLC_TIMEOUT': ''}) == (
        settings.Settings()
    )


@pytest.mark.parametrize(
    ('variable', 'value', 'attribute', 'expected'),
    [
        ('EXECLEASE_TLC_TIMEOUT', '2.5', 'tlc_timeout', 2.5),
        ('EXECLEASE_TLC_WORKERS', ' 4 ', 'tlc_workers', 4),
        ('EXECLEASE_TLA_JAR', '/x/tla2tools.jar', 'tla_jar', '/x/tla2tools.jar'),
        ('EXECLEASE_MAX_COVERED_MB', '7', 'max_covered_bytes', 7_000_000),
        ('EXECLEASE_TLA_OFFLINE', 'yes', 'tla_offline', True),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_each_variable_is_read_into_its_field(variable, value, attribute, expected):
    assert getattr(settings.from_environ({variable: value}), attribute) == expected


@pytest.mark.parametrize(
    ('variable', 'value', 'message'),
    [
        ('EXECLEASE_TLC_TIMEOUT', 'nan', "EXECLEASE_TLC_TIMEOUT='nan' is not a finite number"),
        ('EXECLEASE_PROGRESS_SECONDS', 'soon', "EXECLEASE_PROGRESS_SECONDS='soon' is not a number"),
        ('EXECLEASE_TLA_RETRIES', '21', "EXECLEASE_TLA_RETRIES='21': give a whole number from 1"),
        ('EXECLEASE_MAX_COVERED_MB', '0', "EXECLEASE_MAX_COVERED_MB='0': give a whole number"),
    ],
    ids=lambda v: v,
)
def test_a_bad_value_names_the_variable_and_what_to_give(variable, value, message):
    with pytest.raises(CannotRun) as caught:
        settings.from_environ({variable: value})
    assert str(caught.value).startswith(message)


def test_every_field_has_its_variable():
    for field, default in settings.Settings._field_defaults.items():
        given = {bool: '0' if default else '1', float: '2.5', int: '2'}.get(type(default), 'x')
        read = getattr(settings.from_environ({settings.variable(field): given}), field)
        assert read != default, field


def test_the_users_cache_is_under_xdg_cache_home_else_home(monkeypatch, tmp_path):
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    assert settings.user_cache() == tmp_path / 'cache' / 'execlease'
    for unset in ('', None):  # an empty variable is no folder
        if unset is None:
            monkeypatch.delenv('XDG_CACHE_HOME')
        else:
            monkeypatch.setenv('XDG_CACHE_HOME', unset)
        monkeypatch.setenv('HOME', str(tmp_path / 'home'))
        assert settings.user_cache() == tmp_path / 'home' / '.cache' / 'execlease'
