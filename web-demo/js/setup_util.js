// Shared pieces of the owner's set-up screen (#/setup): running a mutation with a sentence for its outcome,
// refusals a receptionist understands, money in R$ and times as HH:MM.

import {gql, resultError, sentence} from "./gql.js";
import {h, say, session} from "./session.js";
import {hhmm, money, startOfDay} from "./time.js";

export const WEEKDAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];
export const DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
export const DAY_SHORT = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
/** The refusals' fields (ERR_BASE for results that cannot be BookingsInTheWay, e.g. ServiceResult). */
export const ERR_BASE = "... on Error { code message } ... on InvalidInput { field }";
export const ERR = `${ERR_BASE} ... on BookingsInTheWay { field bookingIds count at }`;
const BOOKING = `query($b: ID!) { booking(id: $b) { __typename
  ... on Booking { id status startsAt endsAt } } }`;

/** A GraphQL call with the owner's token. */
export function ask(query, variables = {}) {
  return gql(query, variables, session.staffToken);
}

/** "HH:MM" (00:00 to 24:00). */
export const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;

export function clock(minutes) {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

export function minutesOf(text) {
  const [hh, mm] = text.split(":").map(Number);
  return hh * 60 + mm;
}

/** "250,00", "R$ 1.250,50", "250" or "250.5" → cents; null when it is not an amount. */
export function parseMoney(text) {
  let s = String(text || "").replace(/R\$|\s/g, "");
  if (!s) return null;
  if (s.includes(",")) s = s.replace(/\./g, "").replace(",", ".");
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
  return Math.round(Number(s) * 100);
}

/** Cents as the input shows them: "250,00". */
export function moneyInput(cents) {
  return cents == null ? "" : (cents / 100).toFixed(2).replace(".", ",");
}

export {money};

/** "Thu 03 Dec 19:00" in the unit's zone. */
export function when(date, tz) {
  const day = new Intl.DateTimeFormat("en-GB", {timeZone: tz, weekday: "short", day: "2-digit", month: "short"})
    .format(new Date(date));
  return `${day} ${hhmm(date, tz)}`;
}

/** A local date "2026-12-25" as "Fri 25 Dec 2026". */
export function dateLabel(ymd) {
  const [y, m, d] = ymd.split("-").map(Number);
  return new Intl.DateTimeFormat("en-GB", {timeZone: "UTC", weekday: "short", day: "2-digit", month: "short",
    year: "numeric"}).format(new Date(Date.UTC(y, m - 1, d)));
}

/** The instant of a local date and "HH:MM" in the zone. */
export function instant(ymd, text, tz) {
  return new Date(startOfDay(ymd, tz).getTime() + minutesOf(text) * 60000);
}

/** A labelled input: the label's text above the control (readable on a phone). */
export function labelled(text, control, hint = null) {
  return h("label", {class: "field"}, h("span", {class: "field-label"}, text), control,
    hint ? h("small", {class: "muted"}, hint) : null);
}

export function statusLine(testid) {
  return h("p", {class: "message", hidden: true, role: "status", "aria-live": "polite", "data-testid": testid});
}

/** A refusal as a sentence: the bookings in the way named by their day, time and state. */
export async function refusal(result, action, tz) {
  if (!result) return "No answer from the server.";
  if (result.__typename === "BookingsInTheWay") {
    const shown = [];
    for (const id of (result.bookingIds || []).slice(0, 3)) {
      try {
        const b = (await ask(BOOKING, {b: id})).booking;
        shown.push(b.__typename === "Booking"
          ? `${when(b.startsAt, tz)}–${hhmm(b.endsAt, tz)} (${b.status.toLowerCase().replace(/_/g, " ")}, `
            + `booking ${id.slice(0, 8)})` : `booking ${id.slice(0, 8)}`);
      } catch {
        shown.push(`booking ${id.slice(0, 8)}`);
      }
    }
    const n = result.count || shown.length;
    const more = n > shown.length ? ` and ${n - shown.length} more` : "";
    const at = result.at ? ` The busiest time is ${when(result.at, tz)}.` : "";
    return `${action} is not possible: ${n === 1 ? "1 booking stands" : `${n} bookings stand`} in the way — `
      + `${shown.join("; ")}${more}. Cancel or move ${n === 1 ? "it" : "them"} first, then try again.${at}`;
  }
  if (result.__typename === "Busy") return `${action} has to wait: the venue is busy with another change. Try again.`;
  return `${action} was refused: ${resultError(result)}`;
}

/**
 * Run a mutation whose answer is `ok` typename or a typed refusal; say the outcome in `message`.
 * Returns the successful result, or null.
 */
export async function mutate(query, variables, field, ok, message, {action, done, tz, reword = (t) => t}) {
  say(message, "Saving…", "info");
  let result;
  try {
    result = (await ask(query, variables))[field];
  } catch (e) {
    say(message, `${action} was refused: ${sentence(e.message)}`, "error");
    return null;
  }
  if (result && result.__typename === ok) {
    say(message, typeof done === "function" ? done(result) : done, "ok");
    return result;
  }
  say(message, reword(await refusal(result, action, tz)), "error");
  return null;
}

/** A section of the screen: a card with a heading, a lead sentence and its parts. */
export function section(title, lead, testid, ...parts) {
  return h("section", {class: "card setup-card", "data-testid": testid},
    h("h2", {}, title), lead ? h("p", {class: "muted lead"}, lead) : null, ...parts);
}
