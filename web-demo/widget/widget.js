// Slothold booking widget: one classic <script> tag on a venue's own site (another origin; the API's CORS lets it
// in once the owner registers the site with setAllowedOrigins). Settings from the tag's data attributes:
//   data-unit (required), data-api (default: this script's origin), data-locale (pt-BR | en; default pt-BR),
//   data-token (an integrator token with the fewest scopes: READ), data-service (optional: one service).
// It renders into a Shadow DOM root (styles leak neither way), talks GraphQL by fetch and graphql-transport-ws by a
// native WebSocket, and keeps the customer's session token in this site's localStorage.
// The words (pt-BR, English) are in widget-words.js next to this file, loaded first when missing.
(function () {
  "use strict";
  const tag = document.currentScript;
  if (!tag) return;
  if (window.SlotholdWidgetWords) return boot(tag, window.SlotholdWidgetWords);
  const words = document.createElement("script");
  words.src = new URL("widget-words.js", tag.src).href;
  words.onload = () => boot(tag, window.SlotholdWidgetWords);
  document.head.append(words);

// The widget itself, one per tag (inside the outer function: nothing leaks into the page's globals).
function boot(tag, WORDS) {
  const API = (tag.dataset.api || new URL(tag.src, location.href).origin).replace(/\/+$/, "");
  const UNIT = tag.dataset.unit;
  const LOCALE = tag.dataset.locale === "en" ? "en" : "pt-BR";
  const INTEGRATOR = tag.dataset.token || null;
  const STORE = "slothold.widget." + UNIT;

  const t = (key, params) => (WORDS[LOCALE][key] || key).replace(/\{(\w+)\}/g, (_, n) => (params && params[n] != null ? params[n] : ""));

  // ------------------------------------------------------------------------------------------------- GraphQL
  const ERR = "... on Error { code message }";
  const Q = {
    unit: `query($u: ID!) { unit(id: $u) { __typename ... on Unit { id name timezone currency
      parameters { slotMinutes maxAdvanceDays } resources { id name kind capacity } } ${ERR} } }`,
    services: `query($u: ID!) { services(unitId: $u) { id name durations durationMinutes resourceIds priceCents } }`,
    slots: `query($u: ID!, $f: DateTime!, $t: DateTime!, $r: ID, $n: Int!) { bookableSlots(unitId: $u, from: $f, to: $t,
      resourceId: $r, slots: $n) { __typename ... on BookableSlots { slots { resourceId startsAt endsAt } } ${ERR} } }`,
    requestCode: `mutation($u: ID!, $p: String) { requestLoginCode(unitId: $u, phone: $p) { __typename ${ERR} } }`,
    verifyCode: `mutation($u: ID!, $p: String, $c: String!) { verifyLoginCode(unitId: $u, phone: $p, code: $c) {
      __typename ... on CustomerSession { token customerId expiresAt } ${ERR} } }`,
    hold: `mutation($i: HoldInput!, $k: String) { hold(input: $i, idempotencyKey: $k) { __typename
      ... on BookingPayload { booking { id status startsAt endsAt holdExpiresAt } }
      ... on SlotTaken { alternatives { resourceId startsAt endsAt } waitlist { resourceId startsAt endsAt } } ${ERR} } }`,
    quote: `query($b: ID!) { booking(id: $b) { __typename ... on Booking { id status startsAt endsAt holdExpiresAt
      quote { totalCents dueNowCents atVenueCents policySummary } } ${ERR} } }`,
    confirm: `mutation($b: ID!, $k: String) { confirm(bookingId: $b, idempotencyKey: $k, channel: WEB) { __typename
      ... on BookingPayload { booking { id status paidCents } charge { txid amountCents copiaECola qrCodePng expiresAt } } ${ERR} } }`,
    booking: `query($b: ID!) { booking(id: $b) { __typename ... on Booking { id status paidCents } ${ERR} } }`,
    claimPaid: `mutation($b: ID!) { claimPaid(bookingId: $b) { __typename ... on BookingPayload { booking { id status } } ${ERR} } }`,
    changed: `subscription($b: ID!) { bookingChanged(bookingId: $b) { status } }`,
    waitlist: `mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!, $c: CustomerInput!) { joinSlotWaitlist(unitId: $u,
      resourceId: $r, startsAt: $s, endsAt: $e, customer: $c) { __typename ... on SlotWaitlistEntry { place } ${ERR} } }`,
    mine: `query { bookings(first: 100) { edges { node { id status startsAt endsAt paidCents refundIfCancelledNowCents
      allocations { resourceId } acceptance { totalCents policySummary } seriesId seriesIndex
      series { id everyWeeks localStart occurrences { id } } } } } }`,
    // Series (issue 23): one hold over every occurrence, one acceptance, the first period's Pix.
    holdSeries: `mutation($i: SeriesInput!, $k: String) { holdSeries(input: $i, idempotencyKey: $k) { __typename
      ... on SeriesPayload { series { id } skipped { index startsAt reason } conflicts { index startsAt } }
      ... on SeriesConflicts { conflicts { index startsAt alternatives { resourceId startsAt endsAt } } } ${ERR} } }`,
    series: `query($s: ID!) { series(id: $s) { __typename ... on Series { id status everyWeeks
      occurrences { id status startsAt endsAt holdExpiresAt seriesIndex paidCents }
      quote { occurrences { bookingId startsAt totalCents } totalCents dueNowCents policySummary }
      periods { startsOn status amountCents } } ${ERR} } }`,
    confirmSeries: `mutation($s: ID!) { confirmSeries(seriesId: $s) { __typename ... on SeriesChangePayload { series { id
      status occurrences { id status startsAt } periods { startsOn status amountCents
      charge { txid amountCents copiaECola qrCodePng expiresAt } } } } ${ERR} } }`,
    cancelSeriesFrom: `mutation($s: ID!, $f: DateTime!) { cancelSeriesFrom(seriesId: $s, from: $f,
      reason: "cancelada pelo cliente no widget") { __typename ... on SeriesChangePayload {
      bookings { id refunds { amountCents } } } ${ERR} } }`,
    cancel: `mutation($b: ID!, $k: String) { cancel(bookingId: $b, reason: "cancelada pelo cliente no widget", idempotencyKey: $k) {
      __typename ... on BookingPayload { booking { id status refundedCents refunds { amountCents } } } ${ERR} } }`,
    reschedule: `mutation($b: ID!, $i: RescheduleInput!, $k: String) { reschedule(bookingId: $b, input: $i, idempotencyKey: $k) {
      __typename ... on BookingPayload { booking { id status startsAt } } ... on SlotTaken { code message } ${ERR} } }`,
  };

  let session = null;
  try { session = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (e) { session = null; }
  const saveSession = (s) => {
    session = s;
    try { s ? localStorage.setItem(STORE, JSON.stringify(s)) : localStorage.removeItem(STORE); } catch (e) { /* not kept */ }
  };
  const key = () => (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2) + Date.now());

  async function gql(query, variables, retried = false) {
    const headers = {"content-type": "application/json"};
    const token = session ? session.token : INTEGRATOR;
    if (token) headers.authorization = "Bearer " + token;
    let r;
    try {
      r = await fetch(API + "/graphql", {method: "POST", headers, body: JSON.stringify({query, variables})});
    } catch (e) {
      throw new Error(t("offline"));
    }
    const body = await r.json().catch(() => ({}));
    const code = body.errors && body.errors[0] && (body.errors[0].extensions || {}).code;
    if ((r.status === 401 || code === "unauthenticated") && session && !retried) {  // the customer's session ran out: sign in again when needed
      saveSession(null);
      return gql(query, variables, true);
    }
    if (body.errors && body.errors.length) throw new Error(body.errors[0].message);
    if (!r.ok) throw new Error(t("offline"));
    return body.data;
  }

  function subscribe(query, variables, onNext) {
    const ws = new WebSocket(API.replace(/^http/, "ws") + "/graphql", "graphql-transport-ws");
    let closed = false;
    ws.onopen = () => ws.send(JSON.stringify({type: "connection_init",
      payload: session ? {authorization: "Bearer " + session.token} : {}}));
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === "connection_ack") ws.send(JSON.stringify({id: "1", type: "subscribe", payload: {query, variables}}));
      else if (msg.type === "ping") ws.send(JSON.stringify({type: "pong"}));
      else if (msg.type === "next" && msg.payload && msg.payload.data) onNext(msg.payload.data);
    };
    ws.onerror = () => {};
    return () => { if (!closed) { closed = true; ws.close(1000); } };
  }

  // ------------------------------------------------------------------------------------------------- DOM
  function h(name, attrs, ...children) {
    const el = document.createElement(name);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k === "text") el.textContent = v;
      else el.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c != null && c !== false) el.append(c);
    return el;
  }
  const host = h("div", {class: "slothold-widget"});
  tag.after(host);
  const root = host.attachShadow({mode: "open"});
  const shell = h("div", {class: "w", lang: LOCALE});
  root.append(h("link", {rel: "stylesheet", href: API + "/web-demo/tokens.css"}),
    h("link", {rel: "stylesheet", href: API + "/web-demo/widget/widget.css"}), shell);

  let shown = 0, searches = 0, unit = null, services = [], service = null, choice = {}, stopLive = null, timer = null;
  const money = (c) => new Intl.NumberFormat(LOCALE, {style: "currency", currency: (unit && unit.currency) || "BRL"}).format(c / 100);
  const time = (iso) => new Intl.DateTimeFormat(LOCALE, {timeZone: unit.timezone, hour: "2-digit", minute: "2-digit", hourCycle: "h23"}).format(new Date(iso));
  const when = (iso) => new Intl.DateTimeFormat(LOCALE, {timeZone: unit.timezone, weekday: "short", day: "numeric",
    month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23"}).format(new Date(iso));
  const localDay = (d) => new Intl.DateTimeFormat("en-CA", {timeZone: unit.timezone}).format(d);
  const resourceName = (id) => (unit.resources.find((r) => r.id === id) || {}).name || "";
  const left = (iso) => {
    const s = Math.max(0, Math.round((new Date(iso) - Date.now()) / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };
  // The UTC instant of local midnight of `day` (YYYY-MM-DD) in the unit's time zone.
  function dayStart(day) {
    const guess = new Date(day + "T00:00:00Z");
    const parts = new Intl.DateTimeFormat("en-US", {timeZone: unit.timezone, hourCycle: "h23", year: "numeric",
      month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23"}).formatToParts(guess);
    const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
    const asLocal = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute);
    return new Date(guess.getTime() - (asLocal - guess.getTime()));
  }
  const nextDay = (day) => localDay(new Date(dayStart(day).getTime() + 36 * 3600 * 1000));

  const message = h("p", {class: "msg", role: "status", "aria-live": "polite", hidden: true, "data-testid": "widget-message"});
  const body = h("div", {class: "body"});
  function say(text, kind = "info") {
    message.hidden = !text;
    message.textContent = text || "";
    message.className = "msg " + kind;
  }
  function fail(e) { say(e.known ? e.message : t("error", {message: e.message || e}), "error"); }
  // A refusal the customer can act on, in their words (WORDS' e_<ErrorCode>); else the API's own sentence.
  function refused(r) {
    const words = r && r.code && WORDS[LOCALE]["e_" + String(r.code).toUpperCase()];
    const e = new Error(words || (r && r.message) || t("offline"));
    e.known = !!words;
    return e;
  }
  // The widget was taken off the page (the demo's route changed, a site's own router): let its feed and timers go.
  function gone() {
    if (host.isConnected) return false;
    stop();
    return true;
  }
  function show(...children) {
    stop();
    body.replaceChildren(...children);
    const first = body.querySelector("h2, h3");
    // Each new step moves the focus to its heading (screen readers hear it) — not the first one: the page keeps its own.
    if (first && shown++) { first.setAttribute("tabindex", "-1"); first.focus({preventScroll: true}); }
  }
  function stop() {
    if (stopLive) stopLive();
    stopLive = null;
    clearInterval(timer);
    timer = null;
  }
  function ticking(el, iso, template, onEnd) {
    const tick = () => {
      if (gone()) return;
      el.textContent = t(template, {time: left(iso)});
      if (new Date(iso) <= Date.now() && onEnd) { clearInterval(timer); onEnd(); }
    };
    tick();
    timer = setInterval(tick, 1000);
  }

  function header() {
    return h("header", {class: "top"},
      h("h1", {}, t("title", {venue: unit.name})),
      h("nav", {class: "tabs", "aria-label": unit.name},
        h("button", {type: "button", class: "tab", "data-testid": "tab-book", onclick: () => { say(""); choose(); }}, t("book")),
        h("button", {type: "button", class: "tab", "data-testid": "tab-mine", onclick: () => { say(""); mine(); }}, t("mine"))));
  }

  // ------------------------------------------------------------------------------------------------- choose
  // Bug 3 of issue 20: "any field" means the fields that sell this service, never a class (a pooled resource).
  function sellers() {
    const all = unit.resources.filter((r) => !service || !service.resourceIds.length || service.resourceIds.includes(r.id));
    const fields = all.filter((r) => r.kind === "EXCLUSIVE");
    return {all, any: fields.length ? fields : all};
  }

  function choose(reschedule = null) {
    const today = localDay(new Date());
    if (!choice.day) choice.day = nextDay(today);
    const serviceSel = services.length > 1 ? h("select", {id: "w-service", name: "service"},
      services.map((s) => h("option", {value: s.id, selected: s === service}, s.name))) : null;
    const day = h("input", {id: "w-day", type: "date", name: "day", value: choice.day, min: today,
      max: localDay(new Date(Date.now() + unit.parameters.maxAdvanceDays * 86400000))});
    const {all} = sellers();
    const field = h("select", {id: "w-field", name: "field"}, h("option", {value: ""}, t("any")),
      all.map((r) => h("option", {value: r.id, selected: r.id === choice.resourceId},
        r.kind === "POOLED" ? `${r.name} (${t("places", {n: r.capacity})})` : r.name)));
    const lengths = (service && service.durations) || [1, 2, 3];  // null: a service sold at any length
    if (!lengths.includes(choice.slots)) choice.slots = lengths[0];
    const length = h("select", {id: "w-length", name: "length"}, lengths.map((n) =>
      h("option", {value: n, selected: n === choice.slots}, t("minutes", {n: n * unit.parameters.slotMinutes}))));
    const list = h("div", {class: "slots", "data-testid": "slots", "aria-live": "polite"});
    const search = async () => {
      choice.day = day.value || choice.day;
      choice.resourceId = field.value || null;
      choice.slots = Number(length.value);
      const asked = ++searches, resourceId = choice.resourceId;
      list.replaceChildren(h("p", {class: "muted"}, t("loading")));
      try {
        const from = dayStart(choice.day), to = dayStart(nextDay(choice.day));
        const r = (await gql(Q.slots, {u: UNIT, f: from.toISOString(), t: to.toISOString(), r: resourceId,
          n: choice.slots})).bookableSlots;
        if (asked !== searches) return;  // a newer search answers
        if (r.__typename !== "BookableSlots") throw new Error(r.message);
        const anyIds = new Set(sellers().any.map((x) => x.id));
        const seen = new Set();
        const slots = resourceId ? r.slots : r.slots.filter((s) => anyIds.has(s.resourceId) &&
          !seen.has(s.startsAt) && seen.add(s.startsAt));
        list.replaceChildren(...(slots.length ? slots.map((s) => h("button", {type: "button", class: "slot",
          dataset: {start: new Date(s.startsAt).toISOString(), resource: s.resourceId},
          onclick: () => (reschedule ? move(reschedule, s) : want(s))},
        h("strong", {}, `${time(s.startsAt)}–${time(s.endsAt)}`), h("small", {}, resourceName(s.resourceId))))
          : [h("p", {class: "empty"}, t("noTimes"))]));
      } catch (e) {
        if (asked === searches) list.replaceChildren(h("p", {class: "empty error"}, t("error", {message: e.message})));
      }
    };
    if (serviceSel) serviceSel.addEventListener("change", () => {
      service = services.find((s) => s.id === serviceSel.value);
      choice.resourceId = null;
      choose(reschedule);
    });
    for (const el of [day, field, length]) el.addEventListener("change", search);
    const repeat = reschedule ? null : repeatFields();
    show(h("section", {class: "card", "data-testid": "choose"},
      h("h2", {}, reschedule ? t("rescheduleFor", {when: when(reschedule.startsAt)}) : t("pick")),
      serviceSel ? h("label", {for: "w-service"}, t("service")) : null, serviceSel,
      h("div", {class: "grid"},
        h("div", {}, h("label", {for: "w-day"}, t("day")), day),
        h("div", {}, h("label", {for: "w-field"}, t("field")), field),
        h("div", {}, h("label", {for: "w-length"}, t("length")), length)),
      repeat, h("h3", {}, t("times")), list,
      reschedule ? h("button", {type: "button", class: "link", onclick: () => mine()}, t("back")) : null));
    search();
  }

  // "Toda semana": repeat the time picked every N weeks, a number of times or until a date (a series, issue 23).
  function repeatFields() {
    const every = h("select", {id: "w-repeat", name: "repeat", "data-testid": "repeat"},
      [0, 1, 2, 4].map((n) => h("option", {value: n, selected: n === (choice.every || 0)}, t("every" + n))));
    const count = h("input", {id: "w-times", name: "times", type: "number", min: 2, max: 60, inputmode: "numeric",
      value: choice.count || 4});
    const until = h("input", {id: "w-until", name: "until", type: "date", value: choice.until || "",
      min: localDay(new Date()), max: localDay(new Date(Date.now() + unit.parameters.maxAdvanceDays * 86400000))});
    const more = h("div", {class: "grid two"},
      h("div", {}, h("label", {for: "w-times"}, t("times_n")), count),
      h("div", {}, h("label", {for: "w-until"}, t("untilDay")), until));
    const read = () => {
      choice.every = Number(every.value) || 0;
      choice.count = Math.max(2, Math.min(60, Number(count.value) || 4));
      choice.until = until.value || "";
      if (!choice.every) more.remove();  // out of the page, not just hidden, while "só esta vez"
      else if (!more.isConnected) every.after(more);
    };
    for (const el of [every, count, until]) el.addEventListener("change", read);
    return h("fieldset", {class: "repeat", "data-testid": "repeat-fields"}, h("legend", {}, t("repeat")),
      h("label", {for: "w-repeat"}, t("repeatHow")), every, choice.every ? more : null,
      h("p", {class: "muted small"}, t("repeatHelp")));
  }

  // A time was picked: sign in first if needed, then hold it (or the series it starts).
  function want(slot) {
    const go = () => (choice.every ? holdSeries(slot, "ALL_OR_NOTHING") : hold(slot));
    if (!session) return signIn(go);
    go();
  }

  // ------------------------------------------------------------------------------------------------- sign-in
  function signIn(then) {
    const phone = h("input", {id: "w-phone", name: "phone", type: "tel", autocomplete: "tel", required: true,
      placeholder: "+55 11 98765-4321"});
    const code = h("input", {id: "w-code", name: "code", inputmode: "numeric", autocomplete: "one-time-code",
      maxlength: 6, required: true});
    const codeStep = h("div", {class: "stack", hidden: true},
      h("label", {for: "w-code"}, t("code")), code,
      h("button", {type: "submit", class: "primary", "data-testid": "verify-code"}, t("verify")));
    const normal = () => {
      const digits = phone.value.replace(/[^\d+]/g, "");
      return digits.startsWith("+") ? digits : "+55" + digits;
    };
    const send = h("button", {type: "button", class: "primary", "data-testid": "send-code", onclick: async () => {
      say("");
      try {
        const r = (await gql(Q.requestCode, {u: UNIT, p: normal()})).requestLoginCode;
        if (r.__typename !== "LoginCodeSent") throw refused(r);
        say(t("codeSent"), "ok");
        codeStep.hidden = false;
        send.hidden = true;
        code.focus();
      } catch (e) { fail(e); }
    }}, t("sendCode"));
    const form = h("form", {class: "card stack", "data-testid": "sign-in"},
      h("h2", {}, t("signInTitle")), h("label", {for: "w-phone"}, t("phone")), phone, send, codeStep,
      h("button", {type: "button", class: "link", onclick: () => choose()}, t("back")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      say("");
      try {
        const r = (await gql(Q.verifyCode, {u: UNIT, p: normal(), c: code.value.trim()})).verifyLoginCode;
        if (r.__typename !== "CustomerSession") throw refused(r);
        saveSession({token: r.token, phone: normal(), expiresAt: r.expiresAt});
        say("");
        then();
      } catch (err) { fail(err); }
    });
    show(form);
  }

  // ------------------------------------------------------------------------------------------------- hold
  async function hold(slot) {
    say("");
    choice.lastResource = slot.resourceId;
    show(h("p", {class: "muted"}, t("loading")));
    try {
      const input = {unitId: UNIT, startsAt: slot.startsAt, endsAt: slot.endsAt, customer: {},
        resourceIds: [slot.resourceId], serviceId: service ? service.id : null, channel: "WEB"};
      const r = (await gql(Q.hold, {i: input, k: key()})).hold;
      if (r.__typename === "SlotTaken") return taken(slot, r);
      if (r.__typename !== "BookingPayload") { fail(new Error(r.message)); return choose(); }
      summary(r.booking.id);
    } catch (e) { fail(e); choose(); }
  }

  function taken(slot, r) {
    say(t("taken"), "warn");
    const cpf = h("input", {id: "w-cpf", name: "cpf", inputmode: "numeric", autocomplete: "off", required: true});
    const joined = h("p", {class: "msg ok", role: "status", hidden: true});
    const wl = h("form", {class: "stack", "data-testid": "waitlist-form"},
      h("p", {class: "muted"}, t("waitlistHelp")), h("label", {for: "w-cpf"}, t("cpf")), cpf,
      h("button", {type: "submit"}, t("waitlist")), joined);
    wl.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        const c = {phone: session.phone};
        if (cpf.value.trim()) c.cpf = cpf.value.replace(/\D/g, "");
        const j = (await gql(Q.waitlist, {u: UNIT, r: slot.resourceId, s: slot.startsAt, e: slot.endsAt, c})).joinSlotWaitlist;
        if (j.__typename !== "SlotWaitlistEntry") throw new Error(j.message);
        joined.textContent = t("inLine", {place: j.place});
        joined.hidden = false;
      } catch (err) { fail(err); }
    });
    show(h("section", {class: "card", "data-testid": "slot-taken"},
      h("h2", {}, `${time(slot.startsAt)}–${time(slot.endsAt)} · ${resourceName(slot.resourceId)}`),
      h("div", {class: "slots"}, r.alternatives.slice(0, 3).map((a) => h("button", {type: "button", class: "slot",
        "data-testid": "alternative", onclick: () => hold(a)},
      h("strong", {}, `${time(a.startsAt)}–${time(a.endsAt)}`), h("small", {}, resourceName(a.resourceId))))),
      wl, h("button", {type: "button", class: "link", onclick: () => { say(""); choose(); }}, t("back"))));
  }

  // ------------------------------------------------------------------------------------------------- summary
  async function summary(bookingId) {
    try {
      const b = (await gql(Q.quote, {b: bookingId})).booking;
      if (b.__typename !== "Booking") throw new Error(b.message);
      const q = b.quote || {totalCents: 0, dueNowCents: 0, atVenueCents: 0, policySummary: ""};
      const box = h("input", {type: "checkbox", id: "w-accept", "data-testid": "accept-terms"});
      const go = h("button", {type: "button", class: "primary", disabled: true, "data-testid": "accept"}, t("acceptBtn"));
      box.addEventListener("change", () => { go.disabled = !box.checked; });
      const countdown = h("p", {class: "muted countdown"});
      go.addEventListener("click", () => accept(b));
      show(h("section", {class: "card", "data-testid": "summary"},
        h("h2", {}, t("summary")),
        h("p", {class: "when"}, when(b.startsAt), " – ", time(b.endsAt)),
        h("p", {}, (service && service.name) || "", " · ", resourceName(choice.lastResource || "")),
        h("dl", {class: "money"},
          h("dt", {}, t("total")), h("dd", {}, money(q.totalCents)),
          h("dt", {}, t("dueNow")), h("dd", {class: "big"}, money(q.dueNowCents)),
          q.atVenueCents ? [h("dt", {}, t("atVenue")), h("dd", {}, money(q.atVenueCents))] : null),
        h("h3", {}, t("policy")), h("p", {"data-testid": "policy"}, q.policySummary),
        countdown,
        h("div", {class: "check"}, box, h("label", {for: "w-accept"}, t("accept"))),
        go, h("button", {type: "button", class: "link", onclick: async () => {
          // Going back lets the time go (one open hold per customer): cancel the hold, then choose again.
          stop();
          try { await gql(Q.cancel, {b: b.id, k: key()}); } catch (e) { /* it expires by itself */ }
          choose();
        }}, t("back"))));
      if (b.holdExpiresAt) ticking(countdown, b.holdExpiresAt, "holdLeft", () => expired());
      // The venue may let the hold go meanwhile (staff drop it): say so at once, not at the next click.
      stopLive = subscribe(Q.changed, {b: b.id}, (d) => {
        const s = d.bookingChanged && d.bookingChanged.status;
        if (s === "CANCELLED") released();
        else if (s === "EXPIRED") expired();
      });
    } catch (e) { fail(e); choose(); }
  }

  async function accept(b) {
    try {
      const r = (await gql(Q.confirm, {b: b.id, k: key()})).confirm;
      if (r.__typename !== "BookingPayload") throw new Error(r.message);
      if (!r.charge || r.booking.status === "CONFIRMED") return confirmed(r.booking);
      pix(r.booking, r.charge);
    } catch (e) { fail(e); }
  }

  // ------------------------------------------------------------------------------------------------- series
  const dayWords = (iso) => new Intl.DateTimeFormat(LOCALE, {timeZone: unit.timezone, weekday: "short",
    day: "numeric", month: "short"}).format(new Date(iso));

  async function holdSeries(slot, mode) {
    say("");
    choice.lastResource = slot.resourceId;
    show(h("p", {class: "muted"}, t("loading")));
    try {
      const input = {unitId: UNIT, startsAt: slot.startsAt, endsAt: slot.endsAt, customer: {},
        everyWeeks: choice.every, resourceIds: [slot.resourceId], serviceId: service ? service.id : null,
        channel: "WEB", mode, ...(choice.until ? {until: choice.until} : {occurrences: choice.count})};
      const r = (await gql(Q.holdSeries, {i: input, k: key()})).holdSeries;
      if (r.__typename === "SeriesConflicts") return seriesConflicts(slot, r.conflicts);
      if (r.__typename !== "SeriesPayload") throw refused(r);
      seriesSummary(r.series.id, r.skipped, r.conflicts);
    } catch (e) { fail(e); choose(); }
  }

  // Some dates are taken: nothing was held. The customer chooses: only the free dates, or another time.
  function seriesConflicts(slot, conflicts) {
    say(t("seriesTaken", {n: conflicts.length}), "warn");
    show(h("section", {class: "card", "data-testid": "series-conflicts"},
      h("h2", {}, t("seriesConflictsTitle")),
      h("ul", {class: "occ"}, conflicts.map((c) => h("li", {"data-testid": "conflict"},
        h("strong", {}, `${dayWords(c.startsAt)} ${time(c.startsAt)}`), " ", h("span", {class: "state s-held"}, t("takenWord")),
        c.alternatives.length ? h("small", {class: "muted"}, t("nearest", {times: c.alternatives.slice(0, 3).map((a) =>
          `${dayWords(a.startsAt)} ${time(a.startsAt)} ${resourceName(a.resourceId)}`).join(" · ")})) : null))),
      h("p", {}, t("seriesChoice")),
      h("div", {class: "actions"},
        h("button", {type: "button", class: "primary", "data-testid": "free-only",
          onclick: () => holdSeries(slot, "FREE_ONLY")}, t("freeOnly")),
        h("button", {type: "button", "data-testid": "pick-other", onclick: () => { say(""); choose(); }}, t("pickOther")))));
  }

  async function seriesSummary(seriesId, skipped = [], conflicts = []) {
    try {
      const s = (await gql(Q.series, {s: seriesId})).series;
      if (s.__typename !== "Series") throw refused(s);
      const q = s.quote || {occurrences: [], totalCents: 0, dueNowCents: 0, policySummary: ""};
      const price = new Map(q.occurrences.map((o) => [o.bookingId, o.totalCents]));
      const held = s.occurrences.filter((b) => b.status === "HELD");
      const box = h("input", {type: "checkbox", id: "w-accept", "data-testid": "accept-terms"});
      const go = h("button", {type: "button", class: "primary", disabled: true, "data-testid": "accept"}, t("acceptSeries"));
      box.addEventListener("change", () => { go.disabled = !box.checked; });
      go.addEventListener("click", () => acceptSeries(s));
      const countdown = h("p", {class: "muted countdown"});
      const first = held[0];
      const reason = (r) => t(r === "BLOCKED" ? "skipBlocked" : "skipClosed");
      show(h("section", {class: "card", "data-testid": "series-summary", dataset: {series: s.id}},
        h("h2", {}, t("seriesSummary")),
        h("p", {class: "when"}, t("every" + (s.everyWeeks === 1 ? 1 : "N"), {n: s.everyWeeks}), " · ",
          first ? `${time(first.startsAt)}–${time(first.endsAt)}` : "", " · ", resourceName(choice.lastResource || "")),
        h("p", {}, (service && service.name) || ""),
        h("h3", {}, t("occurrences", {n: held.length})),
        h("ol", {class: "occ", "data-testid": "occurrences"}, held.map((b) => h("li", {"data-testid": "occurrence"},
          h("span", {}, dayWords(b.startsAt)), h("span", {class: "price"}, money(price.get(b.id) || 0))))),
        skipped.length ? [h("h3", {}, t("skippedTitle")), h("ul", {class: "occ", "data-testid": "skipped"},
          skipped.map((x) => h("li", {}, h("span", {}, dayWords(x.startsAt)), h("span", {class: "muted"}, reason(x.reason)))))]
          : null,
        conflicts.length ? [h("h3", {}, t("leftOutTitle")), h("ul", {class: "occ", "data-testid": "left-out"},
          conflicts.map((x) => h("li", {}, h("span", {}, dayWords(x.startsAt)), h("span", {class: "muted"}, t("takenWord")))))]
          : null,
        h("dl", {class: "money"},
          h("dt", {}, t("total")), h("dd", {"data-testid": "series-total"}, money(q.totalCents)),
          h("dt", {}, t("dueNowSeries")), h("dd", {class: "big", "data-testid": "series-due"}, money(q.dueNowCents))),
        s.periods.length > 1 ? h("p", {class: "muted"}, t("laterPeriods")) : null,
        h("h3", {}, t("policy")), h("p", {"data-testid": "policy"}, q.policySummary),
        countdown,
        h("div", {class: "check"}, box, h("label", {for: "w-accept"}, t("acceptSeriesTerms"))),
        go, h("button", {type: "button", class: "link", onclick: async () => {
          stop();  // going back lets every date go at once
          try { if (first) await gql(Q.cancelSeriesFrom, {s: s.id, f: first.startsAt}); } catch (e) { /* it expires */ }
          choose();
        }}, t("back"))));
      if (first && first.holdExpiresAt) ticking(countdown, first.holdExpiresAt, "holdLeftSeries", () => expired());
      if (first) {
        stopLive = subscribe(Q.changed, {b: first.id}, (d) => {
          const st = d.bookingChanged && d.bookingChanged.status;
          if (st === "CANCELLED") released();
          else if (st === "EXPIRED") expired();
        });
      }
    } catch (e) { fail(e); choose(); }
  }

  async function acceptSeries(s) {
    try {
      const r = (await gql(Q.confirmSeries, {s: s.id})).confirmSeries;
      if (r.__typename !== "SeriesChangePayload") throw refused(r);
      const period = r.series.periods.find((p) => p.charge && p.status === "charged");
      const waiting = r.series.occurrences.find((b) => b.status === "PENDING_PAYMENT");
      if (!period || !waiting) return seriesConfirmed(s.id);
      pix(waiting, period.charge, () => seriesConfirmed(s.id));
    } catch (e) { fail(e); }
  }

  async function seriesConfirmed(seriesId) {
    say("");
    let s = null;
    try { s = (await gql(Q.series, {s: seriesId})).series; } catch (e) { /* the words below still hold */ }
    const occ = (s && s.occurrences) || [];
    const paid = occ.reduce((n, b) => n + (b.paidCents || 0), 0);
    const live = occ.filter((b) => !["CANCELLED", "EXPIRED"].includes(b.status));
    show(h("section", {class: "card done", "data-testid": "series-confirmed"},
      h("h2", {}, t("seriesConfirmed")),
      h("p", {}, t("seriesConfirmedText", {n: live.length, amount: money(paid)})),
      s && s.periods.length > 1 ? h("p", {class: "muted"}, t("laterPeriods")) : null,
      h("button", {type: "button", class: "primary", onclick: () => mine()}, t("mine"))));
  }

  // ------------------------------------------------------------------------------------------------- pix
  function pix(booking, charge, done = confirmed) {
    say("");
    const code = h("textarea", {id: "w-pix", readonly: true, rows: 3, "data-testid": "copia-e-cola"}, charge.copiaECola);
    const countdown = h("p", {class: "countdown", "data-testid": "countdown"});
    const copy = h("button", {type: "button", class: "primary", "data-testid": "copy", onclick: async () => {
      try { await navigator.clipboard.writeText(code.value); } catch (e) { code.select(); }
      say(t("copied"), "ok");
    }}, t("copy"));
    const waiting = h("p", {class: "muted", role: "status", "data-testid": "pix-waiting"}, t("waiting"));
    // "Já paguei": the customer says the Pix is paid; the booking waits for the staff's check (the staff queue).
    const paid = h("button", {type: "button", "data-testid": "paguei", onclick: async () => {
      paid.disabled = true;
      try {
        const r = (await gql(Q.claimPaid, {b: booking.id})).claimPaid;
        if (r.__typename !== "BookingPayload") throw refused(r);
        waiting.textContent = t("checking");
        paid.hidden = true;
      } catch (e) { fail(e); paid.disabled = false; }
    }}, t("paguei"));
    show(h("section", {class: "card pix", "data-testid": "pix", dataset: {txid: charge.txid, booking: booking.id}},
      h("h2", {}, t("pixTitle")), h("p", {class: "big"}, money(charge.amountCents)),
      h("p", {class: "muted"}, t("pixHelp")),
      charge.qrCodePng ? h("img", {class: "qr", src: charge.qrCodePng, alt: "QR Code Pix", width: 220, height: 220}) : null,
      h("label", {for: "w-pix"}, t("copiaECola")), code, copy, countdown, waiting, paid));
    ticking(countdown, charge.expiresAt, "expiresIn");
    const check = async () => {
      try {
        const b = (await gql(Q.booking, {b: booking.id})).booking;
        if (b.status === "CONFIRMED") done(b);
        else if (b.status === "EXPIRED" || b.status === "CANCELLED") expired();
      } catch (e) { /* the next event or the countdown's end tells */ }
    };
    stopLive = subscribe(Q.changed, {b: booking.id}, (d) => {
      const s = d.bookingChanged && d.bookingChanged.status;
      if (s === "CONFIRMED" || s === "EXPIRED" || s === "CANCELLED") check();
    });
    clearInterval(timer);
    timer = setInterval(() => {
      if (gone()) return;
      countdown.textContent = t("expiresIn", {time: left(charge.expiresAt)});
      if (new Date(charge.expiresAt) <= Date.now()) check();
    }, 1000);
  }

  function confirmed(b) {
    say("");
    show(h("section", {class: "card done", "data-testid": "confirmed"},
      h("h2", {}, t("confirmed")), h("p", {}, t("paid", {amount: money(b.paidCents || 0)})),
      h("button", {type: "button", class: "primary", onclick: () => mine()}, t("mine"))));
  }

  function released() {
    show(h("section", {class: "card", "data-testid": "released"}, h("h2", {}, t("released")),
      h("button", {type: "button", class: "primary", "data-testid": "try-again", onclick: () => choose()}, t("tryAgain"))));
  }

  function expired() {
    show(h("section", {class: "card", "data-testid": "expired"}, h("h2", {}, t("expired")),
      h("button", {type: "button", class: "primary", "data-testid": "try-again", onclick: () => choose()}, t("tryAgain"))));
  }

  // ------------------------------------------------------------------------------------------------- mine
  async function mine() {
    if (!session) return signIn(mine);
    show(h("p", {class: "muted"}, t("loading")));
    try {
      const rows = (await gql(Q.mine, {})).bookings.edges.map((e) => e.node);
      const open = rows.filter((b) => !["CANCELLED", "EXPIRED"].includes(b.status));
      show(h("section", {class: "card", "data-testid": "mine"},
        h("h2", {}, t("mine")),
        h("p", {class: "muted"}, t("signedAs", {phone: session.phone}), " ",
          h("button", {type: "button", class: "link", onclick: () => { saveSession(null); choose(); }}, t("signOut"))),
        open.length ? h("ul", {class: "list"}, grouped(open)) : h("p", {class: "empty"}, t("none"))));
    } catch (e) {
      if (/auth|token|session/i.test(e.message)) { saveSession(null); return signIn(mine); }
      fail(e);
    }
  }

  // A series' occurrences together, under one entry that can cancel the rest of it; single bookings as they are.
  function grouped(open) {
    const items = [], groups = new Map();
    for (const b of open) {
      if (!b.seriesId) { items.push(row(b)); continue; }
      if (!groups.has(b.seriesId)) {
        const list = h("ul", {class: "list"});
        groups.set(b.seriesId, {list, rows: []});
        items.push(h("li", {class: "series", "data-testid": "my-series", dataset: {series: b.seriesId}}, list));
      }
      groups.get(b.seriesId).rows.push(b);
    }
    for (const [seriesId, g] of groups) {
      g.rows.sort((a, b) => a.startsAt.localeCompare(b.startsAt));
      const s = g.rows[0].series || {everyWeeks: 1, occurrences: []};
      const future = g.rows.filter((b) => new Date(b.startsAt) > Date.now());
      const head = h("div", {class: "series-head"},
        h("strong", {}, t("seriesOf", {every: t("every" + (s.everyWeeks === 1 ? 1 : "N"), {n: s.everyWeeks}).toLowerCase(),
          time: time(g.rows[0].startsAt)})),
        h("span", {class: "muted"}, t("seriesLeft", {n: g.rows.length, of: s.occurrences.length || g.rows.length})));
      const box = g.list.parentElement;
      box.prepend(head);
      if (future.length) {
        box.insertBefore(h("div", {class: "actions"}, h("button", {type: "button", class: "danger",
          "data-testid": "cancel-series", onclick: () => askCancelSeries(seriesId, future, box)}, t("cancelRest"))), g.list);
      }
      g.list.append(...g.rows.map((b) => row(b, s)));
    }
    return items;
  }

  function askCancelSeries(seriesId, future, box) {
    const paid = future.reduce((n, b) => n + (b.paidCents || 0), 0);
    const refund = future.reduce((n, b) => n + (b.refundIfCancelledNowCents || 0), 0);
    box.querySelector(".confirm")?.remove();
    box.insertBefore(h("div", {class: "confirm", role: "alertdialog", "aria-label": t("cancelRest"),
      "data-testid": "cancel-series-confirm"},
    h("p", {}, t("cancelRestAsk", {n: future.length, from: dayWords(future[0].startsAt), paid: money(paid),
      refund: money(refund)})),
    h("button", {type: "button", class: "danger", "data-testid": "cancel-series-yes", onclick: async () => {
      try {
        const r = (await gql(Q.cancelSeriesFrom, {s: seriesId, f: future[0].startsAt})).cancelSeriesFrom;
        if (r.__typename !== "SeriesChangePayload") throw refused(r);
        const back = r.bookings.reduce((n, b) => n + b.refunds.reduce((m, x) => m + x.amountCents, 0), 0);
        await mine();
        say(t("seriesCancelled", {n: r.bookings.length}) + " " + (back ? t("refunded", {amount: money(back)})
          : t("noRefund")), "ok");
      } catch (e) { fail(e); }
    }}, t("cancelRestYes")),
    h("button", {type: "button", onclick: () => mine()}, t("keep"))), box.querySelector("ul"));
  }

  function row(b, series = null) {
    const actions = h("div", {class: "actions"});
    const li = h("li", {class: "booking", "data-testid": "my-booking", dataset: {id: b.id}},
      h("strong", {}, when(b.startsAt)), series ? h("small", {class: "muted", "data-testid": "series-index"},
        t("seriesIndex", {i: series.occurrences.findIndex((o) => o.id === b.id) + 1 || b.seriesIndex + 1,
          n: series.occurrences.length || "?"})) : null,
      h("span", {}, resourceName((b.allocations[0] || {}).resourceId)),
      h("span", {class: "state s-" + b.status.toLowerCase().replace(/_/g, "-")}, t("s_" + b.status)), actions);
    if (["CONFIRMED", "PENDING_PAYMENT", "HELD"].includes(b.status) && new Date(b.startsAt) > Date.now()) {
      actions.append(
        h("button", {type: "button", onclick: () => {
          choice.day = localDay(new Date(b.startsAt));
          choice.slots = Math.round((new Date(b.endsAt) - new Date(b.startsAt)) / 60000 / unit.parameters.slotMinutes);
          choose(b);
        }}, t("reschedule")),
        h("button", {type: "button", class: "danger", onclick: () => askCancel(b, li)},
          t(series ? "cancelOne" : "cancel")));
    }
    return li;
  }

  function askCancel(b, li) {
    const policy = (b.acceptance && b.acceptance.policySummary) || "";
    li.append(h("div", {class: "confirm", role: "alertdialog", "aria-label": t("cancel"), "data-testid": "cancel-confirm"},
      h("p", {}, t("cancelAsk", {paid: money(b.paidCents), refund: money(b.refundIfCancelledNowCents), policy})),
      h("button", {type: "button", class: "danger", "data-testid": "cancel-yes", onclick: async () => {
        try {
          const r = (await gql(Q.cancel, {b: b.id, k: key()})).cancel;
          if (r.__typename !== "BookingPayload") throw new Error(r.message);
          const back = r.booking.refunds.reduce((n, x) => n + x.amountCents, 0);
          await mine();
          say(t("cancelled") + " " + (back ? t("refunded", {amount: money(back)}) : t("noRefund")), "ok");
        } catch (e) { fail(e); }
      }}, t("cancelYes")),
      h("button", {type: "button", onclick: () => mine()}, t("keep"))));
  }

  async function move(b, slot) {
    try {
      const r = (await gql(Q.reschedule, {b: b.id, k: key(), i: {startsAt: slot.startsAt, endsAt: slot.endsAt,
        resourceIds: [slot.resourceId]}})).reschedule;
      if (r.__typename !== "BookingPayload") throw new Error(r.message);
      await mine();
      say(t("rescheduled"), "ok");
    } catch (e) { fail(e); }
  }

  // ------------------------------------------------------------------------------------------------- start
  async function start() {
    shell.replaceChildren(h("p", {class: "muted"}, t("loading")));
    if (!UNIT) return shell.replaceChildren(h("p", {class: "msg error"}, "data-unit?"));
    try {
      const [u, s] = await Promise.all([gql(Q.unit, {u: UNIT}), gql(Q.services, {u: UNIT})]);
      if (u.unit.__typename !== "Unit") throw new Error(u.unit.message);
      unit = u.unit;
      services = s.services;
      service = services.find((x) => x.id === tag.dataset.service) || services[0] || null;
      shell.replaceChildren(header(), message, body);
      choose();
    } catch (e) {
      shell.replaceChildren(h("div", {class: "card"}, h("p", {class: "msg error", role: "alert"},
        t("error", {message: e.message})), h("button", {type: "button", class: "primary", onclick: start}, t("tryAgain"))));
    }
  }
  start();
}
})();
