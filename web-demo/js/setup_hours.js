// Set-up: the unit's weekly opening hours (setOpeningHours), and its holidays and special hours (hoursExceptions,
// addClosedDay, setSpecialHours, removeHoursException).

import {h, say} from "./session.js";
import {DAY_NAMES, ERR, HHMM, WEEKDAYS, ask, clock, dateLabel, labelled, mutate, section, statusLine}
  from "./setup_util.js";
import {addDays, today} from "./time.js";

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
      h("div", {class: "actions"}, h("button", {type: "submit"}, "Save opening hours"),
        h("button", {type: "button", onclick: () => this.copyMonday()}, "Copy Monday to every day"),
        h("button", {type: "button", onclick: () => { this.dirty = false; this.refresh(); }}, "Undo changes")),
      this.message);
    form.addEventListener("submit", (e) => { e.preventDefault(); this.save(); });
    this.el = section("Opening hours", "Every week, unless a holiday or special hours below say otherwise. "
      + "Times as 18:00; 24:00 is midnight.", "setup-hours", form);
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
      const windows = this.days[i].map((w, j) => h("div", {class: "window"},
        labelled("Opens", this.timeInput(w, "opens", `${DAY_NAMES[i]} opens`)),
        labelled("Closes", this.timeInput(w, "closes", `${DAY_NAMES[i]} closes`)),
        h("button", {type: "button", class: "remove", "aria-label": `Remove these ${DAY_NAMES[i]} hours`,
          title: "Remove", onclick: () => { this.days[i].splice(j, 1); this.changed(); }}, "×")));
      return h("div", {class: "day-row", dataset: {weekday: day}},
        h("strong", {class: "day-name"}, DAY_NAMES[i]),
        h("div", {class: "windows"}, windows.length ? windows : h("span", {class: "tag closed"}, "Closed")),
        h("button", {type: "button", class: "add", onclick: () => {
          const last = this.days[i][this.days[i].length - 1];
          this.days[i].push(last ? {opens: last.closes, closes: "24:00"} : {opens: "08:00", closes: "23:00"});
          this.changed();
        }}, windows.length ? "+ More hours" : "+ Open this day"));
    }));
  }

  timeInput(w, key, label) {
    return h("input", {class: "time", value: w[key], required: true, pattern: HHMM.source, inputmode: "numeric",
      maxlength: 5, size: 5, placeholder: "18:00", "aria-label": label, title: "HH:MM, e.g. 18:00",
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
          return say(this.message, `${DAY_NAMES[i]}: write times as 18:00 (24:00 is midnight).`, "error");
        }
        windows.push({weekday: WEEKDAYS[i], opens: w.opens, closes: w.closes});
      }
    }
    const open = new Set(windows.map((w) => w.weekday)).size;
    const done = `Opening hours saved: open ${open} day${open === 1 ? "" : "s"} a week.`;
    if (await mutate(SET_HOURS, {u: this.screen.unit.id, w: windows}, "setOpeningHours", "OpeningHours",
      this.message, {action: "Saving the opening hours", done, tz: this.screen.tz})) await this.refresh();
  }
}

/** Holidays (closed days) and special hours of the next year, unit-wide or for one field. */
export class ExceptionsPart {
  constructor(screen) {
    this.screen = screen;
    this.list = h("div", {"data-testid": "exception-list"});
    this.message = statusLine("exceptions-message");
    this.el = section("Holidays and special hours", "A date that does not follow the weekly hours: closed all day, "
      + "or open only at some hours.", "setup-exceptions", this.list, this.form(), this.message);
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
      : h("p", {class: "muted"}, "No holidays or special hours ahead."));
  }

  resourcesChanged() {
    const keep = this.resourceSelect.value;
    this.resourceSelect.replaceChildren(h("option", {value: ""}, "The whole venue"),
      ...this.screen.resources.filter((r) => r.active).map((r) => h("option", {value: r.id}, r.name)));
    this.resourceSelect.value = [...this.resourceSelect.options].some((o) => o.value === keep) ? keep : "";
    this.refresh();  // the list names the fields
  }

  describe(x) {
    return x.closed ? "Closed all day" : `Open ${x.windows.map((w) => `${w.opens}–${w.closes}`).join(", ")}`;
  }

  item(x) {
    const where = x.resourceId ? this.screen.resourceName(x.resourceId) : "Whole venue";
    return h("li", {class: "setup-item", dataset: {date: x.date, closed: String(x.closed)}},
      h("div", {class: "item-main"}, h("strong", {}, dateLabel(x.date)),
        h("span", {class: `tag${x.closed ? " closed" : ""}`}, this.describe(x)),
        h("span", {class: "muted"}, ` ${where}${x.reason ? ` · ${x.reason}` : ""}`)),
      h("div", {class: "actions"}, h("button", {type: "button", onclick: () => mutate(REMOVE, {id: x.id},
        "removeHoursException", "HoursException", this.message, {action: `Removing ${dateLabel(x.date)}`,
          done: `${dateLabel(x.date)} follows its weekly hours again.`, tz: this.screen.tz})
        .then((ok) => ok && this.refresh())}, "Remove")));
  }

  form() {
    const date = h("input", {type: "date", name: "date", required: true, min: today(this.screen.tz)});
    const kind = h("select", {name: "kind"}, h("option", {value: "closed"}, "Closed all day (holiday)"),
      h("option", {value: "special"}, "Special hours"));
    const opens = h("input", {class: "time", name: "opens", value: "10:00", pattern: HHMM.source, maxlength: 5,
      size: 5, inputmode: "numeric", placeholder: "10:00"});
    const closes = h("input", {class: "time", name: "closes", value: "14:00", pattern: HHMM.source, maxlength: 5,
      size: 5, inputmode: "numeric", placeholder: "14:00"});
    const hours = h("div", {class: "form-row", hidden: true}, labelled("Opens", opens), labelled("Closes", closes));
    kind.addEventListener("change", () => { hours.hidden = kind.value !== "special"; });
    this.resourceSelect = h("select", {name: "resource"}, h("option", {value: ""}, "The whole venue"));
    const reason = h("input", {name: "reason", maxlength: 200, placeholder: "e.g. Natal"});
    const form = h("form", {class: "setup-form", "data-testid": "exception-form"}, h("h3", {}, "Add a date"),
      h("div", {class: "form-row"}, labelled("Date", date), labelled("What happens", kind)), hours,
      h("div", {class: "form-row"}, labelled("Applies to", this.resourceSelect), labelled("Reason (optional)", reason)),
      h("div", {class: "actions"}, h("button", {type: "submit"}, "Add date")));
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
          {...opts, action: `Closing ${label}`, done: `${label} is closed${why}.`});
      } else {
        if (!HHMM.test(opens.value) || !HHMM.test(closes.value)) {
          return say(this.message, "Write the special hours as 10:00 and 14:00.", "error");
        }
        ok = await mutate(SPECIAL, {...base, w: [{opens: opens.value, closes: closes.value}]}, "setSpecialHours",
          "HoursException", this.message, {...opts, action: `Special hours on ${label}`,
            done: `${label} opens only ${opens.value}–${closes.value}${why}.`});
      }
      if (ok) await this.refresh();
    });
    return form;
  }
}
