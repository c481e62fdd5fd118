"""Which paths a model's `coverage.watch` rules look at: globs relative to the repository root.

Kept apart from coverage/watch.py so that the guard can ask it before it knows anything is concerned:
this module imports `re` and nothing else of weight (no dataclasses, no tree-sitter).
`*` and `?` stay inside one folder; `**` as a whole path part spans any number of folders
(`app/**` is everything under app/, `**/sql.py` any sql.py); `[abc]` is a character class.
"""

from __future__ import annotations

import functools
import re


@functools.cache  # a model's few globs, asked for every touched path
def glob_pattern(glob: str) -> re.Pattern[str]:
    parts = glob.strip('/').split('/')
    out: list[str] = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == '**':
            out.append('.*' if last else '(?:[^/]+/)*')
            continue
        piece, j = '', 0
        while j < len(part):
            c = part[j]
            if c == '*':
                piece += '[^/]*'
            elif c == '?':
                piece += '[^/]'
            elif c == '[' and ']' in part[j + 1 :]:
                end = part.index(']', j + 1)
                body = part[j + 1 : end]
                negated = '^' if body.startswith('!') else ''
                piece += f'[{negated}{re.escape(body.removeprefix("!"))}]'
                j = end
            else:
                piece += re.escape(c)
            j += 1
        out.append(piece + ('' if last else '/'))
    return re.compile(''.join(out) + r'\Z')


def matches(globs: list[str] | tuple[str, ...], path: str) -> bool:
    return any(glob_pattern(g).match(path) for g in globs)


def raw_globs(data: object) -> list[str]:
    """The globs of every watch rule in a manifest's parsed JSON, read without validating."""
    try:
        rules = data['coverage'].get('watch', [])  # type: ignore[index]
        return [g for rule in rules for g in rule['paths'] if isinstance(g, str)]
    except (KeyError, TypeError, AttributeError):
        return []
