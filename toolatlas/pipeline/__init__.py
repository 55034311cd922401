"""The build pipeline: frontier selection, one server's rounds, the driver over a placement, a whole catalogue."""

TOPOLOGIES = ("auto", "colocated", "split")
"""How a distributed build places a server's roles: ``colocated`` (one host runs its proposer, executor,
verifier and inducer), ``split`` (executors on several hosts, its graph on a shard), ``auto``: colocated
when each server has one executor, split otherwise (:func:`~toolatlas.pipeline.driver.choose_topology`)."""
