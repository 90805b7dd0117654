"""A claim with a verdict: what every reproduction is about, in one shape.

A :class:`Claim` is a statement of the source (a paper's, a thesis', or,
for an experiment beyond the papers, our own), judged on our runs: its
:class:`Verdict` and the evidence it rests on, the numbers and the
criterion. Every study's report and summary print claims through this
module, so the verdicts read the same everywhere:

* **holds**: what the claim says is what our runs show (within the stated
  size, where one is stated);
* **holds in direction only**: the direction is ours too, the stated size
  is not;
* **does not hold**: our runs show otherwise;
* **no data**: nothing was run that could judge it (an experiment left
  out with ``--only``, or one that could not run).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Iterable


class Verdict(StrEnum):
    HOLDS = "holds"
    DIRECTION_ONLY = "holds in direction only"
    DOES_NOT_HOLD = "does not hold"
    NO_DATA = "no data"

    @classmethod
    def of(cls, holds: bool | None) -> "Verdict":
        """The verdict of a yes/no criterion (None: nothing to judge it on)."""
        return cls.NO_DATA if holds is None else cls.HOLDS if holds else cls.DOES_NOT_HOLD


@dataclass(frozen=True)
class Claim:
    id: str
    wording: str  # the source's statement, paraphrased
    verdict: Verdict
    evidence: str  # the numbers it was judged on, and the criterion
    where: str = ""  # where the source states it (figure, table, section)


def judged(id: str, wording: str, holds: bool | None, evidence: str, where: str = "") -> Claim:
    """A claim judged by a yes/no criterion."""
    return Claim(id, wording, Verdict.of(holds), evidence, where)


def lines(claims: Iterable[Claim]) -> str:
    """One line per claim: its verdict and evidence (the summaries' form)."""
    return "\n".join(f"claim {c.id}: {c.verdict} ({c.evidence})" for c in claims)


def counts(claims: Iterable[Claim]) -> dict[Verdict, int]:
    """How many claims have each verdict, every verdict present."""
    out = dict.fromkeys(Verdict, 0)
    for c in claims:
        out[c.verdict] += 1
    return out


def count_line(claims: Iterable[Claim]) -> str:
    """``claims: N holds, N holds in direction only, ...``."""
    return "claims: " + ", ".join(f"{n} {v}" for v, n in counts(claims).items())
