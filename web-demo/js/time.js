// Times in the unit's time zone (IANA), whatever the browser's own zone is; dates in the screen's language
// (i18n.js), times on a 24-hour clock in both (the grid's columns stay narrow).

import {locale} from "./i18n.js";

function parts(date, timeZone) {
  const out = {};
  for (const p of new Intl.DateTimeFormat("en-US", {
    timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit",
  }).formatToParts(date)) out[p.type] = p.value;
  return out;
}

/** Minutes the zone is ahead of UTC at `date` (São Paulo: -180). */
export function offsetMinutes(date, timeZone) {
  const p = parts(date, timeZone);
  const asUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second);
  return Math.round((asUtc - Math.floor(date.getTime() / 1000) * 1000) / 60000);
}

/** The instant a local calendar day ("2026-12-08") starts in the zone. */
export function startOfDay(ymd, timeZone) {
  const [y, m, d] = ymd.split("-").map(Number);
  const guess = Date.UTC(y, m - 1, d);
  let t = guess - offsetMinutes(new Date(guess), timeZone) * 60000;
  t = guess - offsetMinutes(new Date(t), timeZone) * 60000;
  return new Date(t);
}

/** Today's local date in the zone, as YYYY-MM-DD. */
export function today(timeZone) {
  return new Intl.DateTimeFormat("en-CA", {timeZone}).format(new Date());
}

/** The local date of an instant in the zone, as YYYY-MM-DD. */
export function localDate(date, timeZone) {
  return new Intl.DateTimeFormat("en-CA", {timeZone}).format(date);
}

export function addDays(ymd, n) {
  const [y, m, d] = ymd.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** An instant as ISO 8601 with an offset (UTC), as the API wants it. */
export function iso(date) {
  return new Date(date).toISOString();
}

export function hhmm(date, timeZone) {
  return new Intl.DateTimeFormat(locale(), {timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23"})
    .format(new Date(date));
}

export function dayLabel(ymd) {
  const [y, m, d] = ymd.split("-").map(Number);
  return new Intl.DateTimeFormat(locale(), {timeZone: "UTC", weekday: "short", day: "2-digit", month: "short"})
    .format(new Date(Date.UTC(y, m - 1, d)));
}

export function longDate(date, timeZone) {
  return new Intl.DateTimeFormat(locale(), {timeZone, weekday: "long", day: "numeric", month: "long"})
    .format(new Date(date));
}

/** "4:05" from milliseconds left (never negative). */
export function countdown(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

export function money(cents) {
  return new Intl.NumberFormat("pt-BR", {style: "currency", currency: "BRL"}).format((cents || 0) / 100);
}
