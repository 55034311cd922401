"""Fixtures of the pipeline tests: the small build of two demo servers (:mod:`small_builds`), made once
for the tests that compare with it or extend it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from folders import copy_folder
from small_builds import build_at


@pytest.fixture(scope="session")
def small_build(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """``small_build(dest)``: the atlas folder of the uninterrupted small build, copied to ``dest``
    (built once per test session: the lost-round tests' reference, the atlas a killed build extends)."""
    built = tmp_path_factory.mktemp("small-build") / "atlas"
    build_at(built)
    return lambda dest: copy_folder(built, dest)
