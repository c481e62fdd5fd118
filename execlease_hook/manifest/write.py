"""The data model -> manifest.json: key order kept, 2-space indent, a trailing newline, written
atomically, so a sync shows as a small diff.
"""

from __future__ import annotations

import json
from pathlib import Path

from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.manifest.model import (
    VERSION,
    CodeMutation,
    Coverage,
    CoveredEntry,
    Library,
    Manifest,
    ModelRecord,
    TraceJob,
)


def _entry_json(e: CoveredEntry) -> dict[str, object]:
    out: dict[str, object] = {'id': e.id, 'path': e.path}
    if e.function is not None:
        out['function'] = e.function
    if e.within is not None:
        out['within'] = e.within
    if e.region is not None:
        out['region'] = {'from': e.region.start, 'to': e.region.end}
    out['action'] = e.action
    if e.hash is not None:
        out['hash'] = e.hash
    if e.synced_blob is not None:
        out['syncedBlob'] = e.synced_blob
    if e.sync_reason is not None:
        out['syncReason'] = e.sync_reason
    return out


def _optional(out: dict[str, object], key: str, value: object, default: object) -> None:
    if value != default:
        out[key] = value


def to_json(m: Manifest) -> dict[str, object]:
    checks = []
    for c in m.checks:
        item: dict[str, object] = {'name': c.name, 'config': c.config}
        _optional(item, 'spec', c.spec, None)
        _optional(item, 'states', c.states, None)
        _optional(item, 'deadlock', c.deadlock, None)
        _optional(item, 'timeout', c.timeout, None)
        if c.deep is not None:
            deep: dict[str, object] = {'constants': dict(c.deep.constants)}
            _optional(deep, 'timeout', c.deep.timeout, None)
            _optional(deep, 'states', c.deep.states, None)
            item['deep'] = deep
        checks.append(item)
    mutations = []
    for mu in m.mutations:
        item = {'name': mu.name, 'config': mu.config}
        _optional(item, 'module', mu.module, None)
        _optional(item, 'within', mu.within, None)
        item.update(
            {
                'replace': {'from': mu.replace.start, 'to': mu.replace.to},
                'violates': mu.violates,
            }
        )
        _optional(item, 'deadlock', mu.deadlock, None)
        _optional(item, 'timeout', mu.timeout, None)
        mutations.append(item)
    findings = []
    for f in m.findings:
        item = {'id': f.id, 'config': f.config, 'violates': f.violates}
        _optional(item, 'summary', f.summary, '')
        _optional(item, 'deadlock', f.deadlock, None)
        _optional(item, 'timeout', f.timeout, None)
        findings.append(item)
    out: dict[str, object] = {} if m.schema is None else {'$schema': m.schema}
    out.update({'version': VERSION, 'spec': m.spec})
    if m.tools is not None:
        out['tools'] = {
            k: v
            for k, v in (
                ('url', m.tools.url),
                ('sha256', m.tools.sha256),
                ('minTlc', m.tools.min_tlc),
            )
            if v is not None
        }
    if m.libraries:
        out['libraries'] = [_library_json(lib) for lib in m.libraries]
    out.update(
        {
            'checks': checks,
            'mutations': mutations,
            'findings': findings,
        }
    )
    if m.traces:
        out['traces'] = [_trace_job_json(t) for t in m.traces]
    if m.code_mutations:
        out['codeMutations'] = [_code_mutation_json(c) for c in m.code_mutations]
    if not m.covers_code:
        return out  # a model of no code: no "coverage" (manifest/read.py reads it so)
    out['coverage'] = {
        'syncCommit': m.coverage.sync_commit,
        'modelHash': _model_hash_json(m.coverage.model_hash),
        'entries': [_entry_json(e) for e in m.coverage.entries],
        **_declarations_json(m.coverage),
    }
    return out


def _library_json(lib: Library) -> dict[str, object]:
    if lib.folder is not None:
        return {'folder': lib.folder}
    item: dict[str, object] = {} if lib.name is None else {'name': lib.name}
    item.update({'url': lib.url, 'sha256': lib.sha256})
    return item


def _trace_job_json(t: TraceJob) -> dict[str, object]:
    item: dict[str, object] = {'name': t.name, 'spec': t.spec, 'config': t.config}
    if t.files:
        item['files'] = list(t.files)
    if t.command:
        item['command'] = list(t.command)
    _optional(item, 'timeout', t.timeout, None)
    if t.env:
        item['env'] = dict(t.env)
    if t.line != 'l':
        item['line'] = t.line
    if t.fields is not None:
        item['fields'] = (
            {'keep': list(t.fields.keep)}
            if t.fields.keep is not None
            else {'drop': list(t.fields.drop)}
        )
    return item


def _code_mutation_json(c: CodeMutation) -> dict[str, object]:
    item: dict[str, object] = {
        'name': c.name,
        'path': c.path,
        'replace': {'from': c.replace.start, 'to': c.replace.to},
    }
    if c.traces:
        item['traces'] = list(c.traces)
    return item


def _declarations_json(c: Coverage) -> dict[str, object]:
    out: dict[str, object] = {}
    if c.abstract:
        out['abstract'] = [{'action': a.action, 'reason': a.reason} for a in c.abstract]
    if c.untraced:
        out['untraced'] = [{'action': a.action, 'reason': a.reason} for a in c.untraced]
    if c.watch:
        rules = []
        for w in c.watch:
            rule: dict[str, object] = {'paths': list(w.paths)}
            if w.strings is not None:
                rule['strings'] = w.strings
            if w.calls:
                rule['calls'] = list(w.calls)
            if w.what is not None:
                rule['what'] = w.what
            rules.append(rule)
        out['watch'] = rules
    if c.ignored:
        out['ignored'] = [
            {'path': i.path, 'function': i.function, 'reason': i.reason} for i in c.ignored
        ]
    return out


def _model_hash_json(value: str | ModelRecord | None) -> object:
    if not isinstance(value, ModelRecord):
        return value
    files = {
        name: digest if isinstance(digest, str) else dict(digest)
        for name, digest in value.files.items()
    }
    return {'scheme': value.scheme, 'files': files}


def dump(m: Manifest) -> str:
    return json.dumps(to_json(m), indent=2, ensure_ascii=False) + '\n'


def write(path: Path, m: Manifest) -> None:
    write_text_atomic(path, dump(m))
