"""A built catalogue's atlas as the commands open and write it: its store, its export and its report."""

from __future__ import annotations

from pathlib import Path

from toolatlas.config import Catalogue
from toolatlas.errors import ToolAtlasError
from toolatlas.export import assemble
from toolatlas.pipeline.persistence import read_coverage
from toolatlas.report import write_report
from toolatlas.store.atlas import AtlasStore
from toolatlas.store.paths import AtlasPaths, open_store

__all__ = ["built_store", "require_built", "write_outputs"]


def require_built(catalogue: Catalogue) -> None:
    """Reading a catalogue's atlas that was never built is an error, not an empty atlas (and no
    store is created as a side effect)."""
    store = AtlasPaths(catalogue).store
    if catalogue.store.backend in ("edge", "local") and not store.exists():
        raise ToolAtlasError(
            f"{catalogue.source}: no atlas built yet (nothing at {store}): run `toolatlas build {catalogue.source}` first"
        )


def built_store(catalogue: Catalogue) -> AtlasStore:
    """The catalogue's atlas store, opened only if a build made it."""
    require_built(catalogue)
    return open_store(catalogue)


def write_outputs(catalogue: Catalogue, store: AtlasStore, *, everything: bool = False) -> tuple[Path, Path]:
    """Write the export (what may be served; ``everything``: every record) and the report (every record)."""
    paths = AtlasPaths(catalogue)
    coverage = read_coverage(paths.coverage)
    statuses: dict[str, str] = {}
    for row in coverage:
        statuses[row.server] = "ok" if row.status == "ok" else "failed"
    records = store.records()

    def atlas(everything: bool):  # type: ignore[no-untyped-def]
        return assemble(catalogue.name, records["tools"], records["entries"], records["traces"], records["strategies"],
                        coverage, server_status=statuses, nodes=records["servers"], everything=everything)

    paths.export.write_text(atlas(everything).model_dump_json(by_alias=True, indent=1))
    write_report(atlas(True), paths.report)
    return paths.export, paths.report
