"""The build pipeline: frontier selection, one server's rounds, the driver over a placement, a whole catalogue."""
