// Who is using the demo and on which unit: kept in localStorage; the URL (?unit=…&service=…) wins.

const KEY = "slothold.demo";

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

export const session = {
  ...{unitId: null, serviceId: null, staffToken: null, customer: null, dev: null},
  ...load(),
  save() {
    const {unitId, serviceId, staffToken, customer} = this;
    localStorage.setItem(KEY, JSON.stringify({unitId, serviceId, staffToken, customer}));
  },
};

/** The dev-only helpers exist only under `slothold dev` (a 404 otherwise): /web-demo/mode says whether they are on,
 * so that a production page never asks for them (a 404 in its console on every load). */
export async function loadDevConfig() {
  try {
    const mode = await (await fetch("/web-demo/mode")).json();
    const r = mode.dev ? await fetch("/web-demo/dev/config") : null;
    session.dev = r && r.ok ? await r.json() : null;
  } catch {
    session.dev = null;
  }
  const params = new URLSearchParams(location.search);
  if (params.get("unit")) {
    session.unitId = params.get("unit");
    session.serviceId = params.get("service") || null;
  } else if (!session.unitId && session.dev) {
    session.unitId = session.dev.unitId;
    session.serviceId = session.dev.serviceId;
  } else if (params.has("service")) {
    session.serviceId = params.get("service") || null;
  }
  session.save();
  return session.dev;
}

/** A tiny element builder: h("button", {class: "x", onclick}, "text", child…). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Show a sentence in a status element (kind: "error" | "ok" | "info"). */
export function say(el, text, kind = "info") {
  el.textContent = text || "";
  el.className = `message ${kind}`;
  el.hidden = !text;
}
