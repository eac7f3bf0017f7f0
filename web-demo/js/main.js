// The reception console's shell: unit, sign-in, the header (nav, language switch, who is signed in), the offline
// banner and the screens by route. One language per screen, pt-BR by default (i18n.js): switching re-renders the
// nav and the current screen without a reload.

import {Agenda} from "./agenda.js";
import {mountWidget} from "./book.js";
import {gql, liveClient, resultError} from "./gql.js";
import {locale, register, setLocale, t} from "./i18n.js";
import {StaffQueue} from "./queue.js";
import {SeatMapView} from "./seatmap.js";
import {SetupScreen} from "./setup.js";
import * as queueScreen from "./queue.js";
import * as waitlistsScreen from "./waitlists.js";
import * as searchScreen from "./search.js";
import * as counterScreen from "./counter.js";
import * as seriesScreen from "./series.js";
import {h, loadDevConfig, say, session} from "./session.js";

register({
  "pt-BR": {
    "nav.agenda": "Agenda", "nav.book": "Reservar", "nav.seats": "Mapa de assentos", "nav.setup": "Configuração",
    "nav.queue": "Tratativas", "nav.waitlists": "Filas de espera", "nav.search": "Reservas", "nav.counter": "Balcão", "nav.series": "Séries",
    "nav.settings": "Unidade (dev)", "shell.language": "Idioma", "shell.loading": "Carregando…",
    "shell.title": "Slothold — recepção", "shell.devBadge": "slothold dev: as ferramentas de desenvolvimento estão ligadas",
    "shell.sandboxPay": "Pagar uma cobrança Pix do sandbox pelo txid", "shell.pay": "Pagar",
    "shell.paid": "Pago: {outcome}.", "shell.refused": "O canal ao vivo recusou o token: {detail}",
    "shell.offline": "Sem conexão — reconectando… O que mudar enquanto isso aparece assim que a conexão voltar.",
    "shell.whichUnit": "Qual unidade?", "shell.unitId": "Id da unidade",
    "shell.serviceId": "Id do serviço (opcional: com ele, as reservas pedem um Pix)", "shell.open": "Abrir",
    "shell.signInTitle": "Entrada da equipe", "shell.token": "Token da equipe",
    "shell.signInHelp1": "Cole um token de equipe desta unidade (", "shell.signInHelp2": "). O ",
    "shell.signInHelp3": " mostra o token do dono da demo e o guarda em ", "shell.signIn": "Entrar",
    "shell.demoToken": "Usar o token do dono da demo (só dev)", "shell.notStaff": "Esse token não é de equipe.",
    "shell.staff": "Equipe: {name} ({role}) ", "shell.signOut": "sair",
    "role.OWNER": "dono", "role.MANAGER": "gerente", "role.OPERATOR": "operador", "role.SYSTEM": "sistema",
    "role.INTEGRATOR": "integrador", "role.STAFF": "equipe",
  },
  en: {
    "nav.agenda": "Agenda", "nav.book": "Book", "nav.seats": "Seat map", "nav.setup": "Set-up",
    "nav.queue": "Staff queue", "nav.waitlists": "Waitlists", "nav.search": "Bookings", "nav.counter": "Counter", "nav.series": "Series",
    "nav.settings": "Unit (dev)", "shell.language": "Language", "shell.loading": "Loading…",
    "shell.title": "Slothold — reception", "shell.devBadge": "slothold dev: dev-only helpers are on",
    "shell.sandboxPay": "Pay a sandbox Pix charge by its txid", "shell.pay": "Pay",
    "shell.paid": "Paid: {outcome}.", "shell.refused": "The live feed refused the token: {detail}",
    "shell.offline": "Offline — reconnecting… Changes made meanwhile appear as soon as the connection is back.",
    "shell.whichUnit": "Which unit?", "shell.unitId": "Unit id",
    "shell.serviceId": "Service id (optional: with it, bookings ask for a Pix)", "shell.open": "Open",
    "shell.signInTitle": "Staff sign-in", "shell.token": "Staff token",
    "shell.signInHelp1": "Paste a staff token of this unit (", "shell.signInHelp2": "). ",
    "shell.signInHelp3": " prints the demo owner token and keeps it in ", "shell.signIn": "Sign in",
    "shell.demoToken": "Use the demo owner token (dev only)", "shell.notStaff": "That token is not a staff token.",
    "shell.staff": "Staff: {name} ({role}) ", "shell.signOut": "sign out",
    "role.OWNER": "owner", "role.MANAGER": "manager", "role.OPERATOR": "operator", "role.SYSTEM": "system",
    "role.INTEGRATOR": "integrator", "role.STAFF": "staff",
  },
});

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
const LISTS = {queue: queueScreen, waitlists: waitlistsScreen, search: searchScreen, counter: counterScreen, series: seriesScreen};
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
    banner.textContent = status === "refused" ? t("shell.refused", {detail}) : t("shell.offline");
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
  const form = h("form", {class: "stack card"}, h("h2", {}, t("shell.whichUnit")), message,
    h("label", {}, `${t("shell.unitId")} `, input),
    h("label", {}, `${t("shell.serviceId")} `, service),
    h("button", {type: "submit"}, t("shell.open")));
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
    placeholder: "slh_…", "aria-label": t("shell.token")});
  const message = h("p", {class: "message", role: "alert"});
  say(message, problem || "", "error");
  const form = h("form", {class: "stack card", "data-testid": "staff-signin"},
    h("h2", {}, t("shell.signInTitle")),
    h("p", {}, t("shell.signInHelp1"), h("code", {}, "slothold token create --unit … --role manager"),
      t("shell.signInHelp2"), h("code", {}, "./dev"), t("shell.signInHelp3"),
      h("code", {}, ".slothold/demo-owner-token"), "."),
    message, input, h("button", {type: "submit", "data-testid": "sign-in"}, t("shell.signIn")),
    session.dev && session.dev.ownerToken ? h("button", {type: "button", class: "dev", onclick: () => {
      input.value = session.dev.ownerToken;
      form.requestSubmit();
    }}, t("shell.demoToken")) : null);
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
      parts.push(h("span", {}, t("shell.staff", {name: me.name, role: t(`role.${me.role || me.kind}`)})),
        h("button", {class: "link", onclick: () => { session.staffToken = null; session.save(); route(); }},
          t("shell.signOut")));
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
      return main.replaceChildren(staffSignIn(t("shell.notStaff")));
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

/** The shell's own words (nav, header, footer) in the current language; `<html lang>` and the title follow. */
function translateShell() {
  document.documentElement.lang = locale();
  document.title = t("shell.title");
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  document.getElementById("lang").value = locale();
}

document.getElementById("lang").addEventListener("change", (e) => setLocale(e.target.value));
// A language switch re-renders the nav and the current screen (the agenda keeps its day and view), no reload.
window.addEventListener("slothold:locale", () => {
  translateShell();
  route();
});
document.getElementById("pay").addEventListener("submit", async (event) => {  // dev only: the sandbox's bank
  event.preventDefault();
  const txid = new FormData(event.target).get("txid");
  const out = document.getElementById("paid");
  try {
    const r = (await gql("mutation($t: String!) { sandboxPay(txid: $t) { __typename " +
      "... on PaymentOutcome { outcome } ... on Error { code message } } }", {t: txid})).sandboxPay;
    out.textContent = r.outcome ? t("shell.paid", {outcome: r.outcome}) : resultError(r);
  } catch (e) {
    out.textContent = e.message;
  }
});

window.addEventListener("hashchange", () => {
  document.querySelector("header").classList.remove("open");
  document.querySelector(".menu-toggle").setAttribute("aria-expanded", "false");
  route();
});
document.querySelector(".menu-toggle").addEventListener("click", (e) => {
  const open = document.querySelector("header").classList.toggle("open");
  e.currentTarget.setAttribute("aria-expanded", String(open));
});
translateShell();
await loadDevConfig();
document.getElementById("dev-badge").hidden = !session.dev;
// Developer-only things (GraphiQL, the sandbox-pay footer) only behind `slothold dev`'s flag.
for (const el of document.querySelectorAll("[data-dev-only]")) el.hidden = !session.dev;
await route();
