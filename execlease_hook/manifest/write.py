"""The data model -> manifest.json: each object's keys in the order the schema declares them
(schemas/manifest.schema.json), a key left out while it holds its default, 2-space indent, a
trailing newline, written atomically, so a sync shows as a small diff.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.manifest import model, schema

# Written even when empty or null: a sync fills them in, and a reader of the file sees where.
ALWAYS = frozenset(('checks', 'mutations', 'findings', 'syncCommit', 'modelHash', 'entries'))


@functools.cache
def _defaults(cls: type) -> dict[str, object]:
    return {
        f.name: f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
        for f in dataclasses.fields(cls)
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    }


def _json(value: object, node: dict[str, Any]) -> object:
    node = schema.resolve(node)
    if isinstance(value, tuple):
        if node.get('type') == 'object':  # (name, value) pairs: env, a deep run's constants
            return dict(value)
        return [_json(item, node.get('items', {})) for item in value]
    if isinstance(value, Mapping):
        return {key: _json(item, {}) for key, item in value.items()}
    cls: type = type(value)
    if not dataclasses.is_dataclass(cls):
        return value
    if 'properties' not in node:  # modelHash: null, an older string, or the record
        node = next(b for b in node['oneOf'] if b.get('type') == 'object')
    out: dict[str, object] = {}
    names, defaults = model.json_keys(cls), _defaults(cls)
    for key, sub in node['properties'].items():
        if key == 'version':
            out[key] = model.VERSION
            continue
        field_value = getattr(value, names[key])
        if isinstance(value, model.Manifest) and key == 'coverage':
            if value.covers_code:  # a model of no code has no "coverage" (read so, too)
                out[key] = _json(field_value, sub)
            continue
        if key in ALWAYS or field_value != defaults.get(names[key], dataclasses.MISSING):
            out[key] = _json(field_value, sub)
    return out


def dump(m: model.Manifest) -> str:
    return json.dumps(_json(m, schema.SCHEMA), indent=2, ensure_ascii=False) + '\n'


def write(path: Path, m: model.Manifest) -> None:
    write_text_atomic(path, dump(m))
