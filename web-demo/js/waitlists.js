// The unit's waitlists (#/waitlists): the walk-in queue (add a party, offer, seat) and the slot waitlists, live from
// waitlistChanged; each a Relay connection (walkInsConnection, slotsConnection) paged with "more". Who waits shows
// from the entry itself (a walk-in's name and phone; a slot entry's customer), to any staff member.

import {follow, gql, resultError} from "./gql.js";
import {formatDateTime, register, t} from "./i18n.js";
import {customerLine, emptyEl, errorEl, formatPhone, idemKey, loadingEl, resourceName, toE164} from "./lists_util.js";
import {h, say, session} from "./session.js";

register({
  "pt-BR": {
    "wl.title": "Fila de espera", "wl.walkIns": "Fila de chegada (walk-in)", "wl.slots": "Listas de espera dos horários",
    "wl.add": "Adicionar à fila", "wl.name": "Nome", "wl.phone": "Telefone (WhatsApp)", "wl.area": "Área",
    "wl.party": "Pessoas", "wl.offer": "Avisar que há lugar", "wl.seat": "Acomodar", "wl.leave": "Tirar da fila",
    "wl.left": "{name} saiu da fila.", "wl.cancelOffer": "Cancelar oferta",
    "wl.noWalkIns": "Ninguém na fila de chegada.", "wl.noSlots": "Ninguém em lista de espera de horário.",
    "wl.added": "{name} entrou na fila.", "wl.offered": "{name} foi avisado(a).", "wl.seated": "{name} acomodado(a).",
    "wl.offerCancelled": "Oferta cancelada: o horário volta para a fila.",
    "wl.place": "{n}º da fila", "wl.people": "{n} pessoa(s)", "wl.defaultArea": "Recepção",
    "wl.WAITING": "Aguardando", "wl.OFFERED": "Avisado", "wl.CLAIMED": "A caminho", "wl.SEATED": "Acomodado",
    "wl.CANCELLED": "Saiu", "wl.EXPIRED": "Expirou", "wl.CLAIMED_SLOT": "Reservou",
  },
  en: {
    "wl.title": "Waitlists", "wl.walkIns": "Walk-in queue", "wl.slots": "Slot waitlists",
    "wl.add": "Add to the queue", "wl.name": "Name", "wl.phone": "Phone (WhatsApp)", "wl.area": "Area",
    "wl.party": "People", "wl.offer": "Offer a place", "wl.seat": "Seat", "wl.leave": "Remove from queue",
    "wl.left": "{name} left the queue.", "wl.cancelOffer": "Cancel offer",
    "wl.noWalkIns": "Nobody in the walk-in queue.", "wl.noSlots": "Nobody on a slot waitlist.",
    "wl.added": "{name} joined the queue.", "wl.offered": "{name} was told a place is ready.",
    "wl.seated": "{name} seated.", "wl.offerCancelled": "Offer cancelled: the slot goes back to the line.",
    "wl.place": "#{n} in line", "wl.people": "{n} people", "wl.defaultArea": "Front desk",
    "wl.WAITING": "Waiting", "wl.OFFERED": "Offered", "wl.CLAIMED": "On the way", "wl.SEATED": "Seated",
    "wl.CANCELLED": "Left", "wl.EXPIRED": "Expired", "wl.CLAIMED_SLOT": "Booked",
  },
});

const PAGE = 20;
const WALK_INS = `query($u: ID!, $n: Int, $a: String) { waitlists(unitId: $u) { walkInsConnection(first: $n, after: $a) {
  edges { node { id area name phone partySize status joinedAt } } pageInfo { hasNextPage endCursor } } } }`;
const SLOTS = `query($u: ID!, $n: Int, $a: String) { waitlists(unitId: $u) { slotsConnection(first: $n, after: $a) {
  edges { node { id resourceId startsAt endsAt status place offerBookingId joinedAt customer { name phone cpfMasked } } }
  pageInfo { hasNextPage endCursor } } } }`;
const CHANGED = `subscription($u: ID!, $since: Int) { waitlistChanged(unitId: $u, since: $since) {
  seq kind entryId bookingId } }`;
const WALK_IN_RESULT = `__typename ... on WalkIn { id name status } ... on Error { code message }`;
const ADD = `mutation($u: ID!, $area: String!, $name: String!, $phone: String!, $p: Int!) {
  r: addWalkIn(unitId: $u, area: $area, name: $name, phone: $phone, partySize: $p) { ${WALK_IN_RESULT} } }`;
const OFFER = `mutation($e: ID!) { r: offerWalkIn(entryId: $e) { ${WALK_IN_RESULT} } }`;
const SEAT = `mutation($e: ID!) { r: seatWalkIn(entryId: $e) { ${WALK_IN_RESULT} } }`;
const LEAVE = `mutation($e: ID!) { r: cancelWalkIn(entryId: $e) { ${WALK_IN_RESULT} } }`;
const CANCEL = `mutation($b: ID!, $k: String) { r: cancel(bookingId: $b, reason: "waitlist offer withdrawn",
  idempotencyKey: $k) { __typename ... on Error { code message } } }`;

/** A connection shown a page at a time: refresh() reloads as many items as were shown. */
class PagedList {
  constructor(query, pick, renderItem, emptyText, testid) {
    Object.assign(this, {query, pick, renderItem, emptyText});
    this.items = null;
    this.wanted = PAGE;
    this.list = h("ul", {class: "lists-items", "data-testid": testid, "aria-live": "polite"}, h("li", {}, loadingEl()));
    this.moreBtn = h("button", {type: "button", class: "lists-btn lists-more", hidden: true,
      onclick: () => this.more()}, t("lists.more"));
    this.el = h("div", {}, this.list, this.moreBtn);
  }

  async load(vars, after = null, n = this.wanted) {
    const conn = this.pick(await gql(this.query, {...vars, n, a: after}, session.staffToken));
    return conn;
  }

  async refresh(vars = this.vars) {
    this.vars = vars;
    try {
      const conn = await this.load(vars, null, Math.min(500, this.wanted));
      this.items = conn.edges.map((e) => e.node);
      this.page = conn.pageInfo;
      this.render();
    } catch (e) {
      this.list.replaceChildren(h("li", {}, errorEl(e.message, () => this.refresh())));
    }
  }

  async more() {
    this.moreBtn.disabled = true;
    try {
      const conn = await this.load(this.vars, this.page.endCursor, PAGE);
      this.items.push(...conn.edges.map((e) => e.node));
      this.wanted = this.items.length;
      this.page = conn.pageInfo;
      this.render();
    } catch (e) {
      this.list.append(h("li", {}, errorEl(e.message, () => this.more())));
    } finally {
      this.moreBtn.disabled = false;
    }
  }

  render() {
    this.moreBtn.hidden = !this.page.hasNextPage;
    if (!this.items.length) this.list.replaceChildren(h("li", {}, emptyEl(this.emptyText())));
    else this.list.replaceChildren(...this.items.map((x) => this.renderItem(x)));
  }
}

class Waitlists {
  constructor(root, unit, live) {
    this.unit = unit;
    this.message = h("p", {class: "message", hidden: true, role: "status", "data-testid": "waitlists-message"});
    this.walkIns = new PagedList(WALK_INS, (d) => d.waitlists.walkInsConnection, (w) => this.walkInEl(w),
      () => t("wl.noWalkIns"), "walk-ins");
    this.slots = new PagedList(SLOTS, (d) => d.waitlists.slotsConnection, (s) => this.slotEl(s),
      () => t("wl.noSlots"), "slot-waitlists");
    root.replaceChildren(h("section", {class: "lists-screen"},
      h("h1", {class: "lists-screen-title"}, t("wl.title")), this.message,
      h("div", {class: "lists-columns"},
        h("section", {class: "lists-panel", "aria-labelledby": "wl-walkins"},
          h("h2", {class: "lists-title", id: "wl-walkins"}, t("wl.walkIns")), this.addForm(), this.walkIns.el),
        h("section", {class: "lists-panel", "aria-labelledby": "wl-slots"},
          h("h2", {class: "lists-title", id: "wl-slots"}, t("wl.slots")), this.slots.el))));
    this.stopFeed = live ? follow(live, CHANGED, {u: unit.id}, () => this.soon(),
      (m) => say(this.message, m, "error")) : () => {};
    this.refresh();
  }

  refresh() {
    this.walkIns.refresh({u: this.unit.id});
    this.slots.refresh({u: this.unit.id});
  }

  soon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 80);
  }

  onReconnect() {
    this.refresh();
  }

  async run(query, variables, success) {
    try {
      const r = (await gql(query, variables, session.staffToken)).r;
      if (r.__typename === "WalkIn" || r.__typename === "CancelPayload" || !r.code) {
        say(this.message, success(r), "ok");
        this.soon();
        return true;
      }
      say(this.message, resultError(r), "error");
    } catch (e) {
      say(this.message, e.message, "error");
    }
    return false;
  }

  addForm() {
    const field = (key, attrs) => h("label", {class: "lists-field"}, h("span", {}, t(key)),
      h("input", {class: "lists-input", ...attrs}));
    const form = h("form", {class: "lists-form", "data-testid": "walk-in-form"},
      field("wl.name", {name: "name", required: true, autocomplete: "off"}),
      field("wl.phone", {name: "phone", type: "tel", required: true, autocomplete: "off",
        placeholder: "(11) 99999-0000"}),
      field("wl.party", {name: "party", type: "number", min: 1, max: 50, value: 1, required: true}),
      field("wl.area", {name: "area", value: t("wl.defaultArea"), required: true}),
      h("button", {type: "submit", class: "lists-btn primary"}, t("wl.add")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const f = new FormData(form);
      const name = String(f.get("name")).trim();
      const ok = await this.run(ADD, {u: this.unit.id, area: String(f.get("area")).trim(), name,
        phone: toE164(f.get("phone")), p: Number(f.get("party")) || 1}, () => t("wl.added", {name}));
      if (ok) {
        form.elements.name.value = "";
        form.elements.phone.value = "";
        form.elements.party.value = "1";
        form.elements.name.focus();
      }
    });
    return form;
  }

  walkInEl(w) {
    const btn = (label, onclick, cls = "") => h("button", {type: "button", class: `lists-btn ${cls}`, onclick}, label);
    const actions = [];
    if (w.status === "WAITING") {
      actions.push(btn(t("wl.offer"), () => this.run(OFFER, {e: w.id}, () => t("wl.offered", {name: w.name})),
        "primary"));
    }
    if (w.status !== "SEATED" && w.status !== "CANCELLED") {
      actions.push(btn(t("wl.seat"), () => this.run(SEAT, {e: w.id}, () => t("wl.seated", {name: w.name}))));
      actions.push(btn(t("wl.leave"), () => this.run(LEAVE, {e: w.id}, () => t("wl.left", {name: w.name})),
        "quiet"));
    }
    return h("li", {class: "lists-item", dataset: {walkIn: w.id, status: w.status, name: w.name}},
      h("div", {class: "lists-row"}, h("strong", {class: "lists-item-title"}, w.name),
        h("span", {class: `sl-chip wl-${w.status.toLowerCase()}`}, t(`wl.${w.status}`))),
      h("div", {class: "lists-muted"}, [formatPhone(w.phone), t("wl.people", {n: w.partySize}), w.area,
        formatDateTime(w.joinedAt, this.unit.timezone, {hour: "2-digit", minute: "2-digit"})].join(" · ")),
      actions.length ? h("div", {class: "lists-actions"}, actions) : null);
  }

  slotEl(s) {
    const when = formatDateTime(s.startsAt, this.unit.timezone,
      {weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
    const status = s.status === "CLAIMED" ? "CLAIMED_SLOT" : s.status;
    return h("li", {class: "lists-item", dataset: {entry: s.id, status: s.status}},
      h("div", {class: "lists-row"}, h("strong", {class: "lists-item-title"},
        `${resourceName(this.unit, s.resourceId)} · ${when}`),
      h("span", {class: `sl-chip wl-${s.status.toLowerCase()}`}, t(`wl.${status}`))),
      s.customer ? h("div", {class: "lists-row"}, customerLine(s.customer)) : null,
      s.place ? h("div", {class: "lists-muted"}, t("wl.place", {n: s.place})) : null,
      s.status === "OFFERED" && s.offerBookingId ? h("div", {class: "lists-actions"},
        h("button", {type: "button", class: "lists-btn danger", onclick: () => this.run(CANCEL,
          {b: s.offerBookingId, k: idemKey()}, () => t("wl.offerCancelled"))}, t("wl.cancelOffer"))) : null);
  }

  destroy() {
    this.stopFeed();
    clearTimeout(this.timer);
  }
}

export function mount(root, {unit, live}) {
  return new Waitlists(root, unit, live);
}
