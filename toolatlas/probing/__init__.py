"""Probing: the messages of a probe (Probe, Rollout, Verdict), the executor, the offline verifier."""
