// Staff live agenda (SPEC §5, §16): the unit's resources × slots for a day or a week, live from slotChanged.

import {follow, gql} from "./gql.js";
import {act, bookingPanel, refusal, statusWords} from "./booking_panel.js";
import {register, t} from "./i18n.js";
import {holdTypeLegend, holdTypeName} from "./legend.js";
import {h, say, session} from "./session.js";
import {inkOn} from "./contrast.js";
import {addDays, countdown, dayLabel, hhmm, iso, localDate, longDate, startOfDay, today} from "./time.js";

register({
  "pt-BR": {
    "agenda.state.FREE": "Livre", "agenda.state.HELD": "Em hold", "agenda.state.VERIFYING": "Conferindo pagamento",
    "agenda.state.BOOKED": "Confirmado", "agenda.state.BLOCKED": "Bloqueado", "agenda.state.CLOSED": "Fechado", "agenda.state.PAST": "Passado",
    "agenda.verifying": "Conferindo", "agenda.onlineHold": "Hold online", "agenda.series": "Série",
    "agenda.staffHold": "Hold da equipe", "agenda.day": "Dia", "agenda.view": "Visão", "agenda.viewDay": "Dia",
    "agenda.viewWeek": "Semana", "agenda.previous": "Anterior", "agenda.next": "Próximo", "agenda.today": "Hoje",
    "agenda.legend": "Legenda", "agenda.resource": "Recurso", "agenda.places": "{n} vagas",
    "agenda.placesLeft": "{n} restantes", "agenda.closedAllDay": "Fechado o dia todo.", "agenda.left": "{time} restantes",
    "agenda.expired": "expirado", "agenda.live": "ao vivo · última mudança {time} (#{seq})",
    "agenda.close": "Fechar", "agenda.bookingStatus": "(reserva {status})", "agenda.holdEndsIn": "O hold acaba em ",
    "agenda.pickHint": "Escolha um horário livre para a nova hora da reserva. ", "agenda.stop": "Parar",
    "agenda.past": "Este horário já começou: não pode mais ser reservado.",
    "agenda.moveHere": "Mover a reserva para cá", "agenda.pickNow": "Agora escolha um horário livre na grade.",
    "agenda.counterTitle": "Reserva no balcão", "agenda.customerName": "Nome do cliente",
    "agenda.phone": "Telefone (+55…)", "agenda.length": "Duração", "agenda.minutes": "{n} min",
    "agenda.placesField": "Vagas", "agenda.bookCounter": "Reservar no balcão",
    "agenda.booked": "Reservado no balcão: confirmado.",
  },
  en: {
    "agenda.state.FREE": "Free", "agenda.state.HELD": "Held", "agenda.state.VERIFYING": "Verifying payment",
    "agenda.state.BOOKED": "Booked", "agenda.state.BLOCKED": "Blocked", "agenda.state.CLOSED": "Closed", "agenda.state.PAST": "Past",
    "agenda.verifying": "Verifying", "agenda.onlineHold": "Online hold", "agenda.series": "Series",
    "agenda.staffHold": "Staff hold", "agenda.day": "Day", "agenda.view": "View", "agenda.viewDay": "Day",
    "agenda.viewWeek": "Week", "agenda.previous": "Previous", "agenda.next": "Next", "agenda.today": "Today",
    "agenda.legend": "Legend", "agenda.resource": "Resource", "agenda.places": "{n} places",
    "agenda.placesLeft": "{n} left", "agenda.closedAllDay": "Closed all day.", "agenda.left": "{time} left",
    "agenda.expired": "expired", "agenda.live": "live · last change {time} (#{seq})",
    "agenda.close": "Close", "agenda.bookingStatus": "(booking {status})", "agenda.holdEndsIn": "Hold ends in ",
    "agenda.pickHint": "Pick a free slot for the booking's new time. ", "agenda.stop": "Stop",
    "agenda.past": "This slot has already begun: it can no longer be booked.",
    "agenda.moveHere": "Move the booking here", "agenda.pickNow": "Now pick a free slot on the grid.",
    "agenda.counterTitle": "Counter booking", "agenda.customerName": "Customer name",
    "agenda.phone": "Phone (+55…)", "agenda.length": "Length", "agenda.minutes": "{n} min",
    "agenda.placesField": "Places", "agenda.bookCounter": "Book at the counter",
    "agenda.booked": "Booked at the counter: confirmed.",
  },
});

// Each state's colours are the design tokens (web-demo/tokens.css, --sl-state-*; AA contrast), and every cell
// also carries its state's label (state.X, in the screen's language): never colour alone. Holds show their hold
// type's configured colour (holdTypes).
export const STATES = [
  ["FREE", "free"], ["HELD", "held"], ["VERIFYING", "verifying"], ["BOOKED", "confirmed"], ["BLOCKED", "blocked"],
  ["CLOSED", "closed"], ["PAST", "past"],
];
const stateName = (state) => t(`agenda.state.${state}`);
const STATE_COLOR = Object.fromEntries(STATES.map(([s, token]) => [s, `var(--sl-state-${token}-bg)`]));
const STATE_FG = Object.fromEntries(STATES.map(([s, token]) => [s, `var(--sl-state-${token}-fg)`]));
const HOLD_STATES = new Set(["HELD", "VERIFYING"]);

const GRID = `query Grid($u: ID!, $from: DateTime!, $to: DateTime!) {
  availabilityGrid(unitId: $u, from: $from, to: $to) {
    __typename
    ... on Grid { seq slotMinutes rows { resource { id name kind capacity }
      segments { startsAt endsAt state slots available bookingId status holdType holdTypeName holdExpiresAt
                 displayColor channel seriesId } } }
    ... on Error { code message } } }`;
const SLOT_CHANGED = `subscription Slots($u: ID!, $from: DateTime!, $to: DateTime!, $since: Int) {
  slotChanged(unitId: $u, from: $from, to: $to, since: $since) {
    seq event bookingId status oldStatus state holdType holdTypeName displayColor holdExpiresAt at
    slots { resourceId startsAt endsAt quantity } } }`;
const COUNTER = `mutation Counter($i: CounterBookingInput!) { counterBooking(input: $i) {
  __typename ... on BookingPayload { booking { id status } }
  ... on SlotTaken { code message heldBookingId } ... on Error { code message } } }`;
/** What the agenda showed last (unit, day, view, the cell selected): a language switch rebuilds the screen as it
 * was. */
let shown = null;

/** The agenda of one unit; `live` is the page's graphql-ws client. */
export class Agenda {
  constructor(root, unit, live) {
    this.root = root;
    this.unit = unit;
    this.tz = unit.timezone;
    this.live = live;
    const kept = shown && shown.unitId === unit.id ? shown : null;
    this.day = kept ? kept.day : today(this.tz);
    this.view = kept ? kept.view : "day";
    this.reselect = kept ? kept.selected : null;  // shown again once the grid is read
    this.ticket = 0;  // the grid request last sent: an older answer arriving later is dropped (issue 20)
    this.cells = new Map();  // "resourceId|startMs" → cell
    this.resources = new Map(unit.resources.map((r) => [r.id, r]));
    this.slotMs = unit.parameters.slotMinutes * 60000;
    this.selected = null;
    this.channels = new Map();  // bookingId → channel (from the grid), kept while live events repaint its cells
    this.stopFeed = () => {};
    this.reloads = 0;
    this.refetchTimer = null;
    this.lastEventAt = null;
    this.build();
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  build() {
    this.dateInput = h("input", {type: "date", value: this.day, "aria-label": t("agenda.day"),
      onchange: (e) => { this.day = e.target.value; this.reload(); }});
    this.viewSelect = h("select", {"aria-label": t("agenda.view"),
      onchange: (e) => { this.view = e.target.value; this.reload(); }},
    h("option", {value: "day"}, t("agenda.viewDay")), h("option", {value: "week"}, t("agenda.viewWeek")));
    this.status = h("p", {class: "message", hidden: true, role: "status"});
    this.feedInfo = h("span", {class: "feed-info", "data-testid": "feed-info"}, "");
    this.gridEl = h("div", {class: "grid-area", "data-testid": "grid"});
    this.panel = h("aside", {class: "cell-panel", "data-testid": "cell-panel", hidden: true});
    const legend = h("div", {class: "legend", role: "group", "aria-label": t("agenda.legend")},
      STATES.map(([s]) => h("span", {class: "chip"}, h("i", {class: s === "VERIFYING" ? "striped" : null,
        style: {background: STATE_COLOR[s]}}), stateName(s))),
      this.holdTypes = h("span", {class: "legend-types"}));
    holdTypeLegend(this.holdTypes, this.unit.id, session.staffToken);
    this.root.replaceChildren(
      h("div", {class: "toolbar"},
        h("button", {onclick: () => this.shift(-1), "aria-label": t("agenda.previous")}, "◀"),
        this.dateInput,
        h("button", {onclick: () => this.shift(1), "aria-label": t("agenda.next")}, "▶"),
        h("button", {onclick: () => { this.day = today(this.tz); this.reload(); }}, t("agenda.today")),
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

  /** Read the grid of the range shown, then follow it from the event the grid reflects (its `seq`): a change made
   * between the read and the subscription's start is replayed, however slow either is. (Subscribing first, without
   * `since`, lost a hold made right after the grid painted when the subscription started after its event.) */
  async reload() {
    this.dateInput.value = this.day;
    this.viewSelect.value = this.view;
    shown = {unitId: this.unit.id, day: this.day, view: this.view, selected: this.selected};
    const {from, to} = this.range();
    const mine = ++this.reloads;
    this.stopFeed();
    this.stopFeed = () => {};
    const grid = await this.fetchGrid();
    if (mine !== this.reloads || this.destroyed) return;  // a newer reload follows its own range
    if (grid) this.since = grid.seq;
    this.stopFeed = follow(this.live, SLOT_CHANGED, {u: this.unit.id, from, to, since: this.since ?? null},
      (event) => this.onEvent(event), (message) => say(this.status, message, "error"));
  }

  /** Read the grid of the range shown. Only the answer to the newest request paints: after quick day or view
   * changes an older, slower answer (another day's grid) is dropped when it arrives (issue 20). */
  async fetchGrid() {
    const ticket = ++this.ticket;
    const {from, to} = this.range();
    let grid;
    try {
      grid = (await gql(GRID, {u: this.unit.id, from, to}, session.staffToken)).availabilityGrid;
    } catch (e) {
      if (ticket === this.ticket) say(this.status, e.message, "error");
      return;
    }
    if (ticket !== this.ticket || this.destroyed) return;  // a newer request was sent meanwhile
    if (grid.__typename !== "Grid") {
      say(this.status, refusal(grid), "error");
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
        if (seg.bookingId && seg.channel) this.channels.set(seg.bookingId, seg.channel);
        for (let i = 0; i < seg.slots; i++) {
          const t = start + i * this.slotMs;
          this.cells.set(`${row.resource.id}|${t}`, {resourceId: row.resource.id, start: t, ...seg,
            startsAt: undefined, endsAt: undefined, slots: undefined});
        }
      }
    }
    this.render();
    if (this.reselect) {  // the cell that was open before the language switch
      const {resourceId, start} = this.reselect;
      this.reselect = null;
      if (this.resources.has(resourceId)) this.select(resourceId, start);
    }
    return grid;
  }

  render() {
    const blocks = [];
    for (const day of this.days()) {
      const from = startOfDay(day, this.tz).getTime();
      const to = startOfDay(addDays(day, 1), this.tz).getTime();
      const starts = [...new Set([...this.cells.values()].filter((c) => c.start >= from && c.start < to)
        .map((c) => c.start))].sort((a, b) => a - b);
      const head = h("tr", {}, h("th", {class: "corner"}, t("agenda.resource")),
        starts.map((t) => h("th", {scope: "col"}, hhmm(t, this.tz))));
      const body = (this.rowsOrder || []).map((r) => h("tr", {},
        h("th", {scope: "row", class: "resource"}, r.name,
          r.kind === "POOLED" ? h("small", {}, ` ${t("agenda.places", {n: r.capacity})}`) : null),
        starts.map((t) => this.cellEl(this.cells.get(`${r.id}|${t}`), r, t))));
      blocks.push(h("section", {class: "agenda-day", "data-day": day},
        h("h3", {}, dayLabel(day)),
        starts.length ? h("div", {class: "scroll", tabindex: "0", role: "region", "aria-label": dayLabel(day)}, h("table", {class: "grid"}, h("thead", {}, head), h("tbody", {}, body)))
          : h("p", {class: "muted"}, t("agenda.closedAllDay"))));
    }
    this.gridEl.replaceChildren(...blocks);
    this.tick();
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
    const label = state === "FREE" ? (resource.kind === "POOLED" ? `${cell.available}/${resource.capacity}`
      : stateName("FREE"))
      : state === "VERIFYING" ? t("agenda.verifying")
        : state === "HELD" ? this.holdLabel(cell) : stateName(state);
    td.classList.toggle("verifying", state === "VERIFYING");
    const parts = [h("span", {class: "label"}, label)];
    td.dataset.series = cell && cell.seriesId && state !== "FREE" ? cell.seriesId : "";
    if (td.dataset.series) {  // an occurrence of a series (issue 23): a small mark; the panel says which
      parts.push(h("span", {class: "series-mark", role: "img", "aria-label": t("agenda.series"), title: t("agenda.series")}, "↻"));
    }
    if (cell && cell.holdExpiresAt && (state === "HELD" || state === "VERIFYING")) {
      const left = Date.parse(cell.holdExpiresAt) - Date.now();
      parts.push(h("span", {class: "countdown", dataset: {expires: cell.holdExpiresAt}},
        left > 0 ? t("agenda.left", {time: countdown(left)}) : t("agenda.expired")));
    }
    if (resource.kind === "POOLED" && state !== "FREE" && cell) {
      parts.push(h("small", {}, ` ${t("agenda.placesLeft", {n: cell.available})}`));
    }
    td.replaceChildren(...parts);
    td.title = `${resource.name} ${hhmm(cell ? cell.start : 0, this.tz)} — ${stateName(state)}`
      + (cell && cell.status ? ` (${statusWords(cell.status)})` : "");
  }

  /** A hold's name (issue 20, bug 6): its hold type's configured name when one was chosen; the default type
   * (CART, "Hold do bot") is named by where the hold came from, which the grid carries (GridSegment.channel): the
   * bot's name only for the bot's holds. */
  holdLabel(cell) {
    if (!cell) return stateName("HELD");
    if (cell.holdType && cell.holdType !== "CART") return holdTypeName(cell.holdType, cell.holdTypeName);
    const channel = cell.channel || this.channels.get(cell.bookingId);
    if (channel === "WHATSAPP" || channel === "BOT") return holdTypeName("CART", cell.holdTypeName);
    if (channel === "WEB" || channel === "APP") return t("agenda.onlineHold");
    if (channel) return t("agenda.staffHold");
    return stateName("HELD");  // a hold that arrived live: named once the grid is read again (within a second)
  }

  tick() {
    const now = Date.now();
    for (const el of this.root.querySelectorAll("[data-expires]")) {
      const left = Date.parse(el.dataset.expires) - now;
      const text = el.closest("td") ? t("agenda.left", {time: countdown(left)}) : countdown(left);
      el.textContent = left > 0 ? text : t("agenda.expired");
    }
  }

  onEvent(event) {
    this.since = event.seq;
    this.lastEventAt = new Date();
    this.feedInfo.textContent = t("agenda.live", {time: hhmm(this.lastEventAt, this.tz), seq: event.seq});
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
          Object.assign(cell, {state: t < Date.now() ? "PAST" : "FREE", bookingId: null, status: null, holdType: null,
            holdTypeName: null, holdExpiresAt: null, displayColor: event.displayColor, available: 1, channel: null,
            seriesId: null});
        } else {
          Object.assign(cell, {state: event.state, bookingId: event.bookingId, status: event.status,
            holdType: event.holdType, holdTypeName: event.holdTypeName, holdExpiresAt: event.holdExpiresAt,
            displayColor: event.displayColor, available: 0, channel: this.channels.get(event.bookingId) || null,
            seriesId: cell.bookingId === event.bookingId ? cell.seriesId : null});  // a new one: after the refetch
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
    if (shown) shown.selected = this.selected;
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
    const close = h("button", {class: "close", "aria-label": t("agenda.close"), onclick: () => {
      this.selected = null;
      if (shown) shown.selected = null;
      this.panel.hidden = true;
    }}, "×");
    const body = [h("p", {}, h("span", {class: "state-dot", style: {background: (HOLD_STATES.has(state) && cell && cell.displayColor) || STATE_COLOR[state]}}),
      stateName(state),
      // The hold type names a hold (HELD/VERIFYING), never a counter booking or a confirmed one (issue 20, bug 6).
      cell && (state === "HELD" || state === "VERIFYING") ? ` — ${this.holdLabel(cell)}` : "",
      // the booking's status when it says more than the state (awaiting payment, checked in)
      cell && cell.status && !["HELD", "CONFIRMED", "VERIFYING"].includes(cell.status)
        ? ` ${t("agenda.bookingStatus", {status: statusWords(cell.status)})}` : "")];
    if (cell && cell.holdExpiresAt && (state === "HELD" || state === "VERIFYING")) {
      body.push(h("p", {}, t("agenda.holdEndsIn"),
        h("strong", {class: "countdown", dataset: {expires: cell.holdExpiresAt}}, "")));
    }
    if (this.rescheduling) {
      body.push(h("p", {class: "message info", "data-testid": "reschedule-hint"},
        t("agenda.pickHint"),
        h("button", {type: "button", class: "link", onclick: () => { this.rescheduling = null; this.showPanel(); }},
          t("agenda.stop"))));
    }
    if (cell && cell.bookingId) body.push(bookingPanel(cell.bookingId, this, message));
    if (state === "PAST") body.push(h("p", {class: "muted", "data-testid": "past-note"}, t("agenda.past")));
    if (state === "FREE" && this.rescheduling) {
      body.push(h("button", {type: "button", class: "primary", "data-testid": "move-here",
        onclick: () => this.moveHere(resource, start, message)}, t("agenda.moveHere")));
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
    say(message, t("agenda.pickNow"), "info");
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
      h("h4", {}, t("agenda.counterTitle")),
      h("label", {}, `${t("agenda.customerName")} `, h("input", {name: "name", autocomplete: "off"})),
      h("label", {}, `${t("agenda.phone")} `, h("input", {name: "phone", type: "tel", placeholder: "+5511987654321"})),
      h("label", {}, `${t("agenda.length")} `, h("select", {name: "slots"},
        [...Array(max).keys()].map((i) => h("option", {value: i + 1},
          t("agenda.minutes", {n: (i + 1) * this.slotMs / 60000}))))),
      pooled ? h("label", {}, `${t("agenda.placesField")} `,
        h("input", {name: "quantity", type: "number", min: 1, value: 1})) : null,
      h("button", {type: "submit"}, t("agenda.bookCounter")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const customer = {};
      if (data.get("name")) customer.name = data.get("name");
      if (data.get("phone")) customer.phone = data.get("phone");
      const input = {unitId: this.unit.id, resourceIds: [resource.id], startsAt: iso(start),
        endsAt: iso(start + Number(data.get("slots")) * this.slotMs),
        customer: Object.keys(customer).length ? customer : null, quantity: Number(data.get("quantity") || 1)};
      await this.run(COUNTER, {i: input}, "counterBooking", message, t("agenda.booked"));
    });
    return form;
  }

  async run(query, variables, field, message, success) {
    try {
      const result = (await gql(query, variables, session.staffToken))[field];
      if (result.__typename === "BookingPayload") {
        say(message, success, "ok");
      } else {
        say(message, refusal(result, this.tz), "error");
      }
    } catch (e) {
      say(message, e.message, "error");
    }
  }

  destroy() {
    this.destroyed = true;
    this.stopFeed();
    clearInterval(this.ticker);
    clearTimeout(this.refetchTimer);
  }
}

export {localDate};
