"""manifest.json -> the data model (manifest/model.py): every value checked, every error naming
the file and the JSON path of the field (`coverage.entries[3].region.from`) and what to do.

It is kept whole: one job (JSON in; the model, or an exit-2 message out), one small
function per kind of object, all naming their errors through _Reader the same way.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from execlease_hook.core import paths, settings
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import (
    MODEL_RECORD_SCHEMES,
    VERSION,
    AbstractAction,
    Check,
    CodeMutation,
    Coverage,
    CoveredEntry,
    Deep,
    FieldRule,
    Finding,
    IgnoredCode,
    Library,
    Manifest,
    ModelRecord,
    Mutation,
    Region,
    Replace,
    ToolsPin,
    TraceJob,
    UntracedAction,
    WatchRule,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (core/record.py)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar('T')

_HEX40 = re.compile(r'[0-9a-f]{40}\Z')
_BLOB = re.compile(r'[0-9a-f]{40}([0-9a-f]{24})?\Z')  # a SHA-1 or SHA-256 object id
_HEX64 = r'[0-9a-f]{64}\Z'
_ENTRY_HASH = re.compile(r'ts[12]:sha256:' + _HEX64)
_MODEL_HASH = re.compile(r'sha256:' + _HEX64)


class _Reader:
    """Walks the parsed JSON, naming the file and the JSON path of every error."""

    def __init__(self, file: Path, root: Path) -> None:
        self.file = file
        self.root = root
        self._on_disk: dict[
            tuple[Path, str], str | None
        ] = {}  # a path's disk checks, once per path

    def fail(self, where: str, problem: str) -> CannotRun:
        return CannotRun(f'{self.file}: {where}: {problem}')

    def obj(
        self,
        value: object,
        where: str,
        required: tuple[str, ...],
        optional: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f'expected an object, got {_kind(value)}')
        for key in required:
            if key not in value:
                raise self.fail(where, f'missing key {key!r}')
        unknown = sorted(set(value) - set(required) - set(optional))
        if unknown:
            allowed = ', '.join(repr(k) for k in (*required, *optional))
            raise self.fail(
                _join(where, unknown[0]),
                f'unknown key {unknown[0]!r} (allowed here: {allowed})',
            )
        return value

    def string(self, value: object, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f'expected a string, got {_kind(value)}')
        if not value:
            raise self.fail(where, 'must not be empty')
        return value

    def boolean(self, value: object, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f'expected true or false, got {_kind(value)}')
        return value

    def count(self, value: object, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(where, f'expected a whole number >= 0, got {value!r}')
        return value

    def seconds(self, value: object, where: str) -> float:
        # NaN and Infinity parse as JSON numbers; a NaN timeout would mean no timeout at all.
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or settings.seconds_problem(float(value)) is not None
        ):
            raise self.fail(
                where,
                f'expected a number of seconds > 0 and at most '
                f'{settings.MAX_SECONDS:g}, got {value!r}',
            )
        return float(value)

    def array(self, value: object, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f'expected an array, got {_kind(value)}')
        return value

    def items(
        self,
        value: object,
        where: str,
        key: str,
        parse: Callable[[Any, str], T],
    ) -> tuple[T, ...]:
        result = []
        seen: dict[str, int] = {}
        for i, raw in enumerate(self.array(value, where)):
            at = f'{where}[{i}]'
            item = parse(raw, at)
            name = getattr(item, key)
            if name in seen:
                raise self.fail(
                    f'{at}.{key}',
                    f'duplicate {key} {name!r} (also {where}[{seen[name]}]); '
                    f'every {key} must be unique',
                )
            seen[name] = i
            result.append(item)
        return tuple(result)

    def repo_path(self, value: object, where: str, base: Path) -> str:
        # One spelling per path, the one git uses (core/paths.py): the guard compares strings.
        text = self.string(value, where)
        problem = paths.spelling_problem(text)
        if problem is not None and problem.endswith('is absolute'):
            problem += f'; give a path relative to {_describe_base(base, self.root)}'
        if problem is not None:
            raise self.fail(where, problem)
        key = (base, text)
        if key not in self._on_disk:  # entries of one file share it: each costs syscalls
            self._on_disk[key] = self._disk_problem(text, base)
        problem = self._on_disk[key]
        if problem is not None:
            raise self.fail(where, problem)
        return text

    def _disk_problem(self, text: str, base: Path) -> str | None:
        try:
            resolved = (base / text).resolve()
        except (OSError, RuntimeError) as e:  # a symlink loop
            return f'{text!r} cannot be resolved ({e}); fix the symlinks on its way'
        if not resolved.is_relative_to(self.root.resolve()):
            return (
                f'{text!r} resolves to {resolved}, outside the '
                f'repository {self.root} (a symlink pointing outside?)'
            )
        return paths.case_problem(base, text) or paths.submodule_problem(self.root, base, text)


def _kind(value: object) -> str:
    return {
        dict: 'an object',
        list: 'an array',
        str: 'a string',
        bool: 'true/false',
        int: 'a number',
        float: 'a number',
        type(None): 'null',
    }.get(type(value), type(value).__name__)


def _join(where: str, key: str) -> str:
    return f'{where}.{key}' if where != '$' else key


def _describe_base(base: Path, root: Path) -> str:
    return 'the repository root' if base == root else 'the model folder'


def _check(r: _Reader, raw: object, at: str, folder: Path) -> Check:
    d = r.obj(raw, at, ('name', 'config'), ('spec', 'states', 'deadlock', 'timeout', 'deep'))
    spec = (
        _module(r, d['spec'], f'{at}.spec', folder, 'the root module TLC checks with this cfg')
        if 'spec' in d
        else None
    )
    return Check(
        spec=spec,
        name=r.string(d['name'], f'{at}.name'),
        config=r.repo_path(d['config'], f'{at}.config', folder),
        states=r.count(d['states'], f'{at}.states') if 'states' in d else None,
        deadlock=r.boolean(d['deadlock'], f'{at}.deadlock') if 'deadlock' in d else None,
        timeout=r.seconds(d['timeout'], f'{at}.timeout') if 'timeout' in d else None,
        deep=_deep(r, d['deep'], f'{at}.deep') if 'deep' in d else None,
    )


_CONSTANT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')


def _deep(r: _Reader, raw: object, at: str) -> Deep:
    d = r.obj(raw, at, ('constants',), ('timeout', 'states'))
    constants = d['constants']
    if not isinstance(constants, dict) or not constants:
        raise r.fail(
            f'{at}.constants',
            'expected an object of the constants the deep run changes, '
            'e.g. {"MaxGen": "4"} (cfg text for each value)',
        )
    pairs = []
    for name, value in constants.items():
        where = f'{at}.constants.{name}'
        if not _CONSTANT.match(name):
            raise r.fail(where, f'{name!r} is not a TLA+ constant name')
        if isinstance(value, bool):  # JSON true/false: TLA+'s TRUE/FALSE
            value = 'TRUE' if value else 'FALSE'
        elif isinstance(value, int):  # a JSON whole number: as written
            value = str(value)
        pairs.append((name, r.string(value, where)))
    return Deep(
        constants=tuple(pairs),
        timeout=r.seconds(d['timeout'], f'{at}.timeout') if 'timeout' in d else None,
        states=r.count(d['states'], f'{at}.states') if 'states' in d else None,
    )


def _mutation(r: _Reader, raw: object, at: str, folder: Path) -> Mutation:
    d = r.obj(
        raw,
        at,
        ('name', 'config', 'replace', 'violates'),
        ('timeout', 'within', 'deadlock', 'module'),
    )
    rep = r.obj(d['replace'], f'{at}.replace', ('from', 'to'))
    start = r.string(rep['from'], f'{at}.replace.from')
    if not isinstance(rep['to'], str):
        raise r.fail(f'{at}.replace.to', f'expected a string, got {_kind(rep["to"])}')
    if rep['to'] == start:
        raise r.fail(f'{at}.replace', '"from" and "to" are the same text: nothing is mutated')
    return Mutation(
        name=r.string(d['name'], f'{at}.name'),
        config=r.repo_path(d['config'], f'{at}.config', folder),
        replace=Replace(start=start, to=rep['to']),
        violates=r.string(d['violates'], f'{at}.violates'),
        timeout=r.seconds(d['timeout'], f'{at}.timeout') if 'timeout' in d else None,
        within=r.string(d['within'], f'{at}.within') if 'within' in d else None,
        deadlock=r.boolean(d['deadlock'], f'{at}.deadlock') if 'deadlock' in d else None,
        module=_module(r, d['module'], f'{at}.module', folder, 'the module file the mutation edits')
        if 'module' in d
        else None,
    )


def _module(r: _Reader, raw: object, at: str, folder: Path, what: str) -> str:
    """A .tla file of the model folder, by its file name."""
    name = r.repo_path(raw, at, folder)
    if '/' in name or not name.endswith('.tla'):
        raise r.fail(
            at,
            f'{name!r} is not a .tla module of the model folder; name {what} as '
            'its file beside manifest.json (Lease.tla)',
        )
    return name


def _finding(r: _Reader, raw: object, at: str, folder: Path) -> Finding:
    d = r.obj(raw, at, ('id', 'config', 'violates'), ('summary', 'deadlock', 'timeout'))
    return Finding(
        id=r.string(d['id'], f'{at}.id'),
        config=r.repo_path(d['config'], f'{at}.config', folder),
        violates=r.string(d['violates'], f'{at}.violates'),
        summary=r.string(d['summary'], f'{at}.summary') if 'summary' in d else '',
        deadlock=r.boolean(d['deadlock'], f'{at}.deadlock') if 'deadlock' in d else None,
        timeout=r.seconds(d['timeout'], f'{at}.timeout') if 'timeout' in d else None,
    )


def _replace(r: _Reader, raw: object, at: str) -> Replace:
    rep = r.obj(raw, at, ('from', 'to'))
    start = r.string(rep['from'], f'{at}.from')
    if not isinstance(rep['to'], str):
        raise r.fail(f'{at}.to', f'expected a string, got {_kind(rep["to"])}')
    if rep['to'] == start:
        raise r.fail(at, '"from" and "to" are the same text: nothing is mutated')
    return Replace(start=start, to=rep['to'])


def _trace_job(r: _Reader, raw: object, at: str, folder: Path) -> TraceJob:
    d = r.obj(
        raw,
        at,
        ('name', 'spec', 'config'),
        ('files', 'command', 'timeout', 'env', 'fields', 'line'),
    )
    if ('files' in d) == ('command' in d):
        raise r.fail(
            at,
            'give exactly one of "files" (NDJSON trace files, globs relative to the '
            'model folder) or "command" (an argv that writes them)',
        )
    key = 'files' if 'files' in d else 'command'
    values = tuple(
        r.string(v, f'{at}.{key}[{i}]') for i, v in enumerate(r.array(d[key], f'{at}.{key}'))
    )
    if not values:
        raise r.fail(f'{at}.{key}', 'must not be empty')
    if key == 'files':
        for i, pattern in enumerate(values):
            r.repo_path(pattern, f'{at}.files[{i}]', folder)
    return TraceJob(
        name=r.string(d['name'], f'{at}.name'),
        spec=r.repo_path(d['spec'], f'{at}.spec', folder),
        config=r.repo_path(d['config'], f'{at}.config', folder),
        files=values if key == 'files' else (),
        command=values if key == 'command' else (),
        timeout=r.seconds(d['timeout'], f'{at}.timeout') if 'timeout' in d else None,
        env=_env(r, d, at, key),
        fields=_fields(r, d['fields'], f'{at}.fields') if 'fields' in d else None,
        line=_identifier(r, d['line'], f'{at}.line') if 'line' in d else 'l',
    )


def _identifier(r: _Reader, raw: object, at: str) -> str:
    text = r.string(raw, at)
    if not re.fullmatch(r'[A-Za-z_][A-Za-z0-9_]*', text):
        raise r.fail(at, f'{text!r} is not a TLA+ variable name')
    return text


def _fields(r: _Reader, raw: object, at: str) -> FieldRule:
    d = r.obj(raw, at, (), ('keep', 'drop'))
    if len(d) != 1:
        raise r.fail(
            at,
            'give exactly one of "keep" (the only fields of a line TLC gets) or "drop" '
            '(fields it never gets)',
        )
    ((key, value),) = d.items()
    names = tuple(
        r.string(v, f'{at}.{key}[{i}]') for i, v in enumerate(r.array(value, f'{at}.{key}'))
    )
    if not names:
        raise r.fail(f'{at}.{key}', 'name at least one field')
    return FieldRule(keep=names) if key == 'keep' else FieldRule(drop=names)


_ENV_NAME = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')


def _env(r: _Reader, d: dict[str, Any], at: str, key: str) -> tuple[tuple[str, str], ...]:
    if 'env' not in d:
        return ()
    if key != 'command':
        raise r.fail(
            f'{at}.env', 'only a trace job with a "command" runs anything to give variables to'
        )
    raw = d['env']
    if not isinstance(raw, dict):
        raise r.fail(
            f'{at}.env', f'expected an object of variable names to strings, got {_kind(raw)}'
        )
    env: dict[str, str] = {}
    for name, value in raw.items():
        if not _ENV_NAME.match(name):
            raise r.fail(
                f'{at}.env',
                f'{name!r} is not a variable name (letters, digits and _, '
                'not starting with a digit)',
            )
        if not isinstance(value, str):
            raise r.fail(f'{at}.env.{name}', f'expected a string, got {_kind(value)}')
        env[name] = value
    return tuple(env.items())


def _code_mutation(r: _Reader, raw: object, at: str, jobs: tuple[TraceJob, ...]) -> CodeMutation:
    d = r.obj(raw, at, ('name', 'path', 'replace'), ('traces',))
    names: tuple[str, ...] = ()
    if 'traces' in d:
        names = tuple(
            r.string(v, f'{at}.traces[{i}]')
            for i, v in enumerate(r.array(d['traces'], f'{at}.traces'))
        )
        known = {j.name for j in jobs}
        for i, name in enumerate(names):
            if name not in known:
                raise r.fail(
                    f'{at}.traces[{i}]',
                    f'no trace job named {name!r} (known: {", ".join(sorted(known)) or "none"})',
                )
    if not jobs:
        raise r.fail(at, 'a code mutation needs a trace job to reject it; add one under "traces"')
    return CodeMutation(
        name=r.string(d['name'], f'{at}.name'),
        path=r.repo_path(d['path'], f'{at}.path', r.root),
        replace=_replace(r, d['replace'], f'{at}.replace'),
        traces=names,
    )


# What a pinned jar is named by, shared with the commands that write one (commands/add_library.py).
SHA256 = re.compile(_HEX64)
JAR_URL = re.compile(r'https?://[^\s/]+/\S*\Z')
LIBRARIES_HELP = (
    'each entry is a jar, {"url": "https://.../Lib.jar", "sha256": "<64 hex>"} (optional '
    '"name"), or a folder of .tla modules, {"folder": "verification/lib"} (relative to '
    'the repository root); see docs/libraries.md'
)


def _library(r: _Reader, raw: object, at: str, folder: Path) -> Library:
    d = r.obj(raw, at, (), ('url', 'sha256', 'name', 'folder'))
    if ('url' in d) == ('folder' in d):
        raise r.fail(
            at,
            'give exactly one of "url" (a jar) or "folder" (a folder of .tla modules '
            'in the repository); ' + LIBRARIES_HELP,
        )
    if 'folder' in d:
        for key in ('sha256', 'name'):
            if key in d:
                raise r.fail(
                    f'{at}.{key}',
                    f'{key!r} belongs to a jar; a folder library is named and '
                    "trusted by its path and its modules' bytes",
                )
        # Like the spec's path, not required to exist here: the guard judges the index or a
        # commit, not the working tree. A run of TLC needs it (tlc/libraries.py says so).
        text = r.repo_path(d['folder'], f'{at}.folder', r.root)
        if (r.root / text).resolve() == folder.resolve():
            raise r.fail(
                f'{at}.folder',
                f'{text!r} is the model folder itself, whose modules TLC finds '
                'without a library entry; remove the entry',
            )
        return Library(folder=text)
    url = r.string(d['url'], f'{at}.url')
    if not JAR_URL.match(url):
        raise r.fail(
            f'{at}.url',
            f'{url!r} is not an http(s) URL of a jar; for a jar on this machine '
            'use EXECLEASE_LIBRARY_PATH (docs/libraries.md)',
        )
    if 'sha256' not in d:
        raise r.fail(
            at,
            'a jar needs "sha256": the 64 hex digits of the jar it was pinned to '
            '(sha256sum Lib.jar), checked on every use',
        )
    digest = r.string(d['sha256'], f'{at}.sha256')
    if not SHA256.match(digest):
        raise r.fail(
            f'{at}.sha256', f'expected 64 lowercase hex digits (sha256sum Lib.jar), got {digest!r}'
        )
    return Library(
        url=url, sha256=digest, name=r.string(d['name'], f'{at}.name') if 'name' in d else None
    )


TLC_VERSION = re.compile(r'\d{1,3}\.\d{1,3}\Z')
TOOLS_HELP = (
    '"tools": {"url": "https://.../tla2tools.jar", "sha256": "<64 hex>"} for the model\'s own '
    'jar, and/or "minTlc": "2.19" for the lowest TLC it needs; see docs/how-to/tla-tools.md'
)


def _tools(r: _Reader, raw: object) -> ToolsPin:
    d = r.obj(raw, 'tools', (), ('url', 'sha256', 'minTlc'))
    if not d:
        raise r.fail('tools', 'an empty "tools" says nothing; remove it, or give ' + TOOLS_HELP)
    url = r.string(d['url'], 'tools.url') if 'url' in d else None
    if url is not None and not JAR_URL.match(url):
        raise r.fail(
            'tools.url',
            f'{url!r} is not an http(s) URL of a jar; for a jar on this machine '
            'set EXECLEASE_TLA_JAR (its sha256 must be the pinned one)',
        )
    digest = r.string(d['sha256'], 'tools.sha256') if 'sha256' in d else None
    if url is not None and digest is None:
        raise r.fail(
            'tools',
            'a jar needs "sha256": the 64 hex digits of the tla2tools.jar it was '
            'pinned to (sha256sum tla2tools.jar), checked on every use',
        )
    if digest is not None and not SHA256.match(digest):
        raise r.fail(
            'tools.sha256',
            f'expected 64 lowercase hex digits (sha256sum tla2tools.jar), got {digest!r}',
        )
    least = r.string(d['minTlc'], 'tools.minTlc') if 'minTlc' in d else None
    if least is not None and not TLC_VERSION.match(least):
        raise r.fail(
            'tools.minTlc',
            f'expected a TLC version as TLC prints it, MAJOR.MINOR (e.g. "2.19"), got {least!r}',
        )
    return ToolsPin(url=url, sha256=digest, min_tlc=least)


def _libraries(r: _Reader, raw: object, folder: Path) -> tuple[Library, ...]:
    found: list[Library] = []
    seen: dict[tuple[str, str], int] = {}
    for i, value in enumerate(r.array(raw, 'libraries')):
        at = f'libraries[{i}]'
        library = _library(r, value, at, folder)
        for what, key in (
            ('folder', library.folder),
            ('jar', library.sha256),
            ('url', library.url),
        ):
            if key is None:
                continue
            if (what, key) in seen:
                raise r.fail(
                    at, f'the same {what} as libraries[{seen[(what, key)]}]; list each library once'
                )
            seen[(what, key)] = i
        found.append(library)
    return tuple(found)


def _entry(r: _Reader, raw: object, at: str) -> CoveredEntry:
    d = r.obj(
        raw,
        at,
        ('id', 'path', 'action'),
        ('function', 'region', 'within', 'hash', 'syncedBlob', 'syncReason'),
    )
    if ('function' in d) == ('region' in d):
        raise r.fail(
            at,
            'give exactly one of "function" (a qualified name) or '
            '"region" ({"from": ..., "to": ...})',
        )
    if 'within' in d and 'region' not in d:
        raise r.fail(f'{at}.within', '"within" narrows a region; it needs "region"')
    region = None
    if 'region' in d:
        reg = r.obj(d['region'], f'{at}.region', ('from', 'to'))
        region = Region(
            start=r.string(reg['from'], f'{at}.region.from'),
            end=r.string(reg['to'], f'{at}.region.to'),
        )
    entry_hash = None
    if d.get('hash') is not None:  # absent or null: never synced
        entry_hash = r.string(d['hash'], f'{at}.hash')
        if not _ENTRY_HASH.match(entry_hash):
            raise r.fail(
                f'{at}.hash',
                f'{entry_hash!r} has no known scheme; expected '
                '"ts2:sha256:<64 hex>" (or an older "ts1:..."; leave "hash" out until the '
                'first sync: execlease verify --update-coverage)',
            )
    blob = d.get('syncedBlob')
    if blob is not None and (not isinstance(blob, str) or not _BLOB.match(blob)):
        raise r.fail(
            f'{at}.syncedBlob', f'expected a git object id (40 or 64 hex) or null, got {blob!r}'
        )
    return CoveredEntry(
        id=r.string(d['id'], f'{at}.id'),
        path=r.repo_path(d['path'], f'{at}.path', r.root),
        action=r.string(d['action'], f'{at}.action'),
        function=r.string(d['function'], f'{at}.function') if 'function' in d else None,
        region=region,
        within=r.string(d['within'], f'{at}.within') if 'within' in d else None,
        hash=entry_hash,
        synced_blob=blob,
        sync_reason=r.string(d['syncReason'], f'{at}.syncReason')
        if d.get('syncReason') is not None
        else None,
    )


def _model_hash(r: _Reader, raw: object) -> str | ModelRecord | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        if not _MODEL_HASH.match(raw):
            raise r.fail(
                'coverage.modelHash', f'expected a record, "sha256:<64 hex>" or null, got {raw!r}'
            )
        return raw
    d = r.obj(raw, 'coverage.modelHash', ('scheme', 'files'))
    scheme = r.string(d['scheme'], 'coverage.modelHash.scheme')
    if scheme not in MODEL_RECORD_SCHEMES:
        raise r.fail(
            'coverage.modelHash.scheme',
            f'unknown scheme {scheme!r} (this execlease reads '
            f'{", ".join(MODEL_RECORD_SCHEMES)}); run `execlease '
            'verify --update-coverage` to record it again',
        )
    files: dict[str, str | Mapping[str, str]] = {}
    for name, value in _items(r, d['files'], 'coverage.modelHash.files'):
        at = f'coverage.modelHash.files.{name}'
        if isinstance(value, str):
            files[name] = _hex(r, value, at)
        else:
            files[name] = {
                key: _hex(r, digest, f'{at}.{key}') for key, digest in _items(r, value, at)
            }
    return ModelRecord(scheme, files)


def _items(r: _Reader, value: object, where: str) -> list[tuple[str, Any]]:
    if not isinstance(value, dict):
        raise r.fail(where, f'expected an object, got {_kind(value)}')
    return list(value.items())


def _hex(r: _Reader, value: object, where: str) -> str:
    if not isinstance(value, str) or not re.match(_HEX64, value):
        raise r.fail(
            where,
            f'expected 64 hex digits, got {value!r}; run `execlease verify '
            '--update-coverage` to record the model again',
        )
    return value


def _coverage(r: _Reader, raw: object) -> Coverage:
    d = r.obj(
        raw,
        'coverage',
        (),
        ('entries', 'syncCommit', 'modelHash', 'abstract', 'untraced', 'watch', 'ignored'),
    )
    sync = d.get('syncCommit')
    if sync is not None and (not isinstance(sync, str) or not _HEX40.match(sync)):
        raise r.fail('coverage.syncCommit', f'expected a 40-hex commit id or null, got {sync!r}')
    model_hash = _model_hash(r, d.get('modelHash'))
    entries = r.items(
        d.get('entries', []), 'coverage.entries', 'id', lambda v, at: _entry(r, v, at)
    )
    watch = tuple(
        _watch(r, v, f'coverage.watch[{i}]')
        for i, v in enumerate(r.array(d.get('watch', []), 'coverage.watch'))
    )
    ignored = tuple(
        _ignored(r, v, f'coverage.ignored[{i}]')
        for i, v in enumerate(r.array(d.get('ignored', []), 'coverage.ignored'))
    )
    from execlease_hook.manifest import watch_paths

    globs = [g for rule in watch for g in rule.paths]
    for i, item in enumerate(ignored):
        if not watch_paths.matches(globs, item.path):
            raise r.fail(
                f'coverage.ignored[{i}].path',
                f"{item.path!r} is under no watch rule's paths, so "
                'nothing would judge it; remove the item or fix the path',
            )
    return Coverage(
        sync_commit=sync,
        model_hash=model_hash,
        entries=entries,
        abstract=r.items(
            d.get('abstract', []), 'coverage.abstract', 'action', lambda v, at: _abstract(r, v, at)
        ),
        untraced=r.items(
            d.get('untraced', []),
            'coverage.untraced',
            'action',
            lambda v, at: _untraced(r, v, at, entries),
        ),
        watch=watch,
        ignored=ignored,
    )


def _untraced(
    r: _Reader, raw: object, at: str, entries: tuple[CoveredEntry, ...]
) -> UntracedAction:
    d = r.obj(raw, at, ('action', 'reason'))
    action = r.string(d['action'], f'{at}.action')
    covered = sorted({e.action for e in entries})
    if action not in covered:
        raise r.fail(
            f'{at}.action',
            f'{action!r} is the action of no covered entry, so trace action '
            f'coverage never asks for it (covered: {", ".join(covered) or "none"})',
        )
    return UntracedAction(action, r.string(d['reason'], f'{at}.reason'))


def _abstract(r: _Reader, raw: object, at: str) -> AbstractAction:
    d = r.obj(raw, at, ('action', 'reason'))
    return AbstractAction(
        r.string(d['action'], f'{at}.action'), r.string(d['reason'], f'{at}.reason')
    )


def _watch(r: _Reader, raw: object, at: str) -> WatchRule:
    d = r.obj(raw, at, ('paths',), ('strings', 'calls', 'what'))
    if ('strings' in d) == ('calls' in d):
        raise r.fail(
            at, 'give exactly one of "strings" (a regular expression) or "calls" (callee names)'
        )
    paths = tuple(
        r.repo_path(p, f'{at}.paths[{i}]', r.root)
        for i, p in enumerate(r.array(d['paths'], f'{at}.paths'))
    )
    if not paths:
        raise r.fail(f'{at}.paths', 'name at least one glob (e.g. "app/**")')
    strings = None
    if 'strings' in d:
        strings = r.string(d['strings'], f'{at}.strings')
        try:
            re.compile(strings)
        except re.error as e:
            raise r.fail(f'{at}.strings', f'not a regular expression: {e}') from None
    calls = tuple(
        r.string(c, f'{at}.calls[{i}]')
        for i, c in enumerate(r.array(d.get('calls', []), f'{at}.calls'))
    )
    if 'calls' in d and not calls:
        raise r.fail(f'{at}.calls', 'name at least one callee')
    what = r.string(d['what'], f'{at}.what') if 'what' in d else None
    if what is not None:
        groups = re.compile(strings).groups if strings is not None else 1
        try:
            what.format(*(['x'] * (groups + 1)), callee='x')
        except (IndexError, KeyError, ValueError) as e:
            raise r.fail(
                f'{at}.what',
                f'{what!r} cannot be filled in ({e}); use {{0}} for the match, '
                '{1}, {2}... for its groups, {callee} for the callee',
            ) from None
    return WatchRule(paths=paths, strings=strings, calls=calls, what=what)


def _ignored(r: _Reader, raw: object, at: str) -> IgnoredCode:
    d = r.obj(raw, at, ('path', 'function', 'reason'))
    return IgnoredCode(
        path=r.repo_path(d['path'], f'{at}.path', r.root),
        function=r.string(d['function'], f'{at}.function'),
        reason=r.string(d['reason'], f'{at}.reason'),
    )


def parse(text: str, path: Path, root: Path) -> Manifest:
    r = _Reader(path, root)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise CannotRun(f'{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}') from None
    except ValueError as e:  # an integer of thousands of digits
        raise CannotRun(f'{path}: not a usable manifest: {e}') from None
    except RecursionError:
        raise CannotRun(f'{path}: not a usable manifest: nested too deeply') from None
    d = r.obj(
        raw,
        '$',
        ('version', 'spec'),
        (
            '$schema',
            'tools',
            'libraries',
            'checks',
            'coverage',
            'mutations',
            'findings',
            'traces',
            'codeMutations',
        ),
    )
    if type(d['version']) is not int or d['version'] != VERSION:  # 1.0 and true are not 1
        raise r.fail(
            'version',
            f'unsupported version {d["version"]!r}; this execlease reads version {VERSION}',
        )
    folder = path.parent
    checks = r.items(d.get('checks', []), 'checks', 'name', lambda v, at: _check(r, v, at, folder))
    trace_jobs = r.items(
        d.get('traces', []), 'traces', 'name', lambda v, at: _trace_job(r, v, at, folder)
    )
    # A model may only fail (findings) or only catch breaks (mutations); one with no job at all
    # would verify nothing and pass.
    if isinstance(d.get('coverage'), dict) and d['coverage'].get('untraced') and not trace_jobs:
        raise r.fail(
            'coverage.untraced',
            'exempts actions from trace action coverage, but the model has '
            'no trace job; remove it or add one under "traces"',
        )
    if not checks and not d.get('mutations') and not d.get('findings') and not trace_jobs:
        raise r.fail(
            'checks',
            'name at least one job: a check (a config that must pass), a '
            'mutation or a finding (a config that must fail)',
        )
    return Manifest(
        path=path,
        root=root,
        spec=r.repo_path(d['spec'], 'spec', folder),
        checks=checks,
        mutations=r.items(
            d.get('mutations', []),
            'mutations',
            'name',
            lambda v, at: _mutation(r, v, at, folder),
        ),
        findings=r.items(
            d.get('findings', []),
            'findings',
            'id',
            lambda v, at: _finding(r, v, at, folder),
        ),
        coverage=_coverage(r, d['coverage']) if 'coverage' in d else Coverage(None, None, ()),
        covers_code='coverage' in d,
        traces=trace_jobs,
        code_mutations=r.items(
            d.get('codeMutations', []),
            'codeMutations',
            'name',
            lambda v, at: _code_mutation(r, v, at, trace_jobs),
        ),
        # For editors only (docs/manifest.md#editors-the-json-schema); its value is not read further.
        schema=r.string(d['$schema'], '$schema') if '$schema' in d else None,
        tools=_tools(r, d['tools']) if 'tools' in d else None,
        libraries=_libraries(r, d['libraries'], folder) if 'libraries' in d else (),
    )


def load(path: Path, root: Path) -> Manifest:
    path = Path(os.path.abspath(path))
    outside = paths.outside_problem(Path(os.path.abspath(root)), path)
    if outside is not None and path.exists():
        raise CannotRun(outside)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CannotRun(f'{path}: no such manifest') from None
    except OSError as e:
        raise CannotRun(f'{path}: cannot read: {e.strerror}') from None
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        raise CannotRun(f'{path}: not UTF-8 (byte {e.start}); save it as UTF-8') from None
    return parse(text, path, Path(os.path.abspath(root)))
