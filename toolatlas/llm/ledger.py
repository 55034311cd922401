"""Token, cost and reliability accounting of LLM calls, for the build report.

A :class:`UsageLedger` holds one :class:`UsageTally` per (role, model, server, round); server
and round are None when a call named none. Every other view (per role, per server, per round,
the total) is a sum of those rows, so nothing is counted twice. Ledgers are pydantic models:
they pickle and serialise, so each process or Ray actor keeps its own and the driver folds
them together with :meth:`UsageLedger.merge`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

__all__ = ["UsageKey", "UsageLedger", "UsageRow", "UsageTally"]

UsageField = Literal["role", "model", "server", "round"]
UsageKey = tuple[str, str, str | None, int | None]
"""(role, model, server, round)."""


class UsageTally(BaseModel):
    """Counters of a set of calls.

    ``calls`` counts :meth:`LlmClient.complete` calls; ``requests`` the HTTP requests they made
    (1 + retries + repairs each); ``failures`` the calls that ended without a usable answer
    (an :class:`~toolatlas.errors.LlmError`, or a structured answer that never validated);
    ``unpriced_calls`` those whose model has no price, so ``cost`` leaves them out.
    """

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    requests: int = 0
    retries: int = 0
    repairs: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    unpriced_calls: int = 0
    latency_ms: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: UsageTally) -> UsageTally:
        """Add ``other``'s counters into this tally (in place); returns self."""
        for name in UsageTally.model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        return self


class UsageRow(BaseModel):
    """One ledger row: the tally of one (role, model, server, round)."""

    model_config = ConfigDict(extra="forbid")

    role: str
    model: str
    server: str | None = None
    round: int | None = None
    tally: UsageTally

    @property
    def key(self) -> UsageKey:
        return (self.role, self.model, self.server, self.round)


class UsageLedger(BaseModel):
    """Usage per (role, model, server, round), mergeable across processes."""

    model_config = ConfigDict(extra="forbid")

    rows: list[UsageRow] = Field(default_factory=list)
    _index: dict[UsageKey, UsageRow] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: object, /) -> None:
        self._index = {row.key: row for row in self.rows}

    def record(
        self, *, role: str, model: str, tally: UsageTally, server: str | None = None, round: int | None = None
    ) -> None:
        """Add one call's (or several calls') counters under its key."""
        key: UsageKey = (role, model, server, round)
        row = self._index.get(key)
        if row is None:
            row = UsageRow(role=role, model=model, server=server, round=round, tally=UsageTally())
            self.rows.append(row)
            self._index[key] = row
        row.tally.add(tally)

    def merge(self, *others: UsageLedger) -> UsageLedger:
        """Fold other ledgers (from other processes or actors) into this one; returns self."""
        for other in others:
            for row in other.rows:
                self.record(
                    role=row.role, model=row.model, server=row.server, round=row.round, tally=row.tally
                )
        return self

    @classmethod
    def combined(cls, ledgers: Iterable[UsageLedger]) -> UsageLedger:
        """A new ledger holding the sum of ``ledgers``."""
        return cls().merge(*ledgers)

    def total(self) -> UsageTally:
        """Every row summed."""
        total = UsageTally()
        for row in self.rows:
            total.add(row.tally)
        return total

    def group(self, *fields: UsageField) -> dict[tuple[str | int | None, ...], UsageTally]:
        """Rows summed by the given key fields, e.g. ``group("role")`` or ``group("server", "round")``.

        Keys are tuples in the order of ``fields``; None stands for calls that named no
        server (or round).
        """
        groups: dict[tuple[str | int | None, ...], UsageTally] = {}
        for row in self.rows:
            key = tuple(getattr(row, field) for field in fields)
            groups.setdefault(key, UsageTally()).add(row.tally)
        return groups

    def by_role(self) -> dict[str, UsageTally]:
        """Usage per role (the figure every build report shows)."""
        return {str(key[0]): tally for key, tally in self.group("role").items()}

    def select(
        self,
        *,
        role: str | None = None,
        model: str | None = None,
        server: str | None = None,
        round: int | None = None,
    ) -> UsageTally:
        """The sum of the rows matching every given field (unset fields match anything)."""
        wanted = {"role": role, "model": model, "server": server, "round": round}
        total = UsageTally()
        for row in self.rows:
            if all(value is None or getattr(row, name) == value for name, value in wanted.items()):
                total.add(row.tally)
        return total
