"""Hold throughput (API vs direct SQL), hot-slot contention, grid latency and API memory, in one run.

    .venv/bin/python -m bench.holds [--quick] [--only grid|holds] [--db NAME] [--port N] [--record | --no-record]

See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import signal
from collections.abc import Coroutine
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, TypeVar

import uvloop

from bench._holds_config import BENCH, Config
from bench._holds_report import report, report_grid, report_holds, report_only_contention
from bench._holds_requests import hold_body, post_hold
from bench._holds_run import GRID_ONLY_FILLER, measure, measure_contention, measure_grid, measure_holds
from bench._measure import Report
from bench._server import stop_all

# The pieces: _holds_config (settings, documents), _holds_requests (one hold request), _holds_throughput (phases 1
# and 2), _holds_hot (phase 3), _holds_evening (phase 3b), _holds_grid (phase 4), _holds_plans (EXPLAIN),
# _holds_run (the runs), _holds_report.
__all__ = ["Config", "hold_body", "main", "post_hold"]
T = TypeVar("T")


def _run(main: Coroutine[Any, Any, T]) -> T:
    """Run a measurement; every server it started is stopped however it ends."""
    try:
        return uvloop.run(main)
    finally:
        stop_all()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a few seconds per phase, smaller data (smoke test)")
    ap.add_argument("--only", choices=["grid", "holds", "contention"],
                    help="run phases alone (grid: phase 4, about 30 s; holds: the API with 1 worker, the direct-SQL "
                    "baseline, the API again, with the statements of each hold; about 70 s; contention: phase 3, "
                    "the hot slot and the evening)")
    ap.add_argument("--history", type=int, metavar="N",
                    help="customers with a confirmed booking on the hold unit before the phases, then ANALYZE "
                         "(default 20,000; 2,000 with --quick; 0: the phases start on empty tables)")
    ap.add_argument("--db", help="the database to drop and recreate (default slothold_bench)")
    ap.add_argument("--port", type=int, help="the API's port (default 8765)")
    ap.add_argument("--profile", metavar="FILE",
                    help="with --only holds: a py-spy raw profile of the first API run; with --only contention: of "
                    "both workers over the hot slot (FILE.0, FILE.1)")
    ap.add_argument("--record", action=argparse.BooleanOptionalAction, default=None,
                    help="append to bench/RESULTS.md (default: yes for a full run, no with --quick or --only)")
    args = ap.parse_args()
    cfg = Config.make(args.quick)
    cfg = replace(cfg, db=args.db or cfg.db, port=args.port or cfg.port,
                  history=cfg.history if args.history is None else args.history)
    started = datetime.now(UTC)

    def on_sigterm(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    if args.only == "holds":
        runs = _run(measure_holds(cfg, args.profile))
        rep = report_holds(cfg, runs, started)
    elif args.only == "contention":
        cr = _run(measure_contention(cfg, args.profile))
        rep = report_only_contention(cfg, cr, started)
    elif args.only == "grid":
        gt, g, probes, errors = _run(measure_grid(cfg))
        rep = Report(f"`bench.holds --only grid{' --quick' if cfg.quick else ''}`",
                     f"Grid alone: {cfg.grid_resources} resources × {cfg.grid_days} days × 30 min, "
                     f"{GRID_ONLY_FILLER:,} filler allocations on another unit.", started)
        print("\nresults", flush=True)
        report_grid(rep, gt, g)
        for p in probes:
            rep.note(p)
        for name, errs in errors.items():
            if errs:
                rep.note(f"server log ({name}): {len(errs)} error lines, e.g. {errs[0][:300]}")
    else:
        results, g = _run(measure(cfg))
        rep = report(cfg, results, g, started)
    if args.record if args.record is not None else not (cfg.quick or args.only):
        path = BENCH / "RESULTS.md"
        old = path.read_text() if path.exists() else "# Benchmark results\n\nNewest last; see README.md.\n\n"
        path.write_text(old + rep.markdown(BENCH.parent))
        print(f"\nappended to {path}")


if __name__ == "__main__":
    main()
