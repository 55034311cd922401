"""Thin Ray actor wrappers around ``toolatlas`` objects, and the Ray placements of a build.

Ray is imported here and in ``cluster/`` only; ``toolatlas`` itself never imports Ray. A build is
driven by the library's :class:`toolatlas.pipeline.driver.CatalogueBuild`; :class:`toolatlas.actors.coordinator.RayBuild`
spawns the actors below and places servers on them (:mod:`toolatlas.actors.colocated`,
:mod:`toolatlas.actors.split`, :mod:`toolatlas.actors.pools`), every call within a named timeout
(:mod:`toolatlas.actors.calls`).

=================  ==================================================================  =====================
actor              wraps                                                               one per
=================  ==================================================================  =====================
``ExecutorHost``   :class:`toolatlas.probing.executor.Executor` s (one sandbox each)   host slot, spread
                   and their :class:`toolatlas.probing.verifier.Verifier` s
``VerifierHost``   :class:`toolatlas.pipeline.verifying.Verifiers` (pools topology)       pool, spread
``ShardActor``     :class:`toolatlas.pipeline.shard.ServerShard` s (proposer + inducer)   shard of servers
``StoreOwner``     :class:`toolatlas.store.atlas.AtlasStore` (embedded: one process)   build
=================  ==================================================================  =====================
"""
