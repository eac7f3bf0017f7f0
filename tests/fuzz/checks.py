"""The properties every fuzzed response must have, and the database footprint that proves a refusal wrote nothing.

- the HTTP status is never 5xx;
- no error is the masked "Internal error" (an exception nobody expected: its traceback is in the captured logs);
- no traceback, source path, SQL or driver text anywhere in the body (input the request carried and the server
  echoes back, e.g. in a coercion error, is not held against it);
- every top-level error carries `extensions.code`;
- a refused request (a typed error result, or a top-level error) changes no table's row count, nor any row of the
  fuzz venue in a table that has a `unit_id`.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

INTERNAL = "Internal error"

LEAKS = [re.compile(p) for p in (
    r"Traceback \(most recent call last\)", r'File "[^"]+", line \d+', r"/site-packages/", r"\w\.py\b",
    r"(?i)asyncpg", r"(?i)psycopg", r"(?i)sqlalchemy", r"SQLSTATE", r"\bviolates\b.*\bconstraint\b",
    r"syntax error at or near", r"\brelation \"", r"\bcolumn \"", r"invalid input syntax for",
    r"\bSELECT\b.+\bFROM\b", r"\bINSERT INTO\b", r"\bUPDATE\b.+\bSET\b", r"DETAIL:", r"\bpg_catalog\b",
    r"\bKeyError\b", r"\bAttributeError\b", r"\bTypeError\b", r"\bValueError\b", r"\bOverflowError\b",
    r"\bUnicode(En|De)codeError\b", r"object has no attribute", r"unsupported operand", r"NoneType",
)]

FOOTPRINT_EXEMPT = frozenset({"alembic_version", "access_tokens", "customer_sessions"})
"""Tables left out: the migration stamp, and credentials whose last-used stamps any request may touch. (A wrong
sign-in code counting its tries is allowed where it happens: Fuzzer._writes_allowed.)"""


class LogCapture(logging.Handler):
    """Every record logged while a request runs, to find the exception behind an "Internal error"."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def exceptions(self) -> list[str]:
        """The tracebacks (and error lines) logged since the last clear()."""
        fmt = logging.Formatter()
        out = []
        for r in self.records:
            if r.exc_info or r.levelno >= logging.ERROR:
                out.append(f"{r.name}: {r.getMessage()}\n" + (fmt.formatException(r.exc_info) if r.exc_info else ""))
        return out


async def tables(pool: Any) -> list[str]:
    """The application's tables whose row counts make the footprint."""
    rows = await pool.fetch("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND "
                            "table_type = 'BASE TABLE' ORDER BY table_name")
    return [r["table_name"] for r in rows if r["table_name"] not in FOOTPRINT_EXEMPT]


async def unit_tables(pool: Any, names: list[str]) -> list[str]:
    """The tables among `names` whose rows belong to a unit (a `unit_id` column)."""
    rows = await pool.fetch("SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND "
                            "column_name = 'unit_id'")
    return sorted({r["table_name"] for r in rows} & set(names))


def footprint_query(names: list[str], per_unit: list[str]) -> str:
    """One statement counting every table (the idea of tests/api/test_access.py's `_footprint`, on all tables), and
    hashing the fuzz venue's rows ($1) of the tables that belong to a unit, so an UPDATE shows too."""
    counts = [f'(SELECT count(*) FROM "{n}") AS "{n}"' for n in names]
    hashes = [f"(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM \"{n}\" t "
              f"WHERE t.unit_id = $1) AS \"{n} rows\"" for n in per_unit]
    return "SELECT " + ", ".join(counts + hashes)


@dataclass
class Outcome:
    """What one request got back, judged."""

    status: int
    body: Any
    text: str
    refused: bool = False
    problems: list[str] = field(default_factory=list)


def judge(status: int, text: str, sent: list[str], root: str | None, error_types: set[str]) -> Outcome:
    """Check the properties of one response; `root` is the field asked for (None for raw requests)."""
    out = Outcome(status, None, text)
    if status >= 500:
        out.problems.append(f"HTTP {status}")
    try:
        out.body = json.loads(text) if text else None
    except ValueError:
        out.problems.append("the body is not JSON")
        return out
    scrubbed = text
    for s in sorted({x for x in sent if len(x) >= 3}, key=len, reverse=True):
        for form in (s, json.dumps(s)[1:-1], json.dumps(s, ensure_ascii=False)[1:-1]):
            scrubbed = scrubbed.replace(form, "")
    for pattern in LEAKS:
        m = pattern.search(scrubbed)
        if m:
            out.problems.append(f"leak: {pattern.pattern!r} matched {scrubbed[max(0, m.start() - 80):m.end() + 80]!r}")
    body = out.body if isinstance(out.body, dict) else {}
    if not isinstance(out.body, dict):
        out.problems.append("the body is not a JSON object")
    errors = body.get("errors") or []
    for e in errors:
        message = str(e.get("message", ""))
        if message.startswith(INTERNAL):
            out.problems.append(f"internal error at {e.get('path')}")
        if not (e.get("extensions") or {}).get("code"):
            out.problems.append(f"top-level error without extensions.code: {message[:200]!r}")
    data = body.get("data")
    value = data.get(root) if isinstance(data, dict) and root else None
    typed_refusal = isinstance(value, dict) and value.get("__typename") in error_types
    out.refused = bool(errors) or typed_refusal or (root is not None and value is None)
    if typed_refusal and not value.get("code"):
        out.problems.append(f"typed error without code: {value}")
    return out
