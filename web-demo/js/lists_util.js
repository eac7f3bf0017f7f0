// Shared bits of the console's lists (queue, waitlists, search, counter): a booking's customer and slot in words,
// status chips in the state colours, and the states every list shows (loading, empty, error).

import {gql} from "./gql.js";
import {formatDateTime, formatMoney, register, t} from "./i18n.js";
import {h, session} from "./session.js";

register({
  "pt-BR": {
    "lists.loading": "Carregando…", "lists.retry": "Tentar de novo", "lists.more": "Mais",
    "lists.noName": "Sem nome", "lists.due": "A pagar {amount}", "lists.paid": "pago {amount}",
    "status.HELD": "Em hold", "status.PENDING_PAYMENT": "Aguardando Pix", "status.VERIFYING": "Conferindo Pix",
    "status.CONFIRMED": "Confirmada", "status.CHECKED_IN": "Check-in feito", "status.COMPLETED": "Concluída",
    "status.CANCELLED": "Cancelada", "status.NO_SHOW": "Não compareceu", "status.EXPIRED": "Expirada",
  },
  en: {
    "lists.loading": "Loading…", "lists.retry": "Try again", "lists.more": "More",
    "lists.noName": "No name", "lists.due": "Due {amount}", "lists.paid": "paid {amount}",
    "status.HELD": "Held", "status.PENDING_PAYMENT": "Awaiting Pix", "status.VERIFYING": "Checking Pix",
    "status.CONFIRMED": "Confirmed", "status.CHECKED_IN": "Checked in", "status.COMPLETED": "Completed",
    "status.CANCELLED": "Cancelled", "status.NO_SHOW": "No-show", "status.EXPIRED": "Expired",
  },
});

/** A booking as the lists show it, its customer included (Booking.customer: what every staff member may read, the
 * operator too — no second request per row). */
export const BOOKING_FIELDS = `id status holdType channel startsAt endsAt customerId dueNowCents paidCents
  customer { name phone cpfMasked } allocations { resourceId }`;
const NODES = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on Booking { ${BOOKING_FIELDS} } } }`;
const NODES_MAX = 100;

/** Bookings by id in one request per hundred (nodes): a Map id → booking (null: gone, or not to be seen). */
export async function bookingsByIds(ids) {
  const found = new Map();
  const wanted = [...new Set(ids)];
  for (let i = 0; i < wanted.length; i += NODES_MAX) {
    const part = wanted.slice(i, i + NODES_MAX);
    const nodes = (await gql(NODES, {ids: part}, session.staffToken)).nodes;
    part.forEach((id, n) => found.set(id, nodes[n] && nodes[n].__typename === "Booking" ? nodes[n] : null));
  }
  return found;
}

/** A phone as people type it ("(11) 98888-7777") in E.164 ("+5511988887777"): a Brazilian number without +55. */
export function toE164(text) {
  const s = String(text || "").trim();
  if (!s) return null;
  const digits = s.replace(/\D/g, "");
  if (s.startsWith("+")) return `+${digits}`;
  return digits.length === 10 || digits.length === 11 ? `+55${digits}` : s;
}

export function formatPhone(phone) {
  const m = /^\+55(\d{2})(\d{4,5})(\d{4})$/.exec(phone || "");
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : (phone || "");
}

export function statusChip(status) {
  const state = status.toLowerCase().replace(/_/g, "-").replace("pending-payment", "pending");
  return h("span", {class: `sl-chip state-${state}`, dataset: {status}}, t(`status.${status}`));
}

export function resourceName(unit, id) {
  const r = (unit.resources || []).find((x) => x.id === id);
  return r ? r.name : "";
}

/** "Campo 2 · qui., 3 de dez. 19:00": the slot of a booking in the unit's zone. */
export function slotWords(unit, booking) {
  const names = (booking.allocations || []).map((a) => resourceName(unit, a.resourceId)).filter(Boolean);
  const when = formatDateTime(booking.startsAt, unit.timezone,
    {weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
  return [...new Set(names)].concat(when).join(" · ");
}

export function amountsWords(booking) {
  const parts = [];
  if (booking.dueNowCents) parts.push(t("lists.due", {amount: formatMoney(booking.dueNowCents)}));
  if (booking.paidCents) parts.push(t("lists.paid", {amount: formatMoney(booking.paidCents)}));
  return parts.join(" · ");
}

/** A customer's line: name, phone and masked CPF (a Booking's customer, a CustomerMatch, a waitlist entry's). */
export function customerLine(c) {
  if (!c) return null;
  return h("span", {class: "lists-customer"}, h("strong", {}, c.name || t("lists.noName")),
    c.phone ? h("span", {class: "lists-muted"}, formatPhone(c.phone)) : null,
    c.cpfMasked || c.maskedCpf ? h("span", {class: "lists-muted", dataset: {cpf: "masked"}},
      `CPF ${c.cpfMasked || c.maskedCpf}`) : null);
}

/** The states of a list: loading, empty (a sentence), error (a sentence and a retry). */
export function loadingEl() {
  return h("p", {class: "lists-state", role: "status", "aria-busy": "true"}, t("lists.loading"));
}
export function emptyEl(text) {
  return h("p", {class: "lists-state lists-empty", role: "status"}, text);
}
export function errorEl(text, retry) {
  return h("div", {class: "lists-state lists-error", role: "alert"}, h("span", {}, text),
    retry ? h("button", {type: "button", class: "lists-btn", onclick: retry}, t("lists.retry")) : null);
}

export function idemKey() {
  return `console-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}
