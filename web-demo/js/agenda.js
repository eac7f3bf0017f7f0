// Staff live agenda (SPEC §5, §16): the unit's resources × slots for a day or a week, live from slotChanged.

import {follow, gql, resultError} from "./gql.js";
import {act, bookingPanel} from "./booking_panel.js";
import {holdTypeLegend} from "./legend.js";
import {h, say, session} from "./session.js";
import {inkOn} from "./contrast.js";
import {addDays, countdown, dayLabel, hhmm, iso, localDate, longDate, startOfDay, today} from "./time.js";

// Each state's colours are the design tokens (web-demo/tokens.css, --sl-state-*; AA contrast), and every cell
// also carries its state's label: never colour alone. Holds show their hold type's configured colour (holdTypes).
export const STATES = [
  ["FREE", "Free", "free"],
  ["HELD", "Held", "held"],
  ["VERIFYING", "Verifying payment", "verifying"],
  ["BOOKED", "Booked", "confirmed"],
  ["BLOCKED", "Blocked", "blocked"],
  ["CLOSED", "Closed", "closed"],
  ["PAST", "Past", "past"],
];
const STATE_NAME = Object.fromEntries(STATES.map(([s, name]) => [s, name]));
const STATE_COLOR = Object.fromEntries(STATES.map(([s, , t]) => [s, `var(--sl-state-${t}-bg)`]));
const STATE_FG = Object.fromEntries(STATES.map(([s, , t]) => [s, `var(--sl-state-${t}-fg)`]));
const HOLD_STATES = new Set(["HELD", "VERIFYING"]);

const GRID = `query Grid($u: ID!, $from: DateTime!, $to: DateTime!) {
  availabilityGrid(unitId: $u, from: $from, to: $to) {
    __typename
    ... on Grid { slotMinutes rows { resource { id name kind capacity }
      segments { startsAt endsAt state slots available bookingId status holdType holdTypeName holdExpiresAt
                 displayColor } } }
    ... on Error { code message } } }`;
const SLOT_CHANGED = `subscription Slots($u: ID!, $from: DateTime!, $to: DateTime!, $since: Int) {
  slotChanged(unitId: $u, from: $from, to: $to, since: $since) {
    seq event bookingId status oldStatus state holdType holdTypeName displayColor holdExpiresAt at
    slots { resourceId startsAt endsAt quantity } } }`;
const COUNTER = `mutation Counter($i: CounterBookingInput!) { counterBooking(input: $i) {
  __typename ... on BookingPayload { booking { id status } }
  ... on SlotTaken { code message heldBookingId } ... on Error { code message } } }`;
/** The agenda of one unit; `live` is the page's graphql-ws client. */
export class Agenda {
  constructor(root, unit, live) {
    this.root = root;
    this.unit = unit;
    this.tz = unit.timezone;
    this.live = live;
    this.day = today(this.tz);
    this.view = "day";
    this.cells = new Map();  // "resourceId|startMs" → cell
    this.resources = new Map(unit.resources.map((r) => [r.id, r]));
    this.slotMs = unit.parameters.slotMinutes * 60000;
    this.selected = null;
    this.channels = new Map();  // bookingId → channel, for naming a default (CART) hold by where it came from
    this.stopFeed = () => {};
    this.refetchTimer = null;
    this.lastEventAt = null;
    this.build();
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  build() {
    this.dateInput = h("input", {type: "date", value: this.day, "aria-label": "Day",
      onchange: (e) => { this.day = e.target.value; this.reload(); }});
    this.viewSelect = h("select", {"aria-label": "View", onchange: (e) => { this.view = e.target.value; this.reload(); }},
      h("option", {value: "day"}, "Day"), h("option", {value: "week"}, "Week"));
    this.status = h("p", {class: "message", hidden: true, role: "status"});
    this.feedInfo = h("span", {class: "feed-info", "data-testid": "feed-info"}, "");
    this.gridEl = h("div", {class: "grid-area", "data-testid": "grid"});
    this.panel = h("aside", {class: "cell-panel", "data-testid": "cell-panel", hidden: true});
    const legend = h("div", {class: "legend", "aria-label": "Legend"},
      STATES.map(([s, name]) => h("span", {class: "chip"}, h("i", {class: s === "VERIFYING" ? "striped" : null,
        style: {background: STATE_COLOR[s]}}), name)),
      this.holdTypes = h("span", {class: "legend-types"}));
    holdTypeLegend(this.holdTypes, this.unit.id, session.staffToken);
    this.root.replaceChildren(
      h("div", {class: "toolbar"},
        h("button", {onclick: () => this.shift(-1), "aria-label": "Previous"}, "◀"),
        this.dateInput,
        h("button", {onclick: () => this.shift(1), "aria-label": "Next"}, "▶"),
        h("button", {onclick: () => { this.day = today(this.tz); this.reload(); }}, "Today"),
        this.viewSelect, this.feedInfo),
      legend, this.status, this.gridEl, this.panel);
  }

  shift(direction) {
    this.day = addDays(this.day, direction * (this.view === "week" ? 7 : 1));
    this.reload();
  }

  days() {
    return this.view === "week" ? [0, 1, 2, 3, 4, 5, 6].map((i) => addDays(this.day, i)) : [this.day];
  }

  range() {
    const days = this.days();
    return {from: iso(startOfDay(days[0], this.tz)), to: iso(startOfDay(addDays(days[days.length - 1], 1), this.tz))};
  }

  /** Subscribe for the range shown, then read the grid (events that cross the read are applied after it). */
  async reload() {
    this.dateInput.value = this.day;
    this.viewSelect.value = this.view;
    const {from, to} = this.range();
    this.stopFeed();
    this.stopFeed = follow(this.live, SLOT_CHANGED, {u: this.unit.id, from, to, since: this.since ?? null},
      (event) => this.onEvent(event), (message) => say(this.status, message, "error"));
    await this.fetchGrid();
  }

  async fetchGrid() {
    const {from, to} = this.range();
    let grid;
    try {
      grid = (await gql(GRID, {u: this.unit.id, from, to}, session.staffToken)).availabilityGrid;
    } catch (e) {
      say(this.status, e.message, "error");
      return;
    }
    if (grid.__typename !== "Grid") {
      say(this.status, resultError(grid), "error");
      return;
    }
    say(this.status, "");
    this.slotMs = grid.slotMinutes * 60000;
    this.cells.clear();
    this.rowsOrder = grid.rows.map((row) => row.resource);
    for (const row of grid.rows) {
      this.resources.set(row.resource.id, row.resource);
      for (const seg of row.segments) {
        const start = Date.parse(seg.startsAt);
        for (let i = 0; i < seg.slots; i++) {
          const t = start + i * this.slotMs;
          this.cells.set(`${row.resource.id}|${t}`, {resourceId: row.resource.id, start: t, ...seg,
            startsAt: undefined, endsAt: undefined, slots: undefined});
        }
      }
    }
    this.render();
  }

  render() {
    const blocks = [];
    for (const day of this.days()) {
      const from = startOfDay(day, this.tz).getTime();
      const to = startOfDay(addDays(day, 1), this.tz).getTime();
      const starts = [...new Set([...this.cells.values()].filter((c) => c.start >= from && c.start < to)
        .map((c) => c.start))].sort((a, b) => a - b);
      const head = h("tr", {}, h("th", {class: "corner"}, "Resource"),
        starts.map((t) => h("th", {scope: "col"}, hhmm(t, this.tz))));
      const body = (this.rowsOrder || []).map((r) => h("tr", {},
        h("th", {scope: "row", class: "resource"}, r.name, r.kind === "POOLED" ? h("small", {}, ` ${r.capacity} places`) : null),
        starts.map((t) => this.cellEl(this.cells.get(`${r.id}|${t}`), r, t))));
      blocks.push(h("section", {class: "agenda-day", "data-day": day},
        h("h3", {}, dayLabel(day)),
        starts.length ? h("div", {class: "scroll", tabindex: "0", role: "region", "aria-label": dayLabel(day)}, h("table", {class: "grid"}, h("thead", {}, head), h("tbody", {}, body)))
          : h("p", {class: "muted"}, "Closed all day.")));
    }
    this.gridEl.replaceChildren(...blocks);
    this.tick();
    this.learnChannels();
  }

  cellEl(cell, resource, start) {
    const td = h("td", {class: "cell", dataset: {resource: resource.id, start: new Date(start).toISOString()}});
    this.paint(td, cell, resource);
    td.addEventListener("click", () => this.select(resource.id, start));
    return td;
  }

  paint(td, cell, resource) {
    const state = cell ? cell.state : "CLOSED";
    td.dataset.state = state;
    td.dataset.booking = cell && cell.bookingId ? cell.bookingId : "";
    const typed = HOLD_STATES.has(state) && cell && cell.displayColor;  // the hold type's configured colour
    td.style.background = typed ? cell.displayColor : STATE_COLOR[state];
    td.style.color = typed ? inkOn(cell.displayColor) : STATE_FG[state];  // the text that contrasts most with it
    td.classList.toggle("typed", Boolean(typed));
    td.classList.toggle("light", state === "CLOSED");
    td.classList.toggle("past", state === "PAST");
    const label = state === "FREE" ? (resource.kind === "POOLED" ? `${cell.available}/${resource.capacity}` : "Free")
      : state === "VERIFYING" ? "Verifying"
        : state === "HELD" ? this.holdLabel(cell) : STATE_NAME[state];
    td.classList.toggle("verifying", state === "VERIFYING");
    const parts = [h("span", {class: "label"}, label)];
    if (cell && cell.holdExpiresAt && (state === "HELD" || state === "VERIFYING")) {
      const left = Date.parse(cell.holdExpiresAt) - Date.now();
      parts.push(h("span", {class: "countdown", dataset: {expires: cell.holdExpiresAt}},
        left > 0 ? `${countdown(left)} left` : "expired"));
    }
    if (resource.kind === "POOLED" && state !== "FREE" && cell) parts.push(h("small", {}, ` ${cell.available} left`));
    td.replaceChildren(...parts);
    td.title = `${resource.name} ${hhmm(cell ? cell.start : 0, this.tz)} — ${STATE_NAME[state]}`
      + (cell && cell.status ? ` (${cell.status.toLowerCase()})` : "");
  }

  /** A hold's name (issue 20, bug 6): its hold type's configured name when one was chosen; the default type
   * (CART, "Hold do bot") is named by where the hold came from: the bot's name only for the bot's holds. */
  holdLabel(cell) {
    if (!cell) return STATE_NAME.HELD;
    if (cell.holdType && cell.holdType !== "CART") return cell.holdTypeName || cell.holdType;
    const channel = this.channels.get(cell.bookingId);
    if (channel === "WHATSAPP" || channel === "BOT") return cell.holdTypeName || "Hold do bot";
    if (channel === "WEB" || channel === "APP") return "Online hold";
    if (channel) return "Staff hold";
    return STATE_NAME.HELD;
  }

  /** Learn the channel of the default-type holds shown (one request for all), then repaint their cells. */
  async learnChannels() {
    const wanted = [...new Set([...this.cells.values()].filter((c) => c.bookingId && c.state === "HELD"
      && (!c.holdType || c.holdType === "CART") && !this.channels.has(c.bookingId)).map((c) => c.bookingId))];
    if (!wanted.length) return;
    const query = `query(${wanted.map((_, i) => `$b${i}: ID!`).join(", ")}) { ${wanted.map((_, i) =>
      `b${i}: booking(id: $b${i}) { ... on Booking { id channel } }`).join(" ")} }`;
    try {
      const data = await gql(query, Object.fromEntries(wanted.map((id, i) => [`b${i}`, id])), session.staffToken);
      for (const b of Object.values(data)) if (b && b.id) this.channels.set(b.id, b.channel);
    } catch {
      return;  // the cells keep saying "Held"
    }
    for (const td of this.gridEl.querySelectorAll("td.cell[data-state=HELD]")) {
      const cell = this.cells.get(`${td.dataset.resource}|${Date.parse(td.dataset.start)}`);
      if (cell && wanted.includes(cell.bookingId)) this.paint(td, cell, this.resources.get(td.dataset.resource));
    }
  }

  tick() {
    const now = Date.now();
    for (const el of this.root.querySelectorAll("[data-expires]")) {
      const left = Date.parse(el.dataset.expires) - now;
      const suffix = el.closest("td") ? " left" : "";
      el.textContent = left > 0 ? `${countdown(left)}${suffix}` : "expired";
    }
  }

  onEvent(event) {
    this.since = event.seq;
    this.lastEventAt = new Date();
    this.feedInfo.textContent = `live · last change ${hhmm(this.lastEventAt, this.tz)} (#${event.seq})`;
    let pooled = false;
    for (const r of event.slots) {
      const resource = this.resources.get(r.resourceId);
      if (!resource) continue;
      if (resource.kind === "POOLED") { pooled = true; continue; }
      for (let t = Date.parse(r.startsAt); t < Date.parse(r.endsAt); t += this.slotMs) {
        const cell = this.cells.get(`${r.resourceId}|${t}`);
        if (!cell) continue;
        if (event.state === "FREE") {
          if (cell.bookingId && cell.bookingId !== event.bookingId) continue;  // someone else's by now
          Object.assign(cell, {state: t < Date.now() ? "PAST" : "FREE", bookingId: null, status: null, holdType: null, holdTypeName: null,
            holdExpiresAt: null, displayColor: event.displayColor, available: 1});
        } else {
          Object.assign(cell, {state: event.state, bookingId: event.bookingId, status: event.status,
            holdType: event.holdType, holdTypeName: event.holdTypeName, holdExpiresAt: event.holdExpiresAt,
            displayColor: event.displayColor, available: 0});
        }
        const td = this.gridEl.querySelector(`td[data-resource="${r.resourceId}"][data-start="${new Date(t).toISOString()}"]`);
        if (td) {
          this.paint(td, cell, resource);
          td.classList.remove("changed");
          void td.offsetWidth;  // restart the flash
          td.classList.add("changed");
        }
      }
    }
    this.tick();
    this.learnChannels();
    if (this.selected) this.showPanel();
    // Reconcile with the server shortly after (pooled counts, merged runs); the patch above is what shows at once.
    clearTimeout(this.refetchTimer);
    this.refetchTimer = setTimeout(() => this.fetchGrid().then(() => this.selected && this.showPanel()),
      pooled ? 150 : 800);
  }

  /** After a lost connection: the subscription resumes with `since`; read the grid again too. */
  onReconnect() {
    this.fetchGrid();
  }

  select(resourceId, start) {
    this.selected = {resourceId, start};
    for (const el of this.gridEl.querySelectorAll("td.selected")) el.classList.remove("selected");
    const td = this.gridEl.querySelector(`td[data-resource="${resourceId}"][data-start="${new Date(start).toISOString()}"]`);
    if (td) td.classList.add("selected");
    this.panelMessage = h("p", {class: "message", hidden: true, role: "status", "data-testid": "panel-message"});
    this.panelSignature = null;
    this.showPanel();
  }

  showPanel() {
    const {resourceId, start} = this.selected;
    const resource = this.resources.get(resourceId);
    const cell = this.cells.get(`${resourceId}|${start}`);
    const state = cell ? cell.state : "CLOSED";
    // Rebuild only when what the panel shows changed (a live event must not wipe a form being filled in).
    const signature = JSON.stringify([Boolean(this.rescheduling), resourceId, start, state, cell && cell.bookingId, cell && cell.status,
      cell && cell.holdExpiresAt, cell && cell.available]);
    if (signature === this.panelSignature && !this.panel.hidden) return;
    this.panelSignature = signature;
    const message = this.panelMessage;
    const title = h("h3", {}, `${resource.name} · ${longDate(start, this.tz)} ${hhmm(start, this.tz)}`);
    const close = h("button", {class: "close", "aria-label": "Close", onclick: () => {
      this.selected = null;
      this.panel.hidden = true;
    }}, "×");
    const body = [h("p", {}, h("span", {class: "state-dot", style: {background: (HOLD_STATES.has(state) && cell && cell.displayColor) || STATE_COLOR[state]}}),
      STATE_NAME[state],
      // The hold type names a hold (HELD/VERIFYING), never a counter booking or a confirmed one (issue 20, bug 6).
      cell && (state === "HELD" || state === "VERIFYING") ? ` — ${this.holdLabel(cell)}` : "",
      cell && cell.status ? ` (booking ${cell.status.toLowerCase().replace("_", " ")})` : "")];
    if (cell && cell.holdExpiresAt && (state === "HELD" || state === "VERIFYING")) {
      body.push(h("p", {}, "Hold ends in ", h("strong", {class: "countdown", dataset: {expires: cell.holdExpiresAt}}, "")));
    }
    if (this.rescheduling) {
      body.push(h("p", {class: "message info", "data-testid": "reschedule-hint"},
        "Pick a free slot for the booking's new time. ",
        h("button", {type: "button", class: "link", onclick: () => { this.rescheduling = null; this.showPanel(); }},
          "Stop")));
    }
    if (cell && cell.bookingId) body.push(bookingPanel(cell.bookingId, this, message));
    if (state === "PAST") body.push(h("p", {class: "muted", "data-testid": "past-note"}, "This slot has already begun: it can no longer be booked."));
    if (state === "FREE" && this.rescheduling) {
      body.push(h("button", {type: "button", class: "primary", "data-testid": "move-here",
        onclick: () => this.moveHere(resource, start, message)}, "Move the booking here"));
    }
    if (state === "FREE" && resource.kind !== "POOLED") body.push(this.counterForm(resource, start, message));
    if (state === "FREE" && resource.kind === "POOLED") body.push(this.counterForm(resource, start, message, true));
    this.panel.replaceChildren(close, title, ...body, message);
    this.panel.hidden = false;
    this.tick();
  }

  /** Reschedule by picking: the next free slot chosen takes the booking, with the same length. */
  pickNewSlot(booking, message) {
    this.rescheduling = {id: booking.id, minutes: (Date.parse(booking.endsAt) - Date.parse(booking.startsAt)) / 60000};
    this.panelSignature = null;
    this.showPanel();
    say(message, "Now pick a free slot on the grid.", "info");
  }

  async moveHere(resource, start, message) {
    const {id, minutes} = this.rescheduling;
    const done = await act("reschedule", {b: id, i: {startsAt: iso(start), endsAt: iso(start + minutes * 60000),
      resourceIds: [resource.id]}}, message);
    if (done) {
      this.rescheduling = null;
      this.panelSignature = null;
      this.showPanel();
    }
  }

  counterForm(resource, start, message, pooled = false) {
    const max = 4;
    const form = h("form", {class: "stack", "data-testid": "counter-form"},
      h("h4", {}, "Counter booking (balcão)"),
      h("label", {}, "Customer name ", h("input", {name: "name", autocomplete: "off"})),
      h("label", {}, "Phone (E.164) ", h("input", {name: "phone", type: "tel", placeholder: "+5511987654321"})),
      h("label", {}, "Length ", h("select", {name: "slots"},
        [...Array(max).keys()].map((i) => h("option", {value: i + 1}, `${(i + 1) * this.slotMs / 60000} min`)))),
      pooled ? h("label", {}, "Places ", h("input", {name: "quantity", type: "number", min: 1, value: 1})) : null,
      h("button", {type: "submit"}, "Book at the counter"));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const customer = {};
      if (data.get("name")) customer.name = data.get("name");
      if (data.get("phone")) customer.phone = data.get("phone");
      const input = {unitId: this.unit.id, resourceIds: [resource.id], startsAt: iso(start),
        endsAt: iso(start + Number(data.get("slots")) * this.slotMs),
        customer: Object.keys(customer).length ? customer : null, quantity: Number(data.get("quantity") || 1)};
      await this.run(COUNTER, {i: input}, "counterBooking", message, "Booked at the counter: confirmed.");
    });
    return form;
  }

  async run(query, variables, field, message, success) {
    try {
      const result = (await gql(query, variables, session.staffToken))[field];
      if (result.__typename === "BookingPayload") {
        say(message, success, "ok");
      } else {
        let text = resultError(result);
        if (result.heldBookingId) text += " Drop that hold first (select its cell).";
        say(message, text, "error");
      }
    } catch (e) {
      say(message, e.message, "error");
    }
  }

  destroy() {
    this.stopFeed();
    clearInterval(this.ticker);
    clearTimeout(this.refetchTimer);
  }
}

export {localDate};
