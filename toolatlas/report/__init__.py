"""The human report of an atlas: one self-contained HTML page (``toolatlas report``).

``render_report(atlas)`` returns the page, ``write_report(atlas, path)`` writes it and
``read_atlas(path)`` loads the JSON document ``toolatlas export`` wrote. The page embeds its
stylesheet and its SVG drawings (coverage per round, the co-usage graph of every server), loads
nothing from the network, and escapes everything a server supplied.
"""

from __future__ import annotations

from toolatlas.report.page import read_atlas, render_report, write_report

__all__ = ["read_atlas", "render_report", "write_report"]
