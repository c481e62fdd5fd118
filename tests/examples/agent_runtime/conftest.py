"""The folder the example's databases go in."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from examples.agent_runtime import schema


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A folder for the runtime's database and effect log, on memory-backed storage where there
    is one (schema.scratch_folder): every commit syncs, and on a disk busy with other work those
    syncs, not the workers, would set how long a run of many turns takes. Removed after the test;
    what a failing run leaves to read is in its report and its assertion (each worker's stderr)."""
    with tempfile.TemporaryDirectory(
        prefix='agent-runtime-', dir=schema.scratch_folder()
    ) as folder:
        yield Path(folder)
