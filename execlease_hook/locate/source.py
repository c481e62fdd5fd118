"""Which grammar reads a path, and one parse per (language, bytes) per process.

Grammar wheels, and `tree_sitter` itself, are imported on the first parse of a file in
that language: the guard must not pay for grammars of files that are not staged.
"""
from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

from execlease_hook.errors import CannotRun

if TYPE_CHECKING:
    import tree_sitter

SUFFIXES: dict[str, str] = {
    '.py': 'python',
    '.ts': 'typescript',
    '.mts': 'typescript',
    '.cts': 'typescript',
    '.tsx': 'tsx',
    '.js': 'javascript',
    '.mjs': 'javascript',
    '.cjs': 'javascript',
    '.jsx': 'javascript',
    '.go': 'go',
    '.java': 'java',
    '.rs': 'rust',
    '.cs': 'csharp',
    '.kt': 'kotlin', '.kts': 'kotlin',
    '.scala': 'scala', '.sc': 'scala',
    '.swift': 'swift',
}

# language -> (grammar wheel module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    'python': ('tree_sitter_python', 'language'),
    'typescript': ('tree_sitter_typescript', 'language_typescript'),
    'tsx': ('tree_sitter_typescript', 'language_tsx'),
    'javascript': ('tree_sitter_javascript', 'language'),
    'go': ('tree_sitter_go', 'language'),
    'java': ('tree_sitter_java', 'language'),
    'rust': ('tree_sitter_rust', 'language'),
    'csharp': ('tree_sitter_c_sharp', 'language'),
    'kotlin': ('tree_sitter_kotlin', 'language'),
    'scala': ('tree_sitter_scala', 'language'),
    'swift': ('tree_sitter_swift', 'language'),
}

_parsers: dict[str, tree_sitter.Parser] = {}
_trees: dict[tuple[str, bytes], tree_sitter.Tree] = {}
_MAX_TREES = 64     # a guard run touches a handful of files (index, sync commit, moved-to candidates)


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


def check_text(path: str, source: bytes, what: str) -> None:
    """Binary or non-UTF-8 sources cannot be located or fingerprinted reliably; a huge one would
    cost gigabytes of syntax tree (settings.max_covered_bytes)."""
    from execlease_hook import settings

    limit = settings.max_covered_bytes()
    if len(source) > limit:
        raise CannotRun(
            f'{what}: {path} is {len(source) / 1e6:.1f} MB, over the {limit / 1e6:g} MB limit for covered '
            f'files (its syntax tree would take gigabytes); cover a smaller source file, or raise '
            f'{settings.MAX_COVERED_ENV} (in MB) if this one really is source code')
    if b'\0' in source:
        raise CannotRun(f'{what}: {path} looks binary (it contains a NUL byte); cover a source file')
    try:
        source.decode('utf-8')
    except UnicodeDecodeError as e:
        line = source.count(b'\n', 0, e.start) + 1
        raise CannotRun(
            f'{what}: {path} is not valid UTF-8 (first bad byte on line {line}); '
            f'save it as UTF-8',
        ) from None


def parse(language: str, source: bytes) -> tree_sitter.Tree:
    key = (language, source)
    tree = _trees.get(key)
    if tree is None:
        if len(_trees) >= _MAX_TREES:
            del _trees[next(iter(_trees))]
        tree = _trees[key] = _parser(language).parse(source)
    return tree


def _parser(language: str) -> tree_sitter.Parser:
    parser = _parsers.get(language)
    if parser is None:
        import tree_sitter

        module_name, function_name = _GRAMMARS[language]
        grammar = importlib.import_module(module_name)
        parser = tree_sitter.Parser(tree_sitter.Language(getattr(grammar, function_name)()))
        _parsers[language] = parser
    return parser
