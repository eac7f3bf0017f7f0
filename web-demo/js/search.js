// The bookings search (#/search): by customer name, phone, CPF, status and day, over bookings(unitId, filter), a
// Relay connection paged with "more". Results stay live through ONE unit-wide feed (slotChanged), whatever the
// number of rows: a change of a booking shown reloads that row (several at once in one request).

import {follow, gql} from "./gql.js";
import {register, t} from "./i18n.js";
import {BOOKING_FIELDS, amountsWords, bookingsByIds, customerLine, emptyEl, errorEl, loadingEl, slotWords,
  statusChip} from "./lists_util.js";
import {h, say, session} from "./session.js";
import {addDays, startOfDay} from "./time.js";

register({
  "pt-BR": {
    "search.title": "Buscar reservas", "search.name": "Nome", "search.phone": "Telefone", "search.cpf": "CPF",
    "search.status": "Situação", "search.day": "Dia", "search.any": "Qualquer", "search.go": "Buscar",
    "search.clear": "Limpar", "search.none": "Nenhuma reserva encontrada com esses critérios.",
    "search.hint": "Busque por nome, telefone, CPF, situação ou dia.", "search.count": "{n} reserva(s) mostrada(s)",
  },
  en: {
    "search.title": "Find bookings", "search.name": "Name", "search.phone": "Phone", "search.cpf": "CPF",
    "search.status": "Status", "search.day": "Day", "search.any": "Any", "search.go": "Search",
    "search.clear": "Clear", "search.none": "No booking matches these criteria.",
    "search.hint": "Search by name, phone, CPF, status or day.", "search.count": "{n} booking(s) shown",
  },
});

const STATUSES = ["HELD", "PENDING_PAYMENT", "VERIFYING", "CONFIRMED", "CHECKED_IN", "COMPLETED", "CANCELLED",
  "NO_SHOW", "EXPIRED"];
const PAGE = 20;
const SEARCH = `query($u: ID!, $f: BookingFilter, $a: String) { bookings(unitId: $u, filter: $f, first: ${PAGE},
  after: $a) { edges { node { ${BOOKING_FIELDS} } } pageInfo { hasNextPage endCursor } } }`;
const CHANGED = `subscription($u: ID!, $f: DateTime!, $t: DateTime!, $since: Int) {
  slotChanged(unitId: $u, from: $f, to: $t, since: $since) { seq bookingId } }`;
/** The feed's window: every booking a search can show (the search has no time limit either). */
const EVER = {f: "2000-01-01T00:00:00Z", t: "2100-01-01T00:00:00Z"};

class Search {
  constructor(root, unit, live) {
    Object.assign(this, {unit, live, items: [], changed: new Set()});
    const field = (key, input) => h("label", {class: "lists-field"}, h("span", {}, t(key)), input);
    this.form = h("form", {class: "lists-form", role: "search", "data-testid": "search-form"},
      field("search.name", h("input", {class: "lists-input", name: "name", autocomplete: "off"})),
      field("search.phone", h("input", {class: "lists-input", name: "phone", type: "tel", autocomplete: "off"})),
      field("search.cpf", h("input", {class: "lists-input", name: "cpf", inputmode: "numeric", autocomplete: "off"})),
      field("search.status", h("select", {class: "lists-input", name: "status"},
        h("option", {value: ""}, t("search.any")), STATUSES.map((s) => h("option", {value: s}, t(`status.${s}`))))),
      field("search.day", h("input", {class: "lists-input", name: "day", type: "date"})),
      h("div", {class: "lists-actions"}, h("button", {type: "submit", class: "lists-btn primary"}, t("search.go")),
        h("button", {type: "reset", class: "lists-btn"}, t("search.clear"))));
    this.form.addEventListener("submit", (e) => { e.preventDefault(); this.search(); });
    this.form.addEventListener("reset", () => setTimeout(() => this.search(), 0));
    this.summary = h("p", {class: "lists-muted", role: "status", "data-testid": "search-count"});
    this.message = h("p", {class: "message", hidden: true, role: "status", "data-testid": "search-message"});
    this.list = h("ul", {class: "lists-items", "data-testid": "search-results", "aria-live": "polite"},
      h("li", {}, emptyEl(t("search.hint"))));
    this.moreBtn = h("button", {type: "button", class: "lists-btn lists-more", hidden: true,
      onclick: () => this.more()}, t("lists.more"));
    root.replaceChildren(h("section", {class: "lists-screen"}, h("h1", {class: "lists-screen-title"},
      t("search.title")), h("div", {class: "lists-panel"}, this.form),
    h("section", {class: "lists-panel"}, this.message, this.summary, this.list, this.moreBtn)));
    this.stopFeed = live ? follow(live, CHANGED, {u: unit.id, ...EVER}, (e) => this.onEvent(e),
      (m) => say(this.message, m, "error")) : () => {};
    this.search();
  }

  filter() {
    const f = new FormData(this.form);
    const v = (k) => String(f.get(k) || "").trim() || null;
    const customer = {name: v("name"), phone: v("phone"), cpf: v("cpf")};
    const filter = {};
    if (customer.name || customer.phone || customer.cpf) filter.customer = customer;
    if (v("status")) filter.statuses = [v("status")];
    if (v("day")) {
      filter.from = startOfDay(v("day"), this.unit.timezone).toISOString();
      filter.to = startOfDay(addDays(v("day"), 1), this.unit.timezone).toISOString();
    }
    return filter;
  }

  async search() {
    this.current = this.filter();
    this.list.replaceChildren(h("li", {}, loadingEl()));
    this.moreBtn.hidden = true;
    this.items = [];
    await this.page(null);
  }

  async more() {
    this.moreBtn.disabled = true;
    await this.page(this.pageInfo.endCursor);
    this.moreBtn.disabled = false;
  }

  async page(after) {
    const asked = this.current;
    let conn;
    try {
      conn = (await gql(SEARCH, {u: this.unit.id, f: asked, a: after}, session.staffToken)).bookings;
    } catch (e) {
      if (asked === this.current) this.list.replaceChildren(h("li", {}, errorEl(e.message, () => this.search())));
      return;
    }
    if (asked !== this.current) return;
    if (!after) this.list.replaceChildren();
    this.pageInfo = conn.pageInfo;
    for (const {node} of conn.edges) {
      this.items.push(node);
      this.list.append(this.itemEl(node));
    }
    if (!this.items.length) this.list.replaceChildren(h("li", {}, emptyEl(t("search.none"))));
    this.summary.textContent = this.items.length ? t("search.count", {n: this.items.length}) : "";
    this.moreBtn.hidden = !conn.pageInfo.hasNextPage;
  }

  /** A change in the unit: reload the rows it touches (gathered for a moment, read in one request). */
  onEvent(event) {
    if (!event.bookingId || !this.list.querySelector(`[data-booking="${CSS.escape(event.bookingId)}"]`)) return;
    this.changed.add(event.bookingId);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.reload(), 80);
  }

  async reload() {
    const ids = [...this.changed];
    this.changed.clear();
    let found;
    try {
      found = await bookingsByIds(ids);
    } catch { return; }  /* the next search shows them */
    for (const [id, b] of found) {
      const old = this.list.querySelector(`[data-booking="${CSS.escape(id)}"]`);
      if (b && old) old.replaceWith(this.itemEl(b));
    }
  }

  itemEl(b) {
    return h("li", {class: "lists-item", dataset: {booking: b.id, status: b.status}},
      h("div", {class: "lists-row"}, statusChip(b.status), h("span", {class: "lists-item-title"}, slotWords(this.unit, b))),
      b.customer ? h("div", {class: "lists-row"}, customerLine(b.customer)) : null,
      amountsWords(b) ? h("div", {class: "lists-muted"}, amountsWords(b)) : null);
  }

  destroy() {
    this.stopFeed();
    clearTimeout(this.timer);
  }

  onReconnect() {
    this.search();
  }
}

export function mount(root, {unit, live}) {
  return new Search(root, unit, live);
}
