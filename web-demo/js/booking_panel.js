// The agenda's booking panel (issue 20): who and what a booking is — the customer (name, phone, masked CPF), the
// slot in the unit's time zone, the amounts, the accepted policy in words, its history from the audit trail — and
// the actions staff take on it. Every word is in the screen's language (i18n.js); a refusal is the API's sentence,
// or in Portuguese the sentence of its code when this panel knows it.

import {gql, resultError, sentence} from "./gql.js";
import {formatMoney, locale, register, t} from "./i18n.js";
import {h, say, session} from "./session.js";
import {hhmm, longDate} from "./time.js";
import {seriesBox} from "./series.js";

register({
  "pt-BR": {
    "panel.loading": "Carregando…", "panel.customer": "Cliente", "panel.noName": "(sem nome)",
    "panel.phone": "Telefone", "panel.cpf": "CPF", "panel.when": "Quando", "panel.status": "Situação",
    "panel.total": "Total", "panel.due": "A pagar agora", "panel.paid": "Pago", "panel.refunded": "Reembolsado",
    "panel.policy": "Política", "panel.series": "Série", "panel.seriesOf": "Série {i}/{n}", "panel.noPolicy": "Nenhuma política aceita ainda.", "panel.history": "Histórico",
    "panel.noHistory": "Ainda sem histórico.", "panel.created": "criada: {status}",
    "panel.confirmPayment": "Confirmar pagamento", "panel.checkIn": "Fazer check-in",
    "panel.noShow": "Não compareceu", "panel.complete": "Concluir", "panel.cancelTitle": "Cancelar",
    "panel.refundNow": "Cancelar agora devolve {refund} dos {paid} pagos, pela política aceita.",
    "panel.refundNothing": "Nada foi pago: nada é devolvido.", "panel.reason": "Motivo",
    "panel.cancelBooking": "Cancelar reserva", "panel.cancelConfirm": "Confirmar o cancelamento",
    "panel.cancelBack": "Voltar", "panel.cancelAsk": "Cancelar esta reserva e devolver {refund}?",
    "panel.dropTitle": "Derrubar o hold", "panel.dropDefault": "Liberado pela recepção",
    "panel.drop": "Derrubar este hold", "panel.reschedule": "Remarcar: escolher um novo horário",
    "panel.manualTitle": "Registrar um pagamento à mão", "panel.amount": "Valor (R$)", "panel.method": "Forma",
    "panel.note": "Nota", "panel.noteDefault": "Pago no balcão", "panel.record": "Registrar pagamento",
    "panel.method.CASH": "Dinheiro", "panel.method.CARD": "Cartão", "panel.method.TRANSFER": "Transferência", "panel.method.OTHER": "Outra",
    "panel.done.checkIn": "Check-in feito.", "panel.done.complete": "Concluída.", "panel.done.markNoShow": "Marcada como não compareceu.",
    "panel.done.cancel": "Cancelada: o horário está livre.", "panel.done.confirmPayment": "Pagamento confirmado.",
    "panel.done.recordManualPayment": "Pagamento registrado.", "panel.done.reschedule": "Remarcada.",
    "panel.done.drop": "Hold derrubado: o horário está livre e o cliente recebeu “Horário liberado pela equipe”.",
    "panel.dropFirst": " Derrube esse hold primeiro (selecione a célula dele).",
    "panel.actor.system": "sistema", "panel.actor.staff": "equipe", "panel.actor.customer": "cliente",
    "panel.st.HELD": "em hold", "panel.st.PENDING_PAYMENT": "aguardando pagamento", "panel.st.VERIFYING": "conferindo Pix",
    "panel.st.CONFIRMED": "confirmada", "panel.st.CHECKED_IN": "check-in feito", "panel.st.COMPLETED": "concluída",
    "panel.st.CANCELLED": "cancelada", "panel.st.NO_SHOW": "não compareceu", "panel.st.EXPIRED": "expirada",
    "panel.err.slot_taken": "O horário foi ocupado.", "panel.err.slot_held": "O horário está em hold.",
    "panel.err.customer_required": "O cliente precisa de um CPF ou de um telefone.",
    "panel.err.invalid_phone": "Telefone inválido: use o formato +5511987654321.",
    "panel.err.forbidden": "Seu papel não permite esta ação.", "panel.err.in_the_past": "Esse horário já passou.",
    "panel.err.check_in_outside_window": "Fora da janela de check-in: ela vai de {from} a {to}.",
    "panel.err.payment_not_found": "O banco ainda não recebeu esse Pix.",
    "panel.err.invalid_transition": "A reserva não pode mais fazer isso no estado em que está.",
    "panel.err.reason_required": "Diga o motivo.", "panel.err.invalid_amount": "Valor inválido.",
    "panel.err.manual_payments_off": "Esta unidade não aceita pagamentos registrados à mão.",
  },
  en: {
    "panel.loading": "Loading…", "panel.customer": "Customer", "panel.noName": "(no name given)",
    "panel.phone": "Phone", "panel.cpf": "CPF", "panel.when": "When", "panel.status": "Status",
    "panel.total": "Total", "panel.due": "Due now", "panel.paid": "Paid", "panel.refunded": "Refunded",
    "panel.policy": "Policy", "panel.series": "Series", "panel.seriesOf": "Series {i}/{n}", "panel.noPolicy": "No policy accepted yet.", "panel.history": "History",
    "panel.noHistory": "No history yet.", "panel.created": "created {status}",
    "panel.confirmPayment": "Confirm payment", "panel.checkIn": "Check in",
    "panel.noShow": "No-show", "panel.complete": "Complete", "panel.cancelTitle": "Cancel",
    "panel.refundNow": "Cancelling now refunds {refund} of the {paid} paid, by the accepted policy.",
    "panel.refundNothing": "Nothing was paid: nothing is refunded.", "panel.reason": "Reason",
    "panel.cancelBooking": "Cancel booking", "panel.cancelConfirm": "Confirm the cancellation",
    "panel.cancelBack": "Back", "panel.cancelAsk": "Cancel this booking and refund {refund}?",
    "panel.dropTitle": "Drop the hold", "panel.dropDefault": "Released by the front desk",
    "panel.drop": "Drop this hold", "panel.reschedule": "Reschedule: pick a new slot",
    "panel.manualTitle": "Record a payment by hand", "panel.amount": "Amount (R$)", "panel.method": "Method",
    "panel.note": "Note", "panel.noteDefault": "Paid at the desk", "panel.record": "Record payment",
    "panel.method.CASH": "Cash", "panel.method.CARD": "Card", "panel.method.TRANSFER": "Transfer", "panel.method.OTHER": "Other",
    "panel.done.checkIn": "Checked in.", "panel.done.complete": "Completed.", "panel.done.markNoShow": "Marked as a no-show.",
    "panel.done.cancel": "Cancelled: the slot is free.", "panel.done.confirmPayment": "Payment confirmed.",
    "panel.done.recordManualPayment": "Payment recorded.", "panel.done.reschedule": "Rescheduled.",
    "panel.done.drop": "Hold dropped: the slot is free and the customer was told “Horário liberado pela equipe”.",
    "panel.dropFirst": " Drop that hold first (select its cell).",
    "panel.actor.system": "system", "panel.actor.staff": "staff", "panel.actor.customer": "customer",
    "panel.st.HELD": "held", "panel.st.PENDING_PAYMENT": "pending payment", "panel.st.VERIFYING": "verifying",
    "panel.st.CONFIRMED": "confirmed", "panel.st.CHECKED_IN": "checked in", "panel.st.COMPLETED": "completed",
    "panel.st.CANCELLED": "cancelled", "panel.st.NO_SHOW": "no show", "panel.st.EXPIRED": "expired",
  },
});

const BOOKING = `query Booking($b: ID!) { booking(id: $b) { __typename
  ... on Booking { id status channel startsAt endsAt holdType dueNowCents paidCents refundedCents
    refundIfCancelledNowCents
    customer { name phone cpfMasked } acceptance { totalCents policySummary } quote { totalCents policySummary }
    allocations { resourceId } seriesId seriesIndex series { id occurrences { id } }
    historyConnection(first: 50) { edges { node { at oldStatus newStatus actor reason } } } }
  ... on Error { code message } } }`;
const REFUND = `query Refund($b: ID!) { booking(id: $b) { __typename
  ... on Booking { id paidCents refundIfCancelledNowCents } ... on Error { code message } } }`;
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
const OK_TYPES = new Set(["BookingPayload", "PaymentOutcome", "ManualPaymentPayload"]);

const money = (c) => formatMoney(c || 0);
/** A booking status in the screen's words ("aguardando pagamento" / "pending payment"). */
export const statusWords = (status) => (status ? t(`panel.st.${status.toUpperCase()}`) : "");

const STAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const when = (at, tz) => `${longDate(at, tz)} ${hhmm(at, tz)}`;

/** A refusal in words: the instants it names (e.g. the check-in window) in the unit's time zone, not ISO/UTC. */
export function inWords(text, tz) {
  return tz ? text.replace(STAMP, (stamp) => when(Date.parse(stamp), tz)) : text;
}

/** A typed refusal as a sentence in the screen's language: in English the API's own sentence (its instants in the
 * unit's zone); in Portuguese the sentence of its code when known, else the API's. */
export function refusal(result, tz = null) {
  let text = inWords(resultError(result), tz);
  const code = result && result.code;
  if (locale() !== "en" && code && t(`panel.err.${code}`) !== `panel.err.${code}`) {
    const stamps = (result.message || "").match(STAMP) || [];
    text = t(`panel.err.${code}`, {from: stamps[0] ? when(Date.parse(stamps[0]), tz) : "?",
      to: stamps[1] ? when(Date.parse(stamps[1]), tz) : "?"});
  }
  if (result && result.heldBookingId) text += t("panel.dropFirst");
  return text;
}

/** Run one action; say its outcome in `message`; resolve true when it was done. */
export async function act(field, variables, message, tz = null) {
  try {
    const r = (await gql(MUTATIONS[field], variables, session.staffToken))[field];
    if (OK_TYPES.has(r.__typename)) {
      say(message, t(`panel.done.${field}`), "ok");
      return true;
    }
    say(message, refusal(r, tz), "error");
  } catch (e) {
    say(message, sentence(e.message), "error");
  }
  return false;
}

/** The panel's booking part for `bookingId`; `agenda` picks a new slot for a reschedule. */
export function bookingPanel(bookingId, agenda, message) {
  const box = h("div", {class: "booking-panel", "data-testid": "booking-panel"},
    h("p", {class: "muted"}, t("panel.loading")));
  const load = async () => {
    let b;
    try {
      b = (await gql(BOOKING, {b: bookingId}, session.staffToken)).booking;
    } catch (e) {
      return box.replaceChildren(h("p", {class: "message error"}, e.message));
    }
    if (b.__typename !== "Booking") return box.replaceChildren(h("p", {class: "message error"}, refusal(b)));
    box.replaceChildren(details(b, agenda.tz), actions(b, agenda, message, load),
      b.series ? seriesBox(b.series.id, agenda.unit, {current: b.id, onChange: load}) : "", history(b, agenda.tz));
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
    ...row(t("panel.customer"), c.name || t("panel.noName"), "customer-name"),
    ...row(t("panel.phone"), c.phone, "customer-phone"),
    ...row(t("panel.cpf"), c.cpfMasked, "customer-cpf"),
    ...row(t("panel.when"), `${longDate(start, tz)} ${hhmm(start, tz)}–${hhmm(Date.parse(b.endsAt), tz)}`,
      "booking-when"),
    ...row(t("panel.status"), statusWords(b.status), "booking-status"),
    ...(b.series ? row(t("panel.series"), t("panel.seriesOf", {n: b.series.occurrences.length,
      i: b.series.occurrences.findIndex((o) => o.id === b.id) + 1 || b.seriesIndex + 1}),
      "booking-series") : []),
    ...row(t("panel.total"), terms ? money(terms.totalCents) : "—", "amount-total"),
    ...row(t("panel.due"), money(b.dueNowCents), "amount-due"),
    ...row(t("panel.paid"), money(b.paidCents), "amount-paid"),
    ...row(t("panel.refunded"), money(b.refundedCents), "amount-refunded"),
    ...row(t("panel.policy"), terms ? terms.policySummary : t("panel.noPolicy"), "booking-policy"));
}

function actorWords(actor) {
  const kind = String(actor || "").split(":")[0];
  const known = t(`panel.actor.${kind}`);
  return known === `panel.actor.${kind}` ? actor : known;
}

function history(b, tz) {
  const edges = (b.historyConnection && b.historyConnection.edges) || [];
  return h("section", {class: "history"}, h("h4", {}, t("panel.history")),
    edges.length ? h("ol", {class: "timeline", "data-testid": "booking-history"}, edges.map(({node: e}) =>
      h("li", {}, h("time", {}, when(Date.parse(e.at), tz)), " ",
        e.oldStatus ? `${statusWords(e.oldStatus)} → ${statusWords(e.newStatus)}`
          : t("panel.created", {status: statusWords(e.newStatus)}),
        ` · ${actorWords(e.actor)}`, e.reason ? ` · “${e.reason}”` : "")))
      : h("p", {class: "muted"}, t("panel.noHistory")));
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
    parts.push(button(t("panel.confirmPayment"), "confirmPayment", {}, "primary"));
  }
  if (["HELD", "PENDING_PAYMENT", "VERIFYING", "CONFIRMED", "CHECKED_IN"].includes(s)) parts.push(manualPayment(b, run));
  if (s === "CONFIRMED") {
    parts.push(button(t("panel.checkIn"), "checkIn", {}, "primary"), button(t("panel.noShow"), "markNoShow"));
    parts.push(cancelForm(b, run));
  }
  if (s === "CHECKED_IN") parts.push(button(t("panel.complete"), "complete", {}, "primary"));
  if (s === "HELD" || s === "PENDING_PAYMENT" || s === "VERIFYING") {
    parts.push(h("form", {class: "stack", "data-testid": "drop-form", onsubmit: (e) => {
      e.preventDefault();
      run("drop", {r: new FormData(e.target).get("reason")})();
    }}, h("h4", {}, t("panel.dropTitle")),
    h("label", {}, `${t("panel.reason")} `, h("input", {name: "reason", required: true, value: t("panel.dropDefault")})),
    h("button", {type: "submit", class: "danger"}, t("panel.drop"))));
  }
  if (s === "CONFIRMED" || s === "HELD" || s === "PENDING_PAYMENT") {
    parts.push(h("button", {type: "button", "data-testid": "reschedule", onclick: () => {
      agenda.pickNewSlot(b, message);
    }}, t("panel.reschedule")));
  }
  return h("div", {class: "actions booking-actions", "data-testid": "booking-actions"}, parts);
}

/** Cancel in two steps: the form says what cancelling now refunds (Booking.refundIfCancelledNowCents, the accepted
 * policy's tier for the hours left); "Cancel booking" reads that amount again and asks to confirm it. */
function cancelForm(b, run) {
  const words = (refund, paid) => (paid ? t("panel.refundNow", {refund: money(refund), paid: money(paid)})
    : t("panel.refundNothing"));
  const said = h("p", {class: "refund", "data-testid": "refund-words"}, words(b.refundIfCancelledNowCents, b.paidCents));
  const reason = h("input", {name: "reason"});
  const confirm = h("div", {class: "confirm-cancel", role: "alertdialog", "data-testid": "cancel-confirm", hidden: true});
  const ask = h("button", {type: "submit", class: "danger"}, t("panel.cancelBooking"));
  const form = h("form", {class: "stack", "data-testid": "cancel-form"}, h("h4", {}, t("panel.cancelTitle")), said,
    h("label", {}, `${t("panel.reason")} `, reason), ask, confirm);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    let refund = b.refundIfCancelledNowCents;
    let paid = b.paidCents;
    try {  // the refund at this moment: a tier may have passed since the panel was read
      const r = (await gql(REFUND, {b: b.id}, session.staffToken)).booking;
      if (r.__typename === "Booking") ({refundIfCancelledNowCents: refund, paidCents: paid} = r);
    } catch { /* the amount shown stays */ }
    said.textContent = words(refund, paid);
    ask.hidden = true;
    const yes = h("button", {type: "button", class: "danger", "data-testid": "cancel-yes",
      onclick: () => run("cancel", {r: reason.value || null})()}, t("panel.cancelConfirm"));
    confirm.replaceChildren(h("p", {"data-testid": "refund-amount"}, t("panel.cancelAsk", {refund: money(refund)})),
      h("div", {class: "actions"}, yes, h("button", {type: "button", onclick: () => {
        confirm.hidden = true;
        ask.hidden = false;
      }}, t("panel.cancelBack"))));
    confirm.hidden = false;
    yes.focus();
  });
  return form;
}

function manualPayment(b, run) {
  const form = h("form", {class: "stack", "data-testid": "manual-payment"}, h("h4", {}, t("panel.manualTitle")),
    h("label", {}, `${t("panel.amount")} `, h("input", {name: "amount", type: "number", min: "0.01", step: "0.01",
      required: true})),
    h("label", {}, `${t("panel.method")} `, h("select", {name: "method"}, ["CASH", "CARD", "TRANSFER", "OTHER"].map((m) =>
      h("option", {value: m}, t(`panel.method.${m}`))))),
    h("label", {}, `${t("panel.note")} `, h("input", {name: "reason", required: true, value: t("panel.noteDefault")})),
    h("button", {type: "submit"}, t("panel.record")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    run("recordManualPayment", {i: {method: data.get("method"), reason: data.get("reason"),
      amountCents: Math.round(Number(data.get("amount")) * 100)}})();
  });
  return h("details", {}, h("summary", {}, t("panel.manualTitle")), form);
}
