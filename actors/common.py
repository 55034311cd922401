"""What every actor does first: configure logging and load the catalogue where it runs."""

from __future__ import annotations

from pathlib import Path

from toolatlas.config import Catalogue, load_catalogue
from toolatlas.home import Home
from toolatlas.logs import configure_logging
from toolatlas.workspace import Workspace

__all__ = ["actor_workspace"]


def actor_workspace(config: str, store_path: str | None = None) -> Workspace:
    """The catalogue, loaded on this node (paths resolve here), as a workspace under this node's home."""
    configure_logging()
    catalogue: Catalogue = load_catalogue(Path(config))
    if store_path is not None:
        catalogue = catalogue.model_copy(update={"store": catalogue.store.model_copy(update={"path": store_path})})
    return Workspace(catalogue, Home.default())
