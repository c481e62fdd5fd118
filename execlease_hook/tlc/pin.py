"""A model's own TLA+ tools: the manifest's `"tools"` (docs/how-to/tla-tools.md#a-models-own-tla-tools).

A manifest may pin its own tla2tools.jar (`sha256`, fetched from `url` by tlc/jar.py's rules when
it is not on this machine) and the lowest TLC version its specs need (`minTlc`).
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.core import paths, procs
from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.manifest.model import Manifest, ToolsPin
from execlease_hook.tlc import jar
from execlease_hook.tlc.jar import KNOWN_JARS, ToolJar, Tools
from execlease_hook.tlc.java import Java

# A tla2tools.jar is a few MB; a pinned one of any release stays far below this.
MAX_PINNED_BYTES = 64 << 20
ROLLING_ADVICE = (
    "a URL under a rolling release (the TLA+ tools' v1.8.0 tag) serves a new jar under the same "
    'name from time to time: pin a versioned release or a mirror of your own, and change "sha256" '
    'only for a jar you have tried'
)
_BANNER = re.compile(r'TLC2 Version (\d+\.\d+)(?:.*\(rev: (\w+)\))?')
_VERSION = re.compile(r'TLC (\d+)\.(\d+)')


def banner(jar: Path, java: Java) -> str:
    """The version line TLC itself prints, e.g. 'TLC2 Version 2.15 of ... (rev: d5b5a7f)'."""
    argv = (str(java.path), '-cp', str(jar), 'tlc2.TLC', '-version')
    try:
        code, out = procs.run(argv, 120)
        if code is None:
            raise subprocess.TimeoutExpired(argv, 120)  # said as subprocess.run says it
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CannotRun(f'could not run TLC from {jar} with {java.path}: {e}') from e
    said = out.decode('utf-8', 'replace')
    for line in said.splitlines():
        if line.startswith('TLC2 Version'):
            return line.strip()
    raise CannotRun(
        f'{jar} did not print a TLC version with {java.path}; output: ' + said.strip()[-500:]
    )


def version_words(line: str) -> str:
    """'TLC2 Version 2.19 of 08 August 2024 (rev: 5a47802)' -> 'TLC 2.19 (rev 5a47802)'."""
    if (found := _BANNER.search(line)) is None:
        return line
    return f'TLC {found.group(1)}' + (f' (rev {found.group(2)})' if found.group(2) else '')


def version_of(tlc_version: str) -> tuple[int, int] | None:
    found = _VERSION.match(tlc_version)
    return None if found is None else (int(found.group(1)), int(found.group(2)))


def _manifest(m: Manifest) -> str:
    return paths.in_report(m.root, m.path)


def _pinned(m: Manifest, pin: ToolsPin, java: Java, root: Path, settings: Settings) -> ToolJar:
    assert pin.sha256 is not None
    # Where the default tools keep theirs (their cache, EXECLEASE_TLA_JAR, the offline jar), else
    # its own cache folder.
    places = [
        (jar.cache_dir(root) / jar.JAR_NAME, 'cache'),
        (Path(settings.tla_jar).expanduser() if settings.tla_jar else None, 'EXECLEASE_TLA_JAR'),
        (jar.offline_jar(), 'offline'),
    ]
    found = None
    for path, source in places:
        if path is not None and jar.valid_copy(path, pin.sha256):
            found = ToolJar(path.resolve(), pin.sha256, source, True)
            break
    folder = jar.cache_dir(root) / pin.sha256
    if found is None and jar.valid_copy(folder / jar.JAR_NAME, pin.sha256):
        found = ToolJar(folder / jar.JAR_NAME, pin.sha256, 'cache', True)
    if found is None:
        if pin.url is None:
            raise CannotRun(
                f'{_manifest(m)}: tools.sha256 pins a TLA+ tools jar ({pin.sha256}) that is not on '
                'this machine and the manifest gives no "url" to fetch it from; add "url", or set '
                'EXECLEASE_TLA_JAR=/path/to/tla2tools.jar with that sha256'
            )
        if settings.tla_offline:
            raise CannotRun(
                f'{_manifest(m)}: the TLA+ tools it pins (sha256 {pin.sha256}) are not in {folder} '
                'and downloads are disabled (EXECLEASE_TLA_OFFLINE=1); allow the download of '
                f'{pin.url}, or set EXECLEASE_TLA_JAR=/path/to/tla2tools.jar with that sha256'
            )
        url, pinned, target = pin.url, pin.sha256, folder / jar.JAR_NAME
        try:
            jar.fetch_pinned(
                url,
                pinned,
                target,
                jar.Bound(MAX_PINNED_BYTES, '64 MB', jar.JAR_NAME),
                refused=lambda digest: CannotRun(
                    f'{_manifest(m)}: tools.url {url} served a jar with sha256 {digest}, but '
                    f'tools.sha256 pins {pinned}; nothing was kept. {ROLLING_ADVICE}'
                ),
                failed=lambda e: CannotRun(
                    f'{_manifest(m)}: tools.url: {e}; nothing was kept in {folder}. Run again when '
                    'the URL answers, or put the jar in place: '
                    'EXECLEASE_TLA_JAR=/path/to/tla2tools.jar with that sha256'
                ),
                settings=settings,
            )
            found = ToolJar(target, pinned, 'download', True)
        except jar.CacheUnwritable as e:
            raise CannotRun(
                f'{_manifest(m)}: cannot write the TLA+ tools cache {e}; make {folder} writable, '
                'or set EXECLEASE_TLA_JAR=/path/to/tla2tools.jar with that sha256'
            ) from e
        except OSError as e:
            raise CannotRun(
                f'{_manifest(m)}: cannot write the TLA+ tools cache {folder}: '
                f'{e.strerror or e}; make it writable or free some disk space'
            ) from e
    if pin.sha256 in KNOWN_JARS:
        return found
    return ToolJar(found.path, found.sha256, found.source, True, _version(found.path, folder, java))


def _version(jar: Path, folder: Path, java: Java) -> str:
    """The version of a jar execlease does not know, asked of its TLC once and kept in the cache."""
    kept = folder / 'version'
    with contextlib.suppress(OSError):
        if text := kept.read_text(encoding='utf-8').strip():
            return text
    words = version_words(banner(jar, java))
    with contextlib.suppress(OSError):  # asked again next time: the same answer
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(kept, words + '\n')
    return words


def default_tools(
    root: Path, manifests: Sequence[Manifest], java: Java, settings: Settings
) -> tuple[ToolJar | None, Tools]:
    """The run's TLA+ tools (tlc/jar.resolve_jar) and, as `Tools`, what the run names: those, or
    the first model's own when every model pins its own jar and the default ones cannot be had."""
    try:
        return (default := jar.resolve_jar(root, settings)), Tools(default, java, settings, root)
    except CannotRun:
        if not manifests or any(m.tools is None or m.tools.sha256 is None for m in manifests):
            raise
    return None, Tools(jar_for(manifests[0], None, java, settings, root), java, settings, root)


def jar_for(
    m: Manifest, default: ToolJar | None, java: Java, settings: Settings, root: Path | None = None
) -> ToolJar:
    """The jar the model's jobs run with: its own when the manifest pins one, else `default`
    (None: the default tools could not be had, which only a model without its own jar minds);
    refused (exit 2) when it is older than the manifest's minTlc. `root`: the repository whose
    cache holds the jars (default the model's; for a commit checked out alone, the repository's)."""
    pin = m.tools
    own = pin is not None and pin.sha256 is not None
    if pin is not None and own and (default is None or default.sha256 != pin.sha256):
        chosen = _pinned(m, pin, java, root or m.root, settings)
    elif default is None:
        raise CannotRun(f'{_manifest(m)}: no verified TLA+ tools: ' + jar.how_to_get_tools())
    else:
        chosen = default  # the run's, also when they are the ones the manifest pins
    if pin is not None and pin.min_tlc is not None:
        least = tuple(int(p) for p in pin.min_tlc.split('.'))
        have = version_of(chosen.tlc_version)
        if have is None or have < least:
            raise CannotRun(
                f'{_manifest(m)}: tools.minTlc is {pin.min_tlc}, but the TLA+ tools in use are '
                f'{chosen.tlc_version} (sha256 {chosen.sha256[:16]}..., {chosen.source}); pin a jar '
                'of that TLC or later in "tools" (url + sha256), or allow the download of the '
                'default tools (the offline jar is TLC 2.15)'
            )
    return chosen
