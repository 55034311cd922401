"""The atlas graph: typed nodes and entries, the per-server build state, induction and distillation."""
