"""The build pipeline: frontier selection, one server's rounds, the driver over a placement, a whole catalogue."""

TOPOLOGIES = ("auto", "colocated", "split", "pools")
"""How a distributed build places a server's roles: ``colocated`` (one host runs its proposer, executor,
verifier and inducer), ``split`` (executors, verifying what they ran, on several hosts; its graph on a
shard), ``pools`` (executors per sandbox host, verifiers as a pool of their own, proposer and inducer on
a shard), ``auto``: colocated when each server has one executor, split otherwise
(:func:`~toolatlas.pipeline.driver.choose_topology`)."""
