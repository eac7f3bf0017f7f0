// Shared pieces of the owner's set-up screen (#/setup): running a mutation with a sentence for its outcome,
// refusals a receptionist understands, money and weekday names by the screen's language (i18n.js), times as HH:MM.
// A refusal is said in the screen's language: in English the API's own sentence, in Portuguese the sentence of its
// code when this screen knows it (as the booking panel does), else the API's.

import {ApiError, gql, resultError, sentence} from "./gql.js";
import {statusWords} from "./booking_panel.js";
import {formatMoney, locale, register, t} from "./i18n.js";
import {h, say, session} from "./session.js";
import {hhmm, startOfDay} from "./time.js";

register({
  "pt-BR": {
    "setup.saving": "Salvando…", "setup.noAnswer": "O servidor não respondeu.",
    "setup.refused": "Não foi possível {action}: {reason}",
    "setup.inTheWay": "Não é possível {action}: {count} no caminho — {list}{more}. Cancele ou mova {them} antes e tente "
      + "de novo.{at}",
    "setup.inTheWay.one": "1 reserva está", "setup.inTheWay.many": "{n} reservas estão",
    "setup.inTheWay.it": "essa reserva", "setup.inTheWay.them": "essas reservas", "setup.inTheWay.more": " e mais {n}",
    "setup.inTheWay.at": " O horário mais cheio é {when}.", "setup.booking": "reserva {id}",
    "setup.busy": "Não foi possível {action} agora: a unidade está ocupada com outra mudança. Tente de novo.",
    "setup.aField": "um campo",
    "setup.err.required": "falta um valor obrigatório.", "setup.err.invalid_name": "o nome tem no máximo 100 caracteres.",
    "setup.err.name_taken": "a unidade já tem um campo, grupo ou mapa com esse nome.",
    "setup.err.not_pooled": "um campo exclusivo recebe uma reserva por vez; para vender vagas, crie-o compartilhado.",
    "setup.err.invalid_capacity": "um campo compartilhado tem de 1 a 10.000 vagas.",
    "setup.err.invalid_input": "um valor não é válido.", "setup.err.not_found": "não foi encontrado (talvez já tenha sido removido).",
    "setup.err.forbidden": "seu papel não permite esta mudança.",
    "setup.err.unauthenticated": "entre de novo com um token de equipe.",
    "setup.err.invalid_time": "escreva os horários como 18:00 (24:00 é meia-noite).",
    "setup.err.invalid_range": "o fim precisa ser depois do início.",
    "setup.err.off_grid": "os horários precisam cair na grade de horários da unidade.",
    "setup.err.overlapping_windows": "dois horários do mesmo dia se sobrepõem.",
    "setup.err.too_long": "há itens ou texto demais (o motivo tem no máximo 200 caracteres).",
    "setup.err.in_the_past": "essa data ou horário já passou.", "setup.err.too_far": "no máximo 3 anos à frente.",
    "setup.err.range_too_long": "o período é longo demais.",
    "setup.err.already_blocked": "o campo já está bloqueado em parte desse período.",
    "setup.err.invalid_price": "preço ou sinal inválido.", "setup.err.invalid_weekday": "marque cada dia uma vez só.",
    "setup.err.band": "faixa {n}: {text}",
    "setup.err.bands_overlap": "a faixa {a} se sobrepõe à faixa {b} no mesmo dia da semana.",
    "setup.err.rate_limited": "muitos pedidos seguidos; espere um pouco e tente de novo.",
    "setup.err.offline": "não foi possível falar com o servidor agora. Verifique a conexão e tente de novo.",
  },
  en: {
    "setup.saving": "Saving…", "setup.noAnswer": "No answer from the server.",
    "setup.refused": "{action} was refused: {reason}",
    "setup.inTheWay": "{action} is not possible: {count} in the way — {list}{more}. Cancel or move {them} first, then "
      + "try again.{at}",
    "setup.inTheWay.one": "1 booking stands", "setup.inTheWay.many": "{n} bookings stand",
    "setup.inTheWay.it": "it", "setup.inTheWay.them": "them", "setup.inTheWay.more": " and {n} more",
    "setup.inTheWay.at": " The busiest time is {when}.", "setup.booking": "booking {id}",
    "setup.busy": "{action} has to wait: the venue is busy with another change. Try again.",
    "setup.aField": "a field",
  },
});

const WEEK = [1, 2, 3, 4, 5, 6, 7].map((d) => new Date(Date.UTC(2024, 0, d)));  // 1 Jan 2024 was a Monday
export const WEEKDAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];
const capital = (s) => s.charAt(0).toLocaleUpperCase(locale()) + s.slice(1);
/** Weekday `i` (0: Monday) in the screen's language: "Segunda-feira" / "Monday". */
export const dayName = (i) => capital(new Intl.DateTimeFormat(locale(), {weekday: "long", timeZone: "UTC"})
  .format(WEEK[i]));
/** Weekday `i` short: "Seg" / "Mon". */
export const dayShort = (i) => capital(new Intl.DateTimeFormat(locale(), {weekday: "short", timeZone: "UTC"})
  .format(WEEK[i]).replace(/\.$/, ""));
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

/** "250,00", "250.00", "R$ 1.250,50", "R$1,250.50", "250" → cents; null when it is not an amount. The last "," or
 * "." followed by one or two digits is the decimal mark, in either language (an owner may type either). */
export function parseMoney(text) {
  const s = String(text || "").replace(/R\$|\s/g, "");
  const m = /^(\d{1,3}(?:([.,])\d{3})*|\d+)(?:[.,](\d{1,2}))?$/.exec(s);
  if (!m || (m[2] && m[3] != null && s[s.length - m[3].length - 1] === m[2])) return null;
  return Number(m[1].replace(/[.,]/g, "")) * 100 + Number((m[3] || "0").padEnd(2, "0"));
}

/** Cents as the input shows them: "250,00" (pt-BR), "250.00" (en). */
export function moneyInput(cents) {
  if (cents == null) return "";
  const text = (cents / 100).toFixed(2);
  return locale() === "en" ? text : text.replace(".", ",");
}

/** Cents in R$ as the screen's language writes them: "R$ 250,00" / "R$250.00". */
export const money = (cents) => formatMoney(cents || 0);

/** "qui., 03 de dez. 19:00" / "Thu, Dec 03 19:00" in the unit's zone. */
export function when(date, tz) {
  const day = new Intl.DateTimeFormat(locale(), {timeZone: tz, weekday: "short", day: "2-digit", month: "short"})
    .format(new Date(date));
  return `${day} ${hhmm(date, tz)}`;
}

/** A local date "2026-12-25" as "sex., 25 de dez. de 2026" / "Fri, Dec 25, 2026". */
export function dateLabel(ymd) {
  const [y, m, d] = ymd.split("-").map(Number);
  return new Intl.DateTimeFormat(locale(), {timeZone: "UTC", weekday: "short", day: "2-digit", month: "short",
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

/** Why the API refused, in the screen's language: in English its own sentence; in Portuguese the sentence of its
 * code when known (a band named as the editor numbers it), else the API's. */
export function reason(result) {
  const code = result && result.code;
  const key = `setup.err.${code}`;
  if (locale() === "en" || !code || t(key) === key) return resultError(result);
  const bands = /band (\d+) overlaps band (\d+)/.exec(result.message || "");
  const band = /^bands\[(\d+)\]/.exec(result.field || "");
  const text = t(key, bands ? {a: Number(bands[1]) + 1, b: Number(bands[2]) + 1} : {});
  return band && !bands ? t("setup.err.band", {n: Number(band[1]) + 1, text}) : text;
}

/** A refusal as a sentence: the bookings in the way named by their day, time and state. */
export async function refusal(result, action, tz) {
  if (!result) return t("setup.noAnswer");
  if (result.__typename === "BookingsInTheWay") {
    const shown = [];
    for (const id of (result.bookingIds || []).slice(0, 3)) {
      const named = t("setup.booking", {id: id.slice(0, 8)});
      try {
        const b = (await ask(BOOKING, {b: id})).booking;
        shown.push(b.__typename === "Booking"
          ? `${when(b.startsAt, tz)}–${hhmm(b.endsAt, tz)} (${statusWords(b.status)}, ${named})` : named);
      } catch {
        shown.push(named);
      }
    }
    const n = result.count || shown.length;
    return t("setup.inTheWay", {action, count: t(n === 1 ? "setup.inTheWay.one" : "setup.inTheWay.many", {n}),
      list: shown.join("; "), more: n > shown.length ? t("setup.inTheWay.more", {n: n - shown.length}) : "",
      them: t(n === 1 ? "setup.inTheWay.it" : "setup.inTheWay.them"),
      at: result.at ? t("setup.inTheWay.at", {when: when(result.at, tz)}) : ""});
  }
  if (result.__typename === "Busy" || result.code === "busy") return t("setup.busy", {action});
  return t("setup.refused", {action, reason: reason(result)});
}

/**
 * Run a mutation whose answer is `ok` typename or a typed refusal; say the outcome in `message`.
 * Returns the successful result, or null.
 */
export async function mutate(query, variables, field, ok, message, {action, done, tz, reword = (text) => text}) {
  say(message, t("setup.saving"), "info");
  let result;
  try {
    result = (await ask(query, variables))[field];
  } catch (e) {
    const known = e instanceof ApiError && e.code ? {code: e.code, message: e.message} : null;
    say(message, t("setup.refused", {action, reason: known ? reason(known) : sentence(e.message)}), "error");
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

/** What the owner typed in the screen's forms (those with a data-testid), by form and control name. */
export function formValues(root) {
  const values = {};
  for (const el of root.querySelectorAll("form[data-testid] [name]")) {
    const key = `${el.closest("form").dataset.testid}|${el.name}`;
    values[key] = el.type === "checkbox" ? el.checked : el.value;
  }
  return values;
}

/** Put back what formValues read (a select only to an option it still has); dependent parts follow its change. */
export function restoreValues(root, values) {
  for (const el of root.querySelectorAll("form[data-testid] [name]")) {
    const key = `${el.closest("form").dataset.testid}|${el.name}`;
    if (!(key in values)) continue;
    if (el.type === "checkbox") el.checked = values[key];
    else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === values[key])) el.value = values[key];
    if (el.tagName === "SELECT") el.dispatchEvent(new Event("change"));
  }
}
