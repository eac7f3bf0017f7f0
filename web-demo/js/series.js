// Series (recurring bookings, issue 23) in the console: the series part of a booking's panel — its occurrences, its
// periods (calendar months) paid or due, and the staff actions by role (cancel from a date, retime the future ones,
// record a month paid by hand: managers and owners) — and the "Séries" list (#/series): the unit's series
// (unitSeries) with their state and payment state, live through one unit-wide feed (slotChanged).

import {follow, gql, resultError} from "./gql.js";
import {formatDateTime, formatMoney, register, t} from "./i18n.js";
import {customerLine, emptyEl, errorEl, loadingEl, resourceName, statusChip} from "./lists_util.js";
import {h, say, session} from "./session.js";

register({
  "pt-BR": {
    "series.title": "Séries (mensalistas)", "series.of": "Série {i}/{n}", "series.every1": "toda semana",
    "series.everyN": "a cada {n} semanas", "series.at": "{every}, {weekday} às {time}", "series.loading": "Carregando…",
    "series.occurrences": "Datas", "series.periods": "Meses", "series.none": "Nenhuma série nesta unidade ainda.",
    "series.st.HELD": "Em hold", "series.st.CONFIRMED": "Confirmada", "series.st.CANCELLED": "Cancelada",
    "series.st.EXPIRED": "Expirada", "series.p.open": "a cobrar", "series.p.none": "sem cobrança", "series.p.charged": "Pix enviado, aguardando",
    "series.p.paid": "pago", "series.p.released": "liberado (não pago)", "series.p.cancelled": "cancelado",
    "series.byHand": "à mão", "series.cancelFrom": "Cancelar a partir de", "series.cancelGo": "Cancelar estas datas",
    "series.cancelled": "{n} data(s) canceladas.", "series.retime": "Mudar o horário das próximas datas",
    "series.newTime": "Novo início", "series.retimeGo": "Mudar horário", "series.retimed": "{n} data(s) remarcadas.",
    "series.recordPaid": "Registrar {month} pago à mão", "series.recorded": "Mês registrado como pago.",
    "series.conflicts": "Datas ocupadas: {dates}. Nada mudou.", "series.payment": "Pagamento",
    "series.allPaid": "em dia", "series.due": "{n} mês(es) em aberto", "series.open": "Abrir",
    "series.count": "{n} série(s)", "series.occ": "{left} de {n} datas", "series.from": "desde {day}",
    "series.repeat": "Repetir", "series.once": "Só esta vez", "series.times": "Quantas vezes",
    "series.counterBooked": "Série confirmada: {n} datas a partir de {slot}.",
    "series.skipped": " {n} data(s) puladas (fechado ou bloqueado).",
  },
  en: {
    "series.title": "Series (regulars)", "series.of": "Series {i}/{n}", "series.every1": "every week",
    "series.everyN": "every {n} weeks", "series.at": "{every}, {weekday} at {time}", "series.loading": "Loading…",
    "series.occurrences": "Dates", "series.periods": "Months", "series.none": "No series at this unit yet.",
    "series.st.HELD": "Held", "series.st.CONFIRMED": "Confirmed", "series.st.CANCELLED": "Cancelled",
    "series.st.EXPIRED": "Expired", "series.p.open": "to be charged", "series.p.none": "nothing to charge", "series.p.charged": "Pix sent, waiting",
    "series.p.paid": "paid", "series.p.released": "released (unpaid)", "series.p.cancelled": "cancelled",
    "series.byHand": "by hand", "series.cancelFrom": "Cancel from", "series.cancelGo": "Cancel these dates",
    "series.cancelled": "{n} date(s) cancelled.", "series.retime": "Change the time of the next dates",
    "series.newTime": "New start", "series.retimeGo": "Change time", "series.retimed": "{n} date(s) moved.",
    "series.recordPaid": "Record {month} paid by hand", "series.recorded": "Month recorded as paid.",
    "series.conflicts": "Taken dates: {dates}. Nothing changed.", "series.payment": "Payment",
    "series.allPaid": "up to date", "series.due": "{n} month(s) open", "series.open": "Open",
    "series.count": "{n} series", "series.occ": "{left} of {n} dates", "series.from": "since {day}",
    "series.repeat": "Repeat", "series.once": "Just this once", "series.times": "How many times",
    "series.counterBooked": "Series confirmed: {n} dates from {slot}.",
    "series.skipped": " {n} date(s) skipped (closed or blocked).",
  },
});

export const SERIES_FIELDS = `id status mode everyWeeks localStart minutes firstDay channel createdAt
  occurrences { id status startsAt endsAt seriesIndex paidCents customer { name phone cpfMasked }
    allocations { resourceId } }
  periods { startsOn endsOn status amountCents paidAt paidByHand }`;
const ONE = `query($s: ID!) { series(id: $s) { __typename ... on Series { ${SERIES_FIELDS} } ... on Error { code message } } }`;
const LIST = `query($u: ID!, $a: String) { unitSeries(unitId: $u, first: 30, after: $a) {
  edges { node { ${SERIES_FIELDS} } } pageInfo { hasNextPage endCursor } } }`;
const CHANGE = `__typename ... on SeriesChangePayload { bookings { id } }
  ... on SeriesConflicts { code message conflicts { startsAt } } ... on Error { code message }`;
const CANCEL_FROM = `mutation($s: ID!, $f: DateTime!) { r: cancelSeriesFrom(seriesId: $s, from: $f,
  reason: "cancelada pela recepção") { ${CHANGE} } }`;
const RETIME = `mutation($s: ID!, $l: String!) { r: retimeSeries(seriesId: $s, localStart: $l) { ${CHANGE} } }`;
const RECORD = `mutation($s: ID!, $d: Date!) { r: recordSeriesPeriodPayment(seriesId: $s, startsOn: $d, method: CASH,
  reason: "pago no balcão") { ${CHANGE} } }`;
const ME = `{ me { role } }`;
const CHANGED = `subscription($u: ID!, $f: DateTime!, $t: DateTime!, $since: Int) {
  slotChanged(unitId: $u, from: $f, to: $t, since: $since) { seq bookingId } }`;
const OPEN = new Set(["HELD", "PENDING_PAYMENT", "VERIFYING", "CONFIRMED"]);

let role = null;
async function myRole() {
  if (role) return role;
  try { role = (await gql(ME, {}, session.staffToken)).me.role; } catch { role = "?"; }
  return role;
}

/** "toda semana, qui. às 19:00": how a series repeats, in the unit's zone. */
export function repeatWords(s, tz) {
  const first = (s.occurrences[0] || {}).startsAt;
  const every = s.everyWeeks === 1 ? t("series.every1") : t("series.everyN", {n: s.everyWeeks});
  const weekday = first ? formatDateTime(first, tz, {weekday: "long"}) : "";
  return t("series.at", {every, weekday, time: s.localStart});
}

const day = (iso, tz) => formatDateTime(iso, tz, {weekday: "short", day: "numeric", month: "short"});
const month = (ymd) => formatDateTime(`${ymd}T12:00:00Z`, "UTC", {month: "long", year: "numeric"});

/** The payment state of a series in words: up to date, or how many months are open (charged, not paid). */
export function paymentWords(s) {
  const due = s.periods.filter((p) => p.status === "charged" || p.status === "released").length;
  return due ? t("series.due", {n: due}) : t("series.allPaid");
}

/** The series part of a booking's panel (or of a row of the list): occurrences, periods, actions by role. */
export function seriesBox(seriesId, unit, {current = null, onChange = () => {}} = {}) {
  const box = h("section", {class: "series-box", "data-testid": "series-box"}, loadingEl());
  const message = h("p", {class: "message", hidden: true, role: "status", "data-testid": "series-message"});
  const load = async () => {
    let s;
    try {
      s = (await gql(ONE, {s: seriesId}, session.staffToken)).series;
    } catch (e) {
      return box.replaceChildren(errorEl(e.message, load));
    }
    if (s.__typename !== "Series") return box.replaceChildren(errorEl(resultError(s), load));
    const who = await myRole();
    box.replaceChildren(render(s, unit, current, who, message, async (text) => {
      await load();
      say(message, text, "ok");
      onChange();
    }));
    box.append(message);
  };
  load();
  return box;
}

function render(s, unit, current, who, message, changed) {
  const tz = unit.timezone;
  const occ = s.occurrences;
  const future = occ.filter((b) => OPEN.has(b.status) && Date.parse(b.startsAt) > Date.now());
  const head = h("p", {class: "series-head"}, h("strong", {}, repeatWords(s, tz)), " ", h("span", {class: "sl-chip"},
    t(`series.st.${s.status}`)), " · ", t("series.payment"), ": ", paymentWords(s));
  const dates = h("ol", {class: "series-dates", "data-testid": "series-dates"}, occ.map((b) => h("li", {
    class: b.id === current ? "current" : null, dataset: {booking: b.id}},
  h("span", {}, day(b.startsAt, tz)), statusChip(b.status))));
  const periods = h("ul", {class: "series-periods", "data-testid": "series-periods"}, s.periods.map((p) => h("li", {},
    h("span", {}, month(p.startsOn)), h("span", {}, formatMoney(p.amountCents)),
    h("span", {class: `period-${p.status}`}, t(`series.p.${p.amountCents || p.status !== "open" ? p.status : "none"}`) + (p.paidByHand ? ` (${t("series.byHand")})` : "")))));
  const parts = [head, h("details", {open: occ.length <= 8 ? true : null}, h("summary", {},
    `${t("series.occurrences")} (${occ.length})`), dates), h("h5", {}, t("series.periods")), periods];
  const run = async (query, variables, done) => {
    try {
      const r = (await gql(query, {s: s.id, ...variables}, session.staffToken)).r;
      if (r.__typename === "SeriesChangePayload") return changed(t(done, {n: r.bookings.length}));
      if (r.__typename === "SeriesConflicts") {
        return say(message, t("series.conflicts", {dates: r.conflicts.map((c) => day(c.startsAt, tz)).join(", ")}), "error");
      }
      say(message, resultError(r), "error");
    } catch (e) { say(message, e.message, "error"); }
  };
  const staff = ["OWNER", "MANAGER", "OPERATOR"].includes(who);
  if (staff && future.length) {
    const from = h("select", {name: "from", class: "lists-input"}, future.map((b) =>
      h("option", {value: b.startsAt}, day(b.startsAt, tz))));
    const cancel = h("form", {class: "stack", "data-testid": "series-cancel"},
      h("label", {}, `${t("series.cancelFrom")} `, from),
      h("button", {type: "submit", class: "danger"}, t("series.cancelGo")));
    cancel.addEventListener("submit", (e) => { e.preventDefault(); run(CANCEL_FROM, {f: from.value}, "series.cancelled"); });
    const time = h("input", {name: "time", type: "time", step: (unit.parameters?.slotMinutes || 60) * 60,
      value: s.localStart, required: true, class: "lists-input"});
    const retime = h("form", {class: "stack", "data-testid": "series-retime"},
      h("label", {}, `${t("series.newTime")} `, time), h("button", {type: "submit"}, t("series.retimeGo")));
    retime.addEventListener("submit", (e) => { e.preventDefault(); run(RETIME, {l: time.value}, "series.retimed"); });
    parts.push(h("div", {class: "series-actions"}, cancel, h("details", {}, h("summary", {}, t("series.retime")), retime)));
  }
  if (["OWNER", "MANAGER"].includes(who)) {
    const due = s.periods.find((p) => p.amountCents > 0 && (p.status === "charged" || p.status === "open"));
    if (due && s.status === "CONFIRMED") {
      parts.push(h("button", {type: "button", "data-testid": "series-record", onclick: () =>
        run(RECORD, {d: due.startsOn}, "series.recorded")}, t("series.recordPaid", {month: month(due.startsOn)})));
    }
  }
  return h("div", {}, parts);
}

/** The "Séries" list (#/series). */
class SeriesList {
  constructor(root, unit, live) {
    Object.assign(this, {unit, live, after: null, details: new Map()});  // a row's opened part survives a reload
    this.message = h("p", {class: "message", hidden: true, role: "status"});
    this.summary = h("p", {class: "lists-muted", role: "status", "data-testid": "series-count"});
    this.list = h("ul", {class: "lists-items", "data-testid": "series-list", "aria-live": "polite"}, h("li", {}, loadingEl()));
    this.moreBtn = h("button", {type: "button", class: "lists-btn lists-more", hidden: true,
      onclick: () => this.load(true)}, t("lists.more"));
    root.replaceChildren(h("section", {class: "lists-screen"}, h("h1", {class: "lists-screen-title"}, t("series.title")),
      h("section", {class: "lists-panel"}, this.message, this.summary, this.list, this.moreBtn)));
    this.stopFeed = live ? follow(live, CHANGED, {u: unit.id, f: "2000-01-01T00:00:00Z", t: "2100-01-01T00:00:00Z"},
      () => { clearTimeout(this.timer); this.timer = setTimeout(() => this.load(), 400); },
      (m) => say(this.message, m, "error")) : () => {};
    this.load();
  }

  async load(more = false) {
    let page;
    try {
      page = (await gql(LIST, {u: this.unit.id, a: more ? this.after : null}, session.staffToken)).unitSeries;
    } catch (e) {
      this.list.replaceChildren(h("li", {}, errorEl(e.message, () => this.load())));
      return;
    }
    const items = page.edges.map((e) => this.row(e.node));
    if (more) this.list.append(...items);
    else this.list.replaceChildren(...(items.length ? items : [h("li", {}, emptyEl(t("series.none")))]));
    this.after = page.pageInfo.endCursor;
    this.moreBtn.hidden = !page.pageInfo.hasNextPage;
    this.summary.textContent = t("series.count", {n: this.list.querySelectorAll("[data-series]").length});
  }

  row(s) {
    const tz = this.unit.timezone;
    const first = s.occurrences[0] || {};
    const left = s.occurrences.filter((b) => OPEN.has(b.status)).length;
    const place = [...new Set((first.allocations || []).map((a) => resourceName(this.unit, a.resourceId)))].join(", ");
    if (!this.details.has(s.id)) this.details.set(s.id, h("div", {class: "series-detail", hidden: true}));
    const detail = this.details.get(s.id);
    const toggle = h("button", {type: "button", class: "lists-btn", "aria-expanded": String(!detail.hidden), onclick: () => {
      const open = detail.hidden;
      detail.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      if (open && !detail.firstChild) detail.append(seriesBox(s.id, this.unit, {onChange: () => this.load()}));
      else if (open) detail.firstChild.replaceWith(seriesBox(s.id, this.unit, {onChange: () => this.load()}));
    }}, t("series.open"));
    return h("li", {class: "lists-item", dataset: {series: s.id, status: s.status}},
      h("div", {class: "lists-row-between"},
        h("div", {class: "series-line"}, customerLine(first.customer),
          h("span", {}, h("strong", {}, repeatWords(s, tz)), place ? ` · ${place}` : ""),
          h("span", {class: "lists-muted"}, `${t("series.occ", {left, n: s.occurrences.length})} · `
            + t("series.from", {day: day(first.startsAt || s.createdAt, tz)}))),
        h("div", {class: "series-state"}, h("span", {class: "sl-chip", dataset: {status: s.status}},
          t(`series.st.${s.status}`)), h("span", {"data-testid": "series-payment"}, paymentWords(s)), toggle)),
      detail);
  }

  destroy() {
    clearTimeout(this.timer);
    this.stopFeed();
  }
}

export function mount(root, {unit, live}) {
  return new SeriesList(root, unit, live);
}
