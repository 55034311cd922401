"""Fixtures of the serving tests: a small atlas built for real, and the service running it.

The atlas is an offline build of the demo catalogue's ``time`` and ``git`` servers (bootstrap and
two rounds, one rollout per seed task), in a copy of ``configs/demo.toml`` whose store lives in a
temporary directory.
The service is ``toolatlas serve`` in a subprocess on a free port, reached over real HTTP.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from service_process import REPO, ROUNDS, SERVERS, TOKEN, BuiltAtlas, demo_copy, start_service

from toolatlas.config import load_catalogue
from toolatlas.guidance import Atlas
from toolatlas.home import Home
from toolatlas.pipeline.catalogue import build_catalogue
from toolatlas.serve.process import ServiceProcess
from toolatlas.store.paths import open_store
from toolatlas.workspace import Workspace


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuiltAtlas:
    """The time + git atlas, built offline against the real servers, its store closed again."""
    directory = tmp_path_factory.mktemp("serve-atlas")
    config = demo_copy(directory)
    catalogue = load_catalogue(config)
    store = open_store(catalogue)
    try:
        asyncio.run(build_catalogue(Workspace(catalogue, Home(REPO / ".toolatlas")), store,
                                    servers=[catalogue.server(name) for name in SERVERS], rounds=ROUNDS))
    finally:
        store.close()
    return BuiltAtlas(config=config, atlas=Atlas.open(config))


@pytest.fixture(scope="module")
def service(built: BuiltAtlas) -> Iterator[ServiceProcess]:
    """``toolatlas serve CONFIG --transport http --token …``: the catalogue's store read once, then served."""
    running = start_service(str(built.config), token=TOKEN)
    yield running
    running.stop()


@pytest.fixture()
def client(service: ServiceProcess) -> Iterator[httpx.Client]:
    """An HTTP client that sends the service's bearer token."""
    with httpx.Client(base_url=service.url, headers=service.headers, timeout=10.0) as http:
        yield http
