"""The last resort of a verdict: the settled report a log reads most like.

When no family rule, signature or structure decides a failure, the log's words are compared with those of the
development part of xladoctor's labelled corpus (tests/corpus/, real public reports whose threads settled the
cause), kept as TF-IDF vectors in compat_matrix/failures/known-reports.json by scripts/corpus_index.py. The nearest
report, when it is near enough, is offered as a guess, said as one, with its link: "reads most like <thread>,
settled as <cause>". The evaluation part of the corpus is never in the index, so the scoreboard measures this guess
on reports it has not seen.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

# The words compared: identifiers of three characters or more (error names, modules, functions, words of messages),
# lower-cased; numbers, addresses and punctuation say nothing of the cause.
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,40}")
# What is compared: the end of the log, where a failure's own lines are (the same span the index was built from).
TEXT_CHARS = 6000
# How near a report must be to be offered, chosen on the development part alone: its reports that no rule decides,
# each compared with all the others, found a report of their family 11 times in 15 at this cosine when it was chosen,
# and 14 in 25 with the larger part of the corpus's seventeenth round (scripts/corpus_index.py prints
# the table).
NEAR_ENOUGH = 0.4
VOTERS = 5  # how many of the nearest reports vote for the family (likeliest)
GUESS = "structure:similar-report"  # the rule id of this guess
# The last of the last resort's guesses, when no other guess is offered: the vote of reports that are only faintly
# alike (cosine 0.2 or more). Chosen on the development part: where nothing else was offered it made 18 more guesses
# there, 5 of them right (28%), where it had found nothing; it is said as a weaker guess than GUESS...
FAINT = 0.2
FAINT_GUESS = "structure:faintly-similar-report"
# ...and only when the log shares two words or more with that report beyond the words most reports have (idf under
# 1.5: in more than a fifth of them, "the", "error", "torch"), which alone make any short log faintly like many:
# on the development part as many right guesses, 3 fewer wrong ones.
FAINT_SHARED = 2
COMMON_IDF = 1.5


def shares_enough(text: str, known: Known) -> bool:
    """The text and the report share FAINT_SHARED words that not most reports have."""
    idf = index().idf
    shared = [w for w in words(text) if w in known.vector and idf.get(w, 0.0) >= COMMON_IDF]
    return len(shared) >= FAINT_SHARED


@dataclass(frozen=True)
class Known:
    """One settled report of the index."""

    id: str
    source: str  # the thread's link
    family: str
    verdict: str
    settled: str  # the cause as its thread settled it (the corpus's label)
    subject: tuple[str, ...]
    vector: Mapping[str, float]


@dataclass(frozen=True)
class Index:
    idf: Mapping[str, float]
    reports: tuple[Known, ...]


def words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _WORD.findall(text[-TEXT_CHARS:]))


def vector(counts: Counter[str], idf: Mapping[str, float]) -> dict[str, float]:
    """TF-IDF (sublinear term frequency), unit length; words the index does not weigh are left out."""
    weights = {w: (1.0 + math.log(n)) * idf[w] for w, n in counts.items() if w in idf}
    norm = math.sqrt(sum(x * x for x in weights.values())) or 1.0
    return {w: x / norm for w, x in weights.items()}


@lru_cache(maxsize=1)
def index() -> Index:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", "known-reports.json").read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    reports = tuple(
        Known(r["id"], r["source"], r["family"], r["verdict"], r["settled"], tuple(r["subject"]), r["vector"])
        for r in doc["reports"]
    )
    return Index(doc["idf"], reports)


_EXCLUDED: set[str] = set()


@contextmanager
def excluding(*ids: str) -> Iterator[None]:
    """Leave reports out of the comparison (the scoreboard scores a development report without itself)."""
    _EXCLUDED.update(ids)
    try:
        yield
    finally:
        _EXCLUDED.difference_update(ids)


def ranked(text: str, k: int) -> list[tuple[Known, float]]:
    """The k indexed reports the text reads most like, nearest first, with their cosines."""
    table = index()
    query = vector(words(text), table.idf)
    if not query:
        return []
    scored = [
        (known, sum(weight * known.vector.get(word, 0.0) for word, weight in query.items()))
        for known in table.reports
        if known.id not in _EXCLUDED
    ]
    return heapq.nlargest(k, scored, key=lambda pair: pair[1])


def likeliest(text: str) -> tuple[Known, float] | None:
    """The family the nearest reports vote for, each by its cosine squared, and that family's nearest report with
    the cosine of the nearest of all (what NEAR_ENOUGH gates). A vote of five and not the nearest alone: leaving each
    development report out, the vote had the report's family 809 times in 997 where the nearest was near enough,
    and the nearest alone 776 times."""
    found = ranked(text, VOTERS)
    if not found:
        return None
    votes: dict[str, float] = {}
    for known, score in found:
        votes[known.family] = votes.get(known.family, 0.0) + score * score
    family = max(votes, key=lambda name: votes[name])  # ties: the first voted, the nearer
    return next(known for known, _ in found if known.family == family), found[0][1]
