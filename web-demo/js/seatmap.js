// Seat map of an event with live seat states (seed 004: ACTIVE / LOCKED / SOLD / BLOCKED).
// seatMap(eventId) draws sections → rows → seats; slotChanged(unitId, event.startsAt, event.endsAt) carries each
// change's seatState with the seat ids in slots[].resourceId (staff); others see it refreshed every few seconds.
// In the screen's language (i18n.js, pt-BR by default): a switch rebuilds it on the same event and selection.

import {ApiError, follow, gql, resultError} from "./gql.js";
import {locale, register, t} from "./i18n.js";
import {holdTypeLegend, holdTypeName} from "./legend.js";
import {h, say, session} from "./session.js";
import {inkOn} from "./contrast.js";
import {countdown, hhmm, longDate} from "./time.js";

register({
  "pt-BR": {
    "seats.state.ACTIVE": "Livre", "seats.state.LOCKED": "Travado (em hold)", "seats.state.SOLD": "Vendido",
    "seats.state.BLOCKED": "Bloqueado", "seats.word.ACTIVE": "livre", "seats.word.LOCKED": "travado",
    "seats.word.SOLD": "vendido", "seats.word.BLOCKED": "bloqueado",
    "seats.title": "Mapa de assentos", "seats.event": "Evento", "seats.live": "ao vivo",
    "seats.polled": "atualizado a cada 5 s (equipe: ao vivo)", "seats.noEvent": "Nenhum evento com mapa de assentos "
      + "por vir nesta unidade.", "seats.legend": "Legenda",
    "seats.counts": "{map} · livres: {active} · travados: {locked} · vendidos: {sold} · bloqueados: {blocked}",
    "seats.left": "{time} restantes", "seats.selected": "Selecionados: {labels} ",
    "seats.phone": "Telefone do cliente", "seats.lock": "Travar", "seats.sell": "Vender (bilheteria)",
    "seats.unlock": "Destravar", "seats.block": "Bloquear", "seats.unblock": "Desbloquear", "seats.clear": "limpar",
    "seats.hint": "Selecione assentos para travar, vender ou bloquear.", "seats.seat": "Assento {label}",
    "seats.done.lock": "Travados.", "seats.done.sell": "Vendidos.", "seats.done.unlock": "Destravados.",
    "seats.done.block": "Bloqueados.", "seats.done.unblock": "Desbloqueados.",
    "seats.doing.lock": "travar", "seats.doing.sell": "vender", "seats.doing.unlock": "destravar",
    "seats.doing.block": "bloquear", "seats.doing.unblock": "desbloquear",
    "seats.unavailable": "Não foi possível {doing}: {seats}. Nada foi mudado.",
    "seats.changedMeanwhile": "Não foi possível {doing}: os assentos mudaram enquanto isso. Nada foi mudado.",
    "seats.refused": "Não foi possível {doing}: {reason}",
    "seats.err.no_seat": "selecione pelo menos um assento.", "seats.err.too_many_seats": "assentos demais de uma vez.",
    "seats.err.duplicate_seat": "um assento aparece duas vezes.", "seats.err.not_found": "o assento ou o evento não existe mais.",
    "seats.err.event_over": "o evento já acabou.",
    "seats.err.mixed_seat_states": "venda assentos livres ou travados, não os dois no mesmo pedido.",
    "seats.err.partial_booking": "uma reserva segura vários assentos juntos: selecione todos eles.",
    "seats.err.forbidden": "seu papel não permite esta ação.", "seats.err.unauthenticated": "entre de novo.",
    "seats.err.invalid_phone": "telefone inválido: use o formato +5511987654321.",
    "seats.err.customer_required": "informe o telefone do cliente.",
    "seats.err.open_hold_exists": "esse cliente já tem um hold aberto.",
    "seats.err.hold_ceiling": "esse cliente chegou ao limite de holds.",
    "seats.err.cooldown": "esse cliente precisa esperar um pouco antes de um novo hold.",
    "seats.err.blacklisted": "esse cliente não pode reservar.", "seats.err.in_the_past": "o evento já começou.",
    "seats.err.busy": "a unidade está ocupada; tente de novo.",
    "seats.err.release_not_allowed": "esse tipo de hold não pode ser liberado por aqui.",
    "seats.err.rate_limited": "muitos pedidos seguidos; espere um pouco e tente de novo.",
    "seats.err.offline": "não foi possível falar com o servidor agora. Verifique a conexão e tente de novo.",
  },
  en: {
    "seats.state.ACTIVE": "Free", "seats.state.LOCKED": "Locked (held)", "seats.state.SOLD": "Sold",
    "seats.state.BLOCKED": "Blocked", "seats.word.ACTIVE": "free", "seats.word.LOCKED": "locked",
    "seats.word.SOLD": "sold", "seats.word.BLOCKED": "blocked",
    "seats.title": "Seat map", "seats.event": "Event", "seats.live": "live",
    "seats.polled": "refreshed every 5 s (staff: live)", "seats.noEvent": "No coming event with a seat map in this "
      + "unit.", "seats.legend": "Legend",
    "seats.counts": "{map}: {active} free · {locked} locked · {sold} sold · {blocked} blocked",
    "seats.left": "{time} left", "seats.selected": "Selected: {labels} ",
    "seats.phone": "Customer phone", "seats.lock": "Lock", "seats.sell": "Sell (box office)",
    "seats.unlock": "Unlock", "seats.block": "Block", "seats.unblock": "Unblock", "seats.clear": "clear",
    "seats.hint": "Select seats to lock, sell or block them.", "seats.seat": "Seat {label}",
    "seats.done.lock": "Locked.", "seats.done.sell": "Sold.", "seats.done.unlock": "Unlocked.",
    "seats.done.block": "Blocked.", "seats.done.unblock": "Unblocked.",
  },
});

export const SEAT_STATES = [["ACTIVE", "#22C55E"], ["LOCKED", "#F59E0B"], ["SOLD", "#3B82F6"], ["BLOCKED", "#6B7280"]];
const seatName = (state) => t(`seats.state.${state}`);

/** A refusal in the screen's language: in English the API's sentence (it names the seats and their states); in
 * Portuguese the seats and states of SeatsUnavailable, or the sentence of a known code, else the API's. */
export function seatRefusal(result, action) {
  if (locale() === "en" || !result || !result.code) return resultError(result);
  const doing = t(`seats.doing.${action}`);
  if (result.code === "seats_unavailable") {
    const seats = (result.seats || []).map((x) => `${x.label} (${t(`seats.word.${x.state}`)})`).join(", ");
    return seats ? t("seats.unavailable", {doing, seats}) : t("seats.changedMeanwhile", {doing});
  }
  const key = `seats.err.${result.code}`;
  return t(key) === key ? resultError(result) : t("seats.refused", {doing, reason: t(key)});
}

/** What the seat map showed last (unit, event, seats selected, phone typed): a language switch rebuilds it so. */
let shown = null;

const EVENTS = `query($u: ID!) { seatEvents(unitId: $u) { id name startsAt endsAt seatMapId } }`;
const SEAT_MAP = `query($e: ID!) { seatMap(eventId: $e) { __typename
  ... on SeatMapView { event { id name startsAt endsAt } seatMap { id name seatCount }
    sections { name rows { label seats { id label state holdType holdTypeName displayColor holdExpiresAt } } }
    counts { active locked sold blocked } seq }
  ... on Error { code message } } }`;
const SEAT_CHANGED = `subscription($u: ID!, $from: DateTime!, $to: DateTime!, $since: Int) {
  slotChanged(unitId: $u, from: $from, to: $to, since: $since) {
    seq event seatState holdType holdTypeName displayColor holdExpiresAt slots { resourceId } } }`;
const SEATS_ERR = `... on SeatsUnavailable { code message seats { label state } } ... on Error { code message }`;
const ACTIONS = {
  lock: `mutation($i: LockSeatsInput!, $k: String) { r: lockSeats(input: $i, idempotencyKey: $k) {
    __typename ... on BookingPayload { booking { id } } ${SEATS_ERR} } }`,
  sell: `mutation($i: SellSeatsInput!, $k: String) { r: sellSeats(input: $i, idempotencyKey: $k) {
    __typename ... on SeatBookingsPayload { bookings { id } } ${SEATS_ERR} } }`,
  unlock: `mutation($e: ID!, $s: [ID!]!) { r: unlockSeats(eventId: $e, seatIds: $s) {
    __typename ... on SeatBookingsPayload { bookings { id } } ${SEATS_ERR} } }`,
  block: `mutation($e: ID!, $s: [ID!]!) { r: blockSeats(eventId: $e, seatIds: $s, reason: "bloqueado no painel") {
    __typename ... on SeatsChanged { changed: seats } ${SEATS_ERR} } }`,
  unblock: `mutation($e: ID!, $s: [ID!]!) { r: unblockSeats(eventId: $e, seatIds: $s) {
    __typename ... on SeatsChanged { changed: seats } ${SEATS_ERR} } }`,
};

export class SeatMapView {
  constructor(root, unit, live) {
    this.root = root;
    this.unit = unit;
    this.tz = unit.timezone;
    this.live = live;
    this.seats = new Map();
    this.kept = shown && shown.unitId === unit.id ? shown : null;  // put back once the event is read
    this.selected = new Set();
    this.phone = this.kept ? this.kept.phone : null;
    this.stopFeed = () => {};
    this.status = h("p", {class: "message", hidden: true, role: "status", "data-testid": "seat-message"});
    this.picker = h("select", {"aria-label": t("seats.event"), onchange: (e) => this.open(e.target.value)});
    this.board = h("div", {class: "seatmap", "data-testid": "seatmap"});
    this.counts = h("p", {class: "muted", "data-testid": "seat-counts"});
    this.actions = h("div", {class: "actions"});
    const legend = h("div", {class: "legend", role: "group", "aria-label": t("seats.legend")},
      SEAT_STATES.map(([s, c]) => h("span", {class: "chip"}, h("i", {style: {background: c}}), seatName(s))),
      this.holdTypes = h("span", {class: "legend-types"}));
    holdTypeLegend(this.holdTypes, unit.id, this.token());
    root.replaceChildren(h("h2", {}, t("seats.title")), h("div", {class: "toolbar"}, this.picker,
      h("span", {class: "feed-info", "data-testid": "seat-feed"}, live ? t("seats.live") : t("seats.polled"))),
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
        this.board.replaceChildren(h("p", {class: "muted"}, t("seats.noEvent")));
        return;
      }
      this.picker.replaceChildren(...events.map((e) => h("option", {value: e.id},
        `${e.name} — ${longDate(e.startsAt, this.tz)} ${hhmm(e.startsAt, this.tz)}`)));
      const wanted = (this.kept && this.kept.eventId) || new URLSearchParams(location.search).get("event");
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
    if (this.kept && this.kept.eventId === eventId) for (const id of this.kept.selected) this.selected.add(id);
    this.kept = null;
    this.remember();
    const view = await this.refresh();
    this.stopFeed();
    clearInterval(this.poll);
    if (this.live && this.event) {
      // From the event the map reflects: a seat taken between the read and the subscription's start is replayed.
      this.stopFeed = follow(this.live, SEAT_CHANGED, {u: this.unit.id, from: this.event.startsAt, to: this.event.endsAt,
        since: view && view.__typename === "SeatMapView" ? view.seq : null}, (event) => this.onEvent(event), (message) => say(this.status, message, "error"));
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
      for (const id of this.selected) if (!this.seats.has(id)) this.selected.delete(id);
      this.render();
      return r;
    } catch (e) {
      say(this.status, e.message, "error");
    }
  }

  render() {
    const r = this.view;
    this.counts.textContent = t("seats.counts", {map: r.seatMap.name, ...r.counts});
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
        this.remember();
        this.renderActions();
      }}, seat.label);
    this.paint(el, seat);
    return el;
  }

  paint(el, seat) {
    el.dataset.state = seat.state;
    el.style.background = seat.displayColor;
    el.style.color = inkOn(seat.displayColor);
    const type = seat.holdType || seat.holdTypeName ? holdTypeName(seat.holdType, seat.holdTypeName) : "";
    el.title = `${seat.label}: ${seatName(seat.state)}${type ? ` — ${type}` : ""}`;
    el.setAttribute("aria-label", `${t("seats.seat", {label: seat.label})}: ${seatName(seat.state)}`);
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
      value: this.phone ?? ((session.customer && session.customer.phone) || ""),
      oninput: (e) => { this.phone = e.target.value; this.remember(); }});
    const run = (name, variables) => async () => {
      try {
        const r = (await gql(ACTIONS[name], variables, this.token())).r;
        // SeatsUnavailable names the seats and their states.
        if (r.code) return say(this.status, seatRefusal(r, name), "error");
        say(this.status, t(`seats.done.${name}`), "ok");
        this.selected.clear();
        this.remember();
        this.refresh();
      } catch (e) {
        say(this.status, e instanceof ApiError && e.code ? seatRefusal({code: e.code, message: e.message}, name)
          : e.message, "error");
      }
    };
    const customer = () => (phone.value.trim() ? {phone: phone.value.trim()} : null);
    const e = this.eventId;
    this.actions.replaceChildren(...(ids.length ? [
      h("span", {}, t("seats.selected", {labels})),
      h("label", {}, `${t("seats.phone")} `, phone),
      h("button", {onclick: () => run("lock", {i: {eventId: e, seatIds: ids, customer: customer(), channel: "WEB"},
        k: crypto.randomUUID()})()}, t("seats.lock")),
      session.staffToken ? [
        h("button", {onclick: () => run("sell", {i: {eventId: e, seatIds: ids, customer: customer()},
          k: crypto.randomUUID()})()}, t("seats.sell")),
        h("button", {onclick: run("unlock", {e, s: ids})}, t("seats.unlock")),
        h("button", {onclick: run("block", {e, s: ids})}, t("seats.block")),
        h("button", {onclick: run("unblock", {e, s: ids})}, t("seats.unblock"))] : null,
      h("button", {class: "link", onclick: () => { this.selected.clear(); this.remember(); this.render(); }},
        t("seats.clear"))]
      : [h("span", {class: "muted"}, t("seats.hint"))]).flat().filter(Boolean));
  }

  remember() {
    shown = {unitId: this.unit.id, eventId: this.eventId, selected: [...this.selected], phone: this.phone};
  }

  tick() {
    const now = Date.now();
    for (const el of this.board.querySelectorAll("[data-expires]")) {
      const left = Date.parse(el.dataset.expires) - now;
      el.title = el.title.replace(/ · .*$/, "") + (left > 0 ? ` · ${t("seats.left", {time: countdown(left)})}` : "");
    }
  }

  destroy() {
    this.stopFeed();
    clearInterval(this.poll);
    clearInterval(this.ticker);
    clearTimeout(this.refetch);
  }
}
