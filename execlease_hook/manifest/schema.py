"""manifest.json against its JSON Schema (schemas/manifest.schema.json), the one declaration of
what a manifest may hold (docs/architecture.md, the manifest): the subset of draft 7 the file
uses, checked in the order a reader of the file meets the problems, stopping at the first one,
named by its JSON path and said in the loader's words ("missing key 'spec'") or by the node's
`errorMessage` (as ajv-errors spells it: a string, or an object by keyword; `${0}` stands for the
value, `${0#}` for its key). The `jsonschema` package checks the same file in the tests.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

PATH = Path(__file__).resolve().parents[1] / 'schemas' / 'manifest.schema.json'
SCHEMA: dict[str, Any] = json.loads(PATH.read_text(encoding='utf-8'))

# Each JSON type: the Python types json.loads gives it (exactly: JSON's true is no number, though
# Python's True is an int), and how a message names it.
_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    'object': ((dict,), 'an object'),
    'array': ((list,), 'an array'),
    'string': ((str,), 'a string'),
    'boolean': ((bool,), 'true or false'),
    'integer': ((int,), 'a whole number'),
    'number': ((int, float), 'a number'),
    'null': ((type(None),), 'null'),
}
# How a message names the type of the value it got ("got an array"): as _TYPES names what is
# expected, but an int is "a number" (number's name, the last one given it) and a bool "true/false".
_KINDS = {t: name for types, name in _TYPES.values() for t in types} | {bool: 'true/false'}


class Invalid(Exception):
    """A value the schema refuses: where (its JSON path) and the problem."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f'{where}: {problem}')
        self.where = where
        self.problem = problem


def _join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f'{where}[{key}]'
    return key if where == '$' else f'{where}.{key}'


@functools.cache
def pattern(text: str) -> re.Pattern[str]:
    """A node's `pattern`, compiled: an ECMA `$` at the end matches only at the end (Python's
    would also match before a final line break)."""
    return re.compile(text[:-1] + r'\Z' if text.endswith('$') else text)


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """The node a `$ref` names (`#/definitions/check`), or the node itself."""
    found: Any = SCHEMA
    if '$ref' not in node:
        return node
    for part in node['$ref'].removeprefix('#/').split('/'):
        found = found[part]
    return found


class Validator:
    """Checks a value against SCHEMA; `ref` may be overridden to add what a definition means
    beyond its keywords (manifest/read.py checks paths on disk)."""

    def check(self, node: dict[str, Any], value: object, where: str) -> None:
        if '$ref' in node:
            return self.ref(node['$ref'], value, where)
        for part in node.get('allOf', ()):
            self.check(part, value, where)
        types = node.get('type')
        if types is not None and not _is_any(value, types):
            types = [types] if type(types) is str else types
            self._fail(node, 'type', value, where, self._expected(node, types, value))
        if 'const' in node and not _same(value, node['const']):
            self._fail(node, 'const', value, where, f'expected {node["const"]!r}, got {value!r}')
        if 'enum' in node and not any(_same(value, a) for a in node['enum']):
            self._fail(
                node, 'enum', value, where, f'expected one of {node["enum"]!r}, got {value!r}'
            )
        if isinstance(value, dict):
            self._keys(node, value, where)
        if 'oneOf' in node:
            self._one_of(node, value, where)
        if 'anyOf' in node and not any(self.matches(b, value) for b in node['anyOf']):
            self._fail(node, 'anyOf', value, where, 'matches none of the allowed forms')
        if isinstance(value, str):
            if len(value) < node.get('minLength', 0):
                self._fail(node, 'minLength', value, where, 'must not be empty')
            if 'pattern' in node and not pattern(node['pattern']).search(value):
                text = f'{value!r} does not match {node["pattern"]}'
                self._fail(node, 'pattern', value, where, text)
            if node.get('format') == 'regex':
                try:
                    re.compile(value)
                except re.error as e:
                    self._fail(node, 'format', value, where, f'not a regular expression: {e}')
        elif isinstance(value, dict):
            self._members(node, value, where)
        elif isinstance(value, list):
            if len(value) < node.get('minItems', 0):
                self._fail(node, 'minItems', value, where, 'must not be empty')
            items: dict[str, Any] = node.get('items', {})
            for i, item in enumerate(value if items else ()):
                self.check(items, item, _join(where, i))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            low, above = node.get('minimum'), node.get('exclusiveMinimum')
            high = node.get('maximum')
            # NaN passes no comparison: a NaN timeout would mean no timeout at all.
            if not (
                (low is None or value >= low)
                and (above is None or value > above)
                and (high is None or value <= high)
            ):
                text = f'{value!r} is out of range'
                if node.get('type') == 'integer':
                    text = self._expected(node, ['integer'], value)
                self._fail(node, 'minimum', value, where, text)

    def ref(self, target: str, value: object, where: str) -> None:
        self.check(resolve({'$ref': target}), value, where)

    def matches(self, node: dict[str, Any], value: object) -> bool:
        try:
            self.check(node, value, '$')
        except Invalid:
            return False
        return True

    def _fail(self, node: dict[str, Any], word: str, value: object, where: str, text: str) -> None:
        said = node.get('errorMessage')
        if isinstance(said, dict):
            said = said.get(word)
        if said is not None:
            key = where.rsplit('.', 1)[-1]
            text = said.replace('${0#}', repr(key)).replace('${0}', repr(value))
        raise Invalid(where, text)

    def _expected(self, node: dict[str, Any], types: list[str], value: object) -> str:
        if types == ['integer'] and 'minimum' in node:
            return f'expected a whole number >= {node["minimum"]}, got {value!r}'
        names = [_TYPES[t][1] for t in types]
        said = names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' or ' + names[-1]
        return f'expected {said}, got {_KINDS.get(type(value), type(value).__name__)}'

    def _keys(self, node: dict[str, Any], value: dict[str, Any], where: str) -> None:
        props: dict[str, Any] = node.get('properties', {})
        for key in node.get('required', ()):
            if key not in value:
                self._fail(node, 'required', value, where, f'missing key {key!r}')
        extra = node.get('additionalProperties', True)
        if extra is False:
            for key in value:
                if key not in props:
                    order = [*node.get('required', ()), *props]
                    allowed = ', '.join(repr(k) for k in dict.fromkeys(order))
                    raise Invalid(
                        _join(where, key), f'unknown key {key!r} (allowed here: {allowed})'
                    )
        if len(value) < node.get('minProperties', 0):
            self._fail(node, 'minProperties', value, where, 'must not be empty')
        if len(value) > node.get('maxProperties', len(value)):
            self._fail(node, 'maxProperties', value, where, f'at most {node["maxProperties"]} keys')
        names: dict[str, Any] = node.get('propertyNames', {})
        for key in value if names else ():
            if not self.matches(names, key):
                self._fail(names, 'pattern', key, _join(where, key), f'{key!r} is not allowed')

    def _members(self, node: dict[str, Any], value: dict[str, Any], where: str) -> None:
        props: dict[str, Any] = node.get('properties', {})
        extra = node.get('additionalProperties', True)
        for key, needs in node.get('dependencies', {}).items():
            if key not in value:
                continue
            if isinstance(needs, dict):
                self.check(needs, value, where)
            elif any(n not in value for n in needs):
                text = f'"{key}" needs "{needs[0]}"'
                self._fail(node, 'dependencies', value[key], _join(where, key), text)
        for key, item in value.items():
            sub = props.get(key, extra)
            if isinstance(sub, dict):
                self.check(sub, item, _join(where, key))

    def _one_of(self, node: dict[str, Any], value: object, where: str) -> None:
        branches: list[dict[str, Any]] = node['oneOf']
        if any('type' in b for b in branches):  # alternatives by type: the one that fits says
            fits = [b for b in branches if _is_any(value, b.get('type'))]
            if len(fits) == 1:
                return self.check(fits[0], value, where)
            self._fail(node, 'oneOf', value, where, f'not one of the allowed forms: {value!r}')
        if sum(self.matches(b, value) for b in branches) != 1:
            keys = [k for b in branches for k in b.get('required', ())]
            text = 'give exactly one of ' + ' or '.join(f'"{k}"' for k in keys)
            self._fail(node, 'oneOf', value, where, text)


def _is_any(value: object, types: str | list[str] | None) -> bool:
    names = [types] if isinstance(types, str) else types or []
    return any(type(value) in _TYPES[t][0] for t in names)


def _same(value: object, allowed: object) -> bool:
    """JSON equality: 1.0 and true are not the integer 1."""
    return type(value) is type(allowed) and value == allowed
