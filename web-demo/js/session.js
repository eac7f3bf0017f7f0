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

/** The dev-only helpers exist only under `slothold dev` (a 404 otherwise). */
export async function loadDevConfig() {
  try {
    const r = await fetch("/web-demo/dev/config");
    session.dev = r.ok ? await r.json() : null;
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

/** The newest sign-in code sent to `to` by the sandbox channel (dev only). */
export async function devLoginCode(unitId, to) {
  const url = `/web-demo/dev/login-code?unit=${encodeURIComponent(unitId)}&to=${encodeURIComponent(to)}`;
  for (let attempt = 0; ; attempt++) {
    const r = await fetch(url);
    const body = await r.json().catch(() => ({}));
    if (r.ok) return body.code;
    if (attempt >= 5 || r.status !== 404) throw new Error(`${body.error || "No code was found"} (dev helper).`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
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
