// The web demo's shell: unit, sign-in, and the three screens (#/agenda, #/book, #/seats).

import {Agenda} from "./agenda.js";
import {mountWidget} from "./book.js";
import {gql, liveClient, resultError} from "./gql.js";
import {StaffQueue} from "./queue.js";
import {SeatMapView} from "./seatmap.js";
import {SetupScreen} from "./setup.js";
import * as queueScreen from "./queue.js";
import * as waitlistsScreen from "./waitlists.js";
import * as searchScreen from "./search.js";
import * as counterScreen from "./counter.js";
import {h, loadDevConfig, say, session} from "./session.js";

const UNIT = `query($u: ID!) { unit(id: $u) { __typename
  ... on Unit { id name timezone parameters { slotMinutes holdTtlSeconds minAdvanceSeconds }
                resources { id name kind capacity groupId } }
  ... on Error { code message } } }`;
const ME = `{ me { kind role name unitId } }`;

/**
 * Staff screens by route (#/<name>), for the modules other helpers add: one line each, e.g.
 *   queue: async (root, unit, live) => new (await import("./queue.js")).StaffQueue(root, unit, live),
 * A screen gets its root element, the unit and the page's live client, and returns an object with destroy()
 * (and onReconnect() if it is live). Add its link to index.html's <nav> too (a line per screen there as well).
 */
const ROUTES = {
  // --- routes of other screens (issue 20): queue.js, waitlists.js, search.js, counter.js — one line each ---
  // fila: async (root, unit, live) => new (await import("./queue.js")).StaffQueue(root, unit, live),
  // listas: async (root, unit, live) => new (await import("./waitlists.js")).Waitlists(root, unit, live),
  // reservas: async (root, unit, live) => new (await import("./search.js")).BookingSearch(root, unit, live),
  // balcao: async (root, unit, live) => new (await import("./counter.js")).CounterBooking(root, unit, live),
  // --- end of the other screens' routes ---
};

const main = document.getElementById("main");
// The console's lists (web-demo/js/{queue,waitlists,search,counter}.js): route → module with mount(root, ctx).
const LISTS = {queue: queueScreen, waitlists: waitlistsScreen, search: searchScreen, counter: counterScreen};
const banner = document.getElementById("offline");
const who = document.getElementById("who");
let current = [];
let live = null;
let unit = null;

function teardown() {
  for (const part of current) part.destroy();
  current = [];
  if (live) live.dispose();
  live = null;
  banner.hidden = true;
}

function setBanner(status, detail) {
  if (status === "online") banner.hidden = true;
  else {
    banner.hidden = false;
    banner.textContent = status === "refused" ? `The live feed refused the token: ${detail}`
      : "Offline — reconnecting… Changes made meanwhile appear as soon as the connection is back.";
  }
}

async function loadUnit() {
  if (!session.unitId) return null;
  try {
    const r = (await gql(UNIT, {u: session.unitId})).unit;
    if (r.__typename !== "Unit") throw new Error(resultError(r));
    document.getElementById("unit-name").textContent = r.name;
    return r;
  } catch (e) {
    main.replaceChildren(unitForm(e.message));
    return null;
  }
}

function unitForm(problem) {
  const input = h("input", {name: "unit", size: 40, value: session.unitId || "", required: true});
  const service = h("input", {name: "service", size: 40, value: session.serviceId || ""});
  const message = h("p", {class: "message", role: "alert"});
  say(message, problem || "", "error");
  const form = h("form", {class: "stack card"}, h("h2", {}, "Which unit?"), message,
    h("label", {}, "Unit id ", input),
    h("label", {}, "Service id (optional: with it, bookings ask for a Pix) ", service),
    h("button", {type: "submit"}, "Open"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    session.unitId = input.value.trim();
    session.serviceId = service.value.trim() || null;
    session.save();
    route();
  });
  return form;
}

function staffSignIn(problem) {
  const input = h("input", {name: "token", type: "password", size: 48, required: true, autocomplete: "off",
    placeholder: "slh_…", "aria-label": "Staff token"});
  const message = h("p", {class: "message", role: "alert"});
  say(message, problem || "", "error");
  const form = h("form", {class: "stack card", "data-testid": "staff-signin"},
    h("h2", {}, "Staff sign-in"),
    h("p", {}, "Paste a staff token of this unit (", h("code", {}, "slothold token create --unit … --role manager"),
      "). ", h("code", {}, "./dev"), " prints the demo owner token and keeps it in ",
      h("code", {}, ".slothold/demo-owner-token"), "."),
    message, input, h("button", {type: "submit"}, "Sign in"),
    session.dev && session.dev.ownerToken ? h("button", {type: "button", class: "dev", onclick: () => {
      input.value = session.dev.ownerToken;
      form.requestSubmit();
    }}, "Use the demo owner token (dev only)") : null);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    session.staffToken = input.value.trim();
    session.save();
    route();
  });
  return form;
}

async function showWho() {
  const parts = [];
  if (session.staffToken) {
    try {
      const me = (await gql(ME, {}, session.staffToken)).me;
      parts.push(h("span", {}, `Staff: ${me.name} (${(me.role || me.kind).toLowerCase()}) `),
        h("button", {class: "link", onclick: () => { session.staffToken = null; session.save(); route(); }}, "sign out"));
    } catch {
      // a stale token: the agenda says so
    }
  }
  who.replaceChildren(...parts);
}

async function agenda() {
  try {
    const me = (await gql(ME, {}, session.staffToken)).me;
    if (me.kind !== "STAFF" && me.kind !== "SYSTEM" && me.kind !== "INTEGRATOR") {
      return main.replaceChildren(staffSignIn("That token is not a staff token."));
    }
  } catch (e) {
    return main.replaceChildren(staffSignIn(e.message));
  }
  const gridRoot = h("div", {class: "agenda"});
  const queueRoot = h("aside", {class: "queue-panel"});
  main.replaceChildren(h("div", {class: "staff-layout"}, gridRoot, queueRoot));
  let agendaView = null;
  let queueView = null;
  live = liveClient(session.staffToken, {
    onStatus: setBanner,
    onReconnect: () => { agendaView?.onReconnect(); queueView?.onReconnect(); },
  });
  agendaView = new Agenda(gridRoot, unit, live);
  queueView = new StaffQueue(queueRoot, unit, live);
  current.push(agendaView, queueView);
  await agendaView.reload();
}

async function route() {
  teardown();
  for (const a of document.querySelectorAll("nav a")) {
    a.classList.toggle("active", a.getAttribute("href") === (location.hash || "#/agenda"));
  }
  unit = await loadUnit();
  showWho();
  if (!unit) {
    if (!session.unitId) main.replaceChildren(unitForm());
    return;
  }
  const page = location.hash.replace(/^#\/?/, "") || "agenda";
  if (page === "book") {
    const root = h("div", {class: "booking"});
    main.replaceChildren(root);
    current.push(mountWidget(root, unit, session.serviceId));
  } else if (page === "seats") {
    const root = h("div", {class: "seats"});
    main.replaceChildren(root);
    if (session.staffToken) {
      live = liveClient(session.staffToken, {onStatus: setBanner, onReconnect: () => current[0]?.onReconnect()});
    }
    current.push(new SeatMapView(root, unit, live));
  } else if (page === "setup") {
    if (!session.staffToken) return main.replaceChildren(staffSignIn());
    const root = h("div", {class: "setup"});
    main.replaceChildren(root);
    live = liveClient(session.staffToken, {onStatus: setBanner, onReconnect: () => current[0]?.onReconnect()});
    current.push(new SetupScreen(root, unit, live));
  } else if (LISTS[page]) {
    if (!session.staffToken) return main.replaceChildren(staffSignIn());
    live = liveClient(session.staffToken, {onStatus: setBanner, onReconnect: () => current[0]?.onReconnect?.()});
    current.push(LISTS[page].mount(main, {unit, live}));
  } else if (page === "settings" && session.dev) {
    main.replaceChildren(unitForm());  // the raw unit-id form: a developer's tool (dev flag only)
  } else if (ROUTES[page]) {
    if (!session.staffToken) return main.replaceChildren(staffSignIn());
    const root = h("div", {class: page});
    main.replaceChildren(root);
    live = liveClient(session.staffToken, {onStatus: setBanner, onReconnect: () => current[0]?.onReconnect()});
    current.push(await ROUTES[page](root, unit, live));
  } else if (!session.staffToken) {
    main.replaceChildren(staffSignIn());
  } else {
    await agenda();
  }
}

window.addEventListener("hashchange", () => {
  document.querySelector("header").classList.remove("open");
  document.querySelector(".menu-toggle").setAttribute("aria-expanded", "false");
  route();
});
document.querySelector(".menu-toggle").addEventListener("click", (e) => {
  const open = document.querySelector("header").classList.toggle("open");
  e.currentTarget.setAttribute("aria-expanded", String(open));
});
await loadDevConfig();
document.getElementById("dev-badge").hidden = !session.dev;
// Developer-only things (GraphiQL, the sandbox-pay footer) only behind `slothold dev`'s flag.
for (const el of document.querySelectorAll("[data-dev-only]")) el.hidden = !session.dev;
await route();
