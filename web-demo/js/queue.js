// The staff queue ("Tratativas", SPEC §12), live from queueChanged, with each type's actions.

import {follow, gql, resultError} from "./gql.js";
import {h, say, session} from "./session.js";
import {hhmm} from "./time.js";

const QUEUE = `query Queue($u: ID!) { queue(unitId: $u) {
  id type title priority status bookingId payload createdAt acknowledgedBy acknowledgedAt } }`;
const QUEUE_CHANGED = `subscription Queue($u: ID!, $since: Int) { queueChanged(unitId: $u, since: $since) {
  seq kind itemId type title priority bookingId } }`;
const ITEM_RESULT = `__typename ... on QueueItem { id status } ... on Error { code message }`;
const BOOKING_RESULT = `__typename ... on BookingPayload { booking { id status } } ... on Error { code message }`;
const PAYMENT_RESULT = `__typename ... on PaymentOutcome { outcome } ... on Error { code message }`;
const ACTIONS = {
  acknowledge: [`mutation($i: ID!) { r: acknowledgeQueueItem(itemId: $i) { ${ITEM_RESULT} } }`, "Acknowledged."],
  resolve: [`mutation($i: ID!, $n: String) { r: resolveQueueItem(itemId: $i, note: $n) { ${ITEM_RESULT} } }`,
    "Resolved."],
  confirmPayment: [`mutation($b: ID!) { r: confirmPayment(bookingId: $b) { ${PAYMENT_RESULT} } }`,
    "The bank has the Pix: the booking is confirmed."],
  denyPaymentClaim: [`mutation($b: ID!, $r: String) { r: denyPaymentClaim(bookingId: $b, reason: $r) {
    __typename ... on BookingPayload { booking { id status } } ... on Error { code message } } }`,
  "Claim denied: the hold expired and the slot is free."],
  checkIn: [`mutation($b: ID!) { r: checkIn(bookingId: $b) { ${BOOKING_RESULT} } }`, "Checked in."],
  markNoShow: [`mutation($b: ID!) { r: markNoShow(bookingId: $b) { ${BOOKING_RESULT} } }`, "Marked as no-show."],
};
const PRIORITY_ORDER = {CRITICAL: 0, HIGH: 1, NORMAL: 2};

export class StaffQueue {
  constructor(root, unit, live) {
    this.root = root;
    this.unit = unit;
    this.live = live;
    this.items = [];
    this.fresh = new Set();
    this.list = h("ol", {class: "queue", "data-testid": "queue"});
    this.status = h("p", {class: "message", hidden: true, role: "status", "data-testid": "queue-message"});
    this.count = h("span", {class: "badge", "data-testid": "queue-count"}, "0");
    root.replaceChildren(h("h2", {}, "Tratativas ", this.count), this.status, this.list);
    this.stopFeed = follow(live, QUEUE_CHANGED, {u: unit.id}, (e) => this.onEvent(e),
      (message) => say(this.status, message, "error"));
    this.refresh();
  }

  async refresh() {
    try {
      this.items = (await gql(QUEUE, {u: this.unit.id}, session.staffToken)).queue;
    } catch (e) {
      say(this.status, e.message, "error");
      return;
    }
    this.items.sort((a, b) => (PRIORITY_ORDER[a.priority] ?? 3) - (PRIORITY_ORDER[b.priority] ?? 3)
      || Date.parse(b.createdAt) - Date.parse(a.createdAt));
    this.render();
  }

  onEvent(event) {
    if (event.itemId && event.kind === "OPENED") this.fresh.add(event.itemId);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 100);
  }

  onReconnect() {
    this.refresh();
  }

  render() {
    this.count.textContent = String(this.items.length);
    if (!this.items.length) {
      this.list.replaceChildren(h("li", {class: "muted empty"}, "Nothing to handle. New items appear here live."));
      return;
    }
    this.list.replaceChildren(...this.items.map((item) => this.itemEl(item)));
  }

  itemEl(item) {
    const message = h("p", {class: "message", hidden: true, role: "status"});
    const act = (name, variables) => async () => {
      const [query, success] = ACTIONS[name];
      try {
        const result = (await gql(query, variables, session.staffToken)).r;
        if (result.__typename === "QueueItem" || result.__typename === "BookingPayload"
          || result.__typename === "PaymentOutcome") {
          say(message, result.outcome ? `${success} (${result.outcome.toLowerCase().replace("_", " ")})` : success, "ok");
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
    if (item.type === "CUSTOMER_SAYS_PAID" && b) {
      buttons.push(h("button", {onclick: act("confirmPayment", {b})}, "Confirm payment"));
      buttons.push(h("button", {class: "danger", onclick: act("denyPaymentClaim", {b, r: "Pagamento não encontrado"})},
        "Deny claim"));
    }
    if (item.type === "NO_SHOW_SUGGESTION" && b) {
      buttons.push(h("button", {onclick: act("markNoShow", {b})}, "Mark no-show"));
      buttons.push(h("button", {onclick: act("checkIn", {b})}, "Check in"));
    }
    if (item.status === "OPEN") {
      buttons.push(h("button", {onclick: act("acknowledge", {i: item.id})}, "Registrar ciência"));
    }
    buttons.push(h("button", {onclick: act("resolve", {i: item.id, n: "Resolvido no painel"})}, "Resolve"));
    const priority = item.priority.toLowerCase();  // the CSS classes: critical, high, normal
    return h("li", {class: `item ${priority} ${this.fresh.has(item.id) ? "fresh" : ""}`,
      dataset: {type: item.type, status: item.status, item: item.id}},
    h("div", {class: "item-head"}, h("span", {class: `prio ${priority}`}, priority),
      h("strong", {}, item.title), h("span", {class: "muted"}, ` · ${hhmm(item.createdAt, this.unit.timezone)}`),
      item.status === "ACKNOWLEDGED" ? h("span", {class: "muted"}, " · acknowledged") : null),
    b ? h("p", {class: "muted small"}, `Booking ${b}`) : null,
    h("div", {class: "actions"}, buttons), message);
  }

  destroy() {
    this.stopFeed();
    clearTimeout(this.timer);
  }
}
