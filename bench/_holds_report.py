"""The holds bench's report: throughput and the API/SQL ratio, the hot slot, the grid, memory, against the targets."""

from __future__ import annotations

from datetime import datetime

from bench import _data
from bench._holds_config import Config
from bench._holds_evening import Evening
from bench._holds_grid import GridTimes
from bench._holds_hot import HotSlot
from bench._holds_run import ContentionRuns, HoldRuns, Results
from bench._measure import Report, latency, pct


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def _history(cfg: Config) -> str:
    return (f" with a history of {cfg.history:,} customers' bookings (then ANALYZE)" if cfg.history
            else " on empty tables (--history 0)")


def report(cfg: Config, r: Results, g: _data.GridUnit, started: datetime) -> Report:
    rep = Report(f"`bench.holds{' --quick' if cfg.quick else ''}`",
                 f"Holds: {cfg.resources:,} resources × 30 days{_history(cfg)}, {cfg.clients} clients, "
                 f"{cfg.seconds:.0f} s per phase; hot slot: {cfg.hot_clients} clients × {cfg.hot_rounds} "
                 "rounds; grid: "
                 f"{cfg.grid_resources} resources × {cfg.grid_days} days × 30 min.", started)
    print("\nresults", flush=True)
    for t in (r.api1, r.sql, r.api2):
        rep.add(t.name, f"{t.rate:,.0f}/s ({t.ok:,} in {t.cpu.wall:.1f} s), latency {latency(t.latencies)}")
        rep.note(f"{t.name}: {t.cpu.describe(t.rate)}")
        if t.failures:
            rep.note(f"{t.name}: FAILURES {dict(t.failures)}; e.g. {t.samples[:2]}")
    best = max(r.api1.rate, r.api2.rate)
    if r.sql.rate:
        ratio = best / r.sql.rate
        rep.add("API/SQL ratio", f"{ratio:.2f} (1 worker {r.api1.rate / r.sql.rate:.2f}, 2 workers "
                f"{r.api2.rate / r.sql.rate:.2f})",
                f"≥ 0.25 {verdict(ratio >= 0.25)}; 0.5 {verdict(ratio >= 0.5)}")
    times, kinds = r.single
    rep.add("One hold at a time (API, 2 workers)", f"{latency(times)} ({dict(kinds)})")

    report_contention(cfg, rep, r.hot, r.evening)
    times, kinds = r.big_loser
    rep.add(f"A losing hold on the {cfg.resources:,}-resource unit", f"{latency(times)} ({dict(kinds)})")

    report_grid(rep, r.grid, g)
    for name, procs in r.rss.items():
        rep.add(f"API RSS, {name} (at its end)", ", ".join(f"{role} {v:.0f} MiB" for role, v in procs)
                + f"; total {sum(v for _, v in procs):.0f} MiB")
    for p in r.probes:
        rep.note(p)
    for name, errs in r.server_errors.items():
        if errs:
            rep.note(f"server log ({name}): {len(errs)} error lines, e.g. {errs[0][:300]}")
    return rep


def report_contention(cfg: Config, rep: Report, hs: HotSlot, ev: Evening) -> None:
    """The hot slot and the evening, against issue 22's targets."""
    rep.add(f"Hot slot: attempts/s ({cfg.hot_clients} clients)", f"{hs.rate:,.0f}/s over {hs.rounds} rounds",
            f"≥ 1,000 {verdict(hs.rate >= 1000)}")
    rep.add("Hot slot: round latency", latency(hs.round_times),
            f"p99 < 100 ms {verdict(pct(hs.round_times, 99) < 0.1)}")
    rep.add("Hot slot: request latency", latency(hs.request_times))
    clean = hs.clean_rounds == hs.rounds and set(hs.kinds) <= {"BookingPayload", "SlotTaken"}
    rep.add(f"Hot slot: 1 winner + {cfg.hot_clients - 1} SlotTaken", f"{hs.clean_rounds}/{hs.rounds} rounds; "
            f"{dict(hs.kinds)}", verdict(clean))
    rep.note(f"hot slot: {hs.in_database}")
    rep.note(f"hot slot: what the bench database's client backends did: {hs.waits}")
    rep.note(f"hot slot: {hs.cpu.describe(hs.attempts / hs.cpu.wall if hs.cpu.wall else 0)} (per attempt)")
    for s in hs.samples:
        rep.note(f"hot slot FAILURE {s}")
    rep.add(f"Evening: holds/s ({cfg.evening_clients} clients, 4 fields × 5 hours)",
            f"{ev.rate:,.1f}/s ({ev.holds}/{ev.pairs} pairs held over {ev.rounds} rounds; {ev.attempt_rate:,.0f} "
            "attempts/s)")
    rep.add("Evening: round latency (until every customer is answered)", latency(ev.round_times))
    rep.add("Evening: request latency", latency(ev.request_times))
    share = ev.not_conflicts / ev.refusals if ev.refusals else 0.0
    rep.add("Evening: refusals that were not conflicts", f"{ev.not_conflicts}/{ev.refusals} ({share:.1%}); "
            f"{dict(ev.kinds)}", f"0 {verdict(ev.not_conflicts == 0 and ev.refused_free == 0)}")
    rep.note(f"evening: {ev.in_database}")
    rep.note(f"evening: what the bench database's client backends did: {ev.waits}")
    rep.note(f"evening: {ev.cpu.describe(ev.attempts / ev.cpu.wall if ev.cpu.wall else 0)} (per attempt)")
    for s in ev.samples:
        rep.note(f"evening FAILURE {s}")


def report_only_contention(cfg: Config, r: ContentionRuns, started: datetime) -> Report:
    rep = Report("`bench.holds --only contention`", f"Hot slot: {cfg.hot_clients} clients × {cfg.hot_rounds} "
                 f"rounds; evening: {cfg.evening_clients} clients × {cfg.evening_rounds} rounds; API 2 workers.",
                 started)
    print("\nresults", flush=True)
    report_contention(cfg, rep, r.hot, r.evening)
    for p in r.probes:
        rep.note(p)
    if r.errors:
        rep.note(f"server log: {len(r.errors)} error lines, e.g. {r.errors[0][:300]}")
    return rep


def report_grid(rep: Report, gt: GridTimes, g: _data.GridUnit) -> None:
    if gt.problem:
        rep.note(f"grid FAILURE: {gt.problem}")
    else:
        rep.add("Grid: availabilityGrid via API (compact)", latency(gt.api),
                f"< 100 ms {verdict(pct(gt.api, 99) < 0.1)}")
        rep.add("Grid: availabilityGrid via API (typed segments)", latency(gt.api_segments),
                f"{gt.segments:,} segments, {gt.segment_bytes / 1024:,.0f} KiB")
        rep.add("Grid: use case in-process", latency(gt.use_case),
                f"< 100 ms {verdict(pct(gt.use_case, 99) < 0.1)}")
        rep.add("Grid: occupancy SQL (+ rows → columns)", latency(gt.sql))
        rep.add("Grid: grid_rows() domain computation", latency(gt.domain))
        rep.note(f"grid: {gt.segments:,} segments, {gt.response_bytes / 1024:,.0f} KiB of JSON, "
                 f"{gt.occupancies:,} occupancies read; slot states {dict(gt.states)} (data: "
                 f"{g.slots_booked / g.slots_total:.0%} of slots booked, {g.held} held bookings)")
        rep.note(f"grid: occupancy query as the API runs it: {gt.plan}")
        rep.note(f"grid: the machine was busy {gt.idle_before:.2f} cores with other work just before; during the "
                 f"compact API runs {gt.cpu.describe(0)}")


def report_holds(cfg: Config, r: HoldRuns, started: datetime) -> Report:
    """The API (1 worker, two runs around the baseline) against the direct-SQL baseline of the same run."""
    rep = Report("`bench.holds --only holds`", f"Holds: {cfg.resources:,} resources × 30 days{_history(cfg)}, "
                 f"{cfg.clients} clients, {cfg.seconds:.0f} s per phase: API (1 worker), direct SQL, API again.",
                 started)
    print("\nresults", flush=True)
    for i, t in enumerate(r.api):
        rep.add(f"{t.name} (run {i + 1})", f"{t.rate:,.0f}/s ({t.ok:,} in {t.cpu.wall:.1f} s), "
                f"latency {latency(t.latencies)}", f"≥ 800 {verdict(t.rate >= 800)}")
    rep.add(r.sql.name, f"{r.sql.rate:,.0f}/s ({r.sql.ok:,} in {r.sql.cpu.wall:.1f} s), "
            f"latency {latency(r.sql.latencies)}", f"≥ 2,500 {verdict(r.sql.rate >= 2500)}")
    if r.sql.rate:
        ratios = [t.rate / r.sql.rate for t in r.api]
        rep.add("API/SQL ratio", f"{sum(ratios) / len(ratios):.2f} (runs {', '.join(f'{x:.2f}' for x in ratios)})",
                f"≥ 0.7 {verdict(min(ratios) >= 0.7)}")
    for t in (*r.api, r.sql):
        if t.rate and t.cpu.backends is not None:
            per = (t.cpu.api + t.cpu.client * (t is r.sql) + t.cpu.backends) / t.rate
            rep.add(f"CPU per hold: {t.name.split(' holds')[0]}" + (" (client + backends)" if t is r.sql else
                                                                 " (API process + backends)"),
                    f"{per * 1e3:.2f} ms: {2 / per:,.0f} holds/s if 2 cores were its own")
    for t in (*r.api, r.sql):
        rep.note(f"{t.name}: {t.cpu.describe(t.rate)}")
        if t.failures:
            rep.note(f"{t.name}: FAILURES {dict(t.failures)}; e.g. {t.samples[:2]}")
    for p in r.probes:
        rep.note(p)
    if r.errors:
        rep.note(f"server log: {len(r.errors)} error lines, e.g. {r.errors[0][:300]}")
    return rep
