"""The realtime bench's report: latencies and throughput per step and phase against raw Redis, the targets, memory,
the delivery checks and where the time went."""

from __future__ import annotations

from datetime import datetime

import psutil

from bench._measure import Report, ms, pct
from bench._rt_config import Config
from bench._rt_run import Results


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def lat(values: list[float]) -> str:
    if not values:
        return "no data"
    return f"p50 {ms(pct(values, 50))}, p99 {ms(pct(values, 99))}, max {ms(max(values))}"


def report(cfg: Config, r: Results, started: datetime) -> Report:
    rep = Report(f"`bench.realtime{' --quick' if cfg.quick else ''}`",
                 f"slotChanged on one unit ({cfg.resources} resources), 1 API process (uvicorn, 1 worker) + "
                 f"1 worker process; {', '.join(f'{n:,}' for n in cfg.counts)} websocket subscribers in the "
                 f"bench process; fixed-rate phases {cfg.rate:.0f} events/s × {cfg.seconds:.0f} s; bursts "
                 f"{', '.join(f'{cfg.burst(n):,}' for n in cfg.counts)} events.", started)
    print("\nresults", flush=True)
    raw = {x.subscribers: x for x in r.raw}
    for step in r.steps:
        n = step.subscribers
        for ph in step.phases:
            label = f"{n:,} subs: {ph.driver}, {ph.mode}"
            if ph.mode == "burst":
                rep.add(label, f"{ph.deliveries_per_s:,.0f} deliveries/s = {ph.events_per_s:,.0f} events/s fully "
                        f"delivered ({len(ph.sent):,} events in {ph.span:.2f} s); latency {lat(ph.latencies)}")
            else:
                rep.add(label, f"latency {lat(ph.latencies)}; last subscriber p50 {ms(pct(ph.last, 50))}, "
                        f"p99 {ms(pct(ph.last, 99))}")
        base = raw.get(n)
        if base:
            rep.add(f"{n:,} subs: raw Redis pub/sub (same rate, burst)",
                    f"latency {lat(base.latencies)}; burst {base.deliveries_per_s:,.0f} deliveries/s")
            rated = [p for p in step.phases if p.mode == f"{cfg.rate:.0f}/s"]
            burst = [p for p in step.phases if p.mode == "burst"]
            parts = [f"{p.driver}: p50 ×{pct(p.latencies, 50) / pct(base.latencies, 50):,.0f}, "
                     f"p99 ×{pct(p.latencies, 99) / pct(base.latencies, 99):,.0f}" for p in rated if p.latencies]
            if burst and base.deliveries_per_s:
                parts.append(f"throughput ×{burst[0].deliveries_per_s / base.deliveries_per_s:.3f}")
            rep.add(f"{n:,} subs: app/raw ratio", "; ".join(parts))
    big = [s for s in r.steps if s.subscribers == 1000]
    for s in big:
        for ph in s.phases:
            if ph.mode != "burst":
                p99 = pct(ph.latencies, 99)
                rep.add(f"Target: p99 < 100 ms at 1,000 subscribers ({ph.driver}, {ph.mode})", ms(p99),
                        verdict(p99 < 0.1))
    for s in r.steps:
        rep.add(f"API RSS with {s.subscribers:,} subscribers",
                f"{s.rss_connected:.0f} MiB connected, {s.rss_max:.0f} MiB peak during the phases (fresh process "
                f"{s.rss_idle:.0f} MiB: +{(s.rss_connected - s.rss_idle) * 1024 / s.subscribers:,.0f} KiB per "
                "subscriber connected)")
    for s in r.steps:
        c = s.check
        clean = all(not c.get(k) for k in ("duplicates", "missing", "out of order", "wrong booking for seq",
                                           "subscribers with non-next messages",
                                           "subscribers that received nothing"))
        rep.add(f"{s.subscribers:,} subs: every event once, in seq order",
                f"{c.get('deliveries', 0):,} deliveries of {c.get('expected', 0):,} expected; duplicates "
                f"{c.get('duplicates', 0)}, missing {c.get('missing', 0)}, out of order {c.get('out of order', 0)}, "
                f"wrong seq→booking {c.get('wrong booking for seq', 0)}", verdict(clean))
        for sample in s.check_samples:
            rep.note(f"{s.subscribers:,} subs: delivery check: {sample}")
    # notes: where the time goes, CPU, setup
    for s in r.steps:
        rep.note(f"{s.subscribers:,} subs: connecting took {s.connect_seconds:.1f} s, all live after "
                 f"{s.warmup_seconds:.1f} s of warm-up events")
        for ph in s.phases:
            split = (f"commit → Redis channel (database, NOTIFY, relay) {lat(ph.relay)}; Redis channel → "
                     f"websocket (API) {lat(ph.api)}")
            extra = ""
            if ph.request_times:
                extra = f"; hold request time {lat(ph.request_times)}"
            if ph.mode == "burst" and ph.t_relayed:
                extra += (f"; the relay put all {len(ph.sent):,} on Redis in {ph.t_relayed - ph.t_start:.2f} s "
                          f"({len(ph.sent) / (ph.t_relayed - ph.t_start):,.0f} events/s)")
            rep.note(f"{s.subscribers:,} subs, {ph.driver} {ph.mode}: {split}{extra}; first subscriber "
                     f"p50 {ms(pct(ph.first, 50))}; cores busy: bench client {ph.cpu.client:.2f}, API "
                     f"{ph.cpu.api:.2f}, worker {ph.worker_cores:.2f}, machine {ph.cpu.machine:.2f} of "
                     f"{psutil.cpu_count()}; {ph.deliveries:,}/{ph.expected:,} delivered"
                     + ("" if ph.drained else f" (GAVE UP after {cfg.idle_timeout:.0f} s without a delivery)"))
            if ph.failures:
                rep.note(f"{s.subscribers:,} subs, {ph.driver} {ph.mode}: FAILURES {dict(ph.failures)}; "
                         f"e.g. {ph.samples[:2]}")
        for line in s.profile:
            rep.note(f"profile, {s.subscribers:,} subs: {line.strip()}")
    for x in r.raw:
        if x.lost or x.out_of_order:
            rep.note(f"raw Redis, {x.subscribers} subs: lost {x.lost}, out of order {x.out_of_order}")
    rep.note(f"worker RSS at the end {r.worker_rss:.0f} MiB; websocket pings answered by the client "
             f"{r.client_pings}; duplicate events on the Redis channel {r.observer_duplicates}")
    for p in r.probes:
        rep.note(p)
    heads = {(s.code[0], tuple(s.code[1])) for s in r.steps} | {(r.code_at_end[0], tuple(r.code_at_end[1]))}
    first = r.steps[0].code if r.steps else r.code_at_end
    rep.note(f"code under test: HEAD {first[0]}"
             + (f" + uncommitted changes to {', '.join(first[1])}" if first[1] else " (clean working tree)"))
    if len(heads) > 1:
        per_step = "; ".join(f"{s.subscribers:,} subs: {s.code[0]}"
                             + (f" + {len(s.code[1])} changed files" if s.code[1] else "") for s in r.steps)
        rep.note("WARNING: the code changed during the run (others were committing); each step's API process "
                 f"ran the code of its start: {per_step}; at the end: {r.code_at_end[0]}")
    for name, errs in r.errors.items():
        if errs:
            rep.note(f"{name} log: {len(errs)} error lines, e.g. {errs[0][:300]}")
        else:
            rep.note(f"{name} log: no error lines")
    return rep
