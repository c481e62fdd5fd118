"""The hooks `execlease init` writes or prints, and the config that holds them; which hooks, and
why the published ones by default, is in
docs/architecture.md#the-other-commands-coverage-init-add-tools-report. The published hooks come
from the repository and commit this execlease was installed from (`core/origin.py`), so that the
hooks and the command line are one version; an install pip recorded no git origin for (a folder,
a wheel, an editable clone) gets `language: system` hooks with a note, unless `--hooks-repo` and
`--hooks-rev` name the repository.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core import origin
from execlease_hook.core.errors import CannotRun

GUARD_ID, VERIFY_ID = 'execlease-guard', 'execlease-verify'
# The ids before they said what they run: for one release they run the same commands and say
# what to change (`--renamed-hook` of guard and verify); then they go.
RENAMED = {'execlease-coverage': GUARD_ID, 'execlease-tlc': VERIFY_ID}


@dataclass(frozen=True)
class HookPlan:
    """Which hooks, from where: `repo`/`rev` for the published hooks, None for `system` ones."""

    repo: str | None
    rev: str | None
    version: str | None = None  # the installed execlease's, for a comment beside `rev`
    extras: tuple[str, ...] = ()  # the verify hook's additional_dependencies
    note: str | None = None  # why the hooks are `system` ones when nobody asked


def plan(kind: str | None, repo: str | None, rev: str | None) -> HookPlan:
    """The hooks for `--hooks KIND` (None: python when the origin is known, else system)."""
    if (repo is None) != (rev is None):
        raise CannotRun(
            '--hooks-repo and --hooks-rev go together: the git URL of execlease and '
            'the tag or commit its hooks are built from'
        )
    if kind == 'system':
        if repo is not None:
            raise CannotRun(
                '--hooks system runs the execlease of your environment: leave out '
                '--hooks-repo and --hooks-rev'
            )
        return HookPlan(None, None)
    found = origin.installed()
    extras = origin.extras_requirements()
    if repo is not None and rev is not None:
        return HookPlan(repo, rev, None, extras)
    if found.url is not None and found.commit is not None:
        return HookPlan(found.url, found.commit, found.version, extras)
    where = found.pip_spec or 'a package index'
    if kind == 'python':
        raise CannotRun(
            f'--hooks python: this execlease was installed from {where}, not from git, '
            'so init cannot tell which repository and commit pre-commit should build '
            'the hooks from; name them with --hooks-repo URL --hooks-rev TAG'
        )
    return HookPlan(
        None,
        None,
        note=(
            f'the hooks run the execlease of your environment (language: system): this execlease was '
            f'installed from {where}, not from git, so a commit from a shell or git client without it '
            'on PATH fails. To have pre-commit build the hooks itself, run init again with '
            '--hooks-repo URL --hooks-rev TAG (the git URL of execlease and a tag of it).'
        ),
    )


def _scalar(text: str) -> str:
    """A YAML scalar for a path or URL: plain when it is safe so, else double-quoted."""
    return text if re.fullmatch(r'[\w./@+~:=-]+', text) and ': ' not in text else json.dumps(text)


def hooks(p: HookPlan, model: str | None) -> str:
    """The entry of `repos:` (its lines, each ending in a newline)."""
    if p.repo is None:
        option = '' if model is None else f' --model {model}'
        return f"""\
-   repo: local
    hooks:
    -   id: {GUARD_ID}
        name: execlease guard
        entry: execlease guard{option}
        language: system
        stages: [pre-commit, pre-merge-commit]
        always_run: true
        require_serial: true
    -   id: {VERIFY_ID}
        name: execlease verify
        entry: execlease verify --pushed{option}
        language: system
        stages: [manual, pre-push]
        pass_filenames: false
        always_run: true
        require_serial: true
"""
    assert p.repo is not None and p.rev is not None
    args = '' if model is None else f'        args: [--model, {_scalar(model)}]\n'
    version = f'  # execlease {p.version}' if p.version else ''
    extras = ', '.join(_scalar(e) for e in p.extras)
    extras = f'        additional_dependencies: [{extras}]\n' if extras else ''
    return (
        f'-   repo: {_scalar(p.repo)}\n'
        f'    rev: {_scalar(p.rev)}{version}\n'
        '    hooks:\n'
        f'    -   id: {GUARD_ID}\n'
        f'{args}'
        f'    -   id: {VERIFY_ID}\n'
        f'{args}{extras}'
    )


def config_text(p: HookPlan, model: str | None) -> str:
    """A whole config file of both hooks (`model`: the --model they pass, None for the
    default)."""
    how = (
        '# The execlease of your environment runs them (language: system): keep it on PATH\n'
        '# for every git client.\n'
        if p.repo is None
        else "# pre-commit builds them from execlease's repository at `rev`, so every git client\n"
        '# runs them; `pre-commit autoupdate` moves `rev` to a newer tag.\n'
    )
    return (
        '# execlease: the guard on every commit, the TLC suite on push and by hand\n'
        f'# (`pre-commit run --hook-stage manual {VERIFY_ID}`).\n{how}'
        f'minimum_pre_commit_version: 3.2.0\n{INSTALL_TYPES_LINE}\nrepos:\n{hooks(p, model)}'
    )


# Without it a plain `pre-commit install` installs the pre-commit hook only: merges (a merge
# without conflicts runs pre-merge-commit) and pushes would go unguarded, without a word.
HOOK_TYPES = ('pre-commit', 'pre-merge-commit', 'pre-push')
INSTALL_TYPES_LINE = f'default_install_hook_types: [{", ".join(HOOK_TYPES)}]'


def missing_hook_types(config: str) -> tuple[str, ...] | None:
    """The hook types an existing config's top-level `default_install_hook_types` lacks (read as
    text: the flow form `[a, b]` or one `- a` line each); None when it has no such key."""
    lines = config.splitlines()
    for i, line in enumerate(lines):
        match = re.match(r'default_install_hook_types\s*:\s*(.*?)\s*(?:#.*)?$', line)
        if match is None:
            continue
        value = match.group(1)
        if value.startswith('['):
            names = {n.strip().strip('\'"') for n in value.strip('[]').split(',')}
        else:
            names = set()
            for item in lines[i + 1 :]:
                found = re.match(r'\s*-\s*([\w-]+)', item)
                if found is None:
                    break
                names.add(found.group(1).strip('\'"'))
        return tuple(t for t in HOOK_TYPES if t not in names)
    return None


class Verbatim(str):
    """A line printed as it is: YAML and commands a person pastes are never wrapped."""


def existing_config(config: Path, p: HookPlan, model: str | None) -> list[str]:
    """What to add to a .pre-commit-config.yaml that exists: the hooks, and the hook types a
    plain `pre-commit install` must install when the file does not name them all."""
    try:
        text = config.read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError) as e:
        raise CannotRun(f'{config}: cannot read it ({e}); add the hooks yourself') from None
    missing = missing_hook_types(text)
    if missing is None:
        lines = [
            'left alone: .pre-commit-config.yaml exists; add this line at its top level, so that '
            '`pre-commit install` installs the hooks for commits, merges and pushes:',
            '',
            Verbatim(INSTALL_TYPES_LINE),
            '',
            'and these hooks under its `repos:`:',
        ]
    elif missing:
        lines = [
            'left alone: .pre-commit-config.yaml exists; its default_install_hook_types lacks '
            f'{", ".join(missing)}: add {"it" if len(missing) == 1 else "them"} there, so that '
            '`pre-commit install` installs the hooks for commits, merges and pushes; and add these '
            'hooks under its `repos:`:'
        ]
    else:
        lines = ['left alone: .pre-commit-config.yaml exists; add these hooks under its `repos:`:']
    lines += ('', *map(Verbatim, hooks(p, model).splitlines()))
    if missing == ():
        return [*lines, '', 'then run `pre-commit install`']
    return [
        *lines,
        '',
        'then run `pre-commit install`; or, leaving the file as it is, install each hook type by '
        'name:',
        '',
        Verbatim('pre-commit install ' + ' '.join(f'--hook-type {h}' for h in HOOK_TYPES)),
    ]
