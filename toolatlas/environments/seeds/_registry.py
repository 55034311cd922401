"""The seed registry and the helpers every generator uses to stay byte-for-byte deterministic.

A generator is a plain function ``build(dest)`` registered with :func:`seed` under a name and
the environment kind whose state entry it writes. Nothing a generator writes may depend on the
clock, the machine, the umask or the user's configuration: contents come from fixed data or
:class:`Draw`, modes are set explicitly and times are pinned to :data:`FIXED_EPOCH`.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

__all__ = ["FIXED_EPOCH", "SEEDS", "Draw", "Seed", "pin_times", "seed", "write_bytes", "write_text"]

FIXED_EPOCH = 1_704_067_200
"""2024-01-01T00:00:00Z: the mtime of every file a seed writes, and the base of its dates."""

T = TypeVar("T")


class Seed(NamedTuple):
    """A registered generator and the environment kind whose state entry it writes."""

    kind: str
    build: Callable[[Path], None]


SEEDS: dict[str, Seed] = {}


def seed(name: str, *, kind: str) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    """Register ``build(dest)`` as the seed ``name`` for environment ``kind``."""

    def register(build: Callable[[Path], None]) -> Callable[[Path], None]:
        if name in SEEDS:
            raise ValueError(f"seed {name!r} is registered twice")
        SEEDS[name] = Seed(kind, build)
        return build

    return register


class Draw:
    """Reproducible pseudo-random choices built only on ``Random.random()``.

    ``random()`` is the one method whose sequence Python guarantees across versions for a given
    integer seed (``choice``/``randrange`` have changed in the past), so everything derives from it.
    """

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def below(self, n: int) -> int:
        return int(self._random.random() * n)

    def between(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        return low + self.below(high - low + 1)

    def pick(self, options: Sequence[T]) -> T:
        return options[self.below(len(options))]

    def chance(self, p: float) -> bool:
        return self._random.random() < p


def write_text(path: Path, text: str, mode: int = 0o644) -> None:
    """Write UTF-8 text with ``\\n`` line ends and an explicit mode (never the umask's)."""
    write_bytes(path, text.encode("utf-8"), mode)


def write_bytes(path: Path, data: bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.chmod(path, mode)


def pin_times(root: Path, *, exclude: frozenset[str] = frozenset()) -> None:
    """Set the mtime/atime of ``root`` and everything under it to :data:`FIXED_EPOCH`, folders last."""
    for folder, dirs, files in os.walk(root, topdown=False):
        if exclude.intersection(Path(folder).relative_to(root).parts):
            continue
        for name in files + [d for d in dirs if d not in exclude]:
            os.utime(os.path.join(folder, name), (FIXED_EPOCH, FIXED_EPOCH), follow_symlinks=False)
    os.utime(root, (FIXED_EPOCH, FIXED_EPOCH))
