"""The ts2 rules module (rules_*.py) of each language, by the name its row in
locate/languages.py gives. Each is imported on the first file of its language, so the guard pays
only for the languages it meets; and apart from ts2.py, whose building blocks the rules import.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from types import ModuleType

from execlease_hook.locate.languages import LANGUAGES

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


def for_language(language: str) -> ModuleType:
    return RULES[LANGUAGES[language].rules]()
