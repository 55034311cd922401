"""The atlas across releases of its servers: what a release changed in the knowledge (:mod:`.diff`)."""

from toolatlas.lifecycle.diff import AtlasDiff, Change, ChangeKind, diff_atlases, load_export

__all__ = ["AtlasDiff", "Change", "ChangeKind", "diff_atlases", "load_export"]
