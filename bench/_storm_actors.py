"""The storm's actors on its venues: customers that hold, pay, cancel, abandon, swap, reschedule and wait in line,
and staff that drop holds and book at the counter."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from bench._storm_client import Client
from bench._storm_config import (
    CANCEL,
    CAPACITY,
    CLAIM,
    CONFIRM,
    COUNTER,
    DROP,
    ENTRY,
    HOLD,
    RESCHEDULE,
    SWAP,
    TZ,
    UNIT_PARAMS,
    WAITLIST,
    Config,
    Stats,
)
from domain.customers import complete_cpf
from providers.sandbox import SandboxProvider
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day


@dataclass
class Venue:
    unit_id: UUID
    fields: list[UUID]
    pooled: UUID
    service: UUID


class Storm:
    def __init__(self, cfg: Config, client: Client, bank: SandboxProvider, venues: list[Venue], stats: Stats,
                 rng: random.Random) -> None:
        self.cfg, self.c, self.bank, self.venues, self.stats, self.rng = cfg, client, bank, venues, stats, rng
        self.next_customer = 0
        self.open_holds: list[str] = []
        base = datetime.now(TZ).replace(minute=0, second=0, microsecond=0) + timedelta(hours=2)
        self.slots = [base + timedelta(hours=h) for h in range(48) if 8 <= (base + timedelta(hours=h)).hour <= 21]

    def customer(self) -> str:
        self.next_customer = (self.next_customer + 1) % self.cfg.customers
        return complete_cpf(f"{7_000_000 + self.next_customer:09d}")

    def slot(self, v: Venue) -> dict[str, Any]:
        start = self.rng.choice(self.slots)
        return {"unitId": str(v.unit_id), "resourceIds": [str(self.rng.choice(v.fields))],
                "startsAt": start.isoformat(), "endsAt": (start + timedelta(hours=1)).isoformat()}

    async def hold(self, v: Venue, who: str) -> dict[str, Any] | None:
        key = f"storm-{uuid4().hex}"
        i = {**self.slot(v), "customer": {"cpf": who}, "serviceId": str(v.service)}
        if self.rng.random() < 0.15:  # a client that retries at once (or sends twice): one booking
            rs = await asyncio.gather(self.c.gql("hold", HOLD, {"i": i, "k": key}),
                                      self.c.gql("hold", HOLD, {"i": i, "k": key}))
        else:
            rs = (await self.c.gql("hold", HOLD, {"i": i, "k": key}),)
        for r in rs:
            if r and r.get("__typename") == "BookingPayload":
                self.stats.keys[key].add(r["booking"]["id"])
        r = next((x for x in rs if x and x.get("__typename") == "BookingPayload"), rs[0])
        if r is not None and r.get("__typename") == "SlotTaken" and self.rng.random() < 0.3:
            await self.c.gql("joinSlotWaitlist", WAITLIST, {"u": i["unitId"], "r": i["resourceIds"][0],
                                                            "s": i["startsAt"], "e": i["endsAt"], "c": who})
        return r if r and r.get("__typename") == "BookingPayload" else None

    async def pay(self, booking: str) -> None:
        r = await self.c.gql("confirm", CONFIRM, {"b": booking, "k": f"c-{booking}"})
        if not r or not r.get("charge"):
            return
        txid = r["charge"]["txid"]
        late = self.rng.random() < self.cfg.late_share
        await asyncio.sleep(self.cfg.late_after if late else self.rng.uniform(0.2, 3))  # late: past the deadline
        try:
            headers, body = await self.bank.pay(txid)
        except ValueError:
            return
        await self.c.webhook(headers, body)
        if self.rng.random() < self.cfg.duplicate_share:  # the bank sends it again
            await asyncio.sleep(self.rng.uniform(0, 1))
            await self.c.webhook(headers, body)

    async def customer_flow(self) -> None:
        v = self.rng.choice(self.venues)
        who = self.customer()
        if self.rng.random() < 0.08:
            await self.class_flow(v, who)
            return
        held = await self.hold(v, who)
        if held is None:
            return
        b = held["booking"]["id"]
        roll = self.rng.random()
        if roll < 0.45:
            await self.pay(b)
        elif roll < 0.60:
            await asyncio.sleep(self.rng.uniform(0, 3))
            await self.c.gql("cancel", CANCEL, {"b": b})
        elif roll < 0.72:
            self.open_holds.append(b)  # abandoned: it expires (or staff drop it)
        elif roll < 0.84:
            moved = await self.c.gql("swapHold", SWAP, {"b": b, "i": {**_range(self.slot(v)),
                                                                      "customer": {"cpf": who}}})
            if moved and moved.get("__typename") == "BookingPayload" and self.rng.random() < 0.5:
                await self.pay(moved["booking"]["id"])
        else:
            await self.pay(b)
            await asyncio.sleep(self.rng.uniform(1, 4))
            await self.c.gql("reschedule", RESCHEDULE, {"b": b, "i": _range(self.slot(v))})

    async def class_flow(self, v: Venue, who: str) -> None:
        start = self.rng.choice(self.slots[:3])  # a few popular classes: they fill up and people wait in line
        i = {"unitId": str(v.unit_id), "resourceIds": [str(v.pooled)], "startsAt": start.isoformat(),
             "endsAt": (start + timedelta(hours=1)).isoformat(), "quantity": 2, "customer": {"cpf": who}}
        r = await self.c.gql("hold", HOLD, {"i": i, "k": None})
        if r and r.get("__typename") == "SlotTaken":
            user = f"storm-{who}"
            entry = await self.c.gql("joinCapacityWaitlist", CAPACITY, {
                "u": i["unitId"], "r": i["resourceIds"][0], "s": i["startsAt"], "e": i["endsAt"], "user": user})
            if not entry or entry.get("__typename") != "CapacityWaitlistEntry":
                return
            for _ in range(8):  # wait a while for places to free up and an offer to come
                await asyncio.sleep(2)
                seen = await self.c.gql("capacityWaitlistEntry", ENTRY, {"i": entry["id"]})
                if seen and seen.get("offerToken"):
                    claimed = await self.c.gql("claimWaitlistOffer", CLAIM, {
                        "u": i["unitId"], "t": seen["offerToken"], "user": user})
                    if claimed and claimed.get("__typename") == "Booking" and self.rng.random() < 0.5:
                        await self.c.gql("cancel", CANCEL, {"b": claimed["id"]})
                    return
        elif r and r.get("__typename") == "BookingPayload" and self.rng.random() < 0.5:
            await self.c.gql("cancel", CANCEL, {"b": r["booking"]["id"]})

    async def staff_flow(self) -> None:
        v = self.rng.choice(self.venues)
        if self.open_holds and self.rng.random() < 0.5:
            await self.c.gql("drop", DROP, {"b": self.open_holds.pop(self.rng.randrange(len(self.open_holds)))})
        else:
            await self.c.gql("counterBooking", COUNTER, {"i": self.slot(v)})

    async def actor(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                if self.rng.random() < 0.1:
                    await self.staff_flow()
                else:
                    await self.customer_flow()
            except Exception as e:  # a harness bug must not stop the storm; it is counted
                self.stats.errors[("harness", type(e).__name__)] += 1


def _range(i: dict[str, Any]) -> dict[str, Any]:
    return {"startsAt": i["startsAt"], "endsAt": i["endsAt"], "resourceIds": i["resourceIds"]}


async def setup_venues(pool: asyncpg.Pool, cfg: Config) -> list[Venue]:
    out = []
    for n in range(cfg.units):
        resources = [ResourceSpec(name=f"Campo {i}", group="Campos") for i in range(1, cfg.fields + 1)]
        resources.append(ResourceSpec(name="Aula", kind="pooled", capacity=6))
        v = await create_venue(pool, VenueSpec(
            unit_name=f"Storm arena {n}", hours=every_day(0, 24), resources=resources, params=UNIT_PARAMS,
            services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 5000}]))
        out.append(Venue(v.unit_id, [v.resource_ids[f"Campo {i}"] for i in range(1, cfg.fields + 1)],
                         v.resource_ids["Aula"], v.service_ids["Campo 1h"]))
    return out
