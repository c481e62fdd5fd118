"""init_hooks.py: the hook types a pre-commit config lacks, read as text."""

from __future__ import annotations

import pytest

from execlease_hook.commands import init_hooks


@pytest.mark.parametrize(
    ('config', 'missing'),
    (
        ('repos: []\n', None),
        ('default_install_hook_types: [pre-commit, pre-merge-commit, pre-push]\nrepos: []\n', ()),
        ("default_install_hook_types: ['pre-commit', pre-push]  # ours\n", ('pre-merge-commit',)),
        (
            'default_install_hook_types:\n- pre-push\n- pre-commit\nrepos: []\n',
            ('pre-merge-commit',),
        ),
        (
            'repos:\n-   repo: local\n    default_install_hook_types: [pre-push]\n',
            None,
        ),  # not top level
    ),
    ids=('none', 'all', 'flow', 'block', 'nested'),
)
def test_missing_hook_types(config, missing):
    assert init_hooks.missing_hook_types(config) == missing
