"""An in-memory lexical index (BM25) over atlas records, matching words by their stems.

Guidance is served from a read-only snapshot of the atlas held in memory: a few thousand records
per catalogue, searched in well under a millisecond, and shareable by every serving process or
replica — none of them needs to own the embedded store. Texts are split by the store's tokenizer
(identifiers into their words) and each term is reduced to its Snowball English stem, so a user's
"switch to the branch" meets a tool that "switches branches", and "differ" meets "differences".
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from functools import lru_cache

import snowballstemmer

from toolatlas.store.embedders import tokenize

__all__ = ["FILLER", "FILLER_TERMS", "LexicalIndex", "content_terms", "terms"]

K1, B = 1.2, 0.75
"""BM25 term-frequency saturation and length normalisation."""

_STEMMER = snowballstemmer.stemmer("english")


_BRITISH = (
    (re.compile(r"(?<=\w(?:al|il|an|im|ar|gn|it|or|om|on|as|en|ic|og|er|ul|ob|at))is"
                r"(e|es|ed|ing|ation|ations|ational|er|ers)$"), r"iz\1"),  # organisation, optimise, prioritise
    (re.compile(r"(?<=\w{2})ys(e|es|ed|ing)$"), r"yz\1"),  # analyse, paralysed
    (re.compile(r"(?<=\w{2}[lvbmndri])our(s|ed|ing|ite|ites|able|ful|less|er|ers)?$"), r"or\1"),  # colour, behaviour
    (re.compile(r"(?<=\w{2}[tb])re(s|d)?$"), r"er\1"),  # centre, metre, fibre
    (re.compile(r"(?<=\w{3})ogue(s)?$"), r"og\1"),  # catalogue, dialogue
)
"""British spellings and their American forms (``organisational`` / ``organizationalUnit``): a request and a tool's
documentation written on either side of the Atlantic meet."""
_AMERICAN = {"grey": "gray", "programme": "program", "programmes": "programs", "aluminium": "aluminum",
             "judgement": "judgment", "licence": "license", "licences": "licenses", "defence": "defense",
             "offence": "offense", "mould": "mold", "plough": "plow", "cosy": "cozy", "kilometre": "kilometer"}
"""Whole words the suffix rules do not reach."""


_ROOTS = frozenset({"promise", "promises", "promised", "compromise", "compromises", "compromised", "treatise",
                    "treatises"})
"""Words whose -ise is their root, not a British ending, among those the rules reach."""


@lru_cache(maxsize=1 << 16)
def _stem(term: str) -> str:
    if not term.isalpha():
        return term
    word = _AMERICAN.get(term, term)
    if word not in _ROOTS:
        for pattern, replacement in _BRITISH:
            word = pattern.sub(replacement, word)
    return _STEMMER.stemWord(word)


@lru_cache(maxsize=1 << 16)
def _terms(text: str) -> tuple[str, ...]:
    return tuple(_stem(term) for term in tokenize(text))


def terms(text: str) -> list[str]:
    """The stemmed terms of ``text``; ``read_files`` gives ``read``, ``file`` and ``read_files`` as written.
    (Memoised: guidance asks for the same words, and the same tasks, many times.)"""
    return list(_terms(text))


FILLER = frozenset(
    "a about after again all also am an and any are as at be been before being both but by can could did "
    "do does doing done each for from get give had has have having he her here hers him his how i if in "
    "into is it its just let like may me might more most much must my need needs no nor not now of off "
    "on once only or other our ours out over own please same she should show so some such tell than that "
    "the their them then there these they this those through to too under until up us very want was we "
    "were what when where which while who whom whose why will with would yes you your yours".split()
)
"""Words of how a request is asked, not of what it is about: a tool whose description says "what"
or "need" is no answer to a question for that ("What is 1500 * 1.04^10? I need the number.")."""

FILLER_TERMS = frozenset(t for word in FILLER for t in terms(word))


def content_terms(text: str) -> list[str]:
    """The stemmed terms of ``text`` without :data:`FILLER`: what a request is about."""
    return [t for t in terms(text) if t not in FILLER_TERMS]


class LexicalIndex:
    """Postings of BM25 document weights; a score is Σ over the query's distinct terms of weight × IDF."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.size = len(texts)
        documents = [Counter(terms(text)) for text in texts]
        average = sum(sum(d.values()) for d in documents) / self.size if self.size else 1.0
        self.postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for doc, counts in enumerate(documents):
            norm = K1 * (1.0 - B + B * sum(counts.values()) / max(average, 1.0))
            for term, tf in counts.items():
                self.postings[term].append((doc, tf * (K1 + 1.0) / (tf + norm)))
        self.idf = {
            term: math.log(1 + (self.size - len(docs) + 0.5) / (len(docs) + 0.5)) for term, docs in self.postings.items()
        }
        self.weighted: dict[str, tuple[tuple[int, float], ...]] = {
            term: tuple((doc, weight * self.idf[term]) for doc, weight in docs) for term, docs in self.postings.items()
        }
        """Each term's postings with its IDF folded in: a query only adds them up."""

    def scores(self, text: str) -> dict[int, float]:
        """Document → score for a query text (documents sharing no term are absent)."""
        return self.scores_of(terms(text))

    def scores_of(self, query: Sequence[str], shares: Mapping[str, float] | None = None) -> dict[int, float]:
        """Document → score for query terms already stemmed (:func:`terms`); ``shares``: what some terms
        count, as a share of a full term (the others count fully)."""
        found: dict[int, float] = {}
        weighted = self.weighted
        for term in dict.fromkeys(query):
            share = shares.get(term, 1.0) if shares else 1.0
            for doc, weight in weighted.get(term, ()):
                found[doc] = found.get(doc, 0.0) + share * weight
        return found

    def top(self, text: str, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        scored = self.scores(text)
        items = [(d, s) for d, s in scored.items() if allowed is None or d in allowed]
        return sorted(items, key=lambda item: (-item[1], item[0]))[:limit]
