// Set-up: grid blocks — a field out of sale for a range (maintenance, a tournament), and back on sale.

import {register, t} from "./i18n.js";
import {h, say} from "./session.js";
import {ERR, HHMM, ask, instant, labelled, mutate, section, statusLine, when} from "./setup_util.js";
import {addDays, hhmm, iso, localDate, today} from "./time.js";

const BLOCKS = `query($u: ID!, $f: DateTime!, $t: DateTime!) { gridBlocks(unitId: $u, from: $f, to: $t) {
  id resourceId from to reason createdBy } }`;
const BLK = `__typename ... on GridBlock { id resourceId from to reason } ${ERR}`;
const BLOCK = `mutation($r: ID!, $f: DateTime!, $t: DateTime!, $why: String!) {
  blockResource(resourceId: $r, from: $f, to: $t, reason: $why) { ${BLK} } }`;
const UNBLOCK = `mutation($b: ID!) { unblockResource(blockId: $b) { ${BLK} } }`;

register({
  "pt-BR": {
    "blocks.title": "Bloqueios", "blocks.lead": "Tire um campo de venda por um tempo — manutenção, um torneio — e "
      + "devolva-o depois. A agenda o mostra como Bloqueado.",
    "blocks.none": "Nenhum campo bloqueado daqui em diante.", "blocks.blocked": "Bloqueado",
    "blocks.unblocking": "desbloquear {name}", "blocks.unblocked": "{name} volta a ser vendido {range}.",
    "blocks.unblock": "Desbloquear", "blocks.reasonExample": "ex.: Manutenção do gramado", "blocks.add": "Bloquear um campo",
    "blocks.field": "Campo", "blocks.reason": "Motivo", "blocks.fromDay": "De (dia)", "blocks.at": "às",
    "blocks.untilDay": "Até (dia)", "blocks.block": "Bloquear", "blocks.badTimes": "Escreva os horários como 08:00 e 12:00.",
    "blocks.endAfter": "O bloqueio precisa terminar depois de começar.", "blocks.blocking": "bloquear {name}",
    "blocks.done": "{name} está bloqueado {range}{why}.",
  },
  en: {
    "blocks.title": "Blocks", "blocks.lead": "Take a field out of sale for a while — maintenance, a tournament — and put "
      + "it back. The agenda shows it as Blocked.",
    "blocks.none": "No field is blocked from now on.", "blocks.blocked": "Blocked",
    "blocks.unblocking": "Unblocking {name}", "blocks.unblocked": "{name} is back on sale {range}.",
    "blocks.unblock": "Unblock", "blocks.reasonExample": "e.g. Manutenção do gramado", "blocks.add": "Block a field",
    "blocks.field": "Field", "blocks.reason": "Reason", "blocks.fromDay": "From (day)", "blocks.at": "at",
    "blocks.untilDay": "Until (day)", "blocks.block": "Block", "blocks.badTimes": "Write the times as 08:00 and 12:00.",
    "blocks.endAfter": "The block has to end after it starts.", "blocks.blocking": "Blocking {name}",
    "blocks.done": "{name} is blocked {range}{why}.",
  },
});

export class BlocksPart {
  constructor(screen) {
    this.screen = screen;
    this.list = h("div", {"data-testid": "block-list"});
    this.message = statusLine("blocks-message");
    this.el = section(t("blocks.title"), t("blocks.lead"), "setup-blocks", this.list, this.form(), this.message);
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
      : h("p", {class: "muted"}, t("blocks.none")));
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
      h("div", {class: "item-main"}, h("strong", {}, name), h("span", {class: "tag blocked"}, t("blocks.blocked")),
        h("span", {}, ` ${this.range(b)}`), b.reason ? h("span", {class: "muted"}, ` · ${b.reason}`) : null),
      h("div", {class: "actions"}, h("button", {type: "button", onclick: async () => {
        if (await mutate(UNBLOCK, {b: b.id}, "unblockResource", "GridBlock", this.message,
          {action: t("blocks.unblocking", {name}), done: t("blocks.unblocked", {name, range: this.range(b)}),
            tz: this.screen.tz})) {
          await this.refresh();
        }
      }}, t("blocks.unblock"))));
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
    const reason = h("input", {name: "reason", maxlength: 200, size: 28, placeholder: t("blocks.reasonExample")});
    const form = h("form", {class: "setup-form", "data-testid": "block-form"}, h("h3", {}, t("blocks.add")),
      h("div", {class: "form-row"}, labelled(t("blocks.field"), this.resource), labelled(t("blocks.reason"), reason)),
      h("div", {class: "form-row"}, labelled(t("blocks.fromDay"), fromDate), labelled(t("blocks.at"), fromTime),
        labelled(t("blocks.untilDay"), toDate), labelled(t("blocks.at"), toTime)),
      h("div", {class: "actions"}, h("button", {type: "submit"}, t("blocks.block"))));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!HHMM.test(fromTime.value) || !HHMM.test(toTime.value)) {
        return say(this.message, t("blocks.badTimes"), "error");
      }
      const b = {from: iso(instant(fromDate.value, fromTime.value, tz)), to: iso(instant(toDate.value, toTime.value, tz))};
      if (b.to <= b.from) return say(this.message, t("blocks.endAfter"), "error");
      const name = this.screen.resourceName(this.resource.value);
      const why = reason.value.trim();
      if (await mutate(BLOCK, {r: this.resource.value, f: b.from, t: b.to, why}, "blockResource", "GridBlock",
        this.message, {action: t("blocks.blocking", {name}), tz,
          done: t("blocks.done", {name, range: this.range(b), why: why ? ` (${why})` : ""})})) {
        reason.value = "";
        await this.refresh();
      }
    });
    return form;
  }
}
