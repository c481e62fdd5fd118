"""java.find_java's probe memo: `java -version` once per Java, until a file of that Java changes.

The Java is a real one behind a Java home laid out as a real one is (bin/java, lib/modules,
lib/server/libjvm.so, release): its bin/java is a script that counts its runs and then runs the
real Java, so each test sees whether a probe really ran. (The discovery order is in tools_test.py.)
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import from_environ
from execlease_hook.tlc.java import (
    _OPTION_VARIABLES,
    MIN_JAVA,
    PROBES_FILE,
    Java,
    find_java,
    identity_key,
    java_identity,
)
from tests import needs

# Every test here starts a JVM (tests/tiers.py).
pytestmark = pytest.mark.tlc


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    needs.clear_settings(monkeypatch)
    for name in _OPTION_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def counted_home(folder: Path) -> tuple[Path, Path]:
    """A Java home whose bin/java counts its runs in a log; (its java, the log)."""
    real = os.path.realpath(needs.java())
    log = folder / 'runs.log'
    (folder / 'bin').mkdir(parents=True)
    (folder / 'lib' / 'server').mkdir(parents=True)
    (folder / 'lib' / 'modules').write_bytes(b'classes')
    (folder / 'lib' / 'server' / 'libjvm.so').write_bytes(b'vm')
    (folder / 'release').write_text('JAVA_VERSION="17"\n')
    java = folder / 'bin' / 'java'
    java.write_text(f'#!/bin/sh\necho run >> {log}\nexec {real} "$@"\n')
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    return java, log


def runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def find(clean_env: pytest.MonkeyPatch, java: Path, memo: Path | None) -> Java:
    clean_env.setattr('execlease_hook.tlc.java._identities', {})
    clean_env.setenv('EXECLEASE_JAVA', str(java))
    return find_java(from_environ(), memo)


def replace(path: Path, content: bytes) -> None:
    """As an upgrade writes a file: a new file renamed over the old one (a new inode)."""
    new = path.with_name(path.name + '.new')
    new.write_bytes(content)
    os.replace(new, path)


def test_a_java_is_probed_once_then_read_from_the_memo(tmp_path, clean_env):
    java, log = counted_home(tmp_path / 'home')
    memo = tmp_path / 'memo'
    first = find(clean_env, java, memo)
    assert runs(log) == 1 and first.major >= MIN_JAVA
    again = find(clean_env, java, memo)
    assert runs(log) == 1
    assert again == first
    kept = json.loads((memo / PROBES_FILE).read_text())
    assert list(kept) == [identity_key(java)]
    [(major, whole)] = kept.values()  # the whole text: the class-data archive's key reads it
    assert major == first.major and whole.splitlines()[0] == first.version_text


def test_the_archive_key_reads_the_probe_find_java_made_or_read(tmp_path, clean_env):
    java, log = counted_home(tmp_path / 'home')
    memo = tmp_path / 'memo'
    first = find(clean_env, java, memo)
    whole = java_identity(java)
    assert runs(log) == 1 and whole is not None and whole[1].splitlines()[0] == first.version_text
    assert 'Runtime Environment' in whole[1]  # vendor and build, not only the version line
    find(clean_env, java, memo)  # a new run: the memo answers find_java and the archive's key
    assert java_identity(java) == whole and runs(log) == 1


def test_with_a_jvm_cache_the_memo_is_kept_there_and_shared(tmp_path, clean_env):
    """EXECLEASE_JVM_CACHE set: the probes are kept in it, not in the repository's folder, so a
    second repository sharing it reads them; without a memo folder every run still probes."""
    java, log = counted_home(tmp_path / 'home')
    clean_env.setenv('EXECLEASE_JVM_CACHE', str(tmp_path / 'jvm'))
    first = find(clean_env, java, tmp_path / 'repo-a')
    assert runs(log) == 1 and (tmp_path / 'jvm' / PROBES_FILE).is_file()
    assert find(clean_env, java, tmp_path / 'repo-b') == first
    assert runs(log) == 1
    assert not (tmp_path / 'repo-a').exists() and not (tmp_path / 'repo-b').exists()
    find(clean_env, java, None)
    assert runs(log) == 2


def test_without_a_memo_folder_every_run_probes(tmp_path, clean_env):
    java, log = counted_home(tmp_path / 'home')
    find(clean_env, java, None)
    find(clean_env, java, None)
    assert runs(log) == 2


@pytest.mark.parametrize(
    'changed',
    [
        'lib/modules',
        'lib/server/libjvm.so',
        'release',
        'bin/java',
        'JAVA_TOOL_OPTIONS',
        'JDK_JAVA_OPTIONS',
    ],
    ids=['classes', 'vm', 'release', 'launcher', 'tool-options', 'jdk-options'],
)
def test_a_changed_java_is_probed_again(tmp_path, clean_env, changed):
    java, log = counted_home(tmp_path / 'home')
    memo = tmp_path / 'memo'
    find(clean_env, java, memo)
    if changed.isupper():
        clean_env.setenv(changed, '-Xss4m')
    else:
        path = tmp_path / 'home' / changed
        mode = path.stat().st_mode
        replace(path, path.read_bytes())  # the same bytes, a new file: an upgrade or reinstall
        path.chmod(mode)
    find(clean_env, java, memo)
    assert runs(log) == 2


def test_a_java_not_laid_out_as_a_home_is_probed_every_time(tmp_path, clean_env):
    java, log = counted_home(tmp_path / 'home')
    (tmp_path / 'home' / 'lib' / 'modules').unlink()  # e.g. a wrapper script in a bin folder
    memo = tmp_path / 'memo'
    assert identity_key(java) is None
    find(clean_env, java, memo)
    find(clean_env, java, memo)
    assert runs(log) == 2
    assert not (memo / PROBES_FILE).exists()


@pytest.mark.parametrize(
    'content',
    [b'{not json', b'[1, 2]', b'{"%s": "17"}'],
    ids=['not-json', 'not-an-object', 'bad-entry'],
)
def test_a_corrupt_memo_is_probed_again_and_rewritten(tmp_path, clean_env, content):
    java, log = counted_home(tmp_path / 'home')
    memo = tmp_path / 'memo'
    memo.mkdir()
    key = identity_key(java)
    assert key is not None
    (memo / PROBES_FILE).write_bytes(content.replace(b'%s', key.encode()))
    found = find(clean_env, java, memo)
    assert runs(log) == 1
    major, whole = json.loads((memo / PROBES_FILE).read_text())[key]
    assert major == found.major and whole.splitlines()[0] == found.version_text


def test_a_memo_that_cannot_be_written_only_costs_a_probe(tmp_path, clean_env):
    java, log = counted_home(tmp_path / 'home')
    blocked = tmp_path / 'memo'
    blocked.write_text('a file where the folder should be')
    assert find(clean_env, java, blocked).major >= MIN_JAVA
    assert find(clean_env, java, blocked).major >= MIN_JAVA
    assert runs(log) == 2


def test_a_java_that_does_not_run_is_not_kept(tmp_path, clean_env):
    java, log = counted_home(tmp_path / 'home')
    java.write_text(f'#!/bin/sh\necho run >> {log}\nexit 1\n')
    memo = tmp_path / 'memo'
    with pytest.raises(CannotRun, match='does not run'):
        find(clean_env, java, memo)
    assert not (memo / PROBES_FILE).exists()


def test_the_real_java_is_the_same_through_the_memo(tmp_path, clean_env):
    real = Path(needs.java())
    memo = tmp_path / 'memo'
    plain = find(clean_env, real, None)
    kept = find(clean_env, real, memo)
    again = find(clean_env, real, memo)
    assert plain == kept == again


def test_the_option_variables_a_java_picked_up_are_not_its_identity(tmp_path, clean_env):
    """A JVM says first which option variables it picked up: the version shown, the probe kept
    and the identity that keys the class-data archive and the warm-JVM helper are the Java's
    alone, the same under any options."""
    real = Path(needs.java())
    plain = find(clean_env, real, None)
    clean_env.setenv('JAVA_TOOL_OPTIONS', '-Xmx64m')
    clean_env.setenv('_JAVA_OPTIONS', '-Xss2m')
    picked = find(clean_env, real, None)
    kept = find(clean_env, real, tmp_path / 'memo')
    again = find(clean_env, real, tmp_path / 'memo')
    assert plain == picked == kept == again and 'version' in plain.version_text
    identity = java_identity(real)
    assert identity is not None and 'Picked up' not in identity[1]
    assert identity[1].splitlines()[0].startswith(plain.version_text)
