"""A model's TLC jobs planned: each check, mutation and finding as a TlcJob with the cfg TLC is
given (spec/cfg.py), refused before anything runs when the spec may run programs, write files or
stop the search (spec/scan.py); then this run's share of them (--shard, --only: verify/shard.py)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import Check, Manifest
from execlease_hook.manifest.sections import Finding, Mutation
from execlease_hook.spec import cfg, mutation, scan
from execlease_hook.spec.modules import Module
from execlease_hook.tlc import libraries, library_modules
from execlease_hook.tlc.jar import Tools
from execlease_hook.tlc.job import TlcJob
from execlease_hook.verify import shard


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise CannotRun(
            f'{path}: cannot read the {what}: {e.strerror}; restore it or fix manifest.json'
        )


@dataclass(frozen=True)
class PlannedJob:
    job: TlcJob
    problem: str | None = None  # set: cannot run (e.g. a mutation anchor that does not match once)
    translated: bool = False  # the cfg's CHECK_DEADLOCK given to TLC as its flag (spec/cfg.py)


def shown_path(m: Manifest, path: Path) -> str:
    return path.relative_to(m.root).as_posix() if path.is_relative_to(m.root) else str(path)


def plan(m: Manifest, quick: bool, t: Tools, notes: list[str] | None = None) -> list[PlannedJob]:
    """Every job of the model (checks only when `quick`); `notes`, when given, receives what the
    run should say about the modules TLC reads (a library module shadowing a standard one)."""
    spec_text = _read(m.folder / m.spec, 'spec')
    # The jars fetched and verified, the folders read (exit 2 if not).
    model_libraries = libraries.of(m, t.settings, t.root)
    # Each root module TLC is run on (the spec, and a check's own: a wrapper MCLease.tla): its
    # text and the modules beside it (each inside the repository).
    roots: dict[str, tuple[bytes, tuple[tuple[str, bytes], ...]]] = {}
    for name in m.roots:
        path = m.folder / name
        text = spec_text if name == m.spec else _read(path, 'root module of a check')
        roots[name] = (text, paths.modules_beside(m.root, path))
    cfgs: dict[str, bytes] = {}
    # Refuse, before anything runs or is read from the cache, a model that may leave TLC or stop
    # the search (spec/scan.py): exit 2 naming the file and line.
    owners = {c.config: f'check {c.name}' for c in reversed(m.checks)}
    for mu in () if quick else m.mutations:
        owners.setdefault(mu.config, f'mutation {mu.name}')
    for f in () if quick else m.findings:
        owners.setdefault(f.config, f'finding {f.id}')
    # What TLC reads: each root and the modules it EXTENDS or INSTANCEs, from its folder, the
    # library folders and jars; a module no root imports (a library's SVG.tla) is never judged.
    folder = shown_path(m, m.folder)
    read: list[Module] = []
    for name, (text, beside) in roots.items():
        read += [
            module
            for module in library_modules.read_by(
                (Path(name).name, text),
                beside,
                model_libraries,
                t.jar.path,
                '' if folder == '.' else f'{folder}/',
            )
            if module.path not in {r.path for r in read}
        ]
    if notes is not None:
        notes.extend(library_modules.shadowing(read, t.jar.path))
    scan.refuse(
        [(module.path, module.text) for module in read],
        [
            (
                shown_path(m, m.folder / c),
                cfgs.setdefault(c, _read(m.folder / c, f'config of {owner}')),
            )
            for c, owner in owners.items()
        ],
    )

    def job(
        kind: str, name: str, entry: Check | Mutation | Finding, expect: str | None, root: str
    ) -> PlannedJob:
        """The job of a check, mutation or finding (`entry`: its config, deadlock and timeout),
        TLC run on the root module `root` beside the modules of its folder."""
        config = entry.config  # read above, with every cfg the scan judged
        given = cfg.prepare(
            cfgs[config], config, entry.deadlock, t.jar.tlc_version, f'{kind} {name}', expect
        )
        return PlannedJob(
            TlcJob(
                kind=kind,
                name=name,
                spec=Path(root).name,
                spec_text=roots[root][0],
                config=config,
                config_text=given.text,
                modules=roots[root][1],
                java=t.java.path,
                jar=t.jar.path,
                deadlock=given.deadlock,
                timeout=t.settings.tlc_timeout if entry.timeout is None else entry.timeout,
                workers=t.settings.tlc_workers,
                expect=expect,
                libraries=model_libraries,
                settings=t.settings,
            ),
            given.problem,
            given.translated,
        )

    planned = [job('check', c.name, c, None, c.spec or m.spec) for c in m.checks]
    if quick:
        return planned
    for mu in m.mutations:
        root = m.root_of(mu.config)
        edited = mu.module or m.spec
        text, beside = roots[root]
        original = text if edited == Path(root).name else dict(beside).get(edited)
        problem, mutated = None, None
        if original is None:
            problem = (
                f'mutation {mu.name}: module {edited} is not beside {root} in {folder}; name in '
                '"module" a module of the model folder that the root module reads'
            )
        else:
            try:
                mutated = mutation.apply(original, edited, mu)
            except CannotRun as e:
                problem = str(e)
            else:
                where = f'{shown_path(m, m.folder / edited)} (mutation {mu.name})'
                uses = scan.scan_module(where, mutated)
                if uses:
                    problem = f'mutation {mu.name}: ' + scan.refusal(uses)
        planned_job = job('mutation', mu.name, mu, mu.violates, root)
        if problem is not None or mutated is None:
            planned.append(dataclasses.replace(planned_job, problem=problem))
            continue
        tlc_job = planned_job.job
        if edited == Path(root).name:
            tlc_job = dataclasses.replace(tlc_job, spec_text=mutated)
        else:  # a module the root reads: its mutated copy beside the root
            tlc_job = dataclasses.replace(
                tlc_job,
                modules=tuple(
                    (name, mutated if name == edited else content) for name, content in beside
                ),
            )
        planned.append(dataclasses.replace(planned_job, job=tlc_job))
    planned += [job('finding', f.id, f, f.violates, m.root_of(f.config)) for f in m.findings]
    return planned


@dataclass
class Prepared:
    """One model's jobs, planned and selected, before any runs (`plan`: every job planned)."""

    manifest: Manifest
    planned: list[PlannedJob]
    plan: list[str]
    selection: shard.Selection | None = None
    notes: list[str] = field(default_factory=list)  # about the modules TLC reads
    # With --only: the (kind, name) of every job named.
    only: frozenset[tuple[str, str]] | None = None


def prepare(
    m: Manifest, t: Tools, quick: bool, selection: shard.Selection | None = None
) -> Prepared:
    notes: list[str] = []
    every = plan(m, quick, t, notes)
    if selection is None:
        return Prepared(m, every, names(every), selection, notes)
    only = None
    if selection.only:
        only = shard.chosen(m, [p.job for p in every], selection.only, not quick)
        every = [p for p in every if (p.job.kind, p.job.name) in only]
    planned = every
    if selection.sharded:  # the plan stays every shard's together: what `report merge` expects
        shards = shard.assign(m, [p.job for p in every], selection.count)
        planned = [p for p, k in zip(every, shards) if k == selection.index - 1]
    return Prepared(m, planned, names(every), selection, notes, only)


def names(planned: list[PlannedJob]) -> list[str]:
    """The plan's names, `kind:name` (the report's "plan")."""
    return [f'{p.job.kind}:{p.job.name}' for p in planned]
