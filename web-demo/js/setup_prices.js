// Set-up: services and their price bands ("faixas": a price by weekday and time of day, each with its payment
// rule), published with setPriceBands (a new price version; holds made before keep theirs).

import {register, t} from "./i18n.js";
import {h, say} from "./session.js";
import {ERR_BASE, HHMM, WEEKDAYS, ask, dayName, dayShort, labelled, money, moneyInput, mutate, parseMoney,
  section, statusLine} from "./setup_util.js";

register({
  "pt-BR": {
    "prices.rule.FULL": "Pago integralmente (Pix)", "prices.rule.DEPOSIT_PERCENT": "Sinal, % do preço",
    "prices.rule.DEPOSIT_CENTS": "Sinal, valor fixo em R$", "prices.depositPercent": "sinal de {n}%",
    "prices.depositCents": "sinal de {amount}", "prices.full": "pago integralmente", "prices.title": "Preços",
    "prices.lead": "Cada serviço tem um preço base por horário; faixas de preço o mudam em alguns dias e horários (ex.: "
      + "noites de semana 18:00–23:00 custam mais), cada uma com a sua forma de pagamento.",
    "prices.none": "Nenhum serviço ainda.", "prices.notSold": "Fora de venda",
    "prices.base": "Preço base {price} por horário, {rule}{lengths} · versão de preço {version}",
    "prices.noBands": "Sem faixas de preço: o preço base vale em todos os horários.",
    "prices.edit": "Editar faixas de preço", "prices.noBandsSave": "Sem faixas: salvar remove todas.",
    "prices.addBand": "+ Adicionar uma faixa", "prices.save": "Salvar faixas de preço", "prices.cancel": "Cancelar",
    "prices.days": "Dias", "prices.band": "Faixa {n}", "prices.bandLabel": "Faixa {n}: {what}", "prices.remove": "Remover",
    "prices.deposit": "sinal", "prices.depositPct": "Sinal (%)", "prices.depositRs": "Sinal (R$)",
    "prices.payment": "pagamento", "prices.from": "De", "prices.to": "Até", "prices.fromL": "de", "prices.toL": "até",
    "prices.price": "Preço por horário (R$)", "prices.priceL": "preço", "prices.paymentField": "Pagamento",
    "prices.tickDay": "{at}: marque pelo menos um dia.",
    "prices.badTimes": "{at}: escreva os horários como 18:00 (24:00 é meia-noite).",
    "prices.badPrice": "{at}: escreva o preço como 250,00.",
    "prices.badPct": "{at}: o sinal é uma porcentagem inteira de 1 a 100.",
    "prices.badDeposit": "{at}: escreva o sinal como 50,00.",
    "prices.saved.one": "Faixas de preço de {name} salvas: 1 faixa, versão de preço {version}. Holds feitos antes "
      + "mantêm os seus preços.",
    "prices.saved.many": "Faixas de preço de {name} salvas: {n} faixas, versão de preço {version}. Holds feitos antes "
      + "mantêm os seus preços.",
    "prices.saving": "salvar as faixas de preço de {name}",
  },
  en: {
    "prices.rule.FULL": "Paid in full (Pix)", "prices.rule.DEPOSIT_PERCENT": "Deposit, % of the price",
    "prices.rule.DEPOSIT_CENTS": "Deposit, fixed R$", "prices.depositPercent": "deposit {n}%",
    "prices.depositCents": "deposit {amount}", "prices.full": "paid in full", "prices.title": "Prices",
    "prices.lead": "Each service has a base price per slot; price bands change it on some days and hours (e.g. "
      + "weeknights 18:00–23:00 cost more), each with how it is paid.",
    "prices.none": "No services yet.", "prices.notSold": "Not sold",
    "prices.base": "Base price {price} per slot, {rule}{lengths} · price version {version}",
    "prices.noBands": "No price bands: the base price applies at every hour.",
    "prices.edit": "Edit price bands", "prices.noBandsSave": "No bands: saving removes them all.",
    "prices.addBand": "+ Add a band", "prices.save": "Save price bands", "prices.cancel": "Cancel",
    "prices.days": "Days", "prices.band": "Band {n}", "prices.bandLabel": "Band {n}: {what}", "prices.remove": "Remove",
    "prices.deposit": "deposit", "prices.depositPct": "Deposit (%)", "prices.depositRs": "Deposit (R$)",
    "prices.payment": "payment", "prices.from": "From", "prices.to": "To", "prices.fromL": "from", "prices.toL": "to",
    "prices.price": "Price per slot (R$)", "prices.priceL": "price", "prices.paymentField": "Payment",
    "prices.tickDay": "{at}: tick at least one day.",
    "prices.badTimes": "{at}: write the times as 18:00 (24:00 is midnight).",
    "prices.badPrice": "{at}: write the price as 250.00.",
    "prices.badPct": "{at}: the deposit is a whole percentage from 1 to 100.",
    "prices.badDeposit": "{at}: write the deposit as 50.00.",
    "prices.saved.one": "Price bands of {name} saved: 1 band, price version {version}. Holds made before keep their "
      + "prices.",
    "prices.saved.many": "Price bands of {name} saved: {n} bands, price version {version}. Holds made before keep "
      + "their prices.",
    "prices.saving": "Saving the price bands of {name}",
  },
});

const SERVICES = `query($u: ID!) { services(unitId: $u, includeInactive: true) {
  id name active durationMinutes priceVersion priceCents paymentRule depositPercent depositCents
  bands { weekdays from to priceCents paymentRule depositPercent depositCents } } }`;
const SET_BANDS = `mutation($s: ID!, $b: [PriceBandInput!]!) { setPriceBands(serviceId: $s, bands: $b) {
  __typename ... on Service { id name priceVersion bands { weekdays from to priceCents } } ${ERR_BASE} } }`;
const RULES = ["FULL", "DEPOSIT_PERCENT", "DEPOSIT_CENTS"];

/** [0,1,2,3,4] → "Mon–Fri" ("Seg–Sex"); [5,6] → "Sat, Sun". */
export function weekdayText(days) {
  const sorted = [...days].sort((a, b) => a - b);
  const runs = [];
  for (const d of sorted) {
    const last = runs[runs.length - 1];
    if (last && d === last[1] + 1) last[1] = d;
    else runs.push([d, d]);
  }
  return runs.map(([a, b]) => (b - a >= 2 ? `${dayShort(a)}–${dayShort(b)}`
    : a === b ? dayShort(a) : `${dayShort(a)}, ${dayShort(b)}`)).join(", ");
}

export function ruleText(x) {
  if (x.paymentRule === "DEPOSIT_PERCENT") return t("prices.depositPercent", {n: x.depositPercent});
  if (x.paymentRule === "DEPOSIT_CENTS") return t("prices.depositCents", {amount: money(x.depositCents)});
  return t("prices.full");
}

export class PricesPart {
  constructor(screen) {
    this.screen = screen;
    this.list = h("div", {"data-testid": "service-list"});
    this.message = statusLine("prices-message");
    this.editing = null;  // the service id whose bands are being edited
    this.draft = null;  // its bands as being edited
    this.el = section(t("prices.title"), t("prices.lead"), "setup-prices", this.message, this.list);
  }

  /** The bands being edited (kept through a language switch; amounts typed are re-read when saved). */
  snapshot() {
    return this.editing && this.draft ? {editing: this.editing, bands: this.draft} : null;
  }

  restore({editing, bands}) {
    if (!(this.services || []).some((s) => s.id === editing)) return;
    this.editing = editing;
    this.kept = bands;
    this.render();
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
      : h("p", {class: "muted"}, t("prices.none")));
  }

  item(s) {
    const lengths = s.durationMinutes && s.durationMinutes.length ? ` · ${s.durationMinutes.join(", ")} min` : "";
    return h("li", {class: `setup-item service${s.active ? "" : " inactive"}`, dataset: {serviceId: s.id}},
      h("div", {class: "item-main"}, h("strong", {}, s.name),
        s.active ? null : h("span", {class: "tag"}, t("prices.notSold")),
        h("div", {class: "muted small"}, t("prices.base", {price: money(s.priceCents), rule: ruleText(s), lengths,
          version: s.priceVersion})),
        s.bands.length ? h("ul", {class: "bands", "data-testid": "bands"}, s.bands.map((b) => h("li", {class: "band"},
          h("span", {class: "band-when"}, `${weekdayText(b.weekdays)} · ${b.from}–${b.to}`),
          h("strong", {class: "band-price"}, money(b.priceCents)), h("span", {class: "muted"}, ruleText(b)))))
          : h("p", {class: "muted small"}, t("prices.noBands"))),
      this.editing === s.id ? this.editor(s)
        : h("div", {class: "actions"}, h("button", {type: "button", onclick: () => { this.editing = s.id; this.render(); }},
          t("prices.edit"))));
  }

  editor(s) {
    const bands = this.kept || s.bands.map((b) => ({...b, weekdays: [...b.weekdays]}));
    this.kept = null;
    this.draft = bands;
    const rows = h("div", {class: "band-rows"});
    const draw = () => rows.replaceChildren(...bands.map((b, i) => this.bandRow(b, i, () => {
      bands.splice(i, 1);
      draw();
    })), bands.length ? "" : h("p", {class: "muted small"}, t("prices.noBandsSave")));
    draw();
    const form = h("form", {class: "setup-form band-editor", "data-testid": "band-editor"}, rows,
      h("div", {class: "actions"},
        h("button", {type: "button", onclick: () => {
          bands.push({weekdays: [0, 1, 2, 3, 4], from: "18:00", to: "23:00", priceCents: s.priceCents,
            paymentRule: "FULL", depositPercent: null, depositCents: null});
          draw();
        }}, t("prices.addBand")),
        h("button", {type: "submit"}, t("prices.save")),
        h("button", {type: "button", onclick: () => { this.editing = null; this.render(); }}, t("prices.cancel"))));
    form.addEventListener("submit", (e) => { e.preventDefault(); this.save(s, bands); });
    return form;
  }

  bandRow(b, i, remove) {
    const n = i + 1;
    const label = (what) => t("prices.bandLabel", {n, what});
    const days = h("fieldset", {class: "weekdays"}, h("legend", {}, t("prices.days")), WEEKDAYS.map((_, k) => h("label",
      {class: "day-chip", title: dayName(k)}, h("input", {type: "checkbox", checked: b.weekdays.includes(k),
        "aria-label": label(dayName(k)), onchange: (e) => {
          b.weekdays = e.target.checked ? [...b.weekdays, k].sort() : b.weekdays.filter((x) => x !== k);
        }}), dayShort(k))));
    const text = (value, what, set, extra = {}) => h("input", {value, "aria-label": label(what),
      oninput: (e) => set(e.target.value.trim()), ...extra});
    const timeAttrs = {class: "time", pattern: HHMM.source, maxlength: 5, size: 5, inputmode: "numeric",
      required: true};
    const amountLabel = h("span", {class: "field-label"}, "");
    const amount = text("", t("prices.deposit"), (v) => { b.amountText = v; }, {inputmode: "decimal", size: 8});
    const amountField = h("label", {class: "field"}, amountLabel, amount);
    const showAmount = () => {
      amountField.hidden = b.paymentRule === "FULL";
      amountLabel.textContent = t(b.paymentRule === "DEPOSIT_PERCENT" ? "prices.depositPct" : "prices.depositRs");
      amount.value = b.amountText ?? (b.paymentRule === "DEPOSIT_PERCENT" ? String(b.depositPercent ?? 50)
        : moneyInput(b.depositCents ?? Math.round(b.priceCents / 2)));
      b.amountText = amount.value;
      amount.setAttribute("aria-label", label(amountLabel.textContent));
    };
    const rule = h("select", {"aria-label": label(t("prices.payment")), onchange: (e) => {
      b.paymentRule = e.target.value;
      b.amountText = null;
      showAmount();
    }}, RULES.map((v) => h("option", {value: v, selected: v === b.paymentRule}, t(`prices.rule.${v}`))));
    showAmount();
    return h("div", {class: "band-row", dataset: {band: String(i)}},
      h("div", {class: "band-head"}, h("strong", {}, t("prices.band", {n})),
        h("button", {type: "button", class: "link", onclick: remove}, t("prices.remove"))),
      days,
      h("div", {class: "form-row"},
        labelled(t("prices.from"), text(b.from, t("prices.fromL"), (v) => { b.from = v; }, timeAttrs)),
        labelled(t("prices.to"), text(b.to, t("prices.toL"), (v) => { b.to = v; }, timeAttrs)),
        labelled(t("prices.price"), text(b.priceText ?? moneyInput(b.priceCents), t("prices.priceL"),
          (v) => { b.priceText = v; }, {inputmode: "decimal", size: 8, required: true})),
        labelled(t("prices.paymentField"), rule), amountField));
  }

  async save(s, bands) {
    const input = [];
    for (const [i, b] of bands.entries()) {
      const at = t("prices.band", {n: i + 1});
      if (!b.weekdays.length) return say(this.message, t("prices.tickDay", {at}), "error");
      if (!HHMM.test(b.from) || !HHMM.test(b.to)) return say(this.message, t("prices.badTimes", {at}), "error");
      const price = b.priceText != null ? parseMoney(b.priceText) : b.priceCents;
      if (price == null) return say(this.message, t("prices.badPrice", {at}), "error");
      const band = {weekdays: b.weekdays.map((k) => WEEKDAYS[k]), from: b.from, to: b.to, priceCents: price, paymentRule: b.paymentRule};
      if (b.paymentRule === "DEPOSIT_PERCENT") {
        const pct = Number(String(b.amountText).replace(",", "."));
        if (!Number.isInteger(pct) || pct < 1 || pct > 100) {
          return say(this.message, t("prices.badPct", {at}), "error");
        }
        band.depositPercent = pct;
      } else if (b.paymentRule === "DEPOSIT_CENTS") {
        const cents = parseMoney(b.amountText);
        if (cents == null) return say(this.message, t("prices.badDeposit", {at}), "error");
        band.depositCents = cents;
      }
      input.push(band);
    }
    const done = (r) => t(r.bands.length === 1 ? "prices.saved.one" : "prices.saved.many",
      {name: r.name, n: r.bands.length, version: r.priceVersion});
    const saved = await mutate(SET_BANDS, {s: s.id, b: input}, "setPriceBands", "Service", this.message,
      {action: t("prices.saving", {name: s.name}), done, tz: this.screen.tz,
        reword: (t) => t.replace(/\bband (\d+)/gi, (_, n) => `band ${Number(n) + 1}`)});  // the API counts from 0
    if (saved) {
      this.editing = null;
      await this.refresh();
    }
  }
}
