"""`tools` in manifest.json: a model's own TLA+ tools (url + sha256) and the lowest TLC it needs,
read, refused with the field named, written back as read, and agreed on by the JSON Schema."""

from __future__ import annotations

import copy
import json
from importlib import resources

import jsonschema
import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest import write as manifest_write
from execlease_hook.manifest.model import ToolsPin
from tests.manifest.read_test import GOOD, write_manifest

SCHEMA = json.loads(
    resources.files('execlease_hook').joinpath('schemas/manifest.schema.json').read_text()
)
SHA = 'b' * 64
URL = 'https://mirror.example.com/tla/1.7.4/tla2tools.jar'


def load(tmp_path, tools: object):
    data = copy.deepcopy(GOOD)
    data['tools'] = tools
    return manifest_read.load(write_manifest(tmp_path, data), tmp_path)


@pytest.mark.parametrize(
    ('tools', 'pin'),
    [
        ({'url': URL, 'sha256': SHA}, ToolsPin(url=URL, sha256=SHA)),
        ({'sha256': SHA}, ToolsPin(sha256=SHA)),
        ({'minTlc': '2.19'}, ToolsPin(min_tlc='2.19')),
        (
            {'url': URL, 'sha256': SHA, 'minTlc': '2.19'},
            ToolsPin(url=URL, sha256=SHA, min_tlc='2.19'),
        ),
    ],
)
def test_tools_are_read_and_written_back_as_read(tmp_path, tools, pin):
    m = load(tmp_path, tools)
    assert m.tools == pin
    text = manifest_write.dump(m)
    assert list(json.loads(text))[:3] == ['version', 'spec', 'tools']
    assert json.loads(text)['tools'] == tools
    assert manifest_read.load(write_manifest(tmp_path, json.loads(text)), tmp_path) == m


def test_no_tools_is_none_and_writes_no_key(tmp_path):
    m = manifest_read.load(write_manifest(tmp_path, GOOD), tmp_path)
    assert m.tools is None and 'tools' not in json.loads(manifest_write.dump(m))


BAD = [
    ({}, r'tools: an empty "tools" says nothing'),
    ([], r'tools: expected an object'),
    ({'url': URL}, r'tools: a jar needs "sha256"'),
    ({'sha256': 'B' * 64}, r'tools\.sha256: expected 64 lowercase hex digits'),
    (
        {'url': 'ftp://example.com/tla2tools.jar', 'sha256': SHA},
        r'tools\.url: .*not an http\(s\) URL',
    ),
    ({'url': '/opt/tla2tools.jar', 'sha256': SHA}, r'tools\.url: .*set EXECLEASE_TLA_JAR'),
    ({'minTlc': '2'}, r'tools\.minTlc: expected a TLC version as TLC prints it, MAJOR\.MINOR'),
    ({'minTlc': 2.19}, r'tools\.minTlc: expected a string'),
    ({'jar': 'x'}, r"tools\.jar: unknown key 'jar'"),
]


@pytest.mark.parametrize(('tools', 'expected'), BAD, ids=[str(i) for i in range(len(BAD))])
def test_a_bad_tools_is_named_with_what_to_do(tmp_path, tools, expected):
    with pytest.raises(CannotRun, match=r'manifest\.json: ' + expected):
        load(tmp_path, tools)


CORPUS = [
    (t, True)
    for t, _ in [
        ({'url': URL, 'sha256': SHA}, None),
        ({'sha256': SHA}, None),
        ({'minTlc': '2.19'}, None),
        ({'url': URL, 'sha256': SHA, 'minTlc': '2.20'}, None),
    ]
] + [(t, False) for t, _ in BAD]


@pytest.mark.parametrize(('tools', 'good'), CORPUS, ids=[str(i) for i in range(len(CORPUS))])
def test_schema_and_loader_agree(tmp_path, tools, good):
    data = copy.deepcopy(GOOD)
    data['tools'] = tools
    try:
        manifest_read.load(write_manifest(tmp_path, data), tmp_path)
        loaded = True
    except CannotRun:
        loaded = False
    try:
        jsonschema.validate(data, SCHEMA)
        valid = True
    except jsonschema.ValidationError:
        valid = False
    assert (loaded, valid) == (good, good)
