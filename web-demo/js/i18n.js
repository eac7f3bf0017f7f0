// The console's and the widget's words: pt-BR by default, English when chosen; one language per screen.
// Each screen module registers its own strings (`register({"pt-BR": {...}, en: {...}})`), so no file holds them
// all; `t(key, params)` reads the current language's, falling back to pt-BR, then to the key itself (a missing
// string shows, it never breaks a screen). `{name}` in a string is replaced by params.name.

export const LOCALES = ["pt-BR", "en"];
const STORE = "slothold.locale";
const strings = {"pt-BR": {}, en: {}};
let current = pick();

function pick() {
  try {
    const saved = localStorage.getItem(STORE);
    if (LOCALES.includes(saved)) return saved;
  } catch (e) { /* storage blocked: the default */ }
  return "pt-BR";
}

export function register(table) {
  for (const locale of LOCALES) Object.assign(strings[locale], table[locale] || {});
}

export function locale() {
  return current;
}

export function setLocale(next) {
  if (!LOCALES.includes(next)) return;
  current = next;
  try { localStorage.setItem(STORE, next); } catch (e) { /* not kept */ }
  document.documentElement.lang = next;
  window.dispatchEvent(new CustomEvent("slothold:locale", {detail: next}));
}

export function t(key, params = {}) {
  const text = strings[current][key] ?? strings["pt-BR"][key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (params[name] ?? `{${name}}`));
}

const money = {};
export function formatMoney(cents, currency = "BRL") {
  const key = `${current}|${currency}`;
  money[key] ??= new Intl.NumberFormat(current, {style: "currency", currency});
  return money[key].format(cents / 100);
}

export function formatDateTime(iso, timeZone, options = {dateStyle: "medium", timeStyle: "short"}) {
  // one clock in the console: 24-hour in both languages, as the agenda's columns (time.js)
  return new Intl.DateTimeFormat(current, {timeZone, hourCycle: "h23", ...options}).format(new Date(iso));
}
