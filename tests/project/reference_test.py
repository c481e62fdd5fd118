"""The reference pages against the code they describe.

- docs/cli.md: between its markers, the page generated here from the argument parser (every
  option of every command) and from cli/parser.py (each command's examples and exit codes); after
  a change to the command line, `python tests/project/reference_test.py --write` regenerates it.
- docs/cli.md's table of environment variables names every variable of core/settings.py (the one
  module that reads them) and nothing else; the package names no other EXECLEASE_*.
- docs/manifest.md: between its markers, the key tables generated here from the manifest's JSON
  Schema, one per object, each key with the schema's description (what an editor shows as hover
  text) and the links a schema cannot hold; the same `--write` regenerates it. Every key of the
  schema has a description.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CLI_PAGE = ROOT / 'docs' / 'cli.md'
MANIFEST_PAGE = ROOT / 'docs' / 'manifest.md'
SCHEMA = ROOT / 'execlease_hook' / 'schemas' / 'manifest.schema.json'
BEGIN, END = '<!-- generated from the parser: begin -->', '<!-- generated from the parser: end -->'
SCHEMA_BEGIN = '<!-- generated from the schema: begin -->'
SCHEMA_END = '<!-- generated from the schema: end -->'
SCHEMA_END = '<!-- generated from the schema: end -->'


def _cell(text: str) -> str:
    return text.replace('|', '\\|')


def _option(action) -> str:
    import argparse

    if not action.option_strings:
        name = action.metavar or action.dest
        return f'`{name}`' + (' ...' if action.nargs in ('+', '*') else '')
    takes = not isinstance(action, (argparse._StoreTrueAction, argparse._CountAction))
    metavar = action.metavar or (
        ('{' + ','.join(action.choices) + '}') if action.choices else action.dest.upper()
    )
    if takes and action.nargs in ('+', '*'):
        metavar += ' ...'
    return ', '.join(f'`{s} {metavar}`' if takes else f'`{s}`' for s in action.option_strings)


def _section(name: str, parser) -> list[str]:
    import argparse

    from execlease_hook.cli import parser as cli_args

    lines = [f'### `execlease {name}`', '', parser.description or '', '']
    lines += ['| option | what it does |', '|---|---|']
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        text = action.help or ''
        if action.choices and not action.option_strings:
            text += ' (' + ', '.join(map(str, action.choices)) + ')'
        repeat = (
            ' (repeatable)'
            if isinstance(action, argparse._AppendAction) and 'repeatable' not in text
            else ''
        )
        lines.append(f'| {_cell(_option(action))} | {_cell(text + repeat)} |')
    lines += ['', 'Examples:', '', '```sh', *cli_args.EXAMPLES[name], '```', '', 'Exit codes:', '']
    for code, text in enumerate(cli_args.EXITS[name]):
        if text is not None:
            lines.append(f'- {code}: {text}')
    lines.append('')
    return lines


def generated() -> str:
    import argparse

    from execlease_hook.cli import parser as cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = [BEGIN, '']
    for name, command in sub.choices.items():
        lines += _section(name, command)
    lines.append(END)
    return '\n'.join(lines)


def page_part(text: str, begin: str = BEGIN, end: str = END) -> str:
    return text[text.index(begin) : text.index(end) + len(end)]


def test_the_cli_reference_is_generated_from_the_parser():
    assert page_part(CLI_PAGE.read_text(encoding='utf-8')) == generated(), (
        'docs/cli.md is stale: run `python tests/project/reference_test.py --write`'
    )


def test_the_cli_reference_names_every_environment_variable():
    from execlease_hook.core import settings

    page = CLI_PAGE.read_text(encoding='utf-8')
    table = page[page.index('## Environment variables') :]
    named = set(re.findall(r'`(EXECLEASE_[A-Z_]*[A-Z])', table))
    assert sorted(set(settings.names()) - named) == [], 'add each to the table of docs/cli.md'
    assert sorted(named - set(settings.names())) == [], 'core/settings.py reads none of these'


def test_the_package_names_no_variable_the_settings_do_not_read():
    from execlease_hook.core import settings

    named = set()
    for path in (ROOT / 'execlease_hook').rglob('*.py'):
        named |= set(re.findall(r'\bEXECLEASE_[A-Z_]*[A-Z]\b', path.read_text(encoding='utf-8')))
    assert sorted(named - set(settings.names())) == []


def schema_objects(node: object = None) -> Iterator[dict[str, Any]]:
    """Every JSON object of the manifest's schema, the schema itself first."""
    if node is None:
        node = json.loads(SCHEMA.read_text(encoding='utf-8'))
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from schema_objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from schema_objects(value)


def schema_keys() -> set[str]:
    return {key for node in schema_objects() for key in node.get('properties', {})}


def test_the_manifest_reference_describes_every_schema_key():
    page = MANIFEST_PAGE.read_text(encoding='utf-8')
    table = page[page.index('## Every key') :]
    missing = sorted(k for k in schema_keys() if f'`{k}`' not in table)
    assert missing == [], 'describe each in the key tables of docs/manifest.md'


# The heading of each object's table in docs/manifest.md, by the object's JSON pointer in the schema.
TITLES = {
    '': 'The manifest',
    '/definitions/tools': 'tools',
    '/definitions/library': 'A library',
    '/definitions/check': 'A check',
    '/definitions/check/properties/deep': "A check's `deep`",
    '/definitions/mutation': 'A mutation',
    '/definitions/mutation/properties/replace': "A mutation's `replace`",
    '/definitions/finding': 'A finding',
    '/definitions/coverage': 'coverage',
    '/definitions/coverage/properties/modelHash/oneOf/2': 'The model record (`modelHash`)',
    '/definitions/entry': 'An entry',
    '/definitions/entry/properties/region': "An entry's `region`",
    '/definitions/coverage/properties/abstract/items': 'An abstract action',
    '/definitions/coverage/properties/untraced/items': 'An untraced action',
    '/definitions/coverage/properties/watch/items': 'A watch rule',
    '/definitions/coverage/properties/ignored/items': 'An ignored function',
    '/definitions/traceJob': 'A trace job',
    '/definitions/traceJob/properties/fields': "A trace job's `fields`",
    '/definitions/codeMutation': 'A code mutation',
    '/definitions/codeMutation/properties/replace': "A code mutation's `replace`",
}

# Links the schema cannot hold (an editor shows a description as plain text), by the key's JSON
# pointer; its cell also links the table of an object it holds.
_DEADLOCK = '[deadlock](#deadlock-as-tlc-defines-it)'
_VIOLATES = '[what `violates` names](#what-violates-names)'
_TRACES = '[trace validation](how-to/trace-validation.md)'
_MUTATIONS = '[how-to](how-to/mutations-and-findings.md)'
LINKS = {
    '/properties/$schema': '[editors](#editors-the-json-schema)',
    '/properties/tools': '[how-to](how-to/tla-tools.md#a-models-own-tla-tools)',
    '/properties/libraries': '[how-to](libraries.md)',
    '/properties/mutations': _MUTATIONS,
    '/properties/findings': _MUTATIONS,
    '/properties/coverage': '[cover code](how-to/cover-code.md)',
    '/properties/traces': _TRACES,
    '/properties/codeMutations': _TRACES,
    '/definitions/check/properties/deadlock': _DEADLOCK,
    '/definitions/check/properties/deep': '[deep runs](how-to/deep-and-simulate.md)',
    '/definitions/mutation/properties/violates': _VIOLATES,
    '/definitions/mutation/properties/deadlock': _DEADLOCK,
    '/definitions/finding/properties/violates': _VIOLATES,
    '/definitions/finding/properties/deadlock': _DEADLOCK,
    '/definitions/coverage/properties/watch': '[watch rules](how-to/cover-code.md#watch-rules-no-protocol-code-left-out)',
    '/definitions/entry/properties/function': '[names per language](how-to/cover-code.md#locating-covered-code)',
    '/definitions/entry/properties/hash': '[fingerprints](fingerprints.md)',
}
_COMBINATORS = ('allOf', 'anyOf', 'oneOf', 'not')


def _key(pointer: str, key: str) -> str:
    return f'{pointer}/properties/{key.replace("~", "~0").replace("/", "~1")}'


def _resolve(schema: dict, pointer: str) -> dict:
    node = schema
    for part in pointer.split('/')[1:]:
        part = part.replace('~1', '/').replace('~0', '~')
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def described_objects(schema: dict) -> list[str]:
    """The JSON pointer of every object of the schema that declares keys: every node with
    `properties`, except a branch of `anyOf` and the like that only constrains keys its parent
    declares (it has no `type`)."""
    found: list[str] = []

    def walk(node, pointer: str, branch: bool) -> None:
        if isinstance(node, dict):
            if 'properties' in node and not (branch and 'type' not in node):
                found.append(pointer)
            for key, value in node.items():
                walk(value, f'{pointer}/{key}', key in _COMBINATORS)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f'{pointer}/{i}', branch)

    walk(schema, '', False)
    return found


def tabled_objects(schema: dict) -> list[str]:
    """The objects that get a table, in the order a reader meets them: an object, then the
    objects its keys hold (a definition where it is first used)."""
    found: list[str] = []

    def visit(node: dict, pointer: str) -> None:
        if '$ref' in node:
            target = node['$ref'].removeprefix('#')
            if target not in found:
                visit(_resolve(schema, target), target)
            return
        if 'properties' in node and (pointer == '' or node.get('type') == 'object'):
            found.append(pointer)
            for key, value in node['properties'].items():
                visit(value, _key(pointer, key))
        if isinstance(node.get('items'), dict):
            visit(node['items'], f'{pointer}/items')
        for i, branch in enumerate(node.get('oneOf', ())):
            visit(branch, f'{pointer}/oneOf/{i}')

    visit(schema, '')
    return found


def _table_of(node: dict, pointer: str, tabled: list[str]) -> str | None:
    """The table of the object a key holds: itself, its items, or one of its alternatives."""
    if '$ref' in node:
        target = node['$ref'].removeprefix('#')
        return target if target in tabled else None
    if pointer in tabled:
        return pointer
    if isinstance(node.get('items'), dict):
        return _table_of(node['items'], f'{pointer}/items', tabled)
    for i, branch in enumerate(node.get('oneOf', ())):
        if (found := _table_of(branch, f'{pointer}/oneOf/{i}', tabled)) is not None:
            return found
    return None


def _slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it (tests/project/docs_test.py checks the links)."""
    text = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return text.replace(' ', '-')


def generated_manifest() -> str:
    schema = json.loads(SCHEMA.read_text(encoding='utf-8'))
    tabled = tabled_objects(schema)
    lines = [SCHEMA_BEGIN, '']
    for pointer in tabled:
        node = _resolve(schema, pointer)
        lines += [f'### {TITLES[pointer]}', '']
        held_by_a_key = pointer.split('/')[-2:-1] == ['properties']  # its description is the key's
        if node.get('description') and not held_by_a_key:
            lines += [node['description'], '']  # what holds of the object as a whole
        lines += ['| key | value |', '|---|---|']
        for key, value in node['properties'].items():
            at = _key(pointer, key)
            text = ('**required**: ' if key in node.get('required', ()) else '') + value.get(
                'description', ''
            )
            links = []
            if (target := _table_of(value, at, tabled)) is not None:
                title = TITLES[target]
                links.append(f'[{title[0].lower() + title[1:]}](#{_slug(title)})')
            if at in LINKS:
                links.append(LINKS[at])
            if links:
                text += '; see ' + ', '.join(links)
            lines.append(f'| `{_cell(key)}` | {_cell(text)} |')
        lines.append('')
    lines.append(SCHEMA_END)
    return '\n'.join(lines)


def test_the_manifest_reference_is_generated_from_the_schema():
    assert (
        page_part(MANIFEST_PAGE.read_text(encoding='utf-8'), SCHEMA_BEGIN, SCHEMA_END)
        == generated_manifest()
    ), 'docs/manifest.md is stale: run `python tests/project/reference_test.py --write`'


def test_every_schema_key_has_a_description():
    schema = json.loads(SCHEMA.read_text(encoding='utf-8'))
    objects = described_objects(schema)
    undescribed = [
        _key(pointer, key)
        for pointer in objects
        for key, value in _resolve(schema, pointer)['properties'].items()
        if not (isinstance(value.get('description'), str) and value['description'].strip())
    ]
    assert undescribed == [], 'give each of these JSON paths of the schema a "description"'
    assert sorted(set(objects) - set(tabled_objects(schema))) == [], (
        'objects of the schema that docs/manifest.md would give no table: reach them from the manifest'
    )
    assert sorted(set(tabled_objects(schema)) - set(TITLES)) == [], 'give each a heading in TITLES'


def test_the_manifest_reference_links_only_keys_of_the_schema():
    schema = json.loads(SCHEMA.read_text(encoding='utf-8'))
    keys = {
        _key(pointer, key)
        for pointer in described_objects(schema)
        for key in _resolve(schema, pointer)['properties']
    }
    assert sorted(set(LINKS) - keys) == []
    assert sorted(set(TITLES) - set(tabled_objects(schema))) == []


def test_schema_descriptions_hold_no_links():
    """Editors show a description as plain text: a relative link in one reads badly there. (An
    `errorMessage` may name a page: the terminal shows it beside the repository.)"""
    texts = [
        value
        for node in schema_objects()
        for key, value in node.items()
        if key in ('title', 'description')
    ]
    assert re.findall(r'\]\(|\bdocs/|\.md\b', '\n'.join(texts)) == [], (
        'put the link in LINKS of this file instead'
    )


if __name__ == '__main__' and sys.argv[1:] == ['--write']:
    text = CLI_PAGE.read_text(encoding='utf-8')
    CLI_PAGE.write_text(text.replace(page_part(text), generated()), encoding='utf-8')
    text = MANIFEST_PAGE.read_text(encoding='utf-8')
    MANIFEST_PAGE.write_text(
        text.replace(page_part(text, SCHEMA_BEGIN, SCHEMA_END), generated_manifest()),
        encoding='utf-8',
    )
