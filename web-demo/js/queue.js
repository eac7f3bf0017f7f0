// The staff queue ("Tratativas", SPEC §12), live from queueChanged, with each type's actions and the item's booking.
// `new StaffQueue(root, unit, live)` (the agenda's side panel) or `mount(root, {unit, live})` (its own screen).

import {follow, gql, resultError} from "./gql.js";
import {register, t} from "./i18n.js";
import {amountsWords, bookingsByIds, customerLine, emptyEl, errorEl, loadingEl, slotWords, statusChip}
  from "./lists_util.js";
import {h, say, session} from "./session.js";
import {hhmm} from "./time.js";

register({
  "pt-BR": {
    "queue.title": "Tratativas", "queue.empty": "Nada para tratar. Novos itens aparecem aqui na hora.",
    "queue.ack": "Registrar ciência", "queue.resolve": "Resolver", "queue.note": "Nota (opcional)",
    "queue.resolveConfirm": "Resolver com esta nota", "queue.cancel": "Voltar",
    "queue.confirmPayment": "Confirmar pagamento", "queue.deny": "Negar pagamento",
    "queue.noShow": "Marcar não compareceu", "queue.checkIn": "Fazer check-in",
    "queue.acked": "Ciência registrada.", "queue.resolved": "Resolvido.",
    "queue.paymentConfirmed": "O banco tem o Pix: reserva confirmada.",
    "queue.denied": "Pagamento negado: o hold expirou e o horário está livre.",
    "queue.checkedIn": "Check-in feito.", "queue.markedNoShow": "Marcada como não compareceu.",
    "queue.acknowledged": "ciente", "queue.denyReason": "Pagamento não encontrado",
    "queue.booking": "Reserva", "queue.defaultNote": "Resolvido no painel",
    "prio.CRITICAL": "Crítico", "prio.HIGH": "Alta", "prio.NORMAL": "Normal",
    "qtype.CUSTOMER_SAYS_PAID": "Cliente diz que pagou", "qtype.LATE_PIX_SLOT_TAKEN": "PIX tardio com horário ocupado",
    "qtype.PIX_FAILING": "Banco falhando ao gerar o PIX", "qtype.HOLD_CEILING": "Teto de holds atingido",
    "qtype.NO_SHOW_SUGGESTION": "Possível falta", "qtype.REFUND_FAILED": "Devolução do PIX falhou",
  },
  en: {
    "queue.title": "Staff queue", "queue.empty": "Nothing to handle. New items appear here live.",
    "queue.ack": "Acknowledge", "queue.resolve": "Resolve", "queue.note": "Note (optional)",
    "queue.resolveConfirm": "Resolve with this note", "queue.cancel": "Back",
    "queue.confirmPayment": "Confirm payment", "queue.deny": "Deny claim",
    "queue.noShow": "Mark no-show", "queue.checkIn": "Check in",
    "queue.acked": "Acknowledged.", "queue.resolved": "Resolved.",
    "queue.paymentConfirmed": "The bank has the Pix: the booking is confirmed.",
    "queue.denied": "Claim denied: the hold expired and the slot is free.",
    "queue.checkedIn": "Checked in.", "queue.markedNoShow": "Marked as no-show.",
    "queue.acknowledged": "acknowledged", "queue.denyReason": "Payment not found",
    "queue.booking": "Booking", "queue.defaultNote": "Resolved in the console",
    "prio.CRITICAL": "Critical", "prio.HIGH": "High", "prio.NORMAL": "Normal",
    "qtype.CUSTOMER_SAYS_PAID": "Customer says they paid", "qtype.LATE_PIX_SLOT_TAKEN": "Late Pix, slot taken",
    "qtype.PIX_FAILING": "The bank fails to make Pix charges", "qtype.HOLD_CEILING": "Hold ceiling reached",
    "qtype.NO_SHOW_SUGGESTION": "Possible no-show", "qtype.REFUND_FAILED": "A Pix refund failed",
  },
});

const QUEUE = `query Queue($u: ID!) { queue(unitId: $u) {
  id type title priority status bookingId payload createdAt acknowledgedBy acknowledgedAt } }`;
const QUEUE_CHANGED = `subscription Queue($u: ID!, $since: Int) { queueChanged(unitId: $u, since: $since) {
  seq kind itemId type title priority bookingId } }`;
const ITEM_RESULT = `__typename ... on QueueItem { id status } ... on Error { code message }`;
const BOOKING_RESULT = `__typename ... on BookingPayload { booking { id status } } ... on Error { code message }`;
const PAYMENT_RESULT = `__typename ... on PaymentOutcome { outcome } ... on Error { code message }`;
const ACTIONS = {
  acknowledge: [`mutation($i: ID!) { r: acknowledgeQueueItem(itemId: $i) { ${ITEM_RESULT} } }`, "queue.acked"],
  resolve: [`mutation($i: ID!, $n: String) { r: resolveQueueItem(itemId: $i, note: $n) { ${ITEM_RESULT} } }`,
    "queue.resolved"],
  confirmPayment: [`mutation($b: ID!) { r: confirmPayment(bookingId: $b) { ${PAYMENT_RESULT} } }`,
    "queue.paymentConfirmed"],
  denyPaymentClaim: [`mutation($b: ID!, $r: String) { r: denyPaymentClaim(bookingId: $b, reason: $r) {
    ${BOOKING_RESULT} } }`, "queue.denied"],
  checkIn: [`mutation($b: ID!) { r: checkIn(bookingId: $b) { ${BOOKING_RESULT} } }`, "queue.checkedIn"],
  markNoShow: [`mutation($b: ID!) { r: markNoShow(bookingId: $b) { ${BOOKING_RESULT} } }`, "queue.markedNoShow"],
};
const OK = new Set(["QueueItem", "BookingPayload", "PaymentOutcome"]);
const PRIORITY_ORDER = {CRITICAL: 0, HIGH: 1, NORMAL: 2};

/** An item's title in the screen's language (the API's `title` is pt-BR, fixed by its type; kept for a new type). */
function typeTitle(item) {
  const key = `qtype.${item.type}`;
  const words = t(key);
  return words === key ? item.title : words;
}

export class StaffQueue {
  constructor(root, unit, live) {
    this.root = root;
    this.unit = unit;
    this.live = live;
    this.items = null;
    this.fresh = new Set();
    this.bookings = new Map();
    this.list = h("ol", {class: "lists-items", "data-testid": "queue", "aria-live": "polite"});
    this.status = h("p", {class: "message", hidden: true, role: "status", "data-testid": "queue-message"});
    this.count = h("span", {class: "lists-count", "data-testid": "queue-count"}, "0");
    root.classList.add("lists-panel");
    root.replaceChildren(h("h2", {class: "lists-title"}, t("queue.title"), " ", this.count), this.status, this.list);
    this.list.replaceChildren(h("li", {}, loadingEl()));
    this.stopFeed = live ? follow(live, QUEUE_CHANGED, {u: unit.id}, (e) => this.onEvent(e),
      (message) => say(this.status, message, "error")) : () => {};
    this.refresh();
  }

  async refresh() {
    try {
      this.items = (await gql(QUEUE, {u: this.unit.id}, session.staffToken)).queue;
    } catch (e) {
      this.list.replaceChildren(h("li", {}, errorEl(e.message, () => this.refresh())));
      return;
    }
    this.items.sort((a, b) => (PRIORITY_ORDER[a.priority] ?? 3) - (PRIORITY_ORDER[b.priority] ?? 3)
      || Date.parse(b.createdAt) - Date.parse(a.createdAt));
    this.render();
  }

  onEvent(event) {
    if (event.itemId && event.kind === "OPENED") this.fresh.add(event.itemId);
    if (event.bookingId) this.bookings.delete(event.bookingId);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 100);
  }

  onReconnect() {
    this.refresh();
  }

  render() {
    this.count.textContent = String(this.items.length);
    if (!this.items.length) {
      this.list.replaceChildren(h("li", {}, emptyEl(t("queue.empty"))));
      return;
    }
    this.loadBookings(this.items.map((item) => item.bookingId).filter(Boolean));
    this.list.replaceChildren(...this.items.map((item) => this.itemEl(item)));
  }

  /** The items' bookings not yet read, in one request (nodes), each with its customer (Booking.customer). */
  loadBookings(ids) {
    const missing = [...new Set(ids)].filter((id) => !this.bookings.has(id));
    if (!missing.length) return;
    const read = bookingsByIds(missing).catch(() => new Map());
    for (const id of missing) this.bookings.set(id, read.then((found) => found.get(id) || null));
  }

  bookingEl(id) {
    const el = h("div", {class: "lists-booking", "data-testid": "queue-booking"}, loadingEl());
    this.bookings.get(id).then((b) => {
      if (!b) { el.replaceChildren(); return; }
      el.replaceChildren(h("div", {class: "lists-row"}, statusChip(b.status), customerLine(b.customer)),
        h("div", {class: "lists-muted"}, slotWords(this.unit, b)),
        amountsWords(b) ? h("div", {class: "lists-muted"}, amountsWords(b)) : null);
    });
    return el;
  }

  itemEl(item) {
    const message = h("p", {class: "message", hidden: true, role: "status"});
    const act = (name, variables) => async () => {
      const [query, success] = ACTIONS[name];
      try {
        const result = (await gql(query, variables, session.staffToken)).r;
        if (OK.has(result.__typename)) {
          say(message, t(success), "ok");
          if (item.bookingId) this.bookings.delete(item.bookingId);
          setTimeout(() => this.refresh(), 600);
        } else {
          say(message, resultError(result), "error");
        }
      } catch (e) {
        say(message, e.message, "error");
      }
    };
    const buttons = [];
    const b = item.bookingId;
    const btn = (label, onclick, cls = "") => h("button", {type: "button", class: `lists-btn ${cls}`, onclick}, label);
    if (item.type === "CUSTOMER_SAYS_PAID" && b) {
      buttons.push(btn(t("queue.confirmPayment"), act("confirmPayment", {b}), "primary"));
      buttons.push(btn(t("queue.deny"), act("denyPaymentClaim", {b, r: t("queue.denyReason")}), "danger"));
    }
    if (item.type === "NO_SHOW_SUGGESTION" && b) {
      buttons.push(btn(t("queue.noShow"), act("markNoShow", {b})));
      buttons.push(btn(t("queue.checkIn"), act("checkIn", {b})));
    }
    if (item.status === "OPEN") buttons.push(btn(t("queue.ack"), act("acknowledge", {i: item.id})));
    const note = h("input", {type: "text", name: "note", class: "lists-input", maxlength: 500,
      placeholder: t("queue.defaultNote")});
    const resolveForm = h("form", {class: "lists-resolve", hidden: true},
      h("label", {class: "lists-field"}, h("span", {}, t("queue.note")), note),
      h("div", {class: "lists-actions"}, h("button", {type: "submit", class: "lists-btn primary"},
        t("queue.resolveConfirm")), btn(t("queue.cancel"), () => { resolveForm.hidden = true; })));
    resolveForm.addEventListener("submit", (e) => {
      e.preventDefault();
      act("resolve", {i: item.id, n: note.value.trim() || t("queue.defaultNote")})();
    });
    buttons.push(btn(t("queue.resolve"), () => { resolveForm.hidden = false; note.focus(); }));
    const priority = item.priority.toLowerCase();
    return h("li", {class: `item lists-item prio-${priority} ${this.fresh.has(item.id) ? "fresh" : ""}`,
      dataset: {type: item.type, status: item.status, item: item.id}},
    h("div", {class: "lists-row"}, h("span", {class: `lists-prio prio-${priority}`}, t(`prio.${item.priority}`)),
      h("strong", {class: "lists-item-title"}, typeTitle(item)),
      h("span", {class: "lists-muted"}, hhmm(item.createdAt, this.unit.timezone)),
      item.status === "ACKNOWLEDGED" ? h("span", {class: "lists-muted"}, `· ${t("queue.acknowledged")}`) : null),
    b ? this.bookingEl(b) : null,
    h("div", {class: "lists-actions"}, buttons), resolveForm, message);
  }

  destroy() {
    this.stopFeed();
    clearTimeout(this.timer);
  }
}

/** The queue as a screen of its own (#/queue). */
export function mount(root, {unit, live}) {
  const box = h("section", {class: "lists-screen lists-panel", "aria-label": t("queue.title")});
  root.replaceChildren(box);
  return new StaffQueue(box, unit, live);
}
