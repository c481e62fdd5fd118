"""manifest/schema.py: the JSON Schema subset the loader checks manifests with, each problem
named by its JSON path and said as the schema's `errorMessage` or the loader's own words.
Agreement with the `jsonschema` package over a corpus: tests/project/schemas_test.py."""

from __future__ import annotations

import math

import jsonschema
import pytest

from execlease_hook.core import settings
from execlease_hook.manifest import model, schema

DEFINITIONS = schema.SCHEMA['definitions']


def problem(node: dict, value: object) -> str:
    with pytest.raises(schema.Invalid) as e:
        schema.Validator().check(node, value, '$')
    return str(e.value)


@pytest.mark.parametrize(
    ('node', 'value', 'expected'),
    (
        ({'type': 'object'}, [], '$: expected an object, got an array'),
        ({'type': 'string', 'minLength': 1}, '', '$: must not be empty'),
        ({'type': 'boolean'}, 1, '$: expected true or false, got a number'),
        ({'type': ['string', 'null']}, 3, '$: expected a string or null, got a number'),
        ({'type': 'integer', 'minimum': 0}, -1, '$: expected a whole number >= 0, got -1'),
        ({'type': 'integer', 'minimum': 0}, 1.0, '$: expected a whole number >= 0, got 1.0'),
        ({'type': 'integer'}, True, '$: expected a whole number, got true/false'),
        ({'const': 1}, True, '$: expected 1, got True'),
        ({'enum': ['a']}, 'b', "$: expected one of ['a'], got 'b'"),
        ({'required': ['a']}, {}, "$: missing key 'a'"),
        (
            {'properties': {'a': {}}, 'additionalProperties': False},
            {'b': 1},
            "b: unknown key 'b' (allowed here: 'a')",
        ),
        ({'items': {'type': 'string'}}, ['x', 2], '$[1]: expected a string, got a number'),
        ({'type': 'array', 'minItems': 1}, [], '$: must not be empty'),
        ({'pattern': '^a$'}, 'a\n', "$: 'a\\n' does not match ^a$"),
        ({'format': 'regex'}, '(', '$: not a regular expression: missing ), unterminated'),
        (
            {'oneOf': [{'required': ['a']}, {'required': ['b']}]},
            {'a': 1, 'b': 2},
            '$: give exactly one of "a" or "b"',
        ),
        ({'dependencies': {'a': ['b']}}, {'a': 1}, 'a: "a" needs "b"'),
        (
            {'dependencies': {'a': ['b']}, 'errorMessage': {'dependencies': '${0#} alone'}},
            {'a': 1},
            "a: 'a' alone",
        ),
        (
            {'propertyNames': {'pattern': '^x', 'errorMessage': '${0} is not an x'}},
            {'y': 1},
            "y: 'y' is not an x",
        ),
        ({'pattern': '^a', 'errorMessage': 'not an a: ${0}'}, 'b', "$: not an a: 'b'"),
        (
            {'type': 'string', 'pattern': '^a', 'errorMessage': {'pattern': 'no a'}},
            3,
            '$: expected a string, got a number',
        ),
    ),
)
def test_each_keyword_names_the_problem(node, value, expected):
    assert problem(node, value).startswith(expected)


def test_alternatives_by_type_report_the_problem_inside_the_one_that_fits():
    node = {'oneOf': [{'type': 'null'}, {'type': 'object', 'required': ['a']}]}
    assert problem(node, {}) == "$: missing key 'a'"
    assert problem(node, 3) == '$: not one of the allowed forms: 3'


@pytest.mark.parametrize('value', (0, -1, math.nan, math.inf, settings.MAX_SECONDS + 1))
def test_seconds_are_bounded_as_the_settings_bound_them(value):
    """A manifest's timeouts and an EXECLEASE_* timeout share one bound (core/settings.py)."""
    seconds = DEFINITIONS['seconds']
    assert seconds['maximum'] == settings.MAX_SECONDS
    assert f'at most {settings.MAX_SECONDS:g}' in seconds['errorMessage']
    assert problem(seconds, value).startswith('$: expected a number of seconds > 0')
    schema.Validator().check(seconds, settings.MAX_SECONDS, '$')


def test_the_version_is_the_one_this_execlease_writes():
    assert schema.SCHEMA['properties']['version']['const'] == model.VERSION


def test_the_file_is_a_draft_7_schema():
    jsonschema.Draft7Validator.check_schema(schema.SCHEMA)


def test_every_node_with_a_message_uses_only_keywords_it_has():
    """An `errorMessage` by keyword names keywords of its own node: a message for a keyword the
    node lacks would never be said."""

    def walk(node: object, pointer: str) -> None:
        if isinstance(node, dict):
            said = node.get('errorMessage')
            if isinstance(said, dict):
                assert set(said) <= set(node), pointer
            for key, value in node.items():
                walk(value, f'{pointer}/{key}')
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f'{pointer}/{i}')

    walk(schema.SCHEMA, '')


# Each object of the schema and the model's value for it.
VALUES = {
    '': model.Manifest,
    '/definitions/tools': model.ToolsPin,
    '/definitions/library': model.Library,
    '/definitions/check': model.Check,
    '/definitions/check/properties/deep': model.Deep,
    '/definitions/mutation': model.Mutation,
    '/definitions/mutation/properties/replace': model.Replace,
    '/definitions/finding': model.Finding,
    '/definitions/coverage': model.Coverage,
    '/definitions/coverage/properties/modelHash/oneOf/2': model.ModelRecord,
    '/definitions/entry': model.CoveredEntry,
    '/definitions/entry/properties/region': model.Region,
    '/definitions/coverage/properties/abstract/items': model.AbstractAction,
    '/definitions/coverage/properties/untraced/items': model.UntracedAction,
    '/definitions/coverage/properties/watch/items': model.WatchRule,
    '/definitions/coverage/properties/ignored/items': model.IgnoredCode,
    '/definitions/traceJob': model.TraceJob,
    '/definitions/traceJob/properties/fields': model.FieldRule,
    '/definitions/codeMutation': model.CodeMutation,
    '/definitions/codeMutation/properties/replace': model.Replace,
}


@pytest.mark.parametrize('pointer', VALUES)
def test_each_key_of_the_schema_is_a_field_of_the_model(pointer):
    """The reader and the writer take a key's field by its name (model.json_keys): a key the
    schema allows and the model lacks, or a field the schema does not declare, fails here."""
    node = schema.SCHEMA
    for part in pointer.split('/')[1:]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    declared = set(node['properties']) - {'version'}
    known = set(model.json_keys(VALUES[pointer]))
    assert sorted(declared - known) == []
    assert sorted(known - declared) == ([] if pointer else ['coversCode', 'path', 'root'])


def test_every_object_of_the_schema_has_its_value():
    from tests.project.reference_test import tabled_objects

    assert sorted(tabled_objects(schema.SCHEMA)) == sorted(VALUES)
