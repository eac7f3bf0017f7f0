// The owner's set-up screen (#/setup): fields, weekly hours, holidays and special hours, blocks, services and their
// price bands — all through the public GraphQL API, refreshed live from venueChanged. In the screen's language
// (i18n.js, pt-BR by default): a switch rebuilds the screen, keeping what the owner was typing (`kept`).

import {follow} from "./gql.js";
import {register, t} from "./i18n.js";
import {h, say, session} from "./session.js";
import {BlocksPart} from "./setup_blocks.js";
import {ExceptionsPart, HoursPart} from "./setup_hours.js";
import {PricesPart} from "./setup_prices.js";
import {ERR, ask, formValues, labelled, mutate, restoreValues, section, statusLine} from "./setup_util.js";

register({
  "pt-BR": {
    "setup.title": "Configuração", "setup.heading": "Configuração · {unit}",
    "setup.lead": "Horários no fuso da unidade ({tz}); preços em R$. As mudanças aparecem na agenda na hora.",
    "setup.ownersOnly": "A configuração é para os donos da unidade: campos, horários, feriados, bloqueios e preços. {who}",
    "setup.signedInAs": "Você entrou como {name} ({role}).", "setup.notStaff": "Você não entrou como equipe.",
    "setup.signInOwner1": "Entre com um token de equipe de dono na página ", "setup.signInOwner2": ".",
    "setup.agenda": "Agenda",
    "setup.fields": "Campos", "setup.fieldsLead": "Os campos e aulas que os clientes reservam. Um compartilhado recebe "
      + "várias reservas ao mesmo tempo, até o seu número de vagas.",
    "setup.noFields": "Nenhum campo ainda: adicione o primeiro abaixo.",
    "setup.pooledPlaces": "Compartilhado · {n} vagas", "setup.exclusive": "Exclusivo", "setup.inactive": "Inativo",
    "setup.edit": "Editar", "setup.deactivate": "Desativar", "setup.reactivate": "Reativar",
    "setup.deactivating": "desativar {name}", "setup.deactivated": "{name} desativado: saiu da grade e não é vendido.",
    "setup.reactivating": "reativar {name}", "setup.reactivated": "{name} voltou para a grade.",
    "setup.name": "Nome", "setup.places": "Vagas", "setup.group": "Grupo (opcional)", "setup.groupExample": "ex.: Campos",
    "setup.save": "Salvar", "setup.cancel": "Cancelar", "setup.changing": "alterar {name}",
    "setup.renamed": "{old} agora se chama {name}.", "setup.saved": "{name} salvo.",
    "setup.nowPlaces": " Agora tem {n} vagas.",
    "setup.fieldExample": "ex.: Campo 5", "setup.kindExclusive": "Exclusivo — uma reserva por vez",
    "setup.kindPooled": "Compartilhado — vagas divididas (uma aula)", "setup.addField": "Adicionar um campo",
    "setup.kind": "Tipo", "setup.add": "Adicionar campo", "setup.adding": "adicionar {name}",
    "setup.created": "{name} criado.",
  },
  en: {
    "setup.title": "Set-up", "setup.heading": "Set-up · {unit}",
    "setup.lead": "Times are the venue's ({tz}); prices in R$. Changes show on the agenda at once.",
    "setup.ownersOnly": "Set-up is for the venue's owners: fields, opening hours, holidays, blocks and prices. {who}",
    "setup.signedInAs": "You are signed in as {name} ({role}).", "setup.notStaff": "You are not signed in as staff.",
    "setup.signInOwner1": "Sign in with an owner's staff token on the ", "setup.signInOwner2": " page.",
    "setup.agenda": "Agenda",
    "setup.fields": "Fields", "setup.fieldsLead": "The fields and classes customers book. A pooled one takes several "
      + "bookings at once, up to its places.",
    "setup.noFields": "No fields yet: add the first one below.",
    "setup.pooledPlaces": "Pooled · {n} places", "setup.exclusive": "Exclusive", "setup.inactive": "Inactive",
    "setup.edit": "Edit", "setup.deactivate": "Deactivate", "setup.reactivate": "Reactivate",
    "setup.deactivating": "Deactivating {name}", "setup.deactivated": "{name} deactivated: it is off the grid and not "
      + "for sale.",
    "setup.reactivating": "Reactivating {name}", "setup.reactivated": "{name} is back on the grid.",
    "setup.name": "Name", "setup.places": "Places", "setup.group": "Group (optional)", "setup.groupExample": "e.g. Campos",
    "setup.save": "Save", "setup.cancel": "Cancel", "setup.changing": "Changing {name}",
    "setup.renamed": "{old} renamed to {name}.", "setup.saved": "{name} saved.",
    "setup.nowPlaces": " It now has {n} places.",
    "setup.fieldExample": "e.g. Campo 5", "setup.kindExclusive": "Exclusive — one booking at a time",
    "setup.kindPooled": "Pooled — places shared (a class)", "setup.addField": "Add a field",
    "setup.kind": "Kind", "setup.add": "Add field", "setup.adding": "Adding {name}",
    "setup.created": "{name} created.",
  },
});

const ME = `{ me { kind role name unitId } }`;
const RESOURCES = `query($u: ID!) { venueResources(unitId: $u) {
  id name kind capacity groupId groupName sort active } }`;
const RES = `__typename ... on VenueResource { id name kind capacity groupName active } ${ERR}`;
const CREATE = `mutation($u: ID!, $i: CreateResourceInput!) { createResource(unitId: $u, input: $i) { ${RES} } }`;
const UPDATE = `mutation($r: ID!, $i: UpdateResourceInput!) { updateResource(resourceId: $r, input: $i) { ${RES} } }`;
const DEACTIVATE = `mutation($r: ID!) { deactivateResource(resourceId: $r) { ${RES} } }`;
const REACTIVATE = `mutation($r: ID!) { reactivateResource(resourceId: $r) { ${RES} } }`;
const VENUE_CHANGED = `subscription($u: ID!, $since: Int) { venueChanged(unitId: $u, since: $since) {
  seq entity entityId action at } }`;

/** Which part shows what a venueChanged `entity` names. */
function partsFor(name) {
  const entity = name.toLowerCase();  // a VenueEntity (RESOURCE, CLOSED_DAY...)
  if (entity.startsWith("resource")) return ["fields", "blocks", "prices"];
  if (entity === "opening_hours") return ["hours"];
  if (/exception|closed_day|special_hours/.test(entity)) return ["exceptions"];
  if (/block/.test(entity)) return ["blocks"];
  if (/service|price/.test(entity)) return ["prices"];
  return ["fields", "hours", "exceptions", "blocks", "prices"];
}

/** The screen on show, and what it kept of the owner's typing when the language changed: the next screen of the
 * same unit (main.js rebuilds it at once) puts it back. */
let active = null;
let kept = null;
window.addEventListener("slothold:locale", () => {  // runs before main.js's listener rebuilds the screen
  kept = active ? active.snapshot() : null;
});

export class SetupScreen {
  constructor(root, unit, live) {
    this.root = root;
    this.unit = unit;
    this.tz = unit.timezone;
    this.live = live;
    this.resources = [];
    this.parts = {};
    this.stopFeed = () => {};
    this.pending = new Set();
    this.timer = null;
    this.draft = kept && kept.unitId === unit.id && Date.now() - kept.at < 10000 ? kept : null;
    kept = null;
    active = this;
    this.start();
  }

  /** What the owner is typing or editing now, to be put back by the screen that replaces this one. */
  snapshot() {
    if (!this.fieldsEl) return null;
    const editing = this.fieldsEl.querySelector("form.inline-edit");
    return {unitId: this.unit.id, at: Date.now(), values: formValues(this.root),
      fieldEdit: editing ? editing.dataset.resourceId : null,
      ...Object.fromEntries(Object.entries(this.parts).map(([name, part]) => [name, part.snapshot?.()]))};
  }

  /** Back to what the previous screen had open and typed (after a language switch). */
  restore(draft) {
    const r = draft.fieldEdit && this.resources.find((x) => x.id === draft.fieldEdit);
    const item = r && this.fieldsEl.querySelector(`li[data-resource-id="${r.id}"]`);
    if (item) item.replaceWith(this.editForm(r));
    for (const [name, part] of Object.entries(this.parts)) if (draft[name]) part.restore?.(draft[name]);
    restoreValues(this.root, draft.values);
  }

  async start() {
    let me = null;
    try {
      me = session.staffToken ? (await ask(ME)).me : null;
    } catch {
      me = null;
    }
    if (!me || !((me.kind === "STAFF" && me.role === "OWNER") || me.kind === "SYSTEM")) {
      const who = me ? t("setup.signedInAs", {name: me.name, role: t(`role.${me.role || me.kind}`)})
        : t("setup.notStaff");
      this.root.replaceChildren(h("div", {class: "card", "data-testid": "setup-owners-only"},
        h("h2", {}, t("setup.title")),
        h("p", {}, t("setup.ownersOnly", {who})),
        h("p", {}, t("setup.signInOwner1"), h("a", {href: "#/agenda"}, t("setup.agenda")), t("setup.signInOwner2"))));
      return;
    }
    this.fieldsEl = h("div", {"data-testid": "resource-list"});
    this.fieldsMessage = statusLine("fields-message");
    const parts = {
      hours: new HoursPart(this),
      exceptions: new ExceptionsPart(this),
      blocks: new BlocksPart(this),
      prices: new PricesPart(this),
    };
    this.parts = parts;
    this.root.replaceChildren(
      h("div", {class: "setup-head"}, h("h1", {}, t("setup.heading", {unit: this.unit.name})),
        h("p", {class: "muted"}, t("setup.lead", {tz: this.tz}))),
      h("div", {class: "setup-grid"},
        section(t("setup.fields"), t("setup.fieldsLead"), "setup-fields", this.fieldsMessage, this.fieldsEl,
          this.createForm()),
        parts.hours.el, parts.exceptions.el, parts.blocks.el, parts.prices.el));
    if (this.live) {
      this.stopFeed = follow(this.live, VENUE_CHANGED, {u: this.unit.id}, (e) => this.onChange(e),
        () => {});
    }
    await this.refreshFields();
    await Promise.all([parts.hours.refresh(), parts.exceptions.refresh(), parts.blocks.refresh(),
      parts.prices.refresh()]);
    if (this.draft) this.restore(this.draft);
    this.draft = null;
  }

  /** A change made anywhere (this page too): refresh the parts that show it, shortly after. */
  onChange(event) {
    for (const p of partsFor(event.entity)) this.pending.add(p);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), 200);
  }

  async flush() {
    const due = [...this.pending];
    this.pending.clear();
    if (due.includes("fields")) await this.refreshFields(true);
    await Promise.all(due.filter((p) => p !== "fields" && this.parts[p]).map((p) => this.parts[p].refresh(true)));
  }

  /** After a lost connection: read everything again (the feed resumes with `since`). */
  onReconnect() {
    for (const p of ["fields", "hours", "exceptions", "blocks", "prices"]) this.pending.add(p);
    this.flush();
  }

  resourceName(id) {
    return (this.resources.find((r) => r.id === id) || {}).name || t("setup.aField");
  }

  async refreshFields(live = false) {
    const editing = () => live && this.fieldsEl.querySelector("form.inline-edit");
    if (editing()) return;  // never wipe a field being edited
    try {
      this.resources = (await ask(RESOURCES, {u: this.unit.id})).venueResources;
    } catch (e) {
      say(this.fieldsMessage, e.message, "error");
      return;
    }
    if (editing()) return;
    this.fieldsEl.replaceChildren(this.resources.length
      ? h("ul", {class: "setup-list"}, this.resources.map((r) => this.fieldItem(r)))
      : h("p", {class: "muted"}, t("setup.noFields")));
    for (const p of Object.values(this.parts)) p.resourcesChanged?.();
  }

  fieldItem(r) {
    const kind = r.kind === "POOLED" ? t("setup.pooledPlaces", {n: r.capacity}) : t("setup.exclusive");
    const item = h("li", {class: `setup-item${r.active ? "" : " inactive"}`, dataset: {resourceId: r.id, name: r.name}},
      h("div", {class: "item-main"}, h("strong", {}, r.name),
        h("span", {class: "muted"}, ` ${kind}${r.groupName ? ` · ${r.groupName}` : ""}`),
        r.active ? null : h("span", {class: "tag"}, t("setup.inactive"))),
      h("div", {class: "actions"},
        h("button", {type: "button", onclick: () => item.replaceWith(this.editForm(r))}, t("setup.edit")),
        r.active
          ? h("button", {type: "button", class: "quiet-danger", onclick: () => this.toggle(r, DEACTIVATE,
            "deactivateResource", t("setup.deactivating", {name: r.name}), t("setup.deactivated", {name: r.name}))},
          t("setup.deactivate"))
          : h("button", {type: "button", onclick: () => this.toggle(r, REACTIVATE, "reactivateResource",
            t("setup.reactivating", {name: r.name}), t("setup.reactivated", {name: r.name}))}, t("setup.reactivate"))));
    return item;
  }

  async toggle(r, query, field, action, done) {
    if (await mutate(query, {r: r.id}, field, "VenueResource", this.fieldsMessage, {action, done, tz: this.tz})) {
      await this.refreshFields();
    }
  }

  editForm(r) {
    const name = h("input", {name: "name", value: r.name, required: true, maxlength: 100});
    const capacity = r.kind === "POOLED" ? h("input", {name: "capacity", type: "number", min: 1, max: 10000,
      value: r.capacity, required: true}) : null;
    const group = h("input", {name: "group", value: r.groupName || "", placeholder: t("setup.groupExample")});
    const form = h("form", {class: "setup-form inline-edit", "data-testid": "edit-field", dataset: {resourceId: r.id}},
      labelled(t("setup.name"), name), capacity ? labelled(t("setup.places"), capacity) : null,
      labelled(t("setup.group"), group),
      h("div", {class: "actions"}, h("button", {type: "submit"}, t("setup.save")),
        h("button", {type: "button", onclick: () => this.refreshFields()}, t("setup.cancel"))));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const input = {};
      if (name.value.trim() !== r.name) input.name = name.value.trim();
      if (capacity && Number(capacity.value) !== r.capacity) input.capacity = Number(capacity.value);
      const g = group.value.trim();
      if (g && g !== r.groupName) input.group = {name: g};
      if (!g && r.groupName) input.ungroup = true;
      if (!Object.keys(input).length) return this.refreshFields();
      const done = (x) => (input.name ? t("setup.renamed", {old: r.name, name: x.name}) : t("setup.saved", {name: x.name}))
        + (input.capacity ? t("setup.nowPlaces", {n: x.capacity}) : "");
      if (await mutate(UPDATE, {r: r.id, i: input}, "updateResource", "VenueResource", this.fieldsMessage,
        {action: t("setup.changing", {name: r.name}), done, tz: this.tz})) await this.refreshFields();
    });
    return h("li", {class: "setup-item editing"}, form);
  }

  createForm() {
    const name = h("input", {name: "name", required: true, maxlength: 100, placeholder: t("setup.fieldExample")});
    const kind = h("select", {name: "kind"}, h("option", {value: "EXCLUSIVE"}, t("setup.kindExclusive")),
      h("option", {value: "POOLED"}, t("setup.kindPooled")));
    const capacity = h("input", {name: "capacity", type: "number", min: 1, max: 10000, value: 10});
    const capacityField = labelled(t("setup.places"), capacity);
    capacityField.hidden = true;
    kind.addEventListener("change", () => { capacityField.hidden = kind.value !== "POOLED"; });
    const group = h("input", {name: "group", placeholder: t("setup.groupExample")});
    const message = statusLine("create-field-message");
    const form = h("form", {class: "setup-form", "data-testid": "create-field"},
      h("h3", {}, t("setup.addField")),
      h("div", {class: "form-row"}, labelled(t("setup.name"), name), labelled(t("setup.kind"), kind), capacityField,
        labelled(t("setup.group"), group)),
      h("div", {class: "actions"}, h("button", {type: "submit"}, t("setup.add"))), message);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const input = {name: name.value.trim(), kind: kind.value};
      if (kind.value === "POOLED") input.capacity = Number(capacity.value);
      if (group.value.trim()) input.group = {name: group.value.trim()};
      const made = await mutate(CREATE, {u: this.unit.id, i: input}, "createResource", "VenueResource", message,
        {action: t("setup.adding", {name: input.name}), done: (r) => t("setup.created", {name: r.name}), tz: this.tz});
      if (made) {
        name.value = "";
        await this.refreshFields();
      }
    });
    return form;
  }

  destroy() {
    if (active === this) active = null;
    this.stopFeed();
    clearTimeout(this.timer);
    for (const p of Object.values(this.parts)) p.destroy?.();
  }
}
