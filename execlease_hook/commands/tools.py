"""`execlease tools`: fetch and verify the pinned TLA+ tools, show the Java and TLC in use, and
each model's libraries (tlc/libraries.py: jars fetched and verified, folders read)."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.git import repo
from execlease_hook.manifest import find, read
from execlease_hook.tlc import jar, libraries, pin
from execlease_hook.tlc.java import Java, find_java


def models(
    root: Path, model: str | None, default: jar.ToolJar | None, java: Java, settings: Settings
) -> list[str]:
    """A line per model (its TLA+ tools when its manifest names them) and per library it uses;
    none when the repository has no model yet."""
    lines = []
    for path in _found(root, model):
        m = read.load(path, root)
        ready = libraries.of(m, settings)
        where = m.folder.relative_to(root).as_posix() if m.folder.is_relative_to(root) else m.folder
        none = '' if m.libraries else ', no libraries'
        if m.tools is None:
            if default is None:
                pin.jar_for(m, None, java, settings)  # raises: this model has no tools at all
            lines.append(f'model {where}: TLA+ tools above{none}')
        else:
            own = pin.jar_for(m, default, java, settings)
            least = f', at least TLC {m.tools.min_tlc}' if m.tools.min_tlc else ''
            same = ' (the ones above)' if default and own.sha256 == default.sha256 else ''
            lines.append(
                f'model {where}: TLA+ tools {own.path}{same}  ({own.tlc_version}, sha256 '
                f'{own.sha256}, {own.source}{least}){none}'
            )
        lines += [
            f'  library {j.name}: {j.path}  (sha256 {j.sha256}, {j.source})' for j in ready.jars
        ]
        lines += [
            f'  library {f.folder}: {len(f.modules)} module{"" if len(f.modules) == 1 else "s"} '
            f'({", ".join(n for n, _ in f.modules)})'
            for f in ready.folders
        ]
    return lines


def _found(root: Path, model: str | None) -> list[Path]:
    """The models' manifests; none when the repository has no model yet (--model: that one)."""
    try:
        return find.find_models(root, model)
    except CannotRun:
        if model is not None:
            raise
        return []


def cache_key(root: Path, model: str | None) -> str:
    """`execlease-tla-` and 16 hex of every jar `.tmp/tla/` would hold: the default tools this
    execlease pins, and each model's own tools and library jars, by sha256, wherever the model
    lives. It moves when a pin moves and only then: a sync, which rewrites the manifests'
    fingerprints, keeps it, so a CI cache keyed by it is downloaded again only for a new pin."""
    pins = {f'tools {digest}' for digest in jar.KNOWN_JARS}
    for path in _found(root, model):
        m = read.load(path, root)
        if m.tools is not None and m.tools.sha256 is not None:
            pins.add(f'tools {m.tools.sha256}')
        pins.update(f'library {lib.sha256}' for lib in m.libraries if lib.sha256 is not None)
    digest = hashlib.sha256('\n'.join(sorted(pins)).encode()).hexdigest()
    return f'execlease-tla-{digest[:16]}'


def run(options: argparse.Namespace, settings: Settings) -> int:
    root = repo.repo_root()
    if options.cache_key:
        print(cache_key(root, options.model))
        return 0
    java = find_java(settings)
    try:
        default: jar.ToolJar | None = jar.resolve_jar(root, settings)
    except CannotRun as e:
        default, missing = None, e
    quiet = options.quiet > 0  # -q: found and verified is the exit code
    if default is not None:
        # The version TLC itself prints, e.g. 'TLC2 Version 2.15 of ... (rev: d5b5a7f)'.
        banner = pin.banner(default.path, java)
        described = [
            *([default.warning] if default.warning else []),
            f'TLA+ tools: {default.path}',
            f'  source:  {default.source}',
            f'  sha256:  {default.sha256}' + ('' if default.verified else '  (UNVERIFIED)'),
            f'  TLC:     {banner or default.tlc_version}',
            f'Java:      {java.path} (Java {java.major}: {java.version_text})',
        ]
        for line in () if quiet else described:
            print(line)
    lines = models(root, options.model, default, java, settings)
    if default is None and not lines:
        raise missing  # no default tools, and no model whose own would do
    if quiet:
        return 0
    if default is None:
        why = str(missing).split(':', 1)[0]
        print(f'TLA+ tools: none by default ({why}); each model below names its own')
    for line in lines:
        print(line)
    return 0
