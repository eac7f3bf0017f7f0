// The owner's set-up screen (#/setup): fields, weekly hours, holidays and special hours, blocks, services and their
// price bands — all through the public GraphQL API, refreshed live from venueChanged.

import {follow} from "./gql.js";
import {h, say, session} from "./session.js";
import {BlocksPart} from "./setup_blocks.js";
import {ExceptionsPart, HoursPart} from "./setup_hours.js";
import {PricesPart} from "./setup_prices.js";
import {ERR, ask, labelled, mutate, section, statusLine} from "./setup_util.js";

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
    this.start();
  }

  async start() {
    let me = null;
    try {
      me = session.staffToken ? (await ask(ME)).me : null;
    } catch {
      me = null;
    }
    if (!me || !((me.kind === "STAFF" && me.role === "OWNER") || me.kind === "SYSTEM")) {
      const who = me ? `You are signed in as ${me.name} (${(me.role || me.kind).toLowerCase()}).`
        : "You are not signed in as staff.";
      this.root.replaceChildren(h("div", {class: "card", "data-testid": "setup-owners-only"},
        h("h2", {}, "Set-up"),
        h("p", {}, `Set-up is for the venue's owners: fields, opening hours, holidays, blocks and prices. ${who}`),
        h("p", {}, "Sign in with an owner's staff token on the ", h("a", {href: "#/agenda"}, "Agenda"), " page.")));
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
      h("div", {class: "setup-head"}, h("h1", {}, `Set-up · ${this.unit.name}`),
        h("p", {class: "muted"}, `Times are the venue's (${this.tz}); prices in R$. Changes show on the agenda at once.`)),
      h("div", {class: "setup-grid"},
        section("Fields", "The fields and classes customers book. A pooled one takes several bookings at once, up to "
          + "its places.", "setup-fields", this.fieldsMessage, this.fieldsEl, this.createForm()),
        parts.hours.el, parts.exceptions.el, parts.blocks.el, parts.prices.el));
    if (this.live) {
      this.stopFeed = follow(this.live, VENUE_CHANGED, {u: this.unit.id}, (e) => this.onChange(e),
        () => {});
    }
    await this.refreshFields();
    await Promise.all([parts.hours.refresh(), parts.exceptions.refresh(), parts.blocks.refresh(),
      parts.prices.refresh()]);
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
    return (this.resources.find((r) => r.id === id) || {}).name || "a field";
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
      : h("p", {class: "muted"}, "No fields yet: add the first one below."));
    for (const p of Object.values(this.parts)) p.resourcesChanged?.();
  }

  fieldItem(r) {
    const kind = r.kind === "POOLED" ? `Pooled · ${r.capacity} places` : "Exclusive";
    const item = h("li", {class: `setup-item${r.active ? "" : " inactive"}`, dataset: {resourceId: r.id, name: r.name}},
      h("div", {class: "item-main"}, h("strong", {}, r.name),
        h("span", {class: "muted"}, ` ${kind}${r.groupName ? ` · ${r.groupName}` : ""}`),
        r.active ? null : h("span", {class: "tag"}, "Inactive")),
      h("div", {class: "actions"},
        h("button", {type: "button", onclick: () => item.replaceWith(this.editForm(r))}, "Edit"),
        r.active
          ? h("button", {type: "button", class: "quiet-danger", onclick: () => this.toggle(r, DEACTIVATE,
            "deactivateResource", `Deactivating ${r.name}`, `${r.name} deactivated: it is off the grid and not for sale.`)},
          "Deactivate")
          : h("button", {type: "button", onclick: () => this.toggle(r, REACTIVATE, "reactivateResource",
            `Reactivating ${r.name}`, `${r.name} is back on the grid.`)}, "Reactivate")));
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
    const group = h("input", {name: "group", value: r.groupName || "", placeholder: "e.g. Campos"});
    const form = h("form", {class: "setup-form inline-edit", "data-testid": "edit-field"},
      labelled("Name", name), capacity ? labelled("Places", capacity) : null, labelled("Group (optional)", group),
      h("div", {class: "actions"}, h("button", {type: "submit"}, "Save"),
        h("button", {type: "button", onclick: () => this.refreshFields()}, "Cancel")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const input = {};
      if (name.value.trim() !== r.name) input.name = name.value.trim();
      if (capacity && Number(capacity.value) !== r.capacity) input.capacity = Number(capacity.value);
      const g = group.value.trim();
      if (g && g !== r.groupName) input.group = {name: g};
      if (!g && r.groupName) input.ungroup = true;
      if (!Object.keys(input).length) return this.refreshFields();
      const done = (x) => (input.name ? `${r.name} renamed to ${x.name}.` : `${x.name} saved.`)
        + (input.capacity ? ` It now has ${x.capacity} places.` : "");
      if (await mutate(UPDATE, {r: r.id, i: input}, "updateResource", "VenueResource", this.fieldsMessage,
        {action: `Changing ${r.name}`, done, tz: this.tz})) await this.refreshFields();
    });
    return h("li", {class: "setup-item editing"}, form);
  }

  createForm() {
    const name = h("input", {name: "name", required: true, maxlength: 100, placeholder: "e.g. Campo 5"});
    const kind = h("select", {name: "kind"}, h("option", {value: "EXCLUSIVE"}, "Exclusive — one booking at a time"),
      h("option", {value: "POOLED"}, "Pooled — places shared (a class)"));
    const capacity = h("input", {name: "capacity", type: "number", min: 1, max: 10000, value: 10});
    const capacityField = labelled("Places", capacity);
    capacityField.hidden = true;
    kind.addEventListener("change", () => { capacityField.hidden = kind.value !== "POOLED"; });
    const group = h("input", {name: "group", placeholder: "e.g. Campos"});
    const message = statusLine("create-field-message");
    const form = h("form", {class: "setup-form", "data-testid": "create-field"},
      h("h3", {}, "Add a field"),
      h("div", {class: "form-row"}, labelled("Name", name), labelled("Kind", kind), capacityField,
        labelled("Group (optional)", group)),
      h("div", {class: "actions"}, h("button", {type: "submit"}, "Add field")), message);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const input = {name: name.value.trim(), kind: kind.value};
      if (kind.value === "POOLED") input.capacity = Number(capacity.value);
      if (group.value.trim()) input.group = {name: group.value.trim()};
      const made = await mutate(CREATE, {u: this.unit.id, i: input}, "createResource", "VenueResource", message,
        {action: `Adding ${input.name}`, done: (r) => `${r.name} created.`, tz: this.tz});
      if (made) {
        name.value = "";
        await this.refreshFields();
      }
    });
    return form;
  }

  destroy() {
    this.stopFeed();
    clearTimeout(this.timer);
    for (const p of Object.values(this.parts)) p.destroy?.();
  }
}
