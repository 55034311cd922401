"""Store throughput and hybrid-query latency per backend, at 10k and 100k points.

Each backend gets the same synthetic atlas entries, streamed in chunks of 10,000 the way a
build writes them: ~1 KB payloads (server, tool, kind, status, tools, text, typed fields,
evidence), a ~40-term text embedded by :class:`LexicalEmbedder` (timed on its own), and a
384-d unit dense vector standing in for a sentence model's output (not timed: it is the
model's cost, not the store's). Upserts go through ``VectorBackend.upsert`` in batches of
1,000 points. Queries are hybrid (dense + sparse, fused by RRF), half of them filtered on
``server``; the edge backend is measured fresh (appendable segments) and after ``optimize()``.

Targets for the default backend (edge): >= 10,000 upserts/s and hybrid p50 <= 10 ms at 100k.

    .venv/bin/python benchmarks/store.py [--full] [--queries 200] [--memory]

``--full`` also takes the ``local`` backend (qdrant-client's embedded mode) to 100k points,
which takes several minutes at its rate; without it, local stops at 10k.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import percentile_ms, save  # noqa: E402

from toolatlas.config import StoreSettings  # noqa: E402
from toolatlas.logs import configure_logging  # noqa: E402
from toolatlas.store import (  # noqa: E402
    CollectionSpec,
    Filter,
    LexicalEmbedder,
    Point,
    VectorBackend,
    open_backend,
)

DIM = 384
CHUNK = 10_000
BATCH = 1_000
SERVERS = [f"server-{i:02d}" for i in range(40)]
KINDS = ["affordance", "boundary", "co_usage"]
SPEC = CollectionSpec(
    name="entries", dense_dim=DIM, indexed_fields=["server", "tool", "kind", "status", "tools"]
)


class Corpus:
    """Deterministic synthetic entries: Zipf-distributed words plus tool identifiers."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "dr", "fe", "gi"]
        self.words = sorted(
            {"".join(self.rng.choices(syllables, k=self.rng.randint(2, 4))) for _ in range(6000)}
        )
        weights = 1.0 / np.arange(1, len(self.words) + 1) ** 1.07
        self.weights = (weights / weights.sum()).tolist()
        self.tools = {
            s: [f"{self.rng.choice(self.words)}_{self.rng.choice(self.words)}" for _ in range(25)]
            for s in SERVERS
        }

    def text(self, tool: str, n: int = 36) -> str:
        return f"{tool} " + " ".join(self.rng.choices(self.words, self.weights, k=n))

    def entries(self, start: int, count: int) -> tuple[list[str], list[dict], np.ndarray]:
        texts, payloads = [], []
        for i in range(start, start + count):
            server = SERVERS[i % len(SERVERS)]
            tool = self.tools[server][(i // len(SERVERS)) % 25]
            text = self.text(tool)
            texts.append(text)
            payloads.append(
                {
                    "server": server,
                    "tool": tool,
                    "kind": KINDS[i % 3],
                    "status": "stale" if i % 17 == 0 else "active",
                    "tools": [tool, self.rng.choice(self.tools[server])],
                    "text": text,
                    "when": self.text(tool, 12),
                    "condition": self.text(tool, 10),
                    "error_signature": f"E{i % 97:03d}",
                    "example_arguments": {"path": f"/data/{i}/file.txt", "limit": i % 50},
                    "evidence": {"probe_ids": [f"probe-{i}-{k}" for k in range(3)], "output": "x" * 260},
                    "support": i % 9,
                    "confidence": round((i % 100) / 100, 2),
                    "round": i % 4,
                }
            )
        dense = self.np_rng.standard_normal((count, DIM)).astype(np.float32)
        dense /= np.linalg.norm(dense, axis=1, keepdims=True)
        return texts, payloads, dense

    def query(self) -> tuple[str, str]:
        server = self.rng.choice(SERVERS)
        return f"{self.rng.choice(self.tools[server])} " + " ".join(
            self.rng.choices(self.words, self.weights, k=4)
        ), server


def measure_queries(backend: VectorBackend, corpus: Corpus, embedder: LexicalEmbedder, n: int) -> dict:
    hybrid, sparse_only = [], []
    rng = np.random.default_rng(1)
    for i in range(n):
        text, server = corpus.query()
        query = embedder.embed_query(text)
        dense = rng.standard_normal(DIM).astype(np.float32).tolist()
        condition = Filter.where(server=server) if i % 2 else None
        t0 = time.perf_counter()
        hits = backend.query(SPEC.name, dense=dense, sparse=query.sparse, filter=condition, limit=10)
        hybrid.append(time.perf_counter() - t0)
        assert hits and (condition is None or all(h.payload["server"] == server for h in hits))
        t0 = time.perf_counter()
        backend.query(SPEC.name, sparse=query.sparse, filter=condition, limit=10)
        sparse_only.append(time.perf_counter() - t0)
    return {
        "hybrid_p50_ms": percentile_ms(hybrid, 0.5),
        "hybrid_p99_ms": percentile_ms(hybrid, 0.99),
        "sparse_p50_ms": percentile_ms(sparse_only, 0.5),
    }


def bench_backend(kind: str, sizes: list[int], work: Path, queries: int) -> list[dict]:
    corpus, embedder = Corpus(), LexicalEmbedder()
    backend = open_backend(StoreSettings(backend=kind, path=str(work / kind)))
    backend.ensure_collection(SPEC)
    rows, stored, embed_s, upsert_s, payload_bytes = [], 0, 0.0, 0.0, 0.0
    for size in sizes:
        while stored < size:
            count = min(CHUNK, size - stored)
            texts, payloads, dense = corpus.entries(stored, count)
            payload_bytes = payload_bytes or sum(len(json.dumps(p)) for p in payloads[:200]) / 200
            t0 = time.perf_counter()
            sparse = embedder.embed_documents(texts).sparse
            embed_s += time.perf_counter() - t0
            points = [
                Point(id=f"entry:{stored + j}", payload=p, dense=d, sparse=s)
                for j, (p, d, s) in enumerate(zip(payloads, dense.tolist(), sparse, strict=True))
            ]
            t0 = time.perf_counter()
            for start in range(0, count, BATCH):
                backend.upsert(SPEC.name, points[start : start + BATCH])
            upsert_s += time.perf_counter() - t0
            stored += count
            print(f"  {kind}: {stored:,} points", flush=True)
        t0 = time.perf_counter()
        backend.flush()
        flush_s = time.perf_counter() - t0
        assert backend.count(SPEC.name) == size
        row = {
            "backend": kind,
            "points": size,
            "embed_docs_per_s": stored / embed_s,
            "upserts_per_s": stored / upsert_s,
            "flush_s": flush_s,
            "payload_bytes": round(payload_bytes),
            "fresh": measure_queries(backend, corpus, embedder, queries),
        }
        if kind == "edge":
            t0 = time.perf_counter()
            backend.optimize()
            row["optimize_s"] = time.perf_counter() - t0
            row["optimized"] = measure_queries(backend, corpus, embedder, queries)
        rows.append(row)
    backend.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also take the local backend to 100k points")
    parser.add_argument("--memory", action="store_true", help="also measure the in-memory backend (10k)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs=2, default=[10_000, 100_000], help=argparse.SUPPRESS)
    args = parser.parse_args()
    configure_logging()
    small, large = args.sizes
    plan = {"edge": [small, large], "local": [small, large] if args.full else [small]}
    if args.memory:
        plan["memory"] = [small]
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, sizes in plan.items():
            rows += bench_backend(kind, sizes, Path(tmp), args.queries)
    print(
        f"\n{args.queries} hybrid queries per row (dense {DIM}-d + lexical sparse, RRF, limit 10, half "
        f"filtered on server); upserts in batches of {BATCH:,}; payloads ~{rows[0]['payload_bytes']} B JSON"
    )
    print(
        f"{'backend':<8} {'points':>8} {'embed/s':>9} {'upserts/s':>10} {'flush s':>8} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'sparse p50':>10} {'optimize s':>10} {'opt p50':>8} {'opt p99':>8}"
    )
    for r in rows:
        opt = r.get("optimized")
        tail = (
            f"{r['optimize_s']:10.1f} {opt['hybrid_p50_ms']:8.2f} {opt['hybrid_p99_ms']:8.2f}"
            if opt
            else f"{'-':>10}"
        )
        print(
            f"{r['backend']:<8} {r['points']:>8,} {r['embed_docs_per_s']:9,.0f} {r['upserts_per_s']:10,.0f} "
            f"{r['flush_s']:8.2f} {r['fresh']['hybrid_p50_ms']:7.2f} {r['fresh']['hybrid_p99_ms']:7.2f} "
            f"{r['fresh']['sparse_p50_ms']:10.2f} {tail}"
        )
    if not args.full:
        print("local at 100k skipped (takes several minutes at its upsert rate): run with --full")
    by = {(r["backend"], r["points"]): r for r in rows}
    ratios = {}
    for size in (small, large):
        edge, local = by.get(("edge", size)), by.get(("local", size))
        if edge and local:
            ratios[size] = {
                "upserts": edge["upserts_per_s"] / local["upserts_per_s"],
                "hybrid_p50": edge["fresh"]["hybrid_p50_ms"] / local["fresh"]["hybrid_p50_ms"],
            }
            print(
                f"edge/local at {size:,}: upserts/s x{ratios[size]['upserts']:.1f}, "
                f"hybrid p50 x{ratios[size]['hybrid_p50']:.3f} (fresh edge vs local)"
            )
    edge = by[("edge", large)]
    best_p50 = min(edge["fresh"]["hybrid_p50_ms"], edge["optimized"]["hybrid_p50_ms"])
    upsert_ok, p50_ok = edge["upserts_per_s"] >= 10_000, edge["fresh"]["hybrid_p50_ms"] <= 10
    print(
        f"targets (edge, {large:,}): upserts/s {edge['upserts_per_s']:,.0f} >= 10,000 "
        f"[{'ok' if upsert_ok else 'MISSED'}]; hybrid p50 {edge['fresh']['hybrid_p50_ms']:.2f} ms fresh, "
        f"{best_p50:.2f} ms best <= 10 ms [{'ok' if p50_ok else 'MISSED'}]"
    )
    result = {"queries": args.queries, "dense_dim": DIM, "rows": rows, "edge_over_local": ratios}
    print(f"\nsaved {save('store', result)}")


if __name__ == "__main__":
    main()
