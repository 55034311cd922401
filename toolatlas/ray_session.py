"""Ray for one command: the cluster at an address, else a local instance that ends with the command.

Imported only by the commands that run on Ray (``build --engine ray``, ``refresh``, ``verify``,
``serve --engine ray-serve``, ...); importing this module does not import Ray.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from toolatlas.home import Home

__all__ = ["ray_session"]


@contextlib.contextmanager
def ray_session(address: str | None) -> Iterator[None]:
    """Ray for one command: the cluster at ``address`` / $RAY_ADDRESS, else a local instance that goes
    (with every process it started) when the command ends or its driver dies."""
    import os

    import ray

    from toolatlas.confinement.reaper import ProcessReaper

    address = address or os.environ.get("RAY_ADDRESS")
    home = Home.default().ensure()
    env = {"TOOLATLAS_HOME": str(home.root)}
    reaper = None
    if address:
        # Under `ray job submit` the job's runtime_env (cluster/runtime_env.yaml) already reaches every worker.
        runtime_env = None if os.environ.get("RAY_JOB_ID") or "TOOLATLAS_HOME" in os.environ else {"env_vars": env}
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
    else:
        reaper = ProcessReaper()
        ray.init(address="local", include_dashboard=False, runtime_env={"env_vars": env}, log_to_driver=False,
                 _node_ip_address=os.environ.get("TOOLATLAS_RAY_NODE_IP"))
    try:
        yield
    finally:
        ray.shutdown()
        if reaper is not None:
            reaper.stop()
