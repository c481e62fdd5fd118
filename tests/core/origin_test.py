from __future__ import annotations

import json

import pytest

from execlease_hook.core import origin

COMMIT = '0123456789abcdef0123456789abcdef01234567'
# The three records pip writes (PEP 610): a git install, a folder (editable or not), a wheel.
RECORDS = (
    (
        {
            'url': 'https://git.example.org/execlease.git',
            'vcs_info': {'vcs': 'git', 'commit_id': COMMIT, 'requested_revision': 'v0.1.0'},
        },
        origin.Origin('0.1.0', 'https://git.example.org/execlease.git', COMMIT),
        f'execlease 0.1.0 from git+https://git.example.org/execlease.git@{COMMIT}',
    ),
    (
        {'url': 'file:///src/execlease', 'dir_info': {'editable': True}},
        origin.Origin('0.1.0', 'file:///src/execlease', editable=True),
        'execlease 0.1.0 from file:///src/execlease (editable)',
    ),
    (
        {'url': 'file:///src/execlease', 'dir_info': {}},
        origin.Origin('0.1.0', 'file:///src/execlease'),
        'execlease 0.1.0 from file:///src/execlease',
    ),
    (
        {'url': 'file:///dist/execlease-0.1.0-py3-none-any.whl', 'archive_info': {}},
        origin.Origin('0.1.0', 'file:///dist/execlease-0.1.0-py3-none-any.whl'),
        'execlease 0.1.0 from file:///dist/execlease-0.1.0-py3-none-any.whl',
    ),
    (None, origin.Origin('0.1.0'), 'execlease 0.1.0'),
    ('not json', origin.Origin('0.1.0'), 'execlease 0.1.0'),
)


@pytest.mark.parametrize(
    ('record', 'expected', 'version'),
    RECORDS,
    ids=('git', 'editable', 'folder', 'wheel', 'index', 'unreadable'),
)
def test_from_record(record, expected, version):
    text = record if record is None or isinstance(record, str) else json.dumps(record)
    found = origin.from_record('0.1.0', text)
    assert found == expected
    assert origin.describe(found) == version


def test_not_installed():
    assert origin.describe(origin.Origin(None)) == 'execlease (not installed: version unknown)'


@pytest.mark.parametrize(
    ('found', 'command'),
    (
        (
            origin.Origin('0.1.0', 'https://git.example.org/execlease.git', COMMIT),
            f"pip install 'execlease[java] @ git+https://git.example.org/execlease.git@{COMMIT}'",
        ),
        (
            origin.Origin('0.1.0', 'file:///src/execlease', editable=True),
            "pip install -e '/src/execlease[java]'",
        ),
        (
            origin.Origin('0.1.0', 'file:///dist/execlease-0.1.0-py3-none-any.whl'),
            "pip install '/dist/execlease-0.1.0-py3-none-any.whl[java]'",
        ),
        (origin.Origin('0.1.0'), "pip install 'execlease[java]'"),
    ),
    ids=('git', 'editable', 'wheel', 'index'),
)
def test_an_extra_is_added_the_way_execlease_was_installed(monkeypatch, found, command):
    monkeypatch.setattr(origin, 'installed', lambda: found)
    assert origin.extra_install('java') == command
