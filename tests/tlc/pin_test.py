"""A model's own TLA+ tools (tlc/pin.py), with the real jar, Java and a local HTTP server: where a
pinned jar is found, its download (whole, truncated, of another sha256), its version asked of its
TLC once, and minTlc."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest.model import Manifest
from execlease_hook.tlc import jar, pin
from execlease_hook.tlc.java import Java, find_java
from tests import libraries_support as support
from tests import needs, shared

pytestmark = pytest.mark.usefixtures('offline_tlc')


@pytest.fixture(scope='module')
def other_jar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TLC 2.15 with one more file in it: a jar execlease does not know, as a team's own build is.
    Built once for the test run (this module's and verify/tools_test.py's, every xdist worker's:
    tests/shared.py), `jar` being a JVM of its own; the tests only read it."""

    def build(folder: Path) -> None:
        target = folder / 'tla2tools.jar'
        shutil.copyfile(needs.tla_jar(), target)
        (folder / 'BUILT-BY.txt').write_text('a team that pins its own TLA+ tools\n')
        subprocess.run(
            (support.jar_tool(), 'uf', str(target), 'BUILT-BY.txt'), cwd=folder, check=True
        )

    return shared.folder(tmp_path_factory, 'other-tools-jar', build) / 'tla2tools.jar'


def manifest(root: Path, tools_key: dict[str, str]) -> Manifest:
    folder = root / 'verification' / 'm'
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / 'manifest.json'
    path.write_text(
        json.dumps(
            {
                'version': 1,
                'spec': 'M.tla',
                'tools': tools_key,
                'checks': [{'name': 'main', 'config': 'M.cfg'}],
            }
        )
    )
    return manifest_read.load(path, root)


def java() -> Java:
    return find_java(from_environ())


def test_a_pin_of_a_jar_on_this_machine_needs_no_url(tmp_path, tools_in_repo):
    offline = jar.file_sha256(needs.tla_jar())
    found = pin.jar_for(manifest(tmp_path, {'sha256': offline}), None, java(), from_environ())
    assert (found.sha256, found.source, found.tlc_version) == (
        offline,
        'offline',
        'TLC 2.15 (rev d5b5a7f)',
    )


def test_the_default_tools_serve_a_pin_of_their_own_sha256(tmp_path):
    default = jar.resolve_jar(tmp_path, from_environ())
    assert (
        pin.jar_for(manifest(tmp_path, {'sha256': default.sha256}), default, java(), from_environ())
        is default
    )


def test_a_pinned_jar_is_downloaded_once_and_its_version_asked_once(
    tmp_path, other_jar, monkeypatch
):
    monkeypatch.delenv('EXECLEASE_TLA_OFFLINE')
    digest = support.sha256(other_jar)
    assert digest not in jar.KNOWN_JARS
    for srv in support.serve({'tools/tla2tools.jar': other_jar.read_bytes()}):
        m = manifest(tmp_path, {'url': support.url(srv, 'tools/tla2tools.jar'), 'sha256': digest})
        first = pin.jar_for(m, None, java(), from_environ())
        assert first.path == tmp_path / '.tmp' / 'tla' / digest / 'tla2tools.jar'
        assert (first.source, first.verified, first.tlc_version) == (
            'download',
            True,
            'TLC 2.15 (rev d5b5a7f)',
        )
        assert (first.path.parent / 'version').read_text() == 'TLC 2.15 (rev d5b5a7f)\n'
        again = pin.jar_for(m, None, java(), from_environ())
        assert (again.path, again.source) == (first.path, 'cache') and srv.requests == [
            '/tools/tla2tools.jar'
        ]
        assert sorted(p.name for p in first.path.parent.iterdir()) == [
            'lock',
            'tla2tools.jar',
            'version',
        ]


def test_a_jar_of_another_sha256_is_refused_naming_both_and_the_rolling_tag_advice(
    tmp_path, other_jar, monkeypatch
):
    monkeypatch.delenv('EXECLEASE_TLA_OFFLINE')
    pinned = jar.file_sha256(needs.tla_jar())[
        ::-1
    ]  # what the manifest pinned before upstream moved
    for srv in support.serve({'v1.8.0/tla2tools.jar': other_jar.read_bytes()}):
        m = manifest(tmp_path, {'url': support.url(srv, 'v1.8.0/tla2tools.jar'), 'sha256': pinned})
        with pytest.raises(CannotRun) as e:
            pin.jar_for(m, None, java(), from_environ())
    text = str(e.value)
    assert text.startswith('verification/m/manifest.json: tools.url ')
    assert f'sha256 {support.sha256(other_jar)}, but tools.sha256 pins {pinned}' in text
    assert 'v1.8.0 tag' in text and 'pin a versioned release or a mirror of your own' in text
    assert [p.name for p in (tmp_path / '.tmp' / 'tla' / pinned).iterdir()] == ['lock']


def test_a_truncated_download_keeps_nothing(tmp_path, other_jar, monkeypatch):
    monkeypatch.delenv('EXECLEASE_TLA_OFFLINE')
    monkeypatch.setenv('EXECLEASE_TLA_RETRIES', '1')
    digest = support.sha256(other_jar)
    for srv in support.serve({'tla2tools.jar': other_jar.read_bytes()}):
        m = manifest(
            tmp_path, {'url': support.url(srv, 'truncated/tla2tools.jar'), 'sha256': digest}
        )
        with pytest.raises(CannotRun, match='tools.url: truncated download'):
            pin.jar_for(m, None, java(), from_environ())
    assert [p.name for p in (tmp_path / '.tmp' / 'tla' / digest).iterdir()] == ['lock']


def test_a_pinned_jars_cache_that_cannot_be_made_is_exit_2_naming_it(
    tmp_path, other_jar, monkeypatch
):
    # Running as root, permissions do not stop writes: a file where the folder should be does.
    monkeypatch.delenv('EXECLEASE_TLA_OFFLINE')
    digest = support.sha256(other_jar)
    (tmp_path / '.tmp').mkdir()
    (tmp_path / '.tmp' / 'tla').write_text('not a folder')
    m = manifest(tmp_path, {'url': 'http://127.0.0.1:9/tla2tools.jar', 'sha256': digest})
    with pytest.raises(CannotRun) as e:
        pin.jar_for(m, None, java(), from_environ())
    text = str(e.value)
    assert text.startswith('verification/m/manifest.json: cannot write the TLA+ tools cache ')
    assert f'{tmp_path / ".tmp" / "tla" / digest}' in text and 'EXECLEASE_TLA_JAR' in text


def test_offline_a_pinned_jar_not_here_is_exit_2_saying_how_to_get_it(tmp_path, other_jar):
    digest = support.sha256(other_jar)
    m = manifest(tmp_path, {'url': 'http://127.0.0.1:9/tla2tools.jar', 'sha256': digest})
    with pytest.raises(CannotRun, match=r'downloads are disabled \(EXECLEASE_TLA_OFFLINE=1\)'):
        pin.jar_for(m, None, java(), from_environ())
    with pytest.raises(CannotRun, match='gives no "url" to fetch it from'):
        pin.jar_for(manifest(tmp_path, {'sha256': digest}), None, java(), from_environ())


def test_min_tlc_refuses_older_tools_and_accepts_its_own(tmp_path):
    default = jar.resolve_jar(tmp_path, from_environ())
    assert (
        pin.jar_for(manifest(tmp_path, {'minTlc': '2.15'}), default, java(), from_environ())
        is default
    )
    with pytest.raises(CannotRun) as e:
        pin.jar_for(manifest(tmp_path, {'minTlc': '2.19'}), default, java(), from_environ())
    assert 'tools.minTlc is 2.19, but the TLA+ tools in use are TLC 2.15 (rev d5b5a7f)' in str(
        e.value
    )


@pytest.mark.parametrize(
    ('line', 'words', 'version'),
    [
        ('TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)', 'TLC 2.15 (rev d5b5a7f)', (2, 15)),
        ('TLC2 Version 2.19 of 08 August 2024 (rev: 5a47802)', 'TLC 2.19 (rev 5a47802)', (2, 19)),
        ('TLC2 Version 2.20', 'TLC 2.20', (2, 20)),
    ],
)
def test_a_banner_in_execleases_words(line, words, version):
    assert pin.version_words(line) == words and pin.version_of(words) == version
