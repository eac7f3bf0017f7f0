// Set-up: the unit's weekly opening hours (setOpeningHours), and its holidays and special hours (hoursExceptions,
// addClosedDay, setSpecialHours, removeHoursException).

import {register, t} from "./i18n.js";
import {h, say} from "./session.js";
import {ERR, HHMM, WEEKDAYS, ask, clock, dateLabel, dayName, labelled, mutate, section, statusLine}
  from "./setup_util.js";
import {addDays, today} from "./time.js";

register({
  "pt-BR": {
    "hours.save": "Salvar horários", "hours.copyMonday": "Copiar segunda-feira para todos os dias",
    "hours.undo": "Desfazer mudanças", "hours.title": "Horário de funcionamento",
    "hours.lead": "Toda semana, a não ser que um feriado ou horário especial abaixo diga outra coisa. Horários como "
      + "18:00; 24:00 é meia-noite.",
    "hours.opens": "Abre", "hours.closes": "Fecha", "hours.dayOpens": "{day} abre", "hours.dayCloses": "{day} fecha",
    "hours.removeDay": "Remover este horário de {day}", "hours.remove": "Remover", "hours.closed": "Fechado",
    "hours.more": "+ Mais horários", "hours.openDay": "+ Abrir este dia", "hours.format": "HH:MM, ex.: 18:00",
    "hours.badTime": "{day}: escreva os horários como 18:00 (24:00 é meia-noite).",
    "hours.saved.one": "Horários salvos: aberto 1 dia por semana.",
    "hours.saved.many": "Horários salvos: aberto {n} dias por semana.", "hours.saving": "salvar os horários",
    "exc.title": "Feriados e horários especiais",
    "exc.lead": "Uma data que não segue o horário da semana: fechada o dia todo, ou aberta só em alguns horários.",
    "exc.none": "Nenhum feriado ou horário especial pela frente.", "exc.wholeVenue": "A unidade inteira",
    "exc.closedAllDay": "Fechado o dia todo", "exc.open": "Aberto {windows}", "exc.whole": "Unidade inteira",
    "exc.removing": "remover {date}", "exc.removed": "{date} volta a seguir o horário da semana.",
    "exc.remove": "Remover", "exc.kindClosed": "Fechado o dia todo (feriado)", "exc.kindSpecial": "Horário especial",
    "exc.reasonExample": "ex.: Natal", "exc.add": "Adicionar uma data", "exc.date": "Data",
    "exc.what": "O que acontece", "exc.appliesTo": "Vale para", "exc.reason": "Motivo (opcional)",
    "exc.addDate": "Adicionar data", "exc.closing": "fechar {date}", "exc.closed": "{date} está fechado{why}.",
    "exc.badSpecial": "Escreva o horário especial como 10:00 e 14:00.", "exc.special": "definir o horário especial de {date}",
    "exc.specialDone": "{date} abre só {opens}–{closes}{why}.",
  },
  en: {
    "hours.save": "Save opening hours", "hours.copyMonday": "Copy Monday to every day", "hours.undo": "Undo changes",
    "hours.title": "Opening hours",
    "hours.lead": "Every week, unless a holiday or special hours below say otherwise. Times as 18:00; 24:00 is "
      + "midnight.",
    "hours.opens": "Opens", "hours.closes": "Closes", "hours.dayOpens": "{day} opens", "hours.dayCloses": "{day} closes",
    "hours.removeDay": "Remove these {day} hours", "hours.remove": "Remove", "hours.closed": "Closed",
    "hours.more": "+ More hours", "hours.openDay": "+ Open this day", "hours.format": "HH:MM, e.g. 18:00",
    "hours.badTime": "{day}: write times as 18:00 (24:00 is midnight).",
    "hours.saved.one": "Opening hours saved: open 1 day a week.",
    "hours.saved.many": "Opening hours saved: open {n} days a week.", "hours.saving": "Saving the opening hours",
    "exc.title": "Holidays and special hours",
    "exc.lead": "A date that does not follow the weekly hours: closed all day, or open only at some hours.",
    "exc.none": "No holidays or special hours ahead.", "exc.wholeVenue": "The whole venue",
    "exc.closedAllDay": "Closed all day", "exc.open": "Open {windows}", "exc.whole": "Whole venue",
    "exc.removing": "Removing {date}", "exc.removed": "{date} follows its weekly hours again.",
    "exc.remove": "Remove", "exc.kindClosed": "Closed all day (holiday)", "exc.kindSpecial": "Special hours",
    "exc.reasonExample": "e.g. Natal", "exc.add": "Add a date", "exc.date": "Date", "exc.what": "What happens",
    "exc.appliesTo": "Applies to", "exc.reason": "Reason (optional)", "exc.addDate": "Add date",
    "exc.closing": "Closing {date}", "exc.closed": "{date} is closed{why}.",
    "exc.badSpecial": "Write the special hours as 10:00 and 14:00.", "exc.special": "Special hours on {date}",
    "exc.specialDone": "{date} opens only {opens}–{closes}{why}.",
  },
});

const HOURS = `query($u: ID!) { unit(id: $u) { __typename
  ... on Unit { openingHours { weekday opensMinute closesMinute } } ... on Error { code message } } }`;
const SET_HOURS = `mutation($u: ID!, $w: [WeeklyWindowInput!]!) { setOpeningHours(unitId: $u, windows: $w) {
  __typename ... on OpeningHours { windows { weekday opens closes } } ${ERR} } }`;
const EXCEPTIONS = `query($u: ID!, $f: Date!, $t: Date!) { hoursExceptions(unitId: $u, from: $f, to: $t) {
  id date resourceId closed windows { opens closes } reason } }`;
const EXC = `__typename ... on HoursException { id date closed windows { opens closes } reason } ${ERR}`;
const CLOSE_DAY = `mutation($u: ID!, $d: Date!, $r: ID, $why: String!) {
  addClosedDay(unitId: $u, date: $d, resourceId: $r, reason: $why) { ${EXC} } }`;
const SPECIAL = `mutation($u: ID!, $d: Date!, $w: [TimeWindowInput!]!, $r: ID, $why: String!) {
  setSpecialHours(unitId: $u, date: $d, windows: $w, resourceId: $r, reason: $why) { ${EXC} } }`;
const REMOVE = `mutation($id: ID!) { removeHoursException(id: $id) { ${EXC} } }`;

/** The weekly hours, edited per weekday (a day may have several windows; none: closed). */
export class HoursPart {
  constructor(screen) {
    this.screen = screen;
    this.days = WEEKDAYS.map(() => []);
    this.dirty = false;
    this.rows = h("div", {class: "hours-rows"});
    this.message = statusLine("hours-message");
    const form = h("form", {class: "setup-form", "data-testid": "hours-form"}, this.rows,
      h("div", {class: "actions"}, h("button", {type: "submit"}, t("hours.save")),
        h("button", {type: "button", onclick: () => this.copyMonday()}, t("hours.copyMonday")),
        h("button", {type: "button", onclick: () => { this.dirty = false; this.refresh(); }}, t("hours.undo"))),
      this.message);
    form.addEventListener("submit", (e) => { e.preventDefault(); this.save(); });
    this.el = section(t("hours.title"), t("hours.lead"), "setup-hours", form);
  }

  /** The week being typed, if the owner changed it (kept through a language switch). */
  snapshot() {
    return this.dirty ? this.days.map((list) => list.map((w) => ({...w}))) : null;
  }

  restore(days) {
    this.days = days;
    this.changed();
  }

  async refresh(live = false) {
    if (live && this.dirty) return;  // never wipe what the owner is typing
    let unit;
    try {
      unit = (await ask(HOURS, {u: this.screen.unit.id})).unit;
    } catch (e) {
      return say(this.message, e.message, "error");
    }
    if (unit.__typename !== "Unit") return say(this.message, unit.message, "error");
    if (live && this.dirty) return;  // the owner started typing meanwhile
    this.days = WEEKDAYS.map(() => []);
    for (const w of unit.openingHours) {
      this.days[WEEKDAYS.indexOf(w.weekday)].push({opens: clock(w.opensMinute), closes: clock(w.closesMinute)});
    }
    this.dirty = false;
    this.render();
  }

  render() {
    this.rows.replaceChildren(...WEEKDAYS.map((day, i) => {
      const name = dayName(i);
      const windows = this.days[i].map((w, j) => h("div", {class: "window"},
        labelled(t("hours.opens"), this.timeInput(w, "opens", t("hours.dayOpens", {day: name}))),
        labelled(t("hours.closes"), this.timeInput(w, "closes", t("hours.dayCloses", {day: name}))),
        h("button", {type: "button", class: "remove", "aria-label": t("hours.removeDay", {day: name}),
          title: t("hours.remove"), onclick: () => { this.days[i].splice(j, 1); this.changed(); }}, "×")));
      return h("div", {class: "day-row", dataset: {weekday: day}},
        h("strong", {class: "day-name"}, name),
        h("div", {class: "windows"}, windows.length ? windows : h("span", {class: "tag closed"}, t("hours.closed"))),
        h("button", {type: "button", class: "add", onclick: () => {
          const last = this.days[i][this.days[i].length - 1];
          this.days[i].push(last ? {opens: last.closes, closes: "24:00"} : {opens: "08:00", closes: "23:00"});
          this.changed();
        }}, windows.length ? t("hours.more") : t("hours.openDay")));
    }));
  }

  timeInput(w, key, label) {
    return h("input", {class: "time", value: w[key], required: true, pattern: HHMM.source, inputmode: "numeric",
      maxlength: 5, size: 5, placeholder: "18:00", "aria-label": label, title: t("hours.format"),
      oninput: (e) => { w[key] = e.target.value.trim(); this.dirty = true; }});
  }

  changed() {
    this.dirty = true;
    this.render();
  }

  copyMonday() {
    this.days = this.days.map(() => this.days[0].map((w) => ({...w})));
    this.changed();
  }

  async save() {
    const windows = [];
    for (const [i, list] of this.days.entries()) {
      for (const w of list) {
        if (!HHMM.test(w.opens) || !HHMM.test(w.closes)) {
          return say(this.message, t("hours.badTime", {day: dayName(i)}), "error");
        }
        windows.push({weekday: WEEKDAYS[i], opens: w.opens, closes: w.closes});
      }
    }
    const open = new Set(windows.map((w) => w.weekday)).size;
    const done = t(open === 1 ? "hours.saved.one" : "hours.saved.many", {n: open});
    if (await mutate(SET_HOURS, {u: this.screen.unit.id, w: windows}, "setOpeningHours", "OpeningHours",
      this.message, {action: t("hours.saving"), done, tz: this.screen.tz})) await this.refresh();
  }
}

/** Holidays (closed days) and special hours of the next year, unit-wide or for one field. */
export class ExceptionsPart {
  constructor(screen) {
    this.screen = screen;
    this.list = h("div", {"data-testid": "exception-list"});
    this.message = statusLine("exceptions-message");
    this.el = section(t("exc.title"), t("exc.lead"), "setup-exceptions", this.list, this.form(), this.message);
  }

  async refresh() {
    const from = today(this.screen.tz);
    let rows;
    try {
      rows = (await ask(EXCEPTIONS, {u: this.screen.unit.id, f: from, t: addDays(from, 399)})).hoursExceptions;
    } catch (e) {
      return say(this.message, e.message, "error");
    }
    rows.sort((a, b) => a.date.localeCompare(b.date));
    this.list.replaceChildren(rows.length ? h("ul", {class: "setup-list"}, rows.map((x) => this.item(x)))
      : h("p", {class: "muted"}, t("exc.none")));
  }

  resourcesChanged() {
    const keep = this.resourceSelect.value;
    this.resourceSelect.replaceChildren(h("option", {value: ""}, t("exc.wholeVenue")),
      ...this.screen.resources.filter((r) => r.active).map((r) => h("option", {value: r.id}, r.name)));
    this.resourceSelect.value = [...this.resourceSelect.options].some((o) => o.value === keep) ? keep : "";
    this.refresh();  // the list names the fields
  }

  describe(x) {
    return x.closed ? t("exc.closedAllDay")
      : t("exc.open", {windows: x.windows.map((w) => `${w.opens}–${w.closes}`).join(", ")});
  }

  item(x) {
    const where = x.resourceId ? this.screen.resourceName(x.resourceId) : t("exc.whole");
    return h("li", {class: "setup-item", dataset: {date: x.date, closed: String(x.closed)}},
      h("div", {class: "item-main"}, h("strong", {}, dateLabel(x.date)),
        h("span", {class: `tag${x.closed ? " closed" : ""}`}, this.describe(x)),
        h("span", {class: "muted"}, ` ${where}${x.reason ? ` · ${x.reason}` : ""}`)),
      h("div", {class: "actions"}, h("button", {type: "button", onclick: () => mutate(REMOVE, {id: x.id},
        "removeHoursException", "HoursException", this.message, {action: t("exc.removing", {date: dateLabel(x.date)}),
          done: t("exc.removed", {date: dateLabel(x.date)}), tz: this.screen.tz})
        .then((ok) => ok && this.refresh())}, t("exc.remove"))));
  }

  form() {
    const date = h("input", {type: "date", name: "date", required: true, min: today(this.screen.tz)});
    const kind = h("select", {name: "kind"}, h("option", {value: "closed"}, t("exc.kindClosed")),
      h("option", {value: "special"}, t("exc.kindSpecial")));
    const opens = h("input", {class: "time", name: "opens", value: "10:00", pattern: HHMM.source, maxlength: 5,
      size: 5, inputmode: "numeric", placeholder: "10:00"});
    const closes = h("input", {class: "time", name: "closes", value: "14:00", pattern: HHMM.source, maxlength: 5,
      size: 5, inputmode: "numeric", placeholder: "14:00"});
    const hours = h("div", {class: "form-row", hidden: true}, labelled(t("hours.opens"), opens),
      labelled(t("hours.closes"), closes));
    kind.addEventListener("change", () => { hours.hidden = kind.value !== "special"; });
    this.resourceSelect = h("select", {name: "resource"}, h("option", {value: ""}, t("exc.wholeVenue")));
    const reason = h("input", {name: "reason", maxlength: 200, placeholder: t("exc.reasonExample")});
    const form = h("form", {class: "setup-form", "data-testid": "exception-form"}, h("h3", {}, t("exc.add")),
      h("div", {class: "form-row"}, labelled(t("exc.date"), date), labelled(t("exc.what"), kind)), hours,
      h("div", {class: "form-row"}, labelled(t("exc.appliesTo"), this.resourceSelect),
        labelled(t("exc.reason"), reason)),
      h("div", {class: "actions"}, h("button", {type: "submit"}, t("exc.addDate"))));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const base = {u: this.screen.unit.id, d: date.value, r: this.resourceSelect.value || null,
        why: reason.value.trim()};
      const label = dateLabel(date.value);
      const why = base.why ? ` (${base.why})` : "";
      const opts = {tz: this.screen.tz};
      let ok;
      if (kind.value === "closed") {
        ok = await mutate(CLOSE_DAY, base, "addClosedDay", "HoursException", this.message,
          {...opts, action: t("exc.closing", {date: label}), done: t("exc.closed", {date: label, why})});
      } else {
        if (!HHMM.test(opens.value) || !HHMM.test(closes.value)) {
          return say(this.message, t("exc.badSpecial"), "error");
        }
        ok = await mutate(SPECIAL, {...base, w: [{opens: opens.value, closes: closes.value}]}, "setSpecialHours",
          "HoursException", this.message, {...opts, action: t("exc.special", {date: label}),
            done: t("exc.specialDone", {date: label, opens: opens.value, closes: closes.value, why})});
      }
      if (ok) await this.refresh();
    });
    return form;
  }
}
