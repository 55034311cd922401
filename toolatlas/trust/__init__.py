"""What an atlas that travels may be trusted with: load-time integrity (:mod:`.integrity`)."""

from toolatlas.trust.integrity import Dropped, LoadReport, admit, summary

__all__ = ["Dropped", "LoadReport", "admit", "summary"]
