"""Thin Ray actor wrappers around ``toolatlas`` objects (proposer, executors, verifiers, inducer, coordinator).

Ray is imported here and in ``cluster/`` only; ``toolatlas`` itself never imports Ray. The
distributed build is not implemented yet (see the project's open issue on Ray builds).
"""
