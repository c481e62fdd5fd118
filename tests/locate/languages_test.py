"""The languages' rows (execlease_hook/locate/languages.py) against what they name, and the
add-a-language recipe of CONTRIBUTING.md: a language is its row and the modules it names; no
other module keeps a table of languages."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tree_sitter

from execlease_hook.fingerprint.scheme import RULES
from execlease_hook.locate import source
from execlease_hook.locate.languages import LANGUAGES, ROWS, SUFFIXES, Language

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / 'execlease_hook'
REGISTRY = PACKAGE / 'locate' / 'languages.py'


def grammar(row: Language) -> tree_sitter.Language:
    return tree_sitter.Language(getattr(source.binding(row.grammar), row.pointer)())


def kinds(language: tree_sitter.Language) -> set[str]:
    names = (language.node_kind_for_id(i) for i in range(language.node_kind_count))
    return {name for name in names if name is not None}


def test_names_and_suffixes_are_each_one_row():
    assert len(LANGUAGES) == len(ROWS)
    suffixes = [suffix for row in ROWS for suffix in row.suffixes]
    assert len(SUFFIXES) == len(suffixes), 'a suffix in two rows'
    assert all(s.startswith('.') and s == s.lower() for s in suffixes)


@pytest.mark.parametrize('row', ROWS, ids=[r.name for r in ROWS])
def test_a_row_names_modules_that_exist(row):
    family = row.family()
    assert isinstance(family.NAME_TYPES, frozenset) and callable(family.named_definition)
    rules = RULES[row.rules]()
    for name in ('HANDLERS', 'DROPS', 'SCOPES', 'CONTEXT', 'BODIES'):  # ALIASES optional
        assert hasattr(rules, name), f'{row.rules} has no {name}'


@pytest.mark.parametrize('row', ROWS, ids=[r.name for r in ROWS])
def test_a_row_names_node_kinds_and_fields_of_its_grammar(row):
    language = grammar(row)
    known = kinds(language)
    assert row.literals <= known, sorted(row.literals - known)
    for kind, field in (*row.calls, *row.receivers):
        assert kind in known, kind
        assert field == '' or language.field_id_for_name(field) is not None, field
    assert {kind for kind, _ in row.receivers} <= {kind for kind, _ in row.calls}


def test_every_grammar_wheel_is_a_dependency():
    pyproject = (ROOT / 'pyproject.toml').read_text(encoding='utf-8')
    dependencies = {
        name.replace('-', '_') for name in re.findall(r'^\s*"(tree-sitter-[\w-]+)', pyproject, re.M)
    }
    assert {row.grammar for row in ROWS} <= dependencies


def _tables(tree: ast.AST, names: frozenset[str]) -> list[int]:
    """Lines of a dict, set, list or tuple display holding two or more language names."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            items = [*node.keys, *node.values]
        elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            items = list(node.elts)
        else:
            continue
        held = {i.value for i in items if isinstance(i, ast.Constant) and i.value in names}
        if len(held) >= 2:
            found.append(node.lineno)
    return found


def test_no_other_module_lists_languages():
    names = frozenset(LANGUAGES)
    wheels = frozenset(row.grammar for row in ROWS)
    problems = []
    for path in sorted(PACKAGE.rglob('*.py')):
        if path == REGISTRY:
            continue
        tree = ast.parse(path.read_text(encoding='utf-8'))
        rel = path.relative_to(ROOT)
        problems += [f'{rel}:{line}: a table of languages' for line in _tables(tree, names)]
        problems += [
            f'{rel}:{n.lineno}: names the wheel {n.value}'
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and n.value in wheels
        ]
    assert problems == [], 'a language is its row in locate/languages.py'


def test_the_rows_load_no_grammar_and_no_rules():
    # The guard reads the rows before it knows which languages are staged.
    code = (
        'import sys\nimport execlease_hook.locate.languages\n'
        "print(sorted(m for m in sys.modules if m.startswith(('tree_sitter', 'execlease_hook.fingerprint', "
        "'execlease_hook.locate.'))))"
    )
    out = subprocess.run(
        (sys.executable, '-c', code), capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['execlease_hook.locate.languages']"
