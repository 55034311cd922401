"""Thin Ray actor wrappers around ``toolatlas`` objects, and the coordinator that drives them.

Ray is imported here and in ``cluster/`` only; ``toolatlas`` itself never imports Ray.

=================  ==================================================================  =====================
actor              wraps                                                               one per
=================  ==================================================================  =====================
``ExecutorHost``   :class:`toolatlas.probing.executor.Executor` s (one sandbox each)   host slot, spread
                   and their :class:`toolatlas.probing.verifier.Verifier` s
``ShardActor``     :class:`toolatlas.build.shard.ServerShard` s (proposer + inducer)   shard of servers
``StoreOwner``     :class:`toolatlas.store.atlas.AtlasStore` (embedded: one process)   build
=================  ==================================================================  =====================
"""
