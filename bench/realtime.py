"""Realtime: commit-to-delivery latency and delivered events/s of slotChanged with 1, 100 and 1,000 websocket
subscribers on one unit (1 API process + 1 worker), against raw Redis pub/sub, and the API's memory.

    .venv/bin/python -m bench.realtime [--quick] [--record | --no-record] [--profile | --no-profile] [--keep-db]

See bench/README.md ("Realtime") for what each figure means.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import signal
from datetime import UTC, datetime

import uvloop

from bench._rt_config import BENCH, Config
from bench._rt_proc import stop_profilers, stop_workers
from bench._rt_report import report
from bench._rt_run import cleanup, measure
from bench._server import stop_all

# The pieces: _rt_config (settings), _rt_drivers (what causes the events), _rt_clients (subscribers, RSS), _rt_phases
# (a step and its phases, the delivery check), _rt_run (the run), _rt_report (the report); with _rt_proc, _rt_redis
# and _rt_ws.


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 and 50 subscribers, 2 s phases (smoke test)")
    ap.add_argument("--record", action=argparse.BooleanOptionalAction, default=None,
                    help="append to bench/RESULTS.md (default: yes for a full run, no with --quick)")
    ap.add_argument("--profile", action=argparse.BooleanOptionalAction, default=None,
                    help="py-spy the API and worker in an extra phase at the most subscribers (default: full run)")
    ap.add_argument("--keep-db", action="store_true", help=f"keep the database {Config.db} afterwards")
    args = ap.parse_args()
    cfg = Config.make(args.quick, args.profile)
    started = datetime.now(UTC)
    # The client keeps every frame it receives (300,000+ tuples at 1,000 subscribers); CPython's cyclic
    # collector then pauses this process for 100-400 ms now and then, and the arrival stamps taken after a
    # pause show up as delivery latency that the API never caused (measured: with the collector off in the
    # client only, the one-event-at-a-time outliers of 150-430 ms at 1,000 subscribers disappear). Reference
    # counting still frees everything; nothing here lives in cycles for long.
    gc.disable()

    def on_sigterm(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        results = uvloop.run(measure(cfg))
    finally:
        stop_profilers()
        stop_workers()
        stop_all()
        with contextlib.suppress(Exception):
            uvloop.run(cleanup(cfg, args.keep_db))
    rep = report(cfg, results, started)
    if args.record if args.record is not None else not cfg.quick:
        path = BENCH / "RESULTS.md"
        old = path.read_text() if path.exists() else "# Benchmark results\n\nNewest last; see README.md.\n\n"
        path.write_text(old + rep.markdown(BENCH.parent))
        print(f"\nappended to {path}")


if __name__ == "__main__":
    main()
