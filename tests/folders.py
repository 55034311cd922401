"""Copying a built atlas folder for a test, holes and all.

An atlas's embedded store preallocates its write-ahead logs and segment files as sparse files: a
small atlas holds ~2 MB of data in ~776 MB of apparent size. :func:`shutil.copytree`'s plain copy
writes the holes out as zeros, so each copy of a built atlas costs ~776 MB of disk writes (a test
session makes dozens). :func:`copy_folder` copies only the data and leaves the holes holes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["copy_folder"]

_CHUNK = 1 << 20


def _copy_data(source: str, target: str) -> str:
    """``shutil.copy2`` that writes only the data regions of ``source``: its holes stay holes."""
    with open(source, "rb") as reader, open(target, "wb") as writer:
        size = os.fstat(reader.fileno()).st_size
        position = 0
        while position < size:
            try:
                start = os.lseek(reader.fileno(), position, os.SEEK_DATA)
            except OSError:  # nothing but a hole up to the end
                break
            end = os.lseek(reader.fileno(), start, os.SEEK_HOLE)
            reader.seek(start)
            writer.seek(start)
            while start < end and (chunk := reader.read(min(_CHUNK, end - start))):
                writer.write(chunk)
                start += len(chunk)
            position = end
        writer.truncate(size)
    shutil.copystat(source, target)
    return target


def copy_folder(source: Path, dest: Path) -> Path:
    """Copy the folder ``source`` into ``dest`` (created, or merged into when it exists), keeping
    sparse files sparse; returns ``dest``."""
    shutil.copytree(source, dest, copy_function=_copy_data, dirs_exist_ok=True)
    return dest
