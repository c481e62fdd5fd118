"""Which grammar reads a path, and one parse per (language, bytes) per process.

Grammar wheels, and `tree_sitter` itself, are imported on the first parse of a file in
that language: the guard must not pay for grammars of files that are not staged. Suffixes and
wheels are the languages' rows (locate/languages.py).

Of each wheel only its compiled `_binding` module is loaded (binding()): the wheels'
`__init__.py` imports `importlib.resources` for query files execlease never reads, and with it
`inspect`, and `tree_sitter`'s imports `typing`; together more than the rest of a commit that
stages covered code (benchmarks/guard_latency.py).
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING

from execlease_hook.core.errors import CannotRun
from execlease_hook.locate.languages import LANGUAGES, SUFFIXES

if TYPE_CHECKING:
    import tree_sitter

# The trees of the files a run reads, by (language, bytes): parse_from reparses a new version of
# a file from its base's tree found here, which a plain memo of parse could not offer.
_trees: dict[tuple[str, bytes], tree_sitter.Tree] = {}
_MAX_TREES = 64  # a guard run touches a handful of files (index, sync commit, moved-to candidates)


def language_for(path: str) -> str | None:
    return SUFFIXES.get(os.path.splitext(path)[1].lower())


def require_language(path: str, what: str) -> str:
    language = language_for(path)
    if language is None:
        supported = ', '.join(sorted(SUFFIXES))
        raise CannotRun(
            f'{what}: {path} has no supported suffix (supported: {supported}); '
            f'cover it with a supported file or remove the entry',
        )
    return language


def check_text(path: str, source: bytes, what: str, max_bytes: int) -> None:
    """Binary or non-UTF-8 sources cannot be located or fingerprinted reliably; one over `max_bytes`
    bytes (EXECLEASE_MAX_COVERED_MB) would cost gigabytes of syntax tree."""
    if len(source) > max_bytes:
        raise CannotRun(
            f'{what}: {path} is {len(source) / 1e6:.1f} MB, over the {max_bytes / 1e6:g} MB limit for covered '
            f'files (its syntax tree would take gigabytes); cover a smaller source file, or raise '
            'EXECLEASE_MAX_COVERED_MB (in MB) if this one really is source code'
        )
    if b'\0' in source:
        raise CannotRun(
            f'{what}: {path} looks binary (it contains a NUL byte); cover a source file'
        )
    try:
        source.decode('utf-8')
    except UnicodeDecodeError as e:
        line = line_of(source, e.start)
        raise CannotRun(
            f'{what}: {path} is not valid UTF-8 (first bad byte on line {line}); save it as UTF-8',
        ) from None


def line_of(source: bytes, offset: int) -> int:
    return source.count(b'\n', 0, offset) + 1


def parse(language: str, source: bytes) -> tree_sitter.Tree:
    tree = _trees.get((language, source))
    return _kept(language, source, _parser(language).parse(source)) if tree is None else tree


def _kept(language: str, source: bytes, tree: tree_sitter.Tree) -> tree_sitter.Tree:
    if len(_trees) >= _MAX_TREES:
        del _trees[next(iter(_trees))]
    _trees[(language, source)] = tree
    return tree


def parse_from(language: str, source: bytes, base: bytes) -> tree_sitter.Tree:
    """`parse(language, source)`, reparsing from the tree of `base` (another version of the same
    file, already parsed) where only the bytes between their common start and end differ:
    tree-sitter's incremental parse gives the tree a fresh parse would, and skips what the
    edit did not touch (the guard's diff against the synced blob reads a second version of
    every changed file)."""
    old = _trees.get((language, base))
    if (language, source) in _trees or old is None:
        return parse(language, source)
    start = _common_prefix(base, source)
    tail = _common_prefix(base[start:][::-1], source[start:][::-1])
    old_end, new_end = len(base) - tail, len(source) - tail
    edited = old.copy()
    edited.edit(
        start, old_end, new_end, _point(base, start), _point(base, old_end), _point(source, new_end)
    )
    return _kept(language, source, _parser(language).parse(source, old_tree=edited))


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common start of `a` and `b` (a binary search over slices)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _point(source: bytes, offset: int) -> tuple[int, int]:
    """(row, column in bytes) of a byte offset, as tree-sitter counts them."""
    return source.count(b'\n', 0, offset), offset - (source.rfind(b'\n', 0, offset) + 1)


@functools.cache
def _parser(language: str) -> tree_sitter.Parser:
    core = binding('tree_sitter')
    row = LANGUAGES[language]
    return core.Parser(core.Language(getattr(binding(row.grammar), row.pointer)()))


def binding(package: str) -> ModuleType:
    """`package._binding`, the compiled part of a tree-sitter wheel, loaded without running
    the package's `__init__.py` (registered under its own name, so a later `import package`
    reuses it); a wheel laid out otherwise is imported the ordinary way."""
    name = f'{package}._binding'
    module = sys.modules.get(name)
    if module is not None:
        return module

    top = importlib.util.find_spec(package)
    where = top.submodule_search_locations if top is not None else None
    spec = importlib.machinery.PathFinder.find_spec(name, list(where)) if where else None
    if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
        return importlib.import_module(package)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module
