"""The warm JVMs' helper (`helper/ExecleaseTlcSpare.java`, tlc/spare.py), compiled with javac.

Compiled at first use (docs/architecture.md#the-jvm-of-a-tlc-job); when a javac was there and
failed (a full disk, say), one note says so. One javac per helper runs in a process;
its work folder (`.spare-<hash>.<random>`, core/scratch.py) is removed on every path: compiled,
failed, a race lost to another run, Ctrl-C, and the process's exit, which gives a javac still
running EXIT_WAIT seconds to finish, then stops it; a killed run's is swept by the next (`sweep`).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import hashlib
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

from execlease_hook.core import housekeeping, procs, scratch
from execlease_hook.core.settings import Settings
from execlease_hook.tlc import cds
from execlease_hook.tlc.java import java_identity
from execlease_hook.tlc.kinds import C1_ONLY

SOURCE = Path(__file__).with_name('helper') / 'ExecleaseTlcSpare.java'
MAIN = 'ExecleaseTlcSpare'
COMPILE_TIMEOUT = 300.0  # seconds for javac; a work folder without a mark older than this is stale
# javac's own JVM: one small file is compiled before C2 or a parallel collector pays for its
# threads; with these the compile takes about 40% less CPU (measured: 1.6 s -> 0.95 s).
JAVAC_JVM = (f'-J{C1_ONLY}', '-J-XX:+UseSerialGC')
# At the process's normal exit, a javac still running gets this long to finish (once per Java:
# a short cold run would otherwise never keep a helper); then it is stopped. Ctrl-C waits for none.
EXIT_WAIT = 10.0

_lock = threading.Lock()
# Process-wide on purpose: helper folder -> its compile's answer (the folder, or None: it cannot
# be compiled), so that one javac runs per helper, whichever job thread asks first; the others
# wait for its answer, and the process's exit waits for those still running.
_helpers: dict[Path, concurrent.futures.Future[Path | None]] = {}
# Process-wide on purpose: the threads starting a spare in the background (`in_background`).
# They are daemons, so that Ctrl-C never waits for them; the process's normal exit joins them
# after cancelling, or a thread frozen by the interpreter's shutdown between making a spare's
# folder and removing it would leave the folder behind (seen with four runs at once, loaded).
_background: set[threading.Thread] = set()


def _javac(java: Path, settings: Settings) -> Path | None:
    if settings.javac:
        return Path(settings.javac)
    real = Path(shutil.which(str(java)) or java).resolve()
    candidate = real.parent / ('javac.exe' if real.suffix == '.exe' else 'javac')
    return candidate if candidate.is_file() else None


def helper_folder(java: Path, jar: Path, settings: Settings) -> Path | None:
    """Where the compiled helper for this Java lives (compiled or not yet), or None: no javac."""
    identity = java_identity(java)
    javac = _javac(java, settings)
    if identity is None or javac is None:
        return None
    h = hashlib.sha256(
        SOURCE.read_bytes() + b'\0' + identity[1].encode() + b'\0' + str(javac).encode()
    )
    return cds.archive_folder(jar, settings) / f'spare-{h.hexdigest()[:32]}'


def compile_helper(java: Path, jar: Path, settings: Settings) -> Path | None:
    """The folder holding the compiled helper, compiling it now if needed; None if it cannot be.
    One javac per helper in this process: another caller waits for its answer, and a failed
    compile is not tried again (an interrupted one is)."""
    target, javac = helper_folder(java, jar, settings), _javac(java, settings)
    if target is None or javac is None:
        return None
    with _lock:
        answer = _helpers.get(target)
        mine = answer is None
        if answer is None:
            answer = _helpers[target] = concurrent.futures.Future()
    if not mine:
        return answer.result()
    found: Path | None = None
    stopped = True
    try:
        found = target if (target / f'{MAIN}.class').is_file() else _compile(javac, target)
        stopped = False
    except KeyboardInterrupt:
        if not procs.cancelled():
            raise  # a real Ctrl-C in this thread: the run stops
    finally:
        if stopped:  # stopped (Ctrl-C, the process's exit), or a bug: a later run tries again
            with _lock:
                del _helpers[target]
        answer.set_result(found)
    return found


def _compile_failure(target: Path, why: str) -> None:
    housekeeping.note(
        f'the warm-JVM helper could not be compiled into {target.parent} ({why}); each TLC job ran '
        'in a JVM of its own, a little slower. Free disk space there, or set EXECLEASE_JVM_SPARE=0'
    )


def _compile(javac: Path, target: Path) -> Path | None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = scratch.make(f'.{target.name}.', target.parent)
    except OSError as e:
        _compile_failure(target, f'cannot make a folder there: {e.strerror or e}')
        return None
    classes = work / 'classes'  # javac's output, renamed into place whole: the mark stays behind
    try:
        code, said = procs.run(
            (str(javac), *JAVAC_JVM, '-nowarn', '-d', str(classes), str(SOURCE)),
            COMPILE_TIMEOUT,
            folder=work,
        )
        if code is None:
            _compile_failure(target, f'javac took more than {COMPILE_TIMEOUT:g} s')
            return None
        if code != 0 or not (classes / f'{MAIN}.class').is_file():
            lines = (line.strip() for line in said.decode('utf-8', 'replace').splitlines())
            first = next((line for line in lines if line), f'exit code {code}')
            _compile_failure(target, f'javac said: {first}')
            return None
        # Whole folder or nothing: a reader never sees a part. An OSError: another run placed it
        # first, a race lost; its copy is the same.
        with contextlib.suppress(OSError):
            os.replace(classes, target)
        return target if (target / f'{MAIN}.class').is_file() else None
    except OSError as e:
        _compile_failure(target, f'javac could not run: {e.strerror or e}')
        return None
    finally:
        scratch.remove(work)


def sweep(folder: Path) -> None:
    """Remove the work folders killed runs' javacs left in the archive folder: a marked one whose
    maker is gone, after stopping its javac; an unmarked one, from an execlease before the marks,
    once older than any compile."""
    scratch.sweep(folder, '.spare-')
    for entry in folder.glob('.spare-*'):  # none when the folder cannot be read
        with contextlib.suppress(OSError):
            if (
                entry.is_dir()
                and not entry.is_symlink()
                and not (entry / scratch.MARK).exists()
                and time.time() - entry.stat().st_mtime > COMPILE_TIMEOUT
            ):
                shutil.rmtree(entry, ignore_errors=True)


def ready(java: Path, jar: Path, settings: Settings) -> Path | None:
    """The compiled helper if ready; otherwise compiles it in the background and says None."""
    target = helper_folder(java, jar, settings)
    if target is None:
        return None  # no javac: nothing to compile
    with _lock:
        answer = _helpers.get(target)
    if answer is None:
        in_background(compile_helper, java, jar, settings)
    return answer.result() if answer is not None and answer.done() else None


def in_background(work: Callable[..., object], *args: object) -> None:
    """`work(*args)` in a thread of its own; stopped by Ctrl-C or the process's exit
    (KeyboardInterrupt from core/procs.py), it just ends."""

    def run() -> None:
        try:
            with contextlib.suppress(KeyboardInterrupt):
                work(*args)
        finally:
            with _lock:
                _background.discard(thread)

    thread = threading.Thread(target=run, name='execlease-spare', daemon=True)
    with _lock:
        _background.add(thread)
    thread.start()


def _at_exit() -> None:
    """At the process's normal exit a javac still running gets EXIT_WAIT seconds to finish;
    then whatever still runs is stopped as by Ctrl-C (which also refuses any later start), and
    the compile threads and the threads starting a spare get a moment to remove their folders."""
    with _lock:
        compiles = list(_helpers.values())
    concurrent.futures.wait(compiles, EXIT_WAIT)
    procs.cancel_all()
    concurrent.futures.wait(compiles, EXIT_WAIT)
    with _lock:
        starting = list(_background)
    deadline = time.monotonic() + EXIT_WAIT
    for thread in starting:  # a spare being started stops itself once cancelled; let it finish
        thread.join(max(0.0, deadline - time.monotonic()))


atexit.register(_at_exit)
