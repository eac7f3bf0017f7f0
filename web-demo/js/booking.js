// Customer booking client: sign in by code, pick a free slot, hold, accept, pay the Pix, confirmed.

import {follow, gql, liveClient, resultError} from "./gql.js";
import {devLoginCode, h, say, session} from "./session.js";
import {addDays, countdown, hhmm, iso, longDate, money, startOfDay, today} from "./time.js";

const ERR = `... on Error { code message }`;
const REQUEST_CODE = `mutation($u: ID!, $p: String) { requestLoginCode(unitId: $u, phone: $p) {
  __typename ... on LoginCodeSent { channel expiresAt } ${ERR} } }`;
const VERIFY_CODE = `mutation($u: ID!, $p: String, $c: String!) { verifyLoginCode(unitId: $u, phone: $p, code: $c) {
  __typename ... on CustomerSession { token customerId expiresAt } ${ERR} } }`;
const SLOTS = `query($u: ID!, $from: DateTime!, $to: DateTime!, $r: ID, $n: Int!, $q: Int!) {
  bookableSlots(unitId: $u, from: $from, to: $to, resourceId: $r, slots: $n, quantity: $q) {
    __typename ... on BookableSlots { slots { resourceId startsAt endsAt } } ${ERR} } }`;
const QUOTE = `query($b: ID!) { booking(id: $b) { ... on Booking { quote {
  totalCents dueNowCents atVenueCents paymentRule policyVersion policySummary } } } }`;
const BOOKING_FIELDS = `id status startsAt endsAt holdExpiresAt dueNowCents paidCents allocations { resourceId quantity }
  acceptance { totalCents dueNowCents atVenueCents policySummary paymentRule policyVersion priceVersion }`;
const CHARGE_FIELDS = `id txid amountCents status copiaECola qrCodePng expiresAt`;
const HOLD = `mutation($i: HoldInput!, $k: String) { hold(input: $i, idempotencyKey: $k) {
  __typename ... on BookingPayload { booking { ${BOOKING_FIELDS} } }
  ... on SlotTaken { code message alternatives { resourceId startsAt endsAt } waitlist { resourceId startsAt endsAt } }
  ... on HoldLimitReached { code message bookingId }
  ${ERR} } }`;
const SWAP = `mutation($b: ID!, $i: SwapInput!, $k: String) { swapHold(bookingId: $b, input: $i, idempotencyKey: $k) {
  __typename ... on BookingPayload { booking { ${BOOKING_FIELDS} } }
  ... on SlotTaken { code message alternatives { resourceId startsAt endsAt } waitlist { resourceId startsAt endsAt } }
  ${ERR} } }`;
const CONFIRM = `mutation($b: ID!, $k: String, $c: String) {
  confirm(bookingId: $b, idempotencyKey: $k, channel: WEB, contact: $c) {
    __typename ... on BookingPayload { booking { ${BOOKING_FIELDS} } charge { ${CHARGE_FIELDS} } } ${ERR} } }`;
const CLAIM_PAID = `mutation($b: ID!) { claimPaid(bookingId: $b) {
  __typename ... on BookingPayload { booking { ${BOOKING_FIELDS} } } ${ERR} } }`;
const SANDBOX_PAY = `mutation($t: String!) { sandboxPay(txid: $t) { __typename ... on PaymentOutcome { outcome } ${ERR} } }`;
const CANCEL = `mutation($b: ID!) { cancel(bookingId: $b, reason: "cancelado pelo cliente no site") {
  __typename ... on BookingPayload { booking { id status } } ${ERR} } }`;
const BOOKING = `query($b: ID!) { booking(id: $b) { __typename ... on Booking { ${BOOKING_FIELDS} } ${ERR} } }`;
const WAITLIST = `mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: CustomerInput!) {
  joinSlotWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, customer: $c) {
    __typename ... on SlotWaitlistEntry { id place status } ${ERR} } }`;
const SERVICES = `query($u: ID!) { services(unitId: $u) { id resourceIds } }`;
const SANDBOX_MESSAGES = `query($t: String!) { sandboxMessages(to: $t, limit: 5) { kind text } }`;
const BOOKING_CHANGED = `subscription($b: ID!, $since: Int) { bookingChanged(bookingId: $b, since: $since) {
  seq status state holdExpiresAt } }`;

const STATUS_TEXT = {HELD: "held for you", PENDING_PAYMENT: "waiting for your Pix", VERIFYING: "being checked by the staff",
  CONFIRMED: "confirmed", CANCELLED: "cancelled", EXPIRED: "expired", CHECKED_IN: "checked in"};

export class BookingClient {
  constructor(root, unit) {
    this.root = root;
    this.unit = unit;
    this.tz = unit.timezone;
    this.resources = new Map(unit.resources.map((r) => [r.id, r]));
    this.slotMinutes = unit.parameters.slotMinutes;
    this.booking = null;
    this.charge = null;
    this.ticker = setInterval(() => this.tick(), 1000);
    this.message = h("p", {class: "message", hidden: true, role: "alert", "data-testid": "booking-message"});
    this.content = h("div", {class: "booking-step"});
    root.replaceChildren(h("h2", {}, `Book at ${unit.name}`), this.message, this.content);
    if (session.customer && session.customer.token) this.choose();
    else this.signIn();
  }

  get token() {
    return session.customer && session.customer.token;
  }

  error(text) {
    say(this.message, text, "error");
  }

  clear() {
    say(this.message, "");
  }

  step(...children) {
    this.content.replaceChildren(...children);
    this.tick();
  }

  // -------------------------------------------------------------------------------------------- sign-in
  signIn() {
    const phone = h("input", {name: "phone", type: "tel", required: true, placeholder: "+5511987654321",
      value: (session.customer && session.customer.phone) || ""});
    const code = h("input", {name: "code", inputmode: "numeric", autocomplete: "one-time-code", maxlength: 6,
      placeholder: "6 digits"});
    const codeRow = h("div", {class: "stack", hidden: true},
      h("label", {}, "Code ", code),
      h("button", {type: "submit", "data-testid": "verify-code"}, "Sign in"),
      session.dev || session.staffToken ? h("button", {type: "button", class: "dev", "data-testid": "dev-code",
        onclick: async () => {
          try {
            code.value = session.dev ? await devLoginCode(this.unit.id, phone.value.trim())
              : await sandboxCode(phone.value.trim());
          } catch (e) {
            this.error(e.message);
          }
        }}, session.dev ? "Fill in the code (dev only: reads the sandbox WhatsApp)"
        : "Fill in the code (sandbox only: read with the staff token of this browser)") : null);
    const send = h("button", {type: "button", "data-testid": "send-code", onclick: async () => {
      this.clear();
      try {
        const r = (await gql(REQUEST_CODE, {u: this.unit.id, p: phone.value.trim()})).requestLoginCode;
        if (r.__typename !== "LoginCodeSent") return this.error(resultError(r));
        say(this.message, `We sent a 6-digit code by ${r.channel === "WHATSAPP" ? "WhatsApp" : "e-mail"}.`, "ok");
        codeRow.hidden = false;
        code.focus();
      } catch (e) {
        this.error(e.message);
      }
    }}, "Send me a code");
    const form = h("form", {class: "stack card"},
      h("h3", {}, "Sign in with your phone"),
      h("label", {}, "WhatsApp number ", phone), send, codeRow);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      this.clear();
      try {
        const r = (await gql(VERIFY_CODE, {u: this.unit.id, p: phone.value.trim(), c: code.value.trim()}))
          .verifyLoginCode;
        if (r.__typename !== "CustomerSession") return this.error(resultError(r));
        session.customer = {token: r.token, phone: phone.value.trim(), customerId: r.customerId};
        session.save();
        this.choose();
      } catch (err) {
        this.error(err.message);
      }
    });
    this.step(form);
  }

  signOut() {
    session.customer = null;
    session.save();
    this.signIn();
  }

  // -------------------------------------------------------------------------------------------- choose
  choose(notice = null) {
    this.clear();
    if (notice) say(this.message, notice, "info");
    const day = h("input", {type: "date", name: "day", value: this.day || addDays(today(this.tz), 1), min: today(this.tz)});
    const resource = h("select", {name: "resource"}, h("option", {value: ""}, "Any field"),
      this.unit.resources.filter((r) => r.kind === "EXCLUSIVE").map((r) => h("option", {value: r.id}, r.name)),
      this.unit.resources.filter((r) => r.kind === "POOLED").map((r) => h("option", {value: r.id},
        `${r.name} (${r.capacity} places)`)));
    if (this.resourceId) resource.value = this.resourceId;
    const places = h("input", {type: "number", name: "places", min: 1, value: this.quantity || 1, size: 3});
    const placesLabel = h("label", {}, "Places ", places);
    const showPlaces = () => {
      placesLabel.hidden = this.resources.get(resource.value)?.kind !== "POOLED";
    };
    resource.addEventListener("change", showPlaces);
    showPlaces();
    const length = h("select", {name: "slots"},
      [1, 2, 3].map((n) => h("option", {value: n}, `${n * this.slotMinutes} min`)));
    if (this.slots) length.value = String(this.slots);
    const cpf = h("input", {name: "cpf", inputmode: "numeric", placeholder: "optional", value: this.cpf || ""});
    const list = h("div", {class: "slots", "data-testid": "slots"});
    const form = h("form", {class: "stack card"},
      h("h3", {}, "Choose a time"),
      h("div", {class: "row"}, h("label", {}, "Day ", day), h("label", {}, "Field ", resource),
        h("label", {}, "Length ", length), placesLabel),
      h("label", {}, "CPF (needed for the waitlist) ", cpf),
      h("button", {type: "submit"}, "Show free times"));
    const search = async () => {
      this.day = day.value;
      this.resourceId = resource.value || null;
      this.slots = Number(length.value);
      this.cpf = cpf.value.trim();
      this.quantity = this.resources.get(this.resourceId)?.kind === "POOLED" ? Math.max(1, Number(places.value) || 1) : 1;
      list.replaceChildren(h("p", {class: "muted"}, "Looking…"));
      const asked = this.searches = (this.searches || 0) + 1, resourceId = this.resourceId;
      try {
        const r = (await gql(SLOTS, {u: this.unit.id, from: iso(startOfDay(this.day, this.tz)),
          to: iso(startOfDay(addDays(this.day, 1), this.tz)), r: resourceId, n: this.slots, q: this.quantity},
          this.token))
          .bookableSlots;
        const any = resourceId ? null : await this.anyField();
        if (asked !== this.searches) return;  // a newer search answers (an older answer never overwrites it)
        if (r.__typename !== "BookableSlots") return this.error(resultError(r));
        const slots = resourceId ? r.slots : firstPerStart(r.slots.filter(any));
        list.replaceChildren(...(slots.length ? slots.map((s) => h("button", {type: "button", class: "slot",
          dataset: {start: new Date(s.startsAt).toISOString(), resource: s.resourceId},
          onclick: () => this.hold(s)}, `${hhmm(s.startsAt, this.tz)}–${hhmm(s.endsAt, this.tz)}`,
        h("small", {}, this.resources.get(s.resourceId)?.name || ""))) : [h("p", {class: "muted"},
          "No free time that day. Try another day or field.")]));
      } catch (e) {
        this.error(e.message);
      }
    };
    form.addEventListener("submit", (e) => { e.preventDefault(); this.clear(); search(); });
    this.step(h("p", {class: "muted"}, `Signed in as ${session.customer.phone} `,
      h("button", {class: "link", onclick: () => this.signOut()}, "sign out")), form, list);
    search();
  }

  // "Any field": the exclusive resources (fields) that sell the chosen service, never a class (issue 20, bug 3:
  // the class used to be offered because it sorted first).
  async anyField() {
    if (this.sellers === undefined) {
      this.sellers = null;
      try {
        const all = (await gql(SERVICES, {u: this.unit.id})).services;
        const chosen = all.find((s) => s.id === session.serviceId);
        if (chosen && chosen.resourceIds.length) this.sellers = new Set(chosen.resourceIds);
      } catch (e) { /* every field */ }
    }
    const selling = this.unit.resources.filter((r) => !this.sellers || this.sellers.has(r.id));
    const fields = selling.filter((r) => r.kind === "EXCLUSIVE");
    const any = new Set((fields.length ? fields : selling).map((r) => r.id));  // a class sold alone: itself
    return (s) => any.has(s.resourceId);
  }

  customerInput() {
    const c = {phone: session.customer.phone};
    if (this.cpf) c.cpf = this.cpf;
    return c;
  }

  async hold(slot) {
    this.clear();
    const input = {unitId: this.unit.id, startsAt: slot.startsAt, endsAt: slot.endsAt, resourceIds: [slot.resourceId],
      customer: this.customerInput(), serviceId: session.serviceId || null, channel: "WEB",
      quantity: this.quantity || 1};
    try {
      const r = (await gql(HOLD, {i: input, k: crypto.randomUUID()}, this.token)).hold;
      if (r.__typename === "BookingPayload") return this.held(r.booking);
      if (r.__typename === "SlotTaken") return this.taken(r, slot);
      if (r.__typename === "HoldLimitReached") return this.offerSwap(r, slot);
      this.error(resultError(r));
    } catch (e) {
      this.error(e.message);
    }
  }

  offerSwap(r, slot) {
    this.error(resultError(r));
    this.content.prepend(h("div", {class: "card"}, h("p", {}, "You already hold another time. Move it here?"),
      h("button", {onclick: async () => {
        try {
          const s = (await gql(SWAP, {b: r.bookingId, i: {startsAt: slot.startsAt, endsAt: slot.endsAt,
            resourceIds: [slot.resourceId]}, k: crypto.randomUUID()}, this.token)).swapHold;
          if (s.__typename === "BookingPayload") return this.held(s.booking);
          if (s.__typename === "SlotTaken") return this.taken(s, slot);
          this.error(resultError(s));
        } catch (e) {
          this.error(e.message);
        }
      }}, "Move my hold to this time")));
  }

  taken(r, slot) {
    this.error(resultError(r));
    const alternatives = r.alternatives.map((a) => h("button", {class: "slot", "data-testid": "alternative",
      onclick: () => this.hold(a)}, `${longDate(a.startsAt, this.tz)} ${hhmm(a.startsAt, this.tz)}`,
    h("small", {}, this.resources.get(a.resourceId)?.name || "")));
    const waitlistMessage = h("p", {class: "message", hidden: true, role: "status"});
    const cpf = h("input", {name: "cpf", value: this.cpf || "", placeholder: "000.000.000-00"});
    const option = r.waitlist[0] || {resourceId: slot.resourceId, startsAt: slot.startsAt, endsAt: slot.endsAt};
    const join = h("form", {class: "stack", "data-testid": "waitlist-form"},
      h("h4", {}, "Or wait for this time"),
      h("p", {class: "muted"}, "If it frees, the first in line gets it as a hold with its Pix."),
      h("label", {}, "CPF ", cpf), h("button", {type: "submit"}, "Join the waitlist"), waitlistMessage);
    join.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const w = (await gql(WAITLIST, {u: this.unit.id, r: option.resourceId, s: option.startsAt, e: option.endsAt,
          c: {cpf: cpf.value.trim(), phone: session.customer.phone}}, this.token)).joinSlotWaitlist;
        if (w.__typename !== "SlotWaitlistEntry") return say(waitlistMessage, resultError(w), "error");
        say(waitlistMessage, `You are number ${w.place ?? "?"} in line. We will tell you on WhatsApp.`, "ok");
      } catch (err) {
        say(waitlistMessage, err.message, "error");
      }
    });
    this.step(h("div", {class: "card", "data-testid": "slot-taken"},
      h("h3", {}, "That time was just taken"),
      alternatives.length ? h("p", {}, "The nearest free times:") : h("p", {}, "No free time nearby."),
      h("div", {class: "slots"}, alternatives), join,
      h("button", {class: "link", onclick: () => this.choose()}, "Back to the times")));
  }

  // -------------------------------------------------------------------------------------------- held
  held(booking) {
    this.booking = booking;
    this.watch(booking.id);
    const where = booking.allocations.map((a) => this.resources.get(a.resourceId)?.name
      + (a.quantity > 1 ? ` × ${a.quantity} places` : "")).join(", ");
    const accept = h("input", {type: "checkbox", name: "accept", required: true});
    const quote = h("div", {"data-testid": "quote"}, h("p", {class: "muted"}, "Reading the terms…"));
    this.showQuote(booking.id, quote);
    const form = h("form", {class: "stack card", "data-testid": "summary"},
      h("h3", {}, "Your hold"),
      h("p", {}, h("strong", {}, where), ` · ${longDate(booking.startsAt, this.tz)}, `,
        `${hhmm(booking.startsAt, this.tz)}–${hhmm(booking.endsAt, this.tz)}`),
      h("p", {}, "Kept for you for ", h("strong", {class: "countdown", dataset: {expires: booking.holdExpiresAt}}, ""),
        ". After that the time is free for others."),
      h("div", {class: "policy"},
        h("h4", {}, "Before you accept"),
        quote,
        h("p", {class: "muted"}, "These terms — the price and payment rule in force now and the unit's "
          + "cancellation policy — are recorded when you accept; a later change does not touch them. If a payment "
          + "is due, a Pix is created at once.")),
      h("label", {class: "check"}, accept, " I accept the summary and the cancellation policy"),
      h("div", {class: "actions"},
        h("button", {type: "submit", "data-testid": "accept"}, "Accept"),
        h("button", {type: "button", class: "link", onclick: () => this.cancel()}, "Cancel the hold")));
    form.addEventListener("submit", (e) => { e.preventDefault(); this.confirm(); });
    this.step(form);
  }

  async showQuote(id, into) {
    try {
      const q = (await gql(QUOTE, {b: id}, this.token)).booking?.quote;
      if (!q) return into.replaceChildren(h("p", {class: "muted"}, "The terms could not be read; they are shown "
        + "with your Pix."));
      into.replaceChildren(
        q.totalCents ? h("p", {}, `Total ${money(q.totalCents)} · due now by Pix `, h("strong", {}, money(q.dueNowCents)),
          q.atVenueCents ? ` · at the venue ${money(q.atVenueCents)}` : "") : h("p", {}, "Nothing is charged online."),
        h("p", {class: "muted"}, `Cancellation policy (v${q.policyVersion}): ${q.policySummary}`));
    } catch (e) {
      into.replaceChildren(h("p", {class: "muted"}, "The terms could not be read; they are shown with your Pix."));
    }
  }

  async confirm() {
    this.clear();
    try {
      const r = (await gql(CONFIRM, {b: this.booking.id, k: crypto.randomUUID(), c: session.customer.phone},
        this.token)).confirm;
      if (r.__typename !== "BookingPayload") return this.error(resultError(r));
      this.booking = r.booking;
      if (r.booking.status === "CONFIRMED") return this.confirmed();
      this.charge = r.charge;
      this.pix();
    } catch (e) {
      this.error(e.message);
    }
  }

  async cancel() {
    try {
      const r = (await gql(CANCEL, {b: this.booking.id}, this.token)).cancel;
      if (r.__typename !== "BookingPayload") return this.error(resultError(r));
      this.stopWatching();
      this.choose("Pronto, cancelei: o horário foi liberado. Se quiser, é só pedir de novo.");
    } catch (e) {
      this.error(e.message);
    }
  }

  // -------------------------------------------------------------------------------------------- pix
  pix() {
    const b = this.booking;
    const c = this.charge;
    const a = b.acceptance;
    const copy = h("textarea", {readonly: true, rows: 3, "data-testid": "copia-e-cola"}, c ? c.copiaECola || "" : "");
    const payMessage = h("p", {class: "message", hidden: true, role: "status", "data-testid": "pay-message"});
    this.step(h("div", {class: "card pix", "data-testid": "pix"},
      h("h3", {}, "Pay with Pix"),
      a ? h("p", {}, `Total ${money(a.totalCents)} · due now `, h("strong", {}, money(a.dueNowCents)),
        a.atVenueCents ? ` · at the venue ${money(a.atVenueCents)}` : "") : null,
      a ? h("p", {class: "muted", "data-testid": "policy"}, `Accepted policy (v${a.policyVersion}): ${a.policySummary}`) : null,
      c && c.qrCodePng ? h("img", {class: "qr", src: c.qrCodePng, alt: "Pix QR code", width: 220, height: 220}) : null,
      h("label", {}, "Pix copia e cola ", copy),
      h("button", {type: "button", onclick: async () => {
        try {
          await navigator.clipboard.writeText(copy.value);
          say(payMessage, "Copied.", "ok");
        } catch {
          copy.select();
        }
      }}, "Copy"),
      c ? h("p", {}, "This Pix expires in ", h("strong", {class: "countdown", dataset: {expires: c.expiresAt}}, ""), ".")
        : null,
      h("div", {class: "actions"},
        c ? h("button", {type: "button", class: "dev", "data-testid": "sandbox-pay", onclick: () => this.sandboxPay(payMessage)},
          "Pay with the sandbox bank (dev)") : null,
        h("button", {type: "button", "data-testid": "paguei", onclick: () => this.claimPaid(payMessage)}, "Paguei (I paid)"),
        h("button", {type: "button", class: "link", onclick: () => this.cancel()}, "Cancel")),
      payMessage,
      h("p", {class: "muted", "data-testid": "booking-status"}, `Status: ${STATUS_TEXT[b.status] || b.status}`)));
  }

  async sandboxPay(payMessage) {
    try {
      const r = (await gql(SANDBOX_PAY, {t: this.charge.txid})).sandboxPay;
      if (r.__typename !== "PaymentOutcome") return say(payMessage, resultError(r), "error");
      say(payMessage, "The sandbox bank paid the Pix. Waiting for the confirmation…", "ok");
      await this.refreshBooking();
    } catch (e) {
      say(payMessage, e.message, "error");
    }
  }

  async claimPaid(payMessage) {
    try {
      const r = (await gql(CLAIM_PAID, {b: this.booking.id}, this.token)).claimPaid;
      if (r.__typename !== "BookingPayload") return say(payMessage, resultError(r), "error");
      this.booking = {...this.booking, ...r.booking};
      say(payMessage, "Thanks! The staff are checking your payment; this page updates by itself.", "ok");
      this.updateStatus();
    } catch (e) {
      say(payMessage, e.message, "error");
    }
  }

  // -------------------------------------------------------------------------------------------- live
  watch(bookingId) {
    this.stopWatching();
    this.live = liveClient(this.token);
    this.stopFeed = follow(this.live, BOOKING_CHANGED, {b: bookingId}, () => this.refreshBooking());
    this.poll = setInterval(() => this.refreshBooking(), 5000);  // belt and braces
  }

  stopWatching() {
    if (this.stopFeed) this.stopFeed();
    if (this.live) this.live.dispose();
    clearInterval(this.poll);
    this.stopFeed = this.live = null;
  }

  async refreshBooking() {
    if (!this.booking) return;
    try {
      const r = (await gql(BOOKING, {b: this.booking.id}, this.token)).booking;
      if (r.__typename !== "Booking") return;
      this.booking = {...this.booking, ...r};
      this.updateStatus();
    } catch {
      // the next event or poll tries again
    }
  }

  updateStatus() {
    const b = this.booking;
    if (b.status === "CONFIRMED" || b.status === "CHECKED_IN") return this.confirmed();
    if (b.status === "EXPIRED" || b.status === "CANCELLED") {
      this.stopWatching();
      return this.choose(b.status === "EXPIRED" ? "Your hold expired and the time is free again. Se quiser, é só pedir de novo."
        : "The hold was cancelled (Horário liberado pela equipe?). Se quiser, é só pedir de novo.");
    }
    const el = this.content.querySelector("[data-testid=booking-status]");
    if (el) el.textContent = `Status: ${STATUS_TEXT[b.status] || b.status}`;
  }

  confirmed() {
    this.stopWatching();
    const b = this.booking;
    const where = b.allocations.map((a) => this.resources.get(a.resourceId)?.name).join(", ");
    this.clear();
    this.step(h("div", {class: "card confirmed", "data-testid": "confirmed"},
      h("h3", {}, "✔ Confirmed"),
      h("p", {}, h("strong", {}, where), ` · ${longDate(b.startsAt, this.tz)}, `,
        `${hhmm(b.startsAt, this.tz)}–${hhmm(b.endsAt, this.tz)}`),
      b.paidCents ? h("p", {}, `Paid ${money(b.paidCents)}.`) : null,
      h("p", {class: "muted"}, `Booking ${b.id}`),
      h("button", {onclick: () => { this.booking = null; this.choose(); }}, "Book another time")));
  }

  tick() {
    const now = Date.now();
    for (const el of this.root.querySelectorAll("[data-expires]")) {
      const left = Date.parse(el.dataset.expires) - now;
      el.textContent = left > 0 ? countdown(left) : "0:00";
    }
  }

  destroy() {
    this.stopWatching();
    clearInterval(this.ticker);
  }
}

/** The newest sign-in code sent to `to`, read by staff through sandboxMessages (sandbox channel only). */
async function sandboxCode(to) {
  const messages = (await gql(SANDBOX_MESSAGES, {t: to}, session.staffToken)).sandboxMessages;
  const found = messages.filter((m) => m.kind === "LOGIN_CODE").map((m) => /\b(\d{6})\b/.exec(m.text)).find(Boolean);
  if (!found) throw new Error("No sign-in code was sent there yet.");
  return found[1];
}

/** With "any field", one button per start time (the first field free then). */
function firstPerStart(slots) {
  const seen = new Set();
  return slots.filter((s) => (seen.has(s.startsAt) ? false : (seen.add(s.startsAt), true)));
}
