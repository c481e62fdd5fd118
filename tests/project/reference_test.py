"""The reference pages against the code they describe.

- docs/cli.md: between its markers, the page generated here from the argument parser (every
  option of every command) and from cli/args.py (each command's examples and exit codes); after
  a change to the command line, `python tests/project/reference_test.py --write` regenerates it.
- docs/cli.md names every EXECLEASE_* variable the package reads, and nothing else of that form.
- docs/manifest.md describes every key of the manifest's JSON Schema.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI_PAGE = ROOT / 'docs' / 'cli.md'
MANIFEST_PAGE = ROOT / 'docs' / 'manifest.md'
SCHEMA = ROOT / 'execlease_hook' / 'schemas' / 'manifest.schema.json'
BEGIN, END = '<!-- generated from the parser: begin -->', '<!-- generated from the parser: end -->'


def _cell(text: str) -> str:
    return text.replace('|', '\\|')


def _option(action) -> str:
    import argparse

    if not action.option_strings:
        name = action.metavar or action.dest
        return f'`{name}`' + (' ...' if action.nargs in ('+', '*') else '')
    takes = not isinstance(action, (argparse._StoreTrueAction, argparse._CountAction))
    metavar = action.metavar or (('{' + ','.join(action.choices) + '}') if action.choices else action.dest.upper())
    if takes and action.nargs in ('+', '*'):
        metavar += ' ...'
    return ', '.join(f'`{s} {metavar}`' if takes else f'`{s}`' for s in action.option_strings)


def _section(name: str, parser) -> list[str]:
    import argparse

    from execlease_hook.cli import args as cli_args

    lines = [f'### `execlease {name}`', '', parser.description or '', '']
    lines += ['| option | what it does |', '|---|---|']
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        text = action.help or ''
        if action.choices and not action.option_strings:
            text += ' (' + ', '.join(map(str, action.choices)) + ')'
        repeat = ' (repeatable)' if isinstance(action, argparse._AppendAction) and 'repeatable' not in text else ''
        lines.append(f'| {_cell(_option(action))} | {_cell(text + repeat)} |')
    lines += ['', 'Examples:', '', '```sh', *cli_args.EXAMPLES[name], '```', '', 'Exit codes:', '']
    for code, text in enumerate(cli_args.EXITS[name]):
        if text is not None:
            lines.append(f'- {code}: {text}')
    lines.append('')
    return lines


def generated() -> str:
    import argparse

    from execlease_hook.cli import main as cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = [BEGIN, '']
    for name, command in sub.choices.items():
        lines += _section(name, command)
    lines.append(END)
    return '\n'.join(lines)


def page_part(text: str) -> str:
    return text[text.index(BEGIN):text.index(END) + len(END)]


def test_the_cli_reference_is_generated_from_the_parser():
    assert page_part(CLI_PAGE.read_text(encoding='utf-8')) == generated(), (
        'docs/cli.md is stale: run `python tests/project/reference_test.py --write`')


def test_the_cli_reference_names_every_environment_variable():
    read = set()
    for path in (ROOT / 'execlease_hook').rglob('*.py'):
        read |= set(re.findall(r'\bEXECLEASE_[A-Z_]*[A-Z]\b', path.read_text(encoding='utf-8')))
    page = CLI_PAGE.read_text(encoding='utf-8')
    table = page[page.index('## Environment variables'):]
    named = set(re.findall(r'`(EXECLEASE_[A-Z_]*[A-Z])', table))
    assert sorted(read - named) == [], 'add each to the table of docs/cli.md'
    assert sorted(named - read) == [], 'the package reads none of these'


def schema_keys() -> set[str]:
    keys: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            keys.update(node.get('properties', {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(SCHEMA.read_text(encoding='utf-8')))
    return keys


def test_the_manifest_reference_describes_every_schema_key():
    page = MANIFEST_PAGE.read_text(encoding='utf-8')
    table = page[page.index('## Every key'):]
    missing = sorted(k for k in schema_keys() if f'`{k}`' not in table)
    assert missing == [], 'describe each in the key tables of docs/manifest.md'


if __name__ == '__main__' and sys.argv[1:] == ['--write']:
    text = CLI_PAGE.read_text(encoding='utf-8')
    CLI_PAGE.write_text(text.replace(page_part(text), generated()), encoding='utf-8')
