"""What `execlease add --mutation` and `--finding` put in a manifest, checked against the spec and
its cfg before anything is written (commands/add.py writes, once every check passed, and lists
the command lines).

A mutation replaces text that occurs exactly once in the spec and must make TLC fail on the named
property; a finding is a cfg (given, or a check's with some constants set) on which the property
must still be violated. The property must be one the cfg checks, a named assumption, `deadlock` or
an `assert`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
from pathlib import Path

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import Finding, Manifest, Mutation, Replace
from execlease_hook.spec import cfg_constants
from execlease_hook.spec.cfg import without_comments


def _lines_of(text: str, needle: str) -> str:
    starts = re.finditer(f'(?={re.escape(needle)})', text)  # overlapping ones too
    return ', '.join(dict.fromkeys(str(text.count('\n', 0, s.start()) + 1) for s in starts))


def _config(m: Manifest, cfg: str) -> str:
    """A cfg named on the command line (from here, or from the model folder) -> folder-relative."""
    for candidate in (Path(os.path.abspath(cfg)), m.folder / cfg):
        if candidate.is_file() and candidate.resolve().is_relative_to(m.folder.resolve()):
            return paths.rel(m.folder, candidate)
    raise CannotRun(
        f'--cfg {cfg}: no such .cfg inside the model folder {paths.rel(m.root, m.folder)}'
    )


def _check_property(m: Manifest, config: str, prop: str) -> None:
    if prop.lower() in ('deadlock', 'assert') or prop.startswith('assert:'):
        return
    spec = (m.folder / m.spec).read_text(encoding='utf-8', errors='replace')
    if re.search(rf'\b(?:ASSUME|ASSUMPTION|AXIOM)\s+{re.escape(prop)}\s*==', spec):
        return  # a named assumption
    text = without_comments((m.folder / config).read_bytes()).decode('utf-8', 'replace')
    if not re.search(rf'(?<![\w!]){re.escape(prop)}(?![\w!])', text):
        raise CannotRun(
            f'--property {prop}: {config} does not check it; add it under INVARIANT or PROPERTY '
            'there, or name the cfg that checks it with --cfg',
        )


def add_mutation(m: Manifest, options: argparse.Namespace) -> tuple[Manifest, list[str]]:
    name: str = options.mutation
    if options.property is None or options.start is None or options.to is None:
        raise CannotRun(
            f'--mutation {name}: give --property P --from TEXT --to TEXT '
            '(the spec text to replace, exactly once, and what replaces it)'
        )
    if any(mu.name == name for mu in m.mutations):
        raise CannotRun(f'mutation {name!r} exists already; choose another name')
    text = (m.folder / m.spec).read_text(encoding='utf-8')
    count = text.count(options.start)
    if count != 1:
        where = f'occurs {count} times (lines {_lines_of(text, options.start)}); make it longer'
        where = where if count else 'does not occur'
        raise CannotRun(f'--from `{options.start}` {where} in {m.spec}: it must occur exactly once')
    if options.start == options.to:
        raise CannotRun('--from and --to are the same text: nothing would be mutated')
    config = _config(m, options.cfg) if options.cfg else m.checks[0].config
    _check_property(m, config, options.property)
    replace = Replace(start=options.start, to=options.to)
    mutation = Mutation(name=name, config=config, violates=options.property, replace=replace)
    line = _lines_of(text, options.start)
    return dataclasses.replace(m, mutations=(*m.mutations, mutation)), [
        f'added mutation {name}: {m.spec}:{line} `{options.start}` -> `{options.to}`, with '
        f'{config}; `execlease verify` must see it fail on {options.property}',
    ]


def set_constants(text: str, settings: list[str], where: str) -> str:
    """The cfg text with each CONST=VALUE of `settings` assigned instead of its value there
    (cfg_constants.override, the one replacer), each refused unless assigned once on one line."""
    spans = cfg_constants.assignments(text)
    given: dict[str, str] = {}
    for setting in settings:
        name, sep, value = setting.partition('=')
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise CannotRun(f'--set {setting!r}: give CONST=VALUE')
        found = spans.get(name, [])
        if len(found) != 1:
            what = 'is not assigned' if not found else f'is assigned {len(found)} times'
            raise CannotRun(
                f'--set {setting}: {name} {what} in {where}; assign it there once '
                '(one `NAME = value` line), or copy the cfg yourself and give --cfg'
            )
        old = text[found[0][0] : found[0][1]]
        if '\n' in old:
            raise CannotRun(
                f'--set {setting}: the value of {name} in {where} spans several lines; '
                'copy the cfg yourself, edit it and give --cfg'
            )
        given[name] = f'<- {value}' if old.startswith('<-') else value
    return cfg_constants.override(text, list(given.items()))


def add_finding(
    m: Manifest, options: argparse.Namespace
) -> tuple[Manifest, list[str], tuple[Path, str] | None]:
    """The new manifest, what to say, and the derived cfg to write first (path, text), if any."""
    name: str = options.finding
    if options.property is None:
        raise CannotRun(f'--finding {name}: give --property P, the property it must still violate')
    if (options.cfg is None) == (options.from_check is None):
        raise CannotRun(
            f'--finding {name}: give --cfg FILE, or --from-check CHECK --set CONST=VALUE'
        )
    if any(f.id == name for f in m.findings):
        raise CannotRun(f'finding {name!r} exists already; choose another name')
    new_cfg = None
    if options.cfg is not None:
        config = _config(m, options.cfg)
        _check_property(m, config, options.property)
    else:
        check = next((c for c in m.checks if c.name == options.from_check), None)
        if check is None:
            names = ', '.join(c.name for c in m.checks)
            raise CannotRun(f'--from-check {options.from_check}: no such check (checks: {names})')
        if not options.set:
            raise CannotRun(
                '--from-check: give the constants that make the finding with --set CONST=VALUE'
            )
        config = f'findings/{name}.cfg'
        target = m.folder / config
        if target.exists():
            raise CannotRun(
                f'{paths.rel(m.root, target)} exists; left alone: give it with --cfg instead'
            )
        _check_property(m, check.config, options.property)
        source = (m.folder / check.config).read_text(encoding='utf-8')
        new_cfg = (target, set_constants(source, list(options.set), check.config))
    summary = options.summary or ''
    finding = Finding(id=name, config=config, violates=options.property, summary=summary)
    said = [f'added finding {name}: {config} must still violate {options.property}']
    if new_cfg is not None:
        wrote = f"wrote {paths.rel(m.root, new_cfg[0])}: {options.from_check}'s config with "
        said.insert(0, wrote + ', '.join(options.set))
    return dataclasses.replace(m, findings=(*m.findings, finding)), said, new_cfg
