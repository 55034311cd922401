"""Building atlases: frontier selection, one server's rounds, a whole catalogue in process."""
