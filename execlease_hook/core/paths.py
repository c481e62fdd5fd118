"""One spelling per path: the rules every path in a manifest must follow.

git names a file one way (`app/lease.py`); the guard compares the manifest's paths with git's
staged paths as strings. A path spelled another way (`./app/lease.py`, `app//lease.py`,
`app/./lease.py`, `App/lease.py` on a case-insensitive disk) reads the same file for `coverage`
and `verify` but never equals a staged path, so the guard would let a covered change through.
Such spellings are refused (exit 2, naming the field), never silently normalised: the manifest
then says exactly what git says. Kept free of heavy imports: the guard calls it on every commit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container
from pathlib import Path

from execlease_hook.core.errors import CannotRun


def rel(root: Path | str, path: Path | str) -> str:
    """`path` relative to `root`, POSIX-spelled: how every path is named in a manifest, a message
    and a report (a path outside `root` starts with `../`)."""
    return Path(os.path.relpath(path, root)).as_posix()


def in_report(root: Path | str, path: Path | str) -> str:
    """`path` as a report names it: relative to the repository root, or, for a file outside the
    repository (a Java, a jar named by EXECLEASE_TLA_JAR), its name marked as outside. A report
    is shared: it carries no home folder and no checkout path."""
    full, top = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    if full.is_relative_to(top):
        return full.relative_to(top).as_posix()
    return f'outside the repository: {full.name}'


def module_in_folder(folder: str, path: str) -> bool:
    """`path` is a .tla module directly in `folder` (both from the repository root, '.' for the
    root itself): one TLC finds on a library path, which it does not search below."""
    prefix = '' if folder == '.' else f'{folder}/'
    rest = path[len(prefix) :]
    return path.startswith(prefix) and rest.endswith('.tla') and '/' not in rest


def spelling_problem(text: str) -> str | None:
    """Why `text` is not the one spelling git uses for a relative path; None when it is."""
    if any(ord(c) < 0x20 or c == '\x7f' for c in text):
        return f'{text!r} contains a control character (a NUL byte, a line break, ...)'
    if '\\' in text:
        return f'{text!r}: use forward slashes'
    if text.startswith('/'):
        return f'{text!r} is absolute'
    parts = text.split('/')
    if '..' in parts:
        return f'{text!r} leaves its folder with ".."; paths must stay inside the repository'
    if text.endswith('/'):
        return f'{text!r} ends with "/"; name a file, written as {text.rstrip("/")!r}'
    if '' in parts or '.' in parts:
        canonical = '/'.join(p for p in parts if p not in ('', '.'))
        return (
            f'{text!r} is not written the way git writes it ("./", "//" or "/./"); '
            f'write {canonical!r}'
        )
    return None


def case_problem(base: Path, text: str) -> str | None:
    """`text` names an existing file only through a different letter case (a case-insensitive
    disk finds it; git, and so the guard, do not)."""
    folder = base
    for i, part in enumerate(text.split('/')):
        try:
            names = os.listdir(folder)
        except OSError:
            return None  # missing or not a folder: other checks say so
        if part in names:
            folder = folder / part
            continue
        variants = sorted(n for n in names if n.casefold() == part.casefold())
        if not variants:
            return None
        actual = '/'.join([*text.split('/')[:i], variants[0], *text.split('/')[i + 1 :]])
        return f'{text!r} differs in letter case from the file on disk; write {actual!r}'
    return None


def submodule_problem(root: Path, base: Path, text: str) -> str | None:
    """`text` lies inside a git submodule (or another repository nested in this one)."""
    folder = base / text
    root = root.resolve()
    for parent in folder.parents:
        try:
            resolved = parent.resolve()
        except (OSError, RuntimeError):
            return None
        if resolved == root or not resolved.is_relative_to(root):
            return None
        if (parent / '.git').exists():
            inside = resolved.relative_to(root).as_posix()
            return (
                f'{text!r} is inside {inside}, a git submodule (or a repository nested in this '
                "one): execlease reads this repository's index and commits, never the "
                "submodule's, so it could not guard that code; cover it from the submodule's "
                'own repository, or make it part of this one'
            )
    return None


def touched(governed: set[str], staged: set[str]) -> bool:
    """Whether a commit touching `staged` concerns a model governing `governed`: a path, any
    folder above it (a submodule bump, a folder turned into a file) or a case variant of either."""
    folded = {p.casefold() for p in staged}
    return any(
        '/'.join(parts[:i]) in folded
        for parts in (path.casefold().split('/') for path in governed)
        for i in range(1, len(parts) + 1)
    )


def above_covered(covered: dict[str, str], staged: set[str]) -> list[str]:
    """Messages for covered paths (entry id -> path) that a staged path contains as a folder: in
    a commit, that folder became a submodule, a file or a symlink."""
    found = []
    for entry, path in covered.items():
        parts = path.split('/')
        folders = ('/'.join(parts[:i]) for i in range(1, len(parts)))
        folder = next((f for f in folders if f in staged), None)
        if folder is not None:
            found.append(
                f'entry {entry}: {path} is inside {folder}, which this commit stages as a '
                'submodule, a file or a symlink; execlease cannot read covered code there. '
                'Keep the covered code in this repository, or remove the entry'
            )
    return found


def outside_problem(root: Path, path: Path) -> str | None:
    """`path` (a file TLC will read, or a manifest) resolves outside the repository `root`:
    a symlink to a file elsewhere would hand that file to TLC, or let it judge the commit."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError) as e:
        return f'{path}: cannot be resolved ({e}); fix the symlinks on its way'
    if resolved.is_relative_to(root.resolve()):
        return None
    return (
        f'{path} resolves to {resolved}, outside the repository {root} (a symlink pointing '
        'outside?); execlease reads only files inside the repository: replace the link with '
        'the file itself'
    )


def modules_beside(root: Path, spec: Path) -> tuple[tuple[str, bytes], ...]:
    """The other .tla files in the spec's folder (TLC may read any of them): tla_modules."""
    return tla_modules(
        root,
        spec.parent,
        lambda module, e: (
            f'{module}: cannot read this module beside the spec: {e.strerror}; '
            'restore it or remove it'
        ),
        skip=(spec.name,),
    )


def tla_modules(
    root: Path,
    folder: Path,
    unreadable: Callable[[Path, OSError], str],
    where: str = '',
    skip: Container[str] = (),
) -> tuple[tuple[str, bytes], ...]:
    """The .tla files directly in `folder` but those in `skip`, each checked to be inside the
    repository: (name, bytes), sorted by name. Raises CannotRun: `where` then the file's
    outside_problem, or `unreadable(file, error)`."""
    found = []
    for module in sorted(folder.glob('*.tla')):
        if module.name in skip:
            continue
        problem = outside_problem(root, module)
        if problem is not None:
            raise CannotRun(where + problem)
        try:
            found.append((module.name, module.read_bytes()))
        except OSError as e:
            raise CannotRun(unreadable(module, e)) from None
    return tuple(found)
