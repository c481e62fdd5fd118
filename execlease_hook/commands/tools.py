"""`execlease tools`: fetch and verify the pinned TLA+ tools, and show the Java and TLC in use."""
from __future__ import annotations

from execlease_hook.tlc.jar import ToolJar
from execlease_hook.tlc.jar import resolve_jar

import argparse
import subprocess
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    pass
from execlease_hook.core.errors import CannotRun
from execlease_hook.tlc.java import Java, find_java


def tlc_version(jar: ToolJar, java: Java) -> str:
    """The version TLC itself prints (its banner), e.g. 'TLC2 Version 2.15 of ... (rev: d5b5a7f)'."""
    try:
        result = subprocess.run(
            (str(java.path), '-cp', str(jar.path), 'tlc2.TLC', '-version'),
            capture_output=True, text=True, timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CannotRun(f'could not run TLC from {jar.path} with {java.path}: {e}')
    for line in (result.stdout + result.stderr).splitlines():
        if line.startswith('TLC2 Version'):
            return line.strip()
    raise CannotRun(
        f'{jar.path} did not print a TLC version with {java.path}; output: '
        + (result.stdout + result.stderr).strip()[-500:]
    )


def describe(jar: ToolJar, java: Java, banner: str | None = None) -> list[str]:
    lines = [
        f'TLA+ tools: {jar.path}',
        f'  source:  {jar.source}',
        f'  sha256:  {jar.sha256}' + ('' if jar.verified else '  (UNVERIFIED)'),
        f'  TLC:     {banner or jar.tlc_version}',
        f'Java:      {java.path} (Java {java.major}: {java.version_text})',
    ]
    if jar.warning:
        lines.insert(0, jar.warning)
    return lines


def run(options: argparse.Namespace) -> int:
    from execlease_hook.git import repo as git

    root = git.repo_root()
    jar = resolve_jar(root)
    java = find_java()
    for line in describe(jar, java, tlc_version(jar, java)):
        print(line)
    return 0
