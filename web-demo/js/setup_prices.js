// Set-up: services and their price bands ("faixas": a price by weekday and time of day, each with its payment
// rule), published with setPriceBands (a new price version; holds made before keep theirs).

import {h, say} from "./session.js";
import {DAY_NAMES, DAY_SHORT, ERR_BASE, HHMM, WEEKDAYS, ask, labelled, money, moneyInput, mutate, parseMoney,
  section, statusLine} from "./setup_util.js";

const SERVICES = `query($u: ID!) { services(unitId: $u, includeInactive: true) {
  id name active durationMinutes priceVersion priceCents paymentRule depositPercent depositCents
  bands { weekdays from to priceCents paymentRule depositPercent depositCents } } }`;
const SET_BANDS = `mutation($s: ID!, $b: [PriceBandInput!]!) { setPriceBands(serviceId: $s, bands: $b) {
  __typename ... on Service { id name priceVersion bands { weekdays from to priceCents } } ${ERR_BASE} } }`;
const RULES = [["FULL", "Paid in full (Pix)"], ["DEPOSIT_PERCENT", "Deposit, % of the price"],
  ["DEPOSIT_CENTS", "Deposit, fixed R$"]];

/** [0,1,2,3,4] → "Mon–Fri"; [5,6] → "Sat, Sun". */
export function weekdayText(days) {
  const sorted = [...days].sort((a, b) => a - b);
  const runs = [];
  for (const d of sorted) {
    const last = runs[runs.length - 1];
    if (last && d === last[1] + 1) last[1] = d;
    else runs.push([d, d]);
  }
  return runs.map(([a, b]) => (b - a >= 2 ? `${DAY_SHORT[a]}–${DAY_SHORT[b]}`
    : a === b ? DAY_SHORT[a] : `${DAY_SHORT[a]}, ${DAY_SHORT[b]}`)).join(", ");
}

export function ruleText(x) {
  if (x.paymentRule === "DEPOSIT_PERCENT") return `deposit ${x.depositPercent}%`;
  if (x.paymentRule === "DEPOSIT_CENTS") return `deposit ${money(x.depositCents)}`;
  return "paid in full";
}

export class PricesPart {
  constructor(screen) {
    this.screen = screen;
    this.list = h("div", {"data-testid": "service-list"});
    this.message = statusLine("prices-message");
    this.editing = null;  // the service id whose bands are being edited
    this.el = section("Prices", "Each service has a base price per slot; price bands change it on some days and "
      + "hours (e.g. weeknights 18:00–23:00 cost more), each with how it is paid.", "setup-prices",
    this.message, this.list);
  }

  async refresh(live = false) {
    if (live && this.editing) return;  // never wipe bands being edited
    let services;
    try {
      services = (await ask(SERVICES, {u: this.screen.unit.id})).services;
    } catch (e) {
      return say(this.message, e.message, "error");
    }
    if (live && this.editing) return;  // the owner opened an editor meanwhile
    // The API names weekdays (MONDAY...); the editor counts them 0 (Monday) to 6.
    this.services = services.map((s) => ({...s, bands: s.bands.map((b) => ({...b,
      weekdays: b.weekdays.map((d) => WEEKDAYS.indexOf(d))}))}));
    this.render();
  }

  render() {
    this.list.replaceChildren(this.services.length
      ? h("ul", {class: "setup-list services"}, this.services.map((s) => this.item(s)))
      : h("p", {class: "muted"}, "No services yet."));
  }

  item(s) {
    const lengths = s.durationMinutes && s.durationMinutes.length ? ` · ${s.durationMinutes.join(", ")} min` : "";
    return h("li", {class: `setup-item service${s.active ? "" : " inactive"}`, dataset: {serviceId: s.id}},
      h("div", {class: "item-main"}, h("strong", {}, s.name), s.active ? null : h("span", {class: "tag"}, "Not sold"),
        h("div", {class: "muted small"}, `Base price ${money(s.priceCents)} per slot, ${ruleText(s)}${lengths} · `
          + `price version ${s.priceVersion}`),
        s.bands.length ? h("ul", {class: "bands", "data-testid": "bands"}, s.bands.map((b) => h("li", {class: "band"},
          h("span", {class: "band-when"}, `${weekdayText(b.weekdays)} · ${b.from}–${b.to}`),
          h("strong", {class: "band-price"}, money(b.priceCents)), h("span", {class: "muted"}, ruleText(b)))))
          : h("p", {class: "muted small"}, "No price bands: the base price applies at every hour.")),
      this.editing === s.id ? this.editor(s)
        : h("div", {class: "actions"}, h("button", {type: "button", onclick: () => { this.editing = s.id; this.render(); }},
          "Edit price bands")));
  }

  editor(s) {
    const bands = s.bands.map((b) => ({...b, weekdays: [...b.weekdays]}));
    const rows = h("div", {class: "band-rows"});
    const draw = () => rows.replaceChildren(...bands.map((b, i) => this.bandRow(b, i, () => {
      bands.splice(i, 1);
      draw();
    })), bands.length ? "" : h("p", {class: "muted small"}, "No bands: saving removes them all."));
    draw();
    const form = h("form", {class: "setup-form band-editor", "data-testid": "band-editor"}, rows,
      h("div", {class: "actions"},
        h("button", {type: "button", onclick: () => {
          bands.push({weekdays: [0, 1, 2, 3, 4], from: "18:00", to: "23:00", priceCents: s.priceCents,
            paymentRule: "FULL", depositPercent: null, depositCents: null});
          draw();
        }}, "+ Add a band"),
        h("button", {type: "submit"}, "Save price bands"),
        h("button", {type: "button", onclick: () => { this.editing = null; this.render(); }}, "Cancel")));
    form.addEventListener("submit", (e) => { e.preventDefault(); this.save(s, bands); });
    return form;
  }

  bandRow(b, i, remove) {
    const n = i + 1;
    const days = h("fieldset", {class: "weekdays"}, h("legend", {}, "Days"), DAY_SHORT.map((d, k) => h("label",
      {class: "day-chip", title: DAY_NAMES[k]}, h("input", {type: "checkbox", checked: b.weekdays.includes(k),
        "aria-label": `Band ${n}: ${DAY_NAMES[k]}`, onchange: (e) => {
          b.weekdays = e.target.checked ? [...b.weekdays, k].sort() : b.weekdays.filter((x) => x !== k);
        }}), d)));
    const text = (value, label, set, extra = {}) => h("input", {value, "aria-label": `Band ${n}: ${label}`,
      oninput: (e) => set(e.target.value.trim()), ...extra});
    const timeAttrs = {class: "time", pattern: HHMM.source, maxlength: 5, size: 5, inputmode: "numeric",
      required: true};
    const amountLabel = h("span", {class: "field-label"}, "");
    const amount = text("", "deposit", (v) => { b.amountText = v; }, {inputmode: "decimal", size: 8});
    const amountField = h("label", {class: "field"}, amountLabel, amount);
    const showAmount = () => {
      amountField.hidden = b.paymentRule === "FULL";
      amountLabel.textContent = b.paymentRule === "DEPOSIT_PERCENT" ? "Deposit (%)" : "Deposit (R$)";
      amount.value = b.amountText ?? (b.paymentRule === "DEPOSIT_PERCENT" ? String(b.depositPercent ?? 50)
        : moneyInput(b.depositCents ?? Math.round(b.priceCents / 2)));
      b.amountText = amount.value;
      amount.setAttribute("aria-label", `Band ${n}: ${amountLabel.textContent}`);
    };
    const rule = h("select", {"aria-label": `Band ${n}: payment`, onchange: (e) => {
      b.paymentRule = e.target.value;
      b.amountText = null;
      showAmount();
    }}, RULES.map(([v, label]) => h("option", {value: v, selected: v === b.paymentRule}, label)));
    showAmount();
    return h("div", {class: "band-row", dataset: {band: String(i)}},
      h("div", {class: "band-head"}, h("strong", {}, `Band ${n}`),
        h("button", {type: "button", class: "link", onclick: remove}, "Remove")),
      days,
      h("div", {class: "form-row"},
        labelled("From", text(b.from, "from", (v) => { b.from = v; }, timeAttrs)),
        labelled("To", text(b.to, "to", (v) => { b.to = v; }, timeAttrs)),
        labelled("Price per slot (R$)", text(b.priceText ?? moneyInput(b.priceCents), "price", (v) => { b.priceText = v; },
          {inputmode: "decimal", size: 8, required: true})),
        labelled("Payment", rule), amountField));
  }

  async save(s, bands) {
    const input = [];
    for (const [i, b] of bands.entries()) {
      const at = `Band ${i + 1}`;
      if (!b.weekdays.length) return say(this.message, `${at}: tick at least one day.`, "error");
      if (!HHMM.test(b.from) || !HHMM.test(b.to)) {
        return say(this.message, `${at}: write the times as 18:00 (24:00 is midnight).`, "error");
      }
      const price = b.priceText != null ? parseMoney(b.priceText) : b.priceCents;
      if (price == null) return say(this.message, `${at}: write the price as 250,00.`, "error");
      const band = {weekdays: b.weekdays.map((k) => WEEKDAYS[k]), from: b.from, to: b.to, priceCents: price, paymentRule: b.paymentRule};
      if (b.paymentRule === "DEPOSIT_PERCENT") {
        const pct = Number(String(b.amountText).replace(",", "."));
        if (!Number.isInteger(pct) || pct < 1 || pct > 100) {
          return say(this.message, `${at}: the deposit is a whole percentage from 1 to 100.`, "error");
        }
        band.depositPercent = pct;
      } else if (b.paymentRule === "DEPOSIT_CENTS") {
        const cents = parseMoney(b.amountText);
        if (cents == null) return say(this.message, `${at}: write the deposit as 50,00.`, "error");
        band.depositCents = cents;
      }
      input.push(band);
    }
    const done = (r) => `Price bands of ${r.name} saved: ${r.bands.length} band${r.bands.length === 1 ? "" : "s"}, `
      + `price version ${r.priceVersion}. Holds made before keep their prices.`;
    const saved = await mutate(SET_BANDS, {s: s.id, b: input}, "setPriceBands", "Service", this.message,
      {action: `Saving the price bands of ${s.name}`, done, tz: this.screen.tz,
        reword: (t) => t.replace(/\bband (\d+)/gi, (_, n) => `band ${Number(n) + 1}`)});  // the API counts from 0
    if (saved) {
      this.editing = null;
      await this.refresh();
    }
  }
}
