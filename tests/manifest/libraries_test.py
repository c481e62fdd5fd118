"""`libraries` in manifest.json: jars (url + sha256) and folders of .tla modules in the
repository, read, refused with the field named, written back as read, and agreed on by the
JSON Schema."""

from __future__ import annotations

import copy
import json
from importlib import resources

import jsonschema
import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest import write as manifest_write
from execlease_hook.manifest.model import Library
from tests.manifest.read_test import GOOD, write_manifest

SCHEMA = json.loads(
    resources.files('execlease_hook').joinpath('schemas/manifest.schema.json').read_text()
)
SHA = 'a' * 64
JAR = {'url': 'https://example.com/dl/Ops-1.2.jar', 'sha256': SHA}


def with_libraries(libraries: object) -> dict:
    data = copy.deepcopy(GOOD)
    data['libraries'] = libraries
    return data


@pytest.fixture
def lib_folder(tmp_path):
    folder = tmp_path / 'verification' / 'lib'
    folder.mkdir(parents=True)
    (folder / 'Ops.tla').write_text('---- MODULE Ops ----\nOne == 1\n====\n')
    return folder


def load(tmp_path, data):
    return manifest_read.load(write_manifest(tmp_path, data), tmp_path)


def test_a_jar_and_a_folder_are_read_in_order(tmp_path, lib_folder):
    m = load(tmp_path, with_libraries([{**JAR, 'name': 'Ops'}, {'folder': 'verification/lib'}]))
    assert m.libraries == (
        Library(url=JAR['url'], sha256=SHA, name='Ops'),
        Library(folder='verification/lib'),
    )
    assert [lib.label for lib in m.libraries] == ['Ops', 'verification/lib']


def test_a_jar_without_a_name_is_named_by_its_file():
    assert (
        Library(url='https://example.com/a/CommunityModules-deps.jar', sha256=SHA).label
        == 'CommunityModules-deps.jar'
    )


def test_no_libraries_is_the_empty_tuple_and_writes_no_key(tmp_path):
    m = load(tmp_path, GOOD)
    assert m.libraries == ()
    assert 'libraries' not in json.loads(manifest_write.dump(m))


def test_a_rewrite_keeps_the_libraries_after_the_spec(tmp_path, lib_folder):
    data = with_libraries([{'folder': 'verification/lib'}, {'name': 'Ops', **JAR}])
    m = load(tmp_path, data)
    text = manifest_write.dump(m)
    assert list(json.loads(text))[:3] == ['version', 'spec', 'libraries']
    assert json.loads(text)['libraries'] == data['libraries']
    assert load(tmp_path, json.loads(text)) == m


@pytest.mark.parametrize(
    ('libraries', 'expected'),
    (
        ({}, r'libraries: expected an array, got an object'),
        ([{}], r'libraries\[0\]: give exactly one of "url" \(a jar\) or "folder"'),
        ([{**JAR, 'folder': 'verification/lib'}], r'libraries\[0\]: give exactly one of'),
        ([{'url': JAR['url']}], r'libraries\[0\]: a jar needs "sha256"'),
        (
            [{**JAR, 'sha256': 'A' * 64}],
            r'libraries\[0\]\.sha256: expected 64 lowercase hex digits',
        ),
        ([{**JAR, 'sha256': 'a' * 63}], r'libraries\[0\]\.sha256: expected 64 lowercase hex'),
        (
            [{**JAR, 'url': 'ftp://example.com/x.jar'}],
            r'libraries\[0\]\.url: .* not an http\(s\) URL',
        ),
        ([{**JAR, 'url': '/home/me/x.jar'}], r'libraries\[0\]\.url: .*use EXECLEASE_LIBRARY_PATH'),
        ([{**JAR, 'name': ''}], r'libraries\[0\]\.name: must not be empty'),
        ([{**JAR, 'colour': 'red'}], r"libraries\[0\]\.colour: unknown key 'colour'"),
        (
            [{'folder': 'verification/lib', 'sha256': SHA}],
            r"libraries\[0\]\.sha256: 'sha256' belongs to a jar",
        ),
        ([{'folder': '../lib'}], r'libraries\[0\]\.folder: .*leaves its folder'),
        (
            [{'folder': '/abs/lib'}],
            r'libraries\[0\]\.folder: .*absolute; give a path relative to the repository root',
        ),
        (
            [{'folder': 'verification/m'}],
            r"libraries\[0\]\.folder: 'verification/m' is the model folder itself",
        ),
        (
            [{'folder': 'verification/lib'}, {'folder': 'verification/lib'}],
            r'libraries\[1\]: the same folder as libraries\[0\]',
        ),
        (
            [JAR, {**JAR, 'url': 'https://mirror.example.com/Ops.jar'}],
            r'libraries\[1\]: the same jar as libraries\[0\]',
        ),
    ),
)
def test_a_bad_entry_is_named_with_what_to_do(tmp_path, lib_folder, libraries, expected):
    with pytest.raises(CannotRun, match=r'manifest\.json: ' + expected):
        load(tmp_path, with_libraries(libraries))


def test_a_folder_need_not_exist_to_be_read(tmp_path):
    """As for the spec's path: the guard judges the index or a commit, not the working tree;
    a run of TLC needs the folder (tests/tlc/libraries_test.py)."""
    m = load(tmp_path, with_libraries([{'folder': 'verification/nowhere'}]))
    assert m.libraries == (Library(folder='verification/nowhere'),)


def test_a_folder_outside_the_repository_by_a_symlink_is_refused(tmp_path):
    outside = tmp_path.parent / f'{tmp_path.name}-outside'
    outside.mkdir()
    (outside / 'Ops.tla').write_text('')
    (tmp_path / 'verification').mkdir()
    (tmp_path / 'verification' / 'lib').symlink_to(outside)
    with pytest.raises(CannotRun, match=r'libraries\[0\]\.folder: .*outside the repository'):
        load(tmp_path, with_libraries([{'folder': 'verification/lib'}]))


# (libraries, both accept)
CORPUS: tuple[tuple[object, bool], ...] = (  # a value of `libraries`, broken on purpose too
    ([], True),
    ([JAR], True),
    ([{**JAR, 'name': 'Ops'}], True),
    ([{'folder': 'verification/lib'}], True),
    ([JAR, {'folder': 'verification/lib'}], True),
    ({}, False),
    ([{}], False),
    ([{'url': JAR['url']}], False),
    ([{'sha256': SHA}], False),
    ([{**JAR, 'folder': 'verification/lib'}], False),
    ([{**JAR, 'sha256': 'xyz'}], False),
    ([{**JAR, 'url': 'ftp://example.com/a.jar'}], False),
    ([{**JAR, 'name': ''}], False),
    ([{**JAR, 'extra': 1}], False),
    ([{'folder': 'verification/lib', 'name': 'x'}], False),
    ([{'folder': '../lib'}], False),
    ([{'folder': ''}], False),
)


@pytest.mark.parametrize(('libraries', 'good'), CORPUS, ids=[str(i) for i in range(len(CORPUS))])
def test_schema_and_loader_agree(tmp_path, lib_folder, libraries, good):
    data = with_libraries(libraries)
    try:
        load(tmp_path, data)
        loaded = True
    except CannotRun:
        loaded = False
    assert (loaded, jsonschema.Draft7Validator(SCHEMA).is_valid(data)) == (good, good)
