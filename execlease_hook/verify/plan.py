"""A model's TLC jobs planned: each check, mutation and finding as a TlcJob with the cfg TLC is
given (spec/cfg.py), refused before anything runs when the spec may run programs, write files or
stop the search (spec/scan.py); then this run's share of them (`prepare`).

`verify --shard K/N` and `--only NAME...`: which jobs of a model this run takes (`--only` also
names trace jobs and code mutations, verify/trace_stage.py). Shards split the planned jobs
deterministically (the same manifest gives every CI machine the same split) and balance them by
cost: a check weighs its recorded distinct states, a mutation or finding the states of the check
that uses the same cfg (else the largest recorded count), so the big jobs spread out first. The
coverage check runs in shard 1 only; `execlease report merge` puts the shards' JSON reports back
together into one verdict.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun, CannotRunAny
from execlease_hook.manifest.model import Check, Manifest
from execlease_hook.manifest.sections import Finding, Mutation
from execlease_hook.spec import cfg, mutation, scan
from execlease_hook.spec.modules import Module
from execlease_hook.tlc import libraries, library_modules
from execlease_hook.tlc.jar import Tools
from execlease_hook.tlc.job import TlcJob
from execlease_hook.tlc.kinds import KINDS


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
    selection: Selection | None = None
    notes: list[str] = field(default_factory=list)  # about the modules TLC reads
    # With --only: the (kind, name) of every job named.
    only: frozenset[tuple[str, str]] | None = None


def prepare(m: Manifest, t: Tools, quick: bool, selection: Selection | None = None) -> Prepared:
    notes: list[str] = []
    every = plan(m, quick, t, notes)
    if selection is None:
        return Prepared(m, every, names(every), selection, notes)
    only = None
    if selection.only:
        only = chosen(m, [p.job for p in every], selection.only, not quick)
        every = [p for p in every if (p.job.kind, p.job.name) in only]
    planned = every
    if selection.sharded:  # the plan stays every shard's together: what `report merge` expects
        shards = assign(m, [p.job for p in every], selection.count)
        planned = [p for p, k in zip(every, shards) if k == selection.index - 1]
    return Prepared(m, planned, names(every), selection, notes, only)


def names(planned: list[PlannedJob]) -> list[str]:
    """The plan's names, `kind:name` (the report's "plan")."""
    return [f'{p.job.kind}:{p.job.name}' for p in planned]


@dataclass(frozen=True)
class Selection:
    index: int = 1  # K, 1-based
    count: int = 1  # N
    only: tuple[str, ...] = ()

    @property
    def sharded(self) -> bool:
        return self.count > 1

    @property
    def runs_coverage(self) -> bool:
        return self.index == 1 and not self.only

    def to_json(self) -> dict[str, object]:
        return {'index': self.index, 'count': self.count, 'only': list(self.only)}


def parse_shard(text: str) -> tuple[int, int]:
    match = re.fullmatch(r'(\d+)/(\d+)', text)
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise CannotRun(f'--shard {text}: give K/N with 1 <= K <= N, e.g. --shard 2/4')
    return int(match.group(1)), int(match.group(2))


def weight(m: Manifest, job: TlcJob) -> int:
    by_config = {c.config: c.states for c in m.checks if c.states is not None}
    largest = max(by_config.values(), default=1)
    if KINDS[job.kind].records_states:  # its own recorded count
        states = next((c.states for c in m.checks if c.name == job.name), None)
        return states if states is not None else largest
    return by_config.get(job.config, largest)


def assign(m: Manifest, jobs: Sequence[TlcJob], count: int) -> list[int]:
    """The 0-based shard of each job: greedy, heaviest first, onto the lightest shard."""
    order = sorted(
        range(len(jobs)), key=lambda i: (-weight(m, jobs[i]), jobs[i].kind, jobs[i].name)
    )
    load = [0] * count
    shard = [0] * len(jobs)
    for i in order:
        target = min(range(count), key=lambda k: (load[k], k))
        shard[i] = target
        load[target] += max(1, weight(m, jobs[i]))
    return shard


def chosen(
    m: Manifest, jobs: Sequence[TlcJob], only: Sequence[str], traced: bool = True
) -> frozenset[tuple[str, str]]:
    """The (kind, name) of every job `--only` names: the TLC jobs `jobs` and, when `traced` (not
    --quick), the model's trace jobs and code mutations. A name is a job's name, or `KIND:NAME`
    when jobs of two kinds share it (`code-mutation:unfenced` beside the spec mutation
    `unfenced`); a name two kinds share is refused, so that nothing runs that was not meant."""
    every = [(j.kind, j.name) for j in jobs]
    if traced:
        every += [('traces', j.name) for j in m.traces]
        every += [('code-mutation', c.name) for c in m.code_mutations]
    found: set[tuple[str, str]] = set()
    unknown = []
    for word in only:
        kind, sep, name = word.partition(':')
        matches = [e for e in every if e == (kind, name)] if sep and kind in KINDS else []
        matches = matches or [e for e in every if e[1] == word]
        kinds = sorted({k for k, _ in matches})
        if len(kinds) > 1:
            raise CannotRunAny(
                f'--only {word}: {" and ".join(f"a {k}" for k in kinds)} share that name in '
                f'{m.path.name}; say which: {" or ".join(f"{k}:{word}" for k in kinds)}'
            )
        if not matches:
            unknown.append(word)
        found.update(matches)
    if unknown:
        names = sorted({n for _, n in every})
        raise CannotRunAny(
            f'--only {" ".join(unknown)}: no such job in {m.path.name} '
            f'(jobs: {", ".join(names)}; KIND:NAME picks one of two of the same name)'
        )
    return frozenset(found)
