"""Write compat_matrix/failures/known-reports.json: the development part of the labelled corpus as TF-IDF vectors,
for explain's last-resort guess (xladoctor/explain/similar.py: the settled report a log reads most like).

Only the development part is indexed: the evaluation part is never read to build anything, so the scoreboard
measures the guess on reports it has not seen. A word is weighed only when two reports or more use it (so no one
report's user name, host or path is kept), and each report keeps its 40 heaviest words.

    python scripts/corpus_index.py            # write the index, and print how near a neighbour must be (--table)
    python scripts/corpus_index.py --check    # exit 1 when the index is not what the corpus makes (a test runs this)
    python scripts/corpus_index.py --table    # each development report where nothing decides, scored against all
                                              # the others: how often the vote of the nearest has its family, by cosine
"""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "corpus"))

import corpus  # noqa: E402

from xladoctor.explain import similar  # noqa: E402
from xladoctor.explain.scan import TAIL_BYTES  # noqa: E402

OUT = ROOT / "compat_matrix" / "failures" / "known-reports.json"
KEPT_WORDS = 40
GENERATED_BY = "scripts/corpus_index.py"


def tail_of(log: str) -> str:
    """The text the engine compares: the stream's tail as its reader keeps it (the last TAIL_BYTES bytes)."""
    return log.encode("utf-8")[-TAIL_BYTES:].decode("utf-8", "replace")


def build() -> dict[str, object]:
    reports = corpus.part("development")
    counts = {r.id: similar.words(tail_of(r.log)) for r in reports}
    df: Counter[str] = Counter()
    for c in counts.values():
        df.update(set(c))
    idf = {w: round(math.log(len(reports) / n), 4) for w, n in sorted(df.items()) if n >= 2}
    rows = []
    kept: set[str] = set()
    for r in reports:
        full = similar.vector(counts[r.id], idf)
        top = dict(sorted(full.items(), key=lambda kv: (-kv[1], kv[0]))[:KEPT_WORDS])
        norm = math.sqrt(sum(x * x for x in top.values())) or 1.0
        vector = {w: round(x / norm, 4) for w, x in sorted(top.items())}
        kept.update(vector)
        rows.append(
            {"id": r.id, "source": r.source, "family": r.family, "verdict": r.verdict, "settled": r.settled,
             "subject": list(r.subject), "vector": vector}
        )  # fmt: skip
    return {
        "title": "The development part of the labelled corpus as TF-IDF vectors: the settled reports explain's "
        "last-resort guess compares a log with",
        "source": "tests/corpus/reports (development part only; each report's own source link below)",
        "generated_by": GENERATED_BY,
        "idf": {w: v for w, v in idf.items() if w in kept},
        "reports": rows,
    }


def text(doc: dict[str, object]) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"


def table() -> None:
    from xladoctor.explain.engine import explain_stream

    rows = []
    for r in corpus.part("development"):
        with similar.excluding(r.id):
            found = explain_stream("x", io.BytesIO(r.log.encode()), None).diagnosis
            guessed = found is not None and found.decided_by in (similar.GUESS, similar.FAINT_GUESS)
            if found is not None and found.family is not None and not guessed:
                continue
            near = similar.likeliest(tail_of(r.log))
        rows.append((near[1], near[0].family == r.family) if near else (0.0, False))
    print(f"development reports where no rule decides: {len(rows)}")
    for tau in (0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6):
        chosen = [ok for score, ok in rows if score >= tau]
        share = f"{sum(chosen) / len(chosen):.0%}" if chosen else "-"
        print(f"  cosine >= {tau}: {len(chosen)} offered, {sum(chosen)} of its family ({share})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    made = text(build())
    if args.check:
        if OUT.read_text("utf-8") != made:
            print(f"{OUT.relative_to(ROOT)} is stale: run python scripts/corpus_index.py", file=sys.stderr)
            return 1
        return 0
    if not args.table:
        OUT.write_text(made, "utf-8")
        similar.index.cache_clear()
        print(f"wrote {OUT.relative_to(ROOT)} ({len(made) // 1024} KiB)")
    table()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
