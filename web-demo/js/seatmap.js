// Seat map of an event with live seat states (seed 004: ACTIVE / LOCKED / SOLD / BLOCKED).
// seatMap(eventId) draws sections → rows → seats; slotChanged(unitId, event.startsAt, event.endsAt) carries each
// change's seatState with the seat ids in slots[].resourceId (staff); others see it refreshed every few seconds.

import {follow, gql, resultError} from "./gql.js";
import {holdTypeLegend} from "./legend.js";
import {h, say, session} from "./session.js";
import {inkOn} from "./contrast.js";
import {countdown, hhmm, longDate} from "./time.js";

export const SEAT_STATES = [["ACTIVE", "Free", "#22C55E"], ["LOCKED", "Locked (held)", "#F59E0B"],
  ["SOLD", "Sold", "#3B82F6"], ["BLOCKED", "Blocked", "#6B7280"]];
const SEAT_NAME = Object.fromEntries(SEAT_STATES.map(([s, n]) => [s, n]));

const EVENTS = `query($u: ID!) { seatEvents(unitId: $u) { id name startsAt endsAt seatMapId } }`;
const SEAT_MAP = `query($e: ID!) { seatMap(eventId: $e) { __typename
  ... on SeatMapView { event { id name startsAt endsAt } seatMap { id name seatCount }
    sections { name rows { label seats { id label state holdType holdTypeName displayColor holdExpiresAt } } }
    counts { active locked sold blocked } }
  ... on Error { code message } } }`;
const SEAT_CHANGED = `subscription($u: ID!, $from: DateTime!, $to: DateTime!, $since: Int) {
  slotChanged(unitId: $u, from: $from, to: $to, since: $since) {
    seq event seatState holdType holdTypeName displayColor holdExpiresAt slots { resourceId } } }`;
const SEATS_ERR = `... on SeatsUnavailable { code message seats { label state } } ... on Error { code message }`;
const ACTIONS = {
  lock: [`mutation($i: LockSeatsInput!, $k: String) { r: lockSeats(input: $i, idempotencyKey: $k) {
    __typename ... on BookingPayload { booking { id } } ${SEATS_ERR} } }`, "Locked."],
  sell: [`mutation($i: SellSeatsInput!, $k: String) { r: sellSeats(input: $i, idempotencyKey: $k) {
    __typename ... on SeatBookingsPayload { bookings { id } } ${SEATS_ERR} } }`, "Sold."],
  unlock: [`mutation($e: ID!, $s: [ID!]!) { r: unlockSeats(eventId: $e, seatIds: $s) {
    __typename ... on SeatBookingsPayload { bookings { id } } ${SEATS_ERR} } }`, "Unlocked."],
  block: [`mutation($e: ID!, $s: [ID!]!) { r: blockSeats(eventId: $e, seatIds: $s, reason: "bloqueado no painel") {
    __typename ... on SeatsChanged { changed: seats } ${SEATS_ERR} } }`, "Blocked."],
  unblock: [`mutation($e: ID!, $s: [ID!]!) { r: unblockSeats(eventId: $e, seatIds: $s) {
    __typename ... on SeatsChanged { changed: seats } ${SEATS_ERR} } }`, "Unblocked."],
};

export class SeatMapView {
  constructor(root, unit, live) {
    this.root = root;
    this.unit = unit;
    this.tz = unit.timezone;
    this.live = live;
    this.seats = new Map();
    this.selected = new Set();
    this.stopFeed = () => {};
    this.status = h("p", {class: "message", hidden: true, role: "status", "data-testid": "seat-message"});
    this.picker = h("select", {"aria-label": "Event", onchange: (e) => this.open(e.target.value)});
    this.board = h("div", {class: "seatmap", "data-testid": "seatmap"});
    this.counts = h("p", {class: "muted", "data-testid": "seat-counts"});
    this.actions = h("div", {class: "actions"});
    const legend = h("div", {class: "legend"},
      SEAT_STATES.map(([, name, c]) => h("span", {class: "chip"}, h("i", {style: {background: c}}), name)),
      this.holdTypes = h("span", {class: "legend-types"}));
    holdTypeLegend(this.holdTypes, unit.id, this.token());
    root.replaceChildren(h("h2", {}, "Seat map"), h("div", {class: "toolbar"}, this.picker,
      h("span", {class: "feed-info", "data-testid": "seat-feed"}, live ? "live" : "refreshed every 5 s (staff: live)")),
    legend, this.counts, this.status, this.board, this.actions);
    this.ticker = setInterval(() => this.tick(), 1000);
    this.start();
  }

  token() {
    return session.staffToken || (session.customer && session.customer.token) || null;
  }

  async start() {
    try {
      const events = (await gql(EVENTS, {u: this.unit.id}, this.token())).seatEvents;
      if (!events.length) {
        this.board.replaceChildren(h("p", {class: "muted"}, "No coming event with a seat map in this unit."));
        return;
      }
      this.picker.replaceChildren(...events.map((e) => h("option", {value: e.id},
        `${e.name} — ${longDate(e.startsAt, this.tz)} ${hhmm(e.startsAt, this.tz)}`)));
      const wanted = new URLSearchParams(location.search).get("event");
      const first = events.find((e) => e.id === wanted) || events[0];
      this.picker.value = first.id;
      await this.open(first.id);
    } catch (e) {
      say(this.status, e.message, "error");
    }
  }

  async open(eventId) {
    this.eventId = eventId;
    this.selected.clear();
    await this.refresh();
    this.stopFeed();
    clearInterval(this.poll);
    if (this.live && this.event) {
      this.stopFeed = follow(this.live, SEAT_CHANGED, {u: this.unit.id, from: this.event.startsAt, to: this.event.endsAt},
        (event) => this.onEvent(event), (message) => say(this.status, message, "error"));
    } else {
      this.poll = setInterval(() => this.refresh(), 5000);
    }
  }

  async refresh() {
    try {
      const r = (await gql(SEAT_MAP, {e: this.eventId}, this.token())).seatMap;
      if (r.__typename !== "SeatMapView") return say(this.status, resultError(r), "error");
      this.event = r.event;
      this.view = r;
      this.seats.clear();
      for (const s of r.sections) for (const row of s.rows) for (const seat of row.seats) this.seats.set(seat.id, seat);
      this.render();
    } catch (e) {
      say(this.status, e.message, "error");
    }
  }

  render() {
    const r = this.view;
    this.counts.textContent = `${r.seatMap.name}: ${r.counts.active} free · ${r.counts.locked} locked · `
      + `${r.counts.sold} sold · ${r.counts.blocked} blocked`;
    this.board.replaceChildren(...r.sections.map((section) => h("section", {class: "seat-section"},
      h("h3", {}, section.name),
      section.rows.map((row) => h("div", {class: "seat-row"}, h("span", {class: "row-label"}, row.label),
        row.seats.map((seat) => this.seatEl(seat)))))));
    this.renderActions();
    this.tick();
  }

  seatEl(seat) {
    const el = h("button", {type: "button", class: "seat", dataset: {seat: seat.id, state: seat.state},
      "aria-pressed": this.selected.has(seat.id) ? "true" : "false",
      onclick: () => {
        if (this.selected.has(seat.id)) this.selected.delete(seat.id);
        else this.selected.add(seat.id);
        el.setAttribute("aria-pressed", this.selected.has(seat.id) ? "true" : "false");
        this.renderActions();
      }}, seat.label);
    this.paint(el, seat);
    return el;
  }

  paint(el, seat) {
    el.dataset.state = seat.state;
    el.style.background = seat.displayColor;
    el.style.color = inkOn(seat.displayColor);
    el.title = `${seat.label}: ${SEAT_NAME[seat.state]}${seat.holdTypeName ? ` — ${seat.holdTypeName}` : ""}`;
    if (seat.holdExpiresAt && seat.state === "LOCKED") el.dataset.expires = seat.holdExpiresAt;
    else delete el.dataset.expires;
  }

  onEvent(event) {
    this.feedSeq = event.seq;
    for (const slot of event.slots) {
      const seat = this.seats.get(slot.resourceId);
      if (!seat) continue;
      Object.assign(seat, {state: event.seatState, holdType: event.holdType, holdTypeName: event.holdTypeName,
        displayColor: event.displayColor, holdExpiresAt: event.holdExpiresAt});
      const el = this.board.querySelector(`[data-seat="${slot.resourceId}"]`);
      if (el) {
        this.paint(el, seat);
        el.classList.remove("changed");
        void el.offsetWidth;
        el.classList.add("changed");
      }
    }
    clearTimeout(this.refetch);
    this.refetch = setTimeout(() => this.refresh(), 700);  // counts, and anything merged server-side
  }

  onReconnect() {
    this.refresh();
  }

  renderActions() {
    const ids = [...this.selected];
    const labels = ids.map((id) => this.seats.get(id)?.label).filter(Boolean).join(", ");
    const phone = h("input", {name: "phone", type: "tel", placeholder: "+5511987654321",
      value: (session.customer && session.customer.phone) || ""});
    const run = (name, variables) => async () => {
      const [query, success] = ACTIONS[name];
      try {
        const r = (await gql(query, variables, this.token())).r;
        // SeatsUnavailable names the seats and their states in its message.
        if (r.code) return say(this.status, resultError(r), "error");
        say(this.status, success, "ok");
        this.selected.clear();
        this.refresh();
      } catch (e) {
        say(this.status, e.message, "error");
      }
    };
    const customer = () => (phone.value.trim() ? {phone: phone.value.trim()} : null);
    const e = this.eventId;
    this.actions.replaceChildren(...(ids.length ? [
      h("span", {}, `Selected: ${labels} `),
      h("label", {}, "Customer phone ", phone),
      h("button", {onclick: () => run("lock", {i: {eventId: e, seatIds: ids, customer: customer(), channel: "WEB"},
        k: crypto.randomUUID()})()}, "Lock"),
      session.staffToken ? [
        h("button", {onclick: () => run("sell", {i: {eventId: e, seatIds: ids, customer: customer()},
          k: crypto.randomUUID()})()}, "Sell (box office)"),
        h("button", {onclick: run("unlock", {e, s: ids})}, "Unlock"),
        h("button", {onclick: run("block", {e, s: ids})}, "Block"),
        h("button", {onclick: run("unblock", {e, s: ids})}, "Unblock")] : null,
      h("button", {class: "link", onclick: () => { this.selected.clear(); this.render(); }}, "clear")]
      : [h("span", {class: "muted"}, "Select seats to lock, sell or block them.")]).flat().filter(Boolean));
  }

  tick() {
    const now = Date.now();
    for (const el of this.board.querySelectorAll("[data-expires]")) {
      const left = Date.parse(el.dataset.expires) - now;
      el.title = el.title.replace(/ · .*$/, "") + (left > 0 ? ` · ${countdown(left)} left` : "");
    }
  }

  destroy() {
    this.stopFeed();
    clearInterval(this.poll);
    clearInterval(this.ticker);
    clearTimeout(this.refetch);
  }
}
