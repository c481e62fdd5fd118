"""The changelog and the version: CHANGELOG.md keeps a changelog (newest first, an Unreleased
section on top), and the version lives in one place, pyproject.toml, which `execlease --version`
and every JSON report read from the installed package."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = (ROOT / 'CHANGELOG.md').read_text(encoding='utf-8')
VERSION = tomllib.loads((ROOT / 'pyproject.toml').read_text(encoding='utf-8'))['project']['version']


def releases() -> list[str]:
    return re.findall(r'^## \[([^\]]+)\]', CHANGELOG, re.M)


def test_the_changelog_starts_with_unreleased_then_versions_newest_first():
    found = releases()
    assert CHANGELOG.startswith('# Changelog\n')
    assert found[0] == 'Unreleased'
    versions = [tuple(int(n) for n in v.split('.')) for v in found[1:]]
    assert all(re.fullmatch(r'\d+\.\d+\.\d+', v) for v in found[1:]), found
    assert versions == sorted(versions, reverse=True)


def test_each_section_uses_the_keep_a_changelog_kinds():
    kinds = set(re.findall(r'^### (.+)$', CHANGELOG, re.M))
    assert kinds <= {'Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'}, kinds


def test_a_released_version_is_not_ahead_of_pyproject():
    released = [tuple(int(n) for n in v.split('.')) for v in releases()[1:]]
    assert all(v <= tuple(int(n) for n in VERSION.split('.')) for v in released)


def test_the_version_is_read_from_the_installed_package_only():
    assert metadata.version('execlease') == VERSION
    out = subprocess.run(
        (sys.executable, '-m', 'execlease_hook', '--version'),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out == f'execlease {VERSION}\n'
    held = [
        str(p.relative_to(ROOT))
        for p in (ROOT / 'execlease_hook').rglob('*.py')
        if re.search(r'__version__|\b' + re.escape(VERSION) + r'\b', p.read_text(encoding='utf-8'))
    ]
    assert held == [], "the version is pyproject.toml's alone"
