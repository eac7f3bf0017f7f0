// Set-up: grid blocks — a field out of sale for a range (maintenance, a tournament), and back on sale.

import {h, say} from "./session.js";
import {ERR, HHMM, ask, instant, labelled, mutate, section, statusLine, when} from "./setup_util.js";
import {addDays, hhmm, iso, localDate, today} from "./time.js";

const BLOCKS = `query($u: ID!, $f: DateTime!, $t: DateTime!) { gridBlocks(unitId: $u, from: $f, to: $t) {
  id resourceId from to reason createdBy } }`;
const BLK = `__typename ... on GridBlock { id resourceId from to reason } ${ERR}`;
const BLOCK = `mutation($r: ID!, $f: DateTime!, $t: DateTime!, $why: String!) {
  blockResource(resourceId: $r, from: $f, to: $t, reason: $why) { ${BLK} } }`;
const UNBLOCK = `mutation($b: ID!) { unblockResource(blockId: $b) { ${BLK} } }`;

export class BlocksPart {
  constructor(screen) {
    this.screen = screen;
    this.list = h("div", {"data-testid": "block-list"});
    this.message = statusLine("blocks-message");
    this.el = section("Blocks", "Take a field out of sale for a while — maintenance, a tournament — and put it "
      + "back. The agenda shows it as Blocked.", "setup-blocks", this.list, this.form(), this.message);
  }

  /** "Thu 03 Dec 14:00–16:00", or with both days when it spans more than one. */
  range(b) {
    const tz = this.screen.tz;
    const sameDay = localDate(new Date(b.from), tz) === localDate(new Date(Date.parse(b.to) - 1), tz);
    return sameDay ? `${when(b.from, tz)}–${hhmm(b.to, tz)}` : `${when(b.from, tz)} → ${when(b.to, tz)}`;
  }

  async refresh() {
    const now = new Date();
    let rows;
    try {
      rows = (await ask(BLOCKS, {u: this.screen.unit.id, f: iso(now), t: iso(now.getTime() + 399 * 86400000)}))
        .gridBlocks;
    } catch (e) {
      return say(this.message, e.message, "error");
    }
    rows.sort((a, b) => a.from.localeCompare(b.from));
    this.list.replaceChildren(rows.length ? h("ul", {class: "setup-list"}, rows.map((b) => this.item(b)))
      : h("p", {class: "muted"}, "No field is blocked from now on."));
  }

  resourcesChanged() {
    const keep = this.resource.value;
    const active = this.screen.resources.filter((r) => r.active);
    this.resource.replaceChildren(...active.map((r) => h("option", {value: r.id}, r.name)));
    if (active.some((r) => r.id === keep)) this.resource.value = keep;
    this.refresh();
  }

  item(b) {
    const name = this.screen.resourceName(b.resourceId);
    return h("li", {class: "setup-item", dataset: {blockId: b.id, resourceId: b.resourceId}},
      h("div", {class: "item-main"}, h("strong", {}, name), h("span", {class: "tag blocked"}, "Blocked"),
        h("span", {}, ` ${this.range(b)}`), b.reason ? h("span", {class: "muted"}, ` · ${b.reason}`) : null),
      h("div", {class: "actions"}, h("button", {type: "button", onclick: async () => {
        if (await mutate(UNBLOCK, {b: b.id}, "unblockResource", "GridBlock", this.message,
          {action: `Unblocking ${name}`, done: `${name} is back on sale ${this.range(b)}.`, tz: this.screen.tz})) {
          await this.refresh();
        }
      }}, "Unblock")));
  }

  form() {
    const tz = this.screen.tz;
    const day = addDays(today(tz), 1);
    this.resource = h("select", {name: "resource", required: true});
    const fromDate = h("input", {type: "date", name: "fromDate", required: true, value: day, min: today(tz)});
    const fromTime = h("input", {class: "time", name: "fromTime", value: "08:00", required: true,
      pattern: HHMM.source, maxlength: 5, size: 5, inputmode: "numeric"});
    const toDate = h("input", {type: "date", name: "toDate", required: true, value: day, min: today(tz)});
    const toTime = h("input", {class: "time", name: "toTime", value: "12:00", required: true,
      pattern: HHMM.source, maxlength: 5, size: 5, inputmode: "numeric"});
    fromDate.addEventListener("change", () => { if (toDate.value < fromDate.value) toDate.value = fromDate.value; });
    const reason = h("input", {name: "reason", maxlength: 200, size: 28, placeholder: "e.g. Manutenção do gramado"});
    const form = h("form", {class: "setup-form", "data-testid": "block-form"}, h("h3", {}, "Block a field"),
      h("div", {class: "form-row"}, labelled("Field", this.resource), labelled("Reason", reason)),
      h("div", {class: "form-row"}, labelled("From (day)", fromDate), labelled("at", fromTime),
        labelled("Until (day)", toDate), labelled("at", toTime)),
      h("div", {class: "actions"}, h("button", {type: "submit"}, "Block")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!HHMM.test(fromTime.value) || !HHMM.test(toTime.value)) {
        return say(this.message, "Write the times as 08:00 and 12:00.", "error");
      }
      const b = {from: iso(instant(fromDate.value, fromTime.value, tz)), to: iso(instant(toDate.value, toTime.value, tz))};
      if (b.to <= b.from) return say(this.message, "The block has to end after it starts.", "error");
      const name = this.screen.resourceName(this.resource.value);
      const why = reason.value.trim();
      if (await mutate(BLOCK, {r: this.resource.value, f: b.from, t: b.to, why}, "blockResource", "GridBlock",
        this.message, {action: `Blocking ${name}`, tz,
          done: `${name} is blocked ${this.range(b)}${why ? ` (${why})` : ""}.`})) {
        reason.value = "";
        await this.refresh();
      }
    });
    return form;
  }
}
