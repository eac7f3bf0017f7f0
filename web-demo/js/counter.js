// A counter booking (#/counter): find the customer by name, phone or CPF (or enter a new one), pick the field, day,
// time and length, book — confirmed at once (counterBooking), shown on the agenda and in the search straight away.
// Customers are found by customers(unitId, search): the tenant's customers who booked at this unit, CPF masked; a
// found customer is booked by their record (counterBooking's customerId), so one known by CPF alone can be too.

import {gql, resultError} from "./gql.js";
import {register, t} from "./i18n.js";
import {customerLine, emptyEl, errorEl, idemKey, loadingEl, slotWords, toE164} from "./lists_util.js";
import {h, say, session} from "./session.js";
import {addDays, startOfDay, today} from "./time.js";
import "./series.js";  // its words: the counter series ("toda semana")

register({
  "pt-BR": {
    "counter.title": "Reserva no balcão", "counter.find": "Cliente: nome, telefone ou CPF", "counter.search": "Buscar",
    "counter.none": "Nenhum cliente encontrado: cadastre um novo abaixo.", "counter.pick": "Escolher",
    "counter.picked": "Cliente escolhido", "counter.new": "Novo cliente", "counter.change": "Trocar cliente",
    "counter.name": "Nome", "counter.phone": "Telefone (WhatsApp)", "counter.cpf": "CPF (opcional)",
    "counter.slot": "Horário", "counter.field": "Campo", "counter.day": "Dia", "counter.time": "Início",
    "counter.length": "Duração", "counter.minutes": "{n} min", "counter.book": "Reservar",
    "counter.booked": "Reserva confirmada: {slot}.", "counter.needCustomer": "Escolha um cliente ou cadastre um novo.",
    "counter.hint": "Digite ao menos 3 letras do nome, ou o telefone, ou o CPF.", "counter.step1": "1. Cliente",
    "counter.step2": "2. Horário",
  },
  en: {
    "counter.title": "Counter booking", "counter.find": "Customer: name, phone or CPF", "counter.search": "Search",
    "counter.none": "No customer found: enter a new one below.", "counter.pick": "Choose",
    "counter.picked": "Customer chosen", "counter.new": "New customer", "counter.change": "Change customer",
    "counter.name": "Name", "counter.phone": "Phone (WhatsApp)", "counter.cpf": "CPF (optional)",
    "counter.slot": "Slot", "counter.field": "Field", "counter.day": "Day", "counter.time": "Start",
    "counter.length": "Length", "counter.minutes": "{n} min", "counter.book": "Book",
    "counter.booked": "Booking confirmed: {slot}.", "counter.needCustomer": "Choose a customer or enter a new one.",
    "counter.hint": "Type at least 3 letters of the name, or the phone, or the CPF.", "counter.step1": "1. Customer",
    "counter.step2": "2. Slot",
  },
});

const FIND = `query($u: ID!, $s: String!) { customers(unitId: $u, search: $s, first: 20) {
  edges { node { id name phone maskedCpf } } } }`;
const SERIES = `mutation($i: CounterSeriesInput!, $k: String) { r: counterSeries(input: $i, idempotencyKey: $k) {
  __typename ... on SeriesPayload { series { id } bookings { id status startsAt endsAt allocations { resourceId } }
    skipped { startsAt } }
  ... on SeriesConflicts { code message conflicts { startsAt } } ... on Error { code message } } }`;
const BOOK = `mutation($i: CounterBookingInput!, $k: String) { r: counterBooking(input: $i, idempotencyKey: $k) {
  __typename ... on BookingPayload { booking { id status startsAt endsAt allocations { resourceId } } }
  ... on Error { code message } } }`;

function searchable(text) {
  const s = text.trim();
  return /[a-zà-ú]/i.test(s) ? s.length >= 3 : s.replace(/\D/g, "").length >= 10;
}

class Counter {
  constructor(root, unit) {
    this.unit = unit;
    this.chosen = null;
    this.message = h("p", {class: "message", hidden: true, role: "status", "data-testid": "counter-message"});
    this.query = h("input", {class: "lists-input", name: "q", type: "search", autocomplete: "off",
      "aria-describedby": "counter-hint"});
    const findForm = h("form", {class: "lists-form lists-form-inline", role: "search", "data-testid": "customer-search"},
      h("label", {class: "lists-field lists-grow"}, h("span", {}, t("counter.find")), this.query),
      h("button", {type: "submit", class: "lists-btn primary"}, t("counter.search")));
    findForm.addEventListener("submit", (e) => { e.preventDefault(); this.find(); });
    this.query.addEventListener("input", () => { clearTimeout(this.timer); this.timer = setTimeout(() => this.find(), 350); });
    this.found = h("ul", {class: "lists-items", "data-testid": "customer-results", "aria-live": "polite"});
    this.chosenEl = h("div", {class: "lists-chosen", hidden: true, "data-testid": "customer-chosen"});
    this.newForm = this.newCustomerForm();
    this.customerBox = h("div", {}, findForm, h("p", {class: "lists-muted", id: "counter-hint"}, t("counter.hint")),
      this.found, this.newForm);
    root.replaceChildren(h("section", {class: "lists-screen"},
      h("h1", {class: "lists-screen-title"}, t("counter.title")), this.message,
      h("div", {class: "lists-columns"},
        h("section", {class: "lists-panel", "aria-labelledby": "counter-c"},
          h("h2", {class: "lists-title", id: "counter-c"}, t("counter.step1")), this.chosenEl, this.customerBox),
        h("section", {class: "lists-panel", "aria-labelledby": "counter-s"},
          h("h2", {class: "lists-title", id: "counter-s"}, t("counter.step2")), this.slotForm()))));
  }

  newCustomerForm() {
    const field = (key, attrs) => h("label", {class: "lists-field"}, h("span", {}, t(key)),
      h("input", {class: "lists-input", autocomplete: "off", ...attrs}));
    return h("fieldset", {class: "lists-fieldset", "data-testid": "new-customer"},
      h("legend", {}, t("counter.new")),
      field("counter.name", {name: "newName"}), field("counter.phone", {name: "newPhone", type: "tel",
        placeholder: "(11) 99999-0000"}), field("counter.cpf", {name: "newCpf", inputmode: "numeric"}));
  }

  async find() {
    const asked = this.query.value;
    if (!searchable(asked)) { this.found.replaceChildren(); return; }
    this.found.replaceChildren(h("li", {}, loadingEl()));
    let people;
    try {
      const d = await gql(FIND, {u: this.unit.id, s: asked.trim()}, session.staffToken);
      people = d.customers.edges.map((e) => e.node);
    } catch (e) {
      if (asked === this.query.value) this.found.replaceChildren(h("li", {}, errorEl(e.message, () => this.find())));
      return;
    }
    if (asked !== this.query.value) return;
    if (!people.length) { this.found.replaceChildren(h("li", {}, emptyEl(t("counter.none")))); return; }
    this.found.replaceChildren(...people.map((c) => h("li", {class: "lists-item lists-row-between",
      dataset: {customer: c.id}}, customerLine(c),
    h("button", {type: "button", class: "lists-btn", onclick: () => this.choose(c),
      "aria-label": `${t("counter.pick")} ${c.name || ""}`}, t("counter.pick")))));
  }

  /** Choose a found customer (or none again). The focus moves on with the receptionist — to the slot's first field,
   * or back to the search — never lost with the button that was just hidden. */
  choose(c, focus = true) {
    this.chosen = c;
    this.chosenEl.hidden = !c;
    this.customerBox.hidden = !!c;
    if (c) {
      this.chosenEl.replaceChildren(h("p", {class: "lists-muted"}, t("counter.picked")), customerLine(c),
        h("button", {type: "button", class: "lists-btn", onclick: () => this.choose(null)}, t("counter.change")));
    }
    if (focus) (c ? this.slotFirst : this.query).focus();
  }

  slotForm() {
    const step = this.unit.parameters?.slotMinutes || 60;
    const times = [];
    for (let m = 6 * 60; m < 24 * 60; m += step) times.push(`${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`);
    const lengths = [1, 1.5, 2, 3].map((x) => Math.round(x * 60 / step) * step).filter((v, i, a) => v && a.indexOf(v) === i);
    const field = (key, input) => h("label", {class: "lists-field"}, h("span", {}, t(key)), input);
    const form = h("form", {class: "lists-form", "data-testid": "counter-slot"},
      field("counter.field", this.slotFirst = h("select", {class: "lists-input", name: "resource", required: true},
        (this.unit.resources || []).map((r) => h("option", {value: r.id}, r.name)))),
      field("counter.day", h("input", {class: "lists-input", name: "day", type: "date", required: true,
        value: addDays(today(this.unit.timezone), 1)})),
      field("counter.time", h("select", {class: "lists-input", name: "time", required: true},
        times.map((x) => h("option", {value: x, selected: x === "19:00"}, x)))),
      field("counter.length", h("select", {class: "lists-input", name: "minutes"},
        lengths.map((n) => h("option", {value: n}, t("counter.minutes", {n}))))),
      // A counter series (issue 23): the same field and time every N weeks, confirmed at once, no payment.
      field("series.repeat", h("select", {class: "lists-input", name: "every", "data-testid": "counter-repeat"},
        h("option", {value: "0"}, t("series.once")), [1, 2, 4].map((n) => h("option", {value: n},
          n === 1 ? t("series.every1") : t("series.everyN", {n}))))),
      field("series.times", h("input", {class: "lists-input", name: "times", type: "number", min: 2, max: 60,
        value: 4, inputmode: "numeric"})),
      h("button", {type: "submit", class: "lists-btn primary"}, t("counter.book")));
    form.addEventListener("submit", (e) => { e.preventDefault(); this.book(new FormData(form), form); });
    return form;
  }

  /** Who the booking is for: the customer found (by their record's id — a customer known by CPF alone too, whose
   * CPF staff see masked), or the new one typed in; null: none yet. */
  customerInput() {
    if (this.chosen) return {customerId: this.chosen.id};
    const v = (n) => this.newForm.querySelector(`[name=${n}]`).value.trim() || null;
    if (!v("newName") && !v("newPhone") && !v("newCpf")) return null;
    return {customer: {name: v("newName"), phone: toE164(v("newPhone")), cpf: v("newCpf")}};
  }

  async book(f, form) {
    const who = this.customerInput();
    if (!who) { say(this.message, t("counter.needCustomer"), "error"); return; }
    const [hh, mm] = String(f.get("time")).split(":").map(Number);
    const start = new Date(startOfDay(String(f.get("day")), this.unit.timezone).getTime() + (hh * 60 + mm) * 60000);
    const end = new Date(start.getTime() + Number(f.get("minutes")) * 60000);
    const input = {unitId: this.unit.id, resourceIds: [String(f.get("resource"))], startsAt: start.toISOString(),
      endsAt: end.toISOString(), ...who, ...(session.serviceId ? {serviceId: session.serviceId} : {})};
    const button = form.querySelector("button[type=submit]");
    const every = Number(f.get("every")) || 0;
    const ask = every ? this.seriesAsk(input, every, Number(f.get("times")) || 4) : {query: BOOK, i: input,
      ok: "BookingPayload", done: (r) => {
        say(this.message, t("counter.booked", {slot: slotWords(this.unit, r.booking)}), "ok");
        this.message.dataset.booking = r.booking.id;
      }};
    if (!ask) { say(this.message, t("counter.needCustomer"), "error"); return; }
    button.disabled = true;
    try {
      const r = (await gql(ask.query, {i: ask.i, k: idemKey()}, session.staffToken)).r;
      if (r.__typename === ask.ok) {
        ask.done(r);
        this.choose(null, false);
        for (const n of ["newName", "newPhone", "newCpf"]) this.newForm.querySelector(`[name=${n}]`).value = "";
        this.query.value = "";
        this.found.replaceChildren();
      } else {
        say(this.message, resultError(r), "error");
      }
    } catch (e) {
      say(this.message, e.message, "error");
    } finally {
      button.disabled = false;
    }
    this.message.scrollIntoView({block: "nearest"});
  }

  /** A counter series (counterSeries): a found customer goes by their record (customerId, as a counter booking
   * does, so one known by CPF alone can have a series too), a new one by what was typed. */
  seriesAsk(input, every, times) {
    return {query: SERIES, ok: "SeriesPayload",
      i: {...input, everyWeeks: every, occurrences: Math.max(2, Math.min(60, times))},
      done: (r) => {
        say(this.message, t("series.counterBooked", {n: r.bookings.length, slot: slotWords(this.unit, r.bookings[0])})
          + (r.skipped.length ? t("series.skipped", {n: r.skipped.length}) : ""), "ok");
        this.message.dataset.series = r.series.id;
      }};
  }

  destroy() {
    clearTimeout(this.timer);
  }
}

export function mount(root, {unit}) {
  return new Counter(root, unit);
}

