"""Fingerprints of located entries: `<scheme>:sha256:<hex>` over the entry's syntax tree.

ts1 (fingerprint/ts1.py) hashes every token's text; ts2 (fingerprint/ts2.py and one rules module
per language family) hashes what the language means, so formatters never change it. Syncs record
SCHEME; `matches` compares in the recorded hash's own scheme, so a ts1 hash keeps working.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING

from execlease_hook.fingerprint import ts1, ts2
from execlease_hook.locate.languages import LANGUAGES
from execlease_hook.locate.source import language_for

if TYPE_CHECKING:
    from execlease_hook.locate.definition import Located

SCHEME = 'ts2'
SCHEMES = ('ts1', 'ts2')
# The ts2 rules module (rules_*.py) of each language, by the name its row in locate/languages.py
# gives. Each is imported on the first file of its language, so the guard pays only for the
# languages it meets; and apart from ts2.py, whose building blocks the rules import.
RULES: dict[str, Callable[[], ModuleType]] = {
    'rules_c': lambda: import_module('execlease_hook.fingerprint.rules_c'),
    'rules_cpp': lambda: import_module('execlease_hook.fingerprint.rules_cpp'),
    'rules_csharp': lambda: import_module('execlease_hook.fingerprint.rules_csharp'),
    'rules_ecmascript': lambda: import_module('execlease_hook.fingerprint.rules_ecmascript'),
    'rules_go': lambda: import_module('execlease_hook.fingerprint.rules_go'),
    'rules_java': lambda: import_module('execlease_hook.fingerprint.rules_java'),
    'rules_kotlin': lambda: import_module('execlease_hook.fingerprint.rules_kotlin'),
    'rules_python': lambda: import_module('execlease_hook.fingerprint.rules_python'),
    'rules_rust': lambda: import_module('execlease_hook.fingerprint.rules_rust'),
    'rules_scala': lambda: import_module('execlease_hook.fingerprint.rules_scala'),
    'rules_swift': lambda: import_module('execlease_hook.fingerprint.rules_swift'),
    'rules_zig': lambda: import_module('execlease_hook.fingerprint.rules_zig'),
}


def fingerprint(located: Located, scheme: str = SCHEME) -> str:
    nodes, start, end = located.nodes, located.start_byte, located.end_byte
    chunk = located.text.encode('utf-8')  # == source[start:end]
    if scheme == 'ts2':
        language = language_for(located.path)
        assert language is not None, located.path
        parts = ts2.serialize(rules_for(language), nodes, start, end, chunk)
    elif scheme == 'ts1':
        parts = ts1.serialize(nodes, start, end, chunk)
    else:
        raise ValueError(f'unknown fingerprint scheme {scheme!r} (known: {", ".join(SCHEMES)})')
    return f'{scheme}:sha256:{hashlib.sha256(b"".join(parts)).hexdigest()}'


def rules_for(language: str) -> ModuleType:
    return RULES[LANGUAGES[language].rules]()


def scheme_of(recorded: str) -> str:
    return recorded.split(':', 1)[0]


def matches(located: Located, recorded: str) -> bool:
    scheme = scheme_of(recorded)
    return scheme in SCHEMES and fingerprint(located, scheme) == recorded
