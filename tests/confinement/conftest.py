"""The world a hostile server attacks, fresh for each test (see :mod:`hostile_kit`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_kit import HostileWorld, make_world


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[HostileWorld]:
    yield from make_world(tmp_path)
