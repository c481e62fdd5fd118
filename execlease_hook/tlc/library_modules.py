"""What TLC reads from a model's libraries: the modules the spec EXTENDS or INSTANCEs, found where
TLC looks (the spec's folder, each library folder, TLC's own standard modules, each library jar),
never the files no module of the model imports (docs/libraries.md#libraries-as-they-ship).

The spec scan reads these modules before TLC runs, a jar's exactly as a folder's; `add --library`
and `init --library` say which of a library's modules the model reads, which it shadows of TLC's
standard modules, and what one of them imports that nothing supplies.
"""

from __future__ import annotations

import functools
import zipfile
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.core.errors import CannotRun
from execlease_hook.spec.modules import Module, in_memory
from execlease_hook.tlc.libraries import Libraries

STANDARD_FOLDER = 'tla2sany/StandardModules/'


def jar_modules(path: Path) -> dict[str, bytes]:
    """The modules a jar offers TLC: the .tla files at its root (file name -> bytes), read once
    per process and jar file. Raises CannotRun for a file that is no jar."""
    try:
        stat = path.stat()
        return _jar_modules(path, stat.st_size, stat.st_mtime_ns)
    except (OSError, zipfile.BadZipFile) as e:
        raise CannotRun(f'{path}: not a jar TLC can read ({e})') from None


@functools.cache
def _jar_modules(path: Path, size: int, mtime_ns: int) -> dict[str, bytes]:
    """jar_modules's answer; the jar's size and mtime are the rest of the key."""
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in sorted(z.namelist()) if '/' not in n and n.endswith('.tla')}


@functools.cache
def standard_modules(tools_jar: Path) -> frozenset[str]:
    """The standard modules of this tla2tools.jar (Naturals, FiniteSets, TLC, ...): what TLC
    reads from itself when neither the spec's folder nor a library folder holds the module."""
    try:
        with zipfile.ZipFile(tools_jar) as z:
            names = z.namelist()
    except (OSError, zipfile.BadZipFile):
        names = []  # the run names an unreadable jar; here no module is known as TLC's
    return frozenset(
        n[len(STANDARD_FOLDER) : -len('.tla')]
        for n in names
        if n.startswith(STANDARD_FOLDER) and n.endswith('.tla') and n.count('/') == 2
    )


def read_by(
    spec: tuple[str, bytes],
    beside: Sequence[tuple[str, bytes]],
    libs: Libraries,
    tools_jar: Path,
    prefix: str = '',
) -> list[Module]:
    """The modules TLC reads for a spec (its file name and bytes): the spec and, transitively,
    each module it EXTENDS or INSTANCEs that its folder (`beside`, shown with `prefix`), a library
    folder or a jar holds (spec/modules.py). Modules nothing reads are not among them: a library
    as it ships holds many that a model never imports."""
    return in_memory(spec, [(None, prefix, dict(beside)), *places(libs, tools_jar)])


def shadowing(modules: Sequence[Module], tools_jar: Path) -> list[str]:
    """A note for each module read from the repository that TLC's own standard module of the same
    name would otherwise answer (a proof library's FiniteSets.tla): both named."""
    own = standard_modules(tools_jar)
    return [
        f"{mod.path} shadows TLC's standard module {mod.name} ({STANDARD_FOLDER}{mod.name}.tla "
        f'in {tools_jar.name}): TLC reads {mod.path} for every module that imports {mod.name}'
        for mod in modules
        if not mod.root and mod.name in own and not mod.path.startswith('jar:')
    ]


def places(libs: Libraries, tools_jar: Path) -> list[tuple[str | None, str, dict[str, bytes]]]:
    """Where TLC looks for a module after the spec's own folder, in its order, for
    spec/modules.in_memory: each folder (its path as the prefix), then each jar's root modules
    (`jar:NAME!/` as the prefix) but for those TLC's own standard modules answer first."""
    own = standard_modules(tools_jar)
    found: list[tuple[str | None, str, dict[str, bytes]]] = [
        (f.folder, f'{f.folder}/', dict(f.modules)) for f in libs.folders
    ]
    for j in libs.jars:
        texts = {
            name: text
            for name, text in jar_modules(j.path).items()
            if name.removesuffix('.tla') not in own
        }
        found.append((j.name, f'jar:{j.name}!/', texts))
    return found
