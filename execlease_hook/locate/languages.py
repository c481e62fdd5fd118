"""Every supported language, one row each: no other module lists languages.

A row holds every fact about a language that some module needs: its suffixes and grammar wheel
(locate/source.py), the family module that names its definitions (locate/entry.py), its
string-literal node kinds and whether its names overload (locate/entry.py), its ts2 rules module
(fingerprint/scheme.py) and its call expressions (coverage/watch.py).

Nothing is imported here: a grammar and a rules module are named by string (the rules live in
`fingerprint`, a layer above this one), a family by a function that imports it; each loads on
the first file of its language, so the guard pays only for the languages it meets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import import_module
from types import ModuleType


@dataclass(frozen=True)
class Language:
    name: str
    suffixes: tuple[str, ...]  # lower case, with the dot
    grammar: str  # the wheel's module (tree-sitter-go installs tree_sitter_go)
    family: Callable[[], ModuleType]  # imports the module of locate/ naming its definitions
    rules: str  # the module of fingerprint/ holding its ts2 rules
    # Literal node kinds whose pieces are separate nodes: an anchor inside one takes in the whole literal.
    literals: frozenset[str]
    # Call expressions: (node kind, field holding the callee; '' when the grammar names no field
    # and the callee is the call's first named child).
    calls: tuple[tuple[str, str], ...] = (('call_expression', 'function'),)
    pointer: str = 'language'  # the wheel's function returning the language pointer
    overloads: bool = False  # one name may name overloads: an ambiguous name "is overloaded"
    # (call kind, field holding the object) where the callee field holds only the member's name.
    receivers: tuple[tuple[str, str], ...] = ()


_TYPESCRIPT = Language(
    'typescript',
    ('.ts', '.mts', '.cts'),
    'tree_sitter_typescript',
    lambda: import_module('execlease_hook.locate.ecmascript'),
    'rules_ecmascript',
    frozenset({'string', 'template_string', 'regex'}),
    (('call_expression', 'function'), ('new_expression', 'constructor')),
    pointer='language_typescript',
)

# Fields in order: name, suffixes, grammar, family, rules, literals, calls (a call_expression's
# `function` when left out).
ROWS = (
    Language(
        'python',
        ('.py',),
        'tree_sitter_python',
        lambda: import_module('execlease_hook.locate.python'),
        'rules_python',
        frozenset({'string', 'concatenated_string'}),
        (('call', 'function'),),
    ),
    _TYPESCRIPT,
    replace(_TYPESCRIPT, name='tsx', suffixes=('.tsx',), pointer='language_tsx'),
    replace(
        _TYPESCRIPT,
        name='javascript',
        suffixes=('.js', '.mjs', '.cjs', '.jsx'),
        grammar='tree_sitter_javascript',
        pointer='language',
    ),
    Language(
        'go',
        ('.go',),
        'tree_sitter_go',
        lambda: import_module('execlease_hook.locate.go'),
        'rules_go',
        frozenset({'interpreted_string_literal', 'raw_string_literal', 'rune_literal'}),
    ),
    Language(
        'java',
        ('.java',),
        'tree_sitter_java',
        lambda: import_module('execlease_hook.locate.java'),
        'rules_java',
        frozenset({'string_literal', 'character_literal'}),
        (('method_invocation', 'name'), ('object_creation_expression', 'type')),
        overloads=True,
        receivers=(('method_invocation', 'object'),),
    ),
    Language(
        'rust',
        ('.rs',),
        'tree_sitter_rust',
        lambda: import_module('execlease_hook.locate.rust'),
        'rules_rust',
        frozenset({'string_literal', 'raw_string_literal', 'char_literal'}),
        (('call_expression', 'function'), ('macro_invocation', 'macro')),
    ),
    Language(
        'c',
        ('.c',),
        'tree_sitter_c',
        lambda: import_module('execlease_hook.locate.cfamily'),
        'rules_c',
        frozenset({'string_literal', 'concatenated_string', 'char_literal'}),
    ),
    # C++ reads `.h` too: its grammar parses C headers, the C grammar cannot parse C++ ones.
    Language(
        'cpp',
        (
            '.cc',
            '.cpp',
            '.cxx',
            '.c++',
            '.h',
            '.hh',
            '.hpp',
            '.hxx',
            '.h++',
            '.ipp',
            '.tpp',
            '.inl',
        ),
        'tree_sitter_cpp',
        lambda: import_module('execlease_hook.locate.cfamily'),
        'rules_cpp',
        frozenset({'string_literal', 'concatenated_string', 'raw_string_literal', 'char_literal'}),
        (('call_expression', 'function'), ('new_expression', 'type')),
        overloads=True,
    ),
    Language(
        'zig',
        ('.zig',),
        'tree_sitter_zig',
        lambda: import_module('execlease_hook.locate.zig'),
        'rules_zig',
        frozenset({'string'}),
    ),
    Language(
        'csharp',
        ('.cs',),
        'tree_sitter_c_sharp',
        lambda: import_module('execlease_hook.locate.csharp'),
        'rules_csharp',
        frozenset(
            {
                'string_literal',
                'verbatim_string_literal',
                'raw_string_literal',
                'interpolated_string_expression',
                'character_literal',
            }
        ),
        (('invocation_expression', 'function'), ('object_creation_expression', 'type')),
        overloads=True,
    ),
    Language(
        'kotlin',
        ('.kt', '.kts'),
        'tree_sitter_kotlin',
        lambda: import_module('execlease_hook.locate.kotlin'),
        'rules_kotlin',
        frozenset({'string_literal', 'multiline_string_literal', 'character_literal'}),
        (('call_expression', ''),),
        overloads=True,
    ),
    Language(
        'scala',
        ('.scala', '.sc'),
        'tree_sitter_scala',
        lambda: import_module('execlease_hook.locate.scala'),
        'rules_scala',
        frozenset({'string', 'interpolated_string_expression', 'character_literal'}),
        (('call_expression', 'function'), ('instance_expression', '')),
        overloads=True,
    ),
    Language(
        'swift',
        ('.swift',),
        'tree_sitter_swift',
        lambda: import_module('execlease_hook.locate.swift'),
        'rules_swift',
        frozenset({'line_string_literal', 'multi_line_string_literal', 'raw_string_literal'}),
        (('call_expression', ''),),
        overloads=True,
    ),
)

LANGUAGES: dict[str, Language] = {row.name: row for row in ROWS}
SUFFIXES: dict[str, str] = {suffix: row.name for row in ROWS for suffix in row.suffixes}
