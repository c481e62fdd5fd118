"""`execlease tools`: fetch and verify the pinned TLA+ tools, show the Java and TLC in use, and
each model's libraries (tlc/libraries.py: jars fetched and verified, folders read)."""
from __future__ import annotations

from execlease_hook.tlc.jar import ToolJar
from execlease_hook.tlc.jar import resolve_jar

import argparse
import subprocess
from pathlib import Path
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


def models(root: Path, model: str | None) -> list[str]:
    """A line per model and per library it uses; none when the repository has no model yet."""
    from execlease_hook.manifest import find
    from execlease_hook.manifest import read as manifest_read
    from execlease_hook.tlc import libraries

    try:
        found = find.find_models(root, model)
    except CannotRun:
        if model is not None:
            raise
        return []
    lines = []
    for path in found:
        m = manifest_read.load(path, root)
        ready = libraries.of(m)
        lines.append(f'model {m.folder.relative_to(root).as_posix() if m.folder.is_relative_to(root) else m.folder}: '
                     + ('TLA+ tools above' + ('' if m.libraries else ', no libraries')))
        lines += [f'  library {j.name}: {j.path}  (sha256 {j.sha256}, {j.source})' for j in ready.jars]
        lines += [f'  library {f.folder}: {len(f.modules)} module{"" if len(f.modules) == 1 else "s"} '
                  f'({", ".join(n for n, _ in f.modules)})' for f in ready.folders]
    return lines


def run(options: argparse.Namespace) -> int:
    from execlease_hook.git import repo as git

    root = git.repo_root()
    jar = resolve_jar(root)
    java = find_java()
    for line in describe(jar, java, tlc_version(jar, java)):
        print(line)
    for line in models(root, getattr(options, 'model', None)):
        print(line)
    return 0
