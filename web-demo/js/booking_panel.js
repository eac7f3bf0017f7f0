// The agenda's booking panel (issue 20): who and what a booking is — the customer (name, phone, masked CPF), the
// slot in the unit's time zone, the amounts, the accepted policy in words, its history from the audit trail — and
// the actions staff take on it. Each action's refusal (a role, the check-in window…) is the API's sentence.

import {gql, resultError} from "./gql.js";
import {h, say, session} from "./session.js";
import {hhmm, longDate} from "./time.js";

const BOOKING = `query Booking($b: ID!) { booking(id: $b) { __typename
  ... on Booking { id status channel startsAt endsAt holdType dueNowCents paidCents refundedCents
    customer { name phone cpfMasked } acceptance { totalCents policySummary } quote { totalCents policySummary }
    allocations { resourceId }
    historyConnection(first: 50) { edges { node { at oldStatus newStatus actor reason } } } }
  ... on Error { code message } } }`;
const RESULT = `__typename ... on BookingPayload { booking { id status } } ... on Error { code message }`;
const MUTATIONS = {
  checkIn: `mutation($b: ID!) { checkIn(bookingId: $b) { ${RESULT} } }`,
  complete: `mutation($b: ID!) { complete(bookingId: $b) { ${RESULT} } }`,
  markNoShow: `mutation($b: ID!) { markNoShow(bookingId: $b) { ${RESULT} } }`,
  cancel: `mutation($b: ID!, $r: String) { cancel(bookingId: $b, reason: $r) { ${RESULT} } }`,
  drop: `mutation($b: ID!, $r: String!) { drop(bookingId: $b, reason: $r) { ${RESULT} } }`,
  confirmPayment: `mutation($b: ID!) { confirmPayment(bookingId: $b) { __typename
    ... on PaymentOutcome { outcome } ... on Error { code message } } }`,
  recordManualPayment: `mutation($b: ID!, $i: ManualPaymentInput!) { recordManualPayment(bookingId: $b, input: $i) {
    __typename ... on ManualPaymentPayload { booking { id status } } ... on Error { code message } } }`,
  reschedule: `mutation($b: ID!, $i: RescheduleInput!) { reschedule(bookingId: $b, input: $i) { ${RESULT} } }`,
};
const DONE = {checkIn: "Checked in.", complete: "Completed.", markNoShow: "Marked as a no-show.",
  cancel: "Cancelled: the slot is free.", confirmPayment: "Payment confirmed.",
  recordManualPayment: "Payment recorded.", reschedule: "Rescheduled.",
  drop: "Hold dropped: the slot is free and the customer was told “Horário liberado pela equipe”."};
const OK_TYPES = new Set(["BookingPayload", "PaymentOutcome", "ManualPaymentPayload"]);

const money = (c) => new Intl.NumberFormat("pt-BR", {style: "currency", currency: "BRL"}).format((c || 0) / 100);
const words = (status) => (status || "").toLowerCase().replace(/_/g, " ");

const STAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;

/** A refusal in words: the instants it names (e.g. the check-in window) in the unit's time zone, not ISO/UTC. */
export function inWords(text, tz) {
  return tz ? text.replace(STAMP, (stamp) => {
    const at = Date.parse(stamp);
    return `${longDate(at, tz)} ${hhmm(at, tz)}`;
  }) : text;
}

/** Run one action; say its outcome in `message`; resolve true when it was done. */
export async function act(field, variables, message, tz = null) {
  try {
    const r = (await gql(MUTATIONS[field], variables, session.staffToken))[field];
    if (OK_TYPES.has(r.__typename)) {
      say(message, DONE[field], "ok");
      return true;
    }
    let text = inWords(resultError(r), tz);
    if (r.heldBookingId) text += " Drop that hold first (select its cell).";
    say(message, text, "error");
  } catch (e) {
    say(message, e.message, "error");
  }
  return false;
}

/** The panel's booking part for `bookingId`; `agenda` picks a new slot for a reschedule. */
export function bookingPanel(bookingId, agenda, message) {
  const box = h("div", {class: "booking-panel", "data-testid": "booking-panel"}, h("p", {class: "muted"}, "Loading…"));
  const load = async () => {
    let b;
    try {
      b = (await gql(BOOKING, {b: bookingId}, session.staffToken)).booking;
    } catch (e) {
      return box.replaceChildren(h("p", {class: "message error"}, e.message));
    }
    if (b.__typename !== "Booking") return box.replaceChildren(h("p", {class: "message error"}, resultError(b)));
    box.replaceChildren(details(b, agenda.tz), actions(b, agenda, message, load), history(b, agenda.tz));
  };
  load();
  return box;
}

function details(b, tz) {
  const c = b.customer || {};
  const start = Date.parse(b.startsAt);
  const terms = b.acceptance || b.quote;
  const row = (label, value, id) => [h("dt", {}, label), h("dd", {"data-testid": id}, value ?? "—")];
  return h("dl", {class: "booking-details", "data-testid": "booking-details"},
    ...row("Customer", c.name || "(no name given)", "customer-name"),
    ...row("Phone", c.phone, "customer-phone"),
    ...row("CPF", c.cpfMasked, "customer-cpf"),
    ...row("When", `${longDate(start, tz)} ${hhmm(start, tz)}–${hhmm(Date.parse(b.endsAt), tz)}`, "booking-when"),
    ...row("Status", words(b.status), "booking-status"),
    ...row("Total", terms ? money(terms.totalCents) : "—", "amount-total"),
    ...row("Due now", money(b.dueNowCents), "amount-due"),
    ...row("Paid", money(b.paidCents), "amount-paid"),
    ...row("Refunded", money(b.refundedCents), "amount-refunded"),
    ...row("Policy", terms ? terms.policySummary : "No policy accepted yet.", "booking-policy"));
}

function history(b, tz) {
  const edges = (b.historyConnection && b.historyConnection.edges) || [];
  return h("section", {class: "history"}, h("h4", {}, "History"),
    edges.length ? h("ol", {class: "timeline", "data-testid": "booking-history"}, edges.map(({node: e}) =>
      h("li", {}, h("time", {}, `${longDate(Date.parse(e.at), tz)} ${hhmm(Date.parse(e.at), tz)}`), " ",
        e.oldStatus ? `${words(e.oldStatus)} → ${words(e.newStatus)}` : `created ${words(e.newStatus)}`,
        ` · ${e.actor}`, e.reason ? ` · “${e.reason}”` : "")))
      : h("p", {class: "muted"}, "No history yet."));
}

function actions(b, agenda, message, reload) {
  const run = (field, variables) => async () => {
    if (await act(field, {b: b.id, ...variables}, message, agenda.tz)) reload();
  };
  const button = (label, field, variables = {}, cls = null) =>
    h("button", {type: "button", class: cls, onclick: run(field, variables)}, label);
  const s = b.status;
  const parts = [];
  if (s === "PENDING_PAYMENT" || s === "VERIFYING") {
    parts.push(button("Confirm payment", "confirmPayment", {}, "primary"));
  }
  if (["HELD", "PENDING_PAYMENT", "VERIFYING", "CONFIRMED", "CHECKED_IN"].includes(s)) parts.push(manualPayment(b, run));
  if (s === "CONFIRMED") {
    parts.push(button("Check in", "checkIn", {}, "primary"), button("No-show", "markNoShow"));
    const terms = b.acceptance || b.quote;
    parts.push(h("form", {class: "stack", "data-testid": "cancel-form", onsubmit: (e) => {
      e.preventDefault();
      run("cancel", {r: new FormData(e.target).get("reason") || null})();
    }}, h("h4", {}, "Cancel"),
    h("p", {class: "small", "data-testid": "refund-words"}, terms
      ? `The refund follows the accepted policy: ${terms.policySummary} Paid so far: ${money(b.paidCents)}.`
      : "Nothing was paid: nothing is refunded."),
    h("label", {}, "Reason ", h("input", {name: "reason"})),
    h("button", {type: "submit", class: "danger"}, "Cancel booking")));
  }
  if (s === "CHECKED_IN") parts.push(button("Complete", "complete", {}, "primary"));
  if (s === "HELD" || s === "PENDING_PAYMENT" || s === "VERIFYING") {
    parts.push(h("form", {class: "stack", "data-testid": "drop-form", onsubmit: (e) => {
      e.preventDefault();
      run("drop", {r: new FormData(e.target).get("reason")})();
    }}, h("h4", {}, "Derrubar hold (drop)"),
    h("label", {}, "Reason ", h("input", {name: "reason", required: true, value: "Liberado pela recepção"})),
    h("button", {type: "submit", class: "danger"}, "Drop this hold")));
  }
  if (s === "CONFIRMED" || s === "HELD" || s === "PENDING_PAYMENT") {
    parts.push(h("button", {type: "button", "data-testid": "reschedule", onclick: () => {
      agenda.pickNewSlot(b, message);
    }}, "Reschedule: pick a new slot"));
  }
  return h("div", {class: "actions booking-actions", "data-testid": "booking-actions"}, parts);
}

function manualPayment(b, run) {
  const form = h("form", {class: "stack", "data-testid": "manual-payment"}, h("h4", {}, "Record a payment by hand"),
    h("label", {}, "Amount (R$) ", h("input", {name: "amount", type: "number", min: "0.01", step: "0.01",
      required: true})),
    h("label", {}, "Method ", h("select", {name: "method"}, ["CASH", "CARD", "TRANSFER", "OTHER"].map((m) =>
      h("option", {value: m}, {CASH: "Cash", CARD: "Card", TRANSFER: "Transfer", OTHER: "Other"}[m])))),
    h("label", {}, "Note ", h("input", {name: "reason", required: true, value: "Pago no balcão"})),
    h("button", {type: "submit"}, "Record payment"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    run("recordManualPayment", {i: {method: data.get("method"), reason: data.get("reason"),
      amountCents: Math.round(Number(data.get("amount")) * 100)}})();
  });
  return h("details", {}, h("summary", {}, "Record a payment by hand"), form);
}
