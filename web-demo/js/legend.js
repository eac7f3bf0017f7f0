// The hold types' display colours, from holdTypes(unitId): platform defaults and the organization's own. The
// platform's three keep their configured name unless it is the platform's own (Portuguese) one: then the screen's
// language names them; an organization's own names are shown as it wrote them.

import {gql} from "./gql.js";
import {register, t} from "./i18n.js";
import {h} from "./session.js";

register({
  "pt-BR": {
    "legend.holdTypes": "Tipos de hold:", "holdType.CART": "Hold do bot", "holdType.RESERVED": "Reservado",
    "holdType.WAITLIST_OFFER": "Oferta da fila",
  },
  en: {
    "legend.holdTypes": "Hold types:", "holdType.CART": "Bot hold", "holdType.RESERVED": "Reserved",
    "holdType.WAITLIST_OFFER": "Waitlist offer",
  },
});

const HOLD_TYPES = `query($u: ID!) { holdTypes(unitId: $u) { __typename
  ... on HoldTypeList { holdTypes { name displayName displayColor validStates } } } }`;
const FALLBACK = [
  {name: "CART", displayName: "Hold do bot", displayColor: "#F59E0B"},
  {name: "RESERVED", displayName: "Reservado", displayColor: "#6366F1"},
  {name: "WAITLIST_OFFER", displayName: "Oferta da fila", displayColor: "#14B8A6"},
];
const PLATFORM_NAMES = Object.fromEntries(FALLBACK.map((f) => [f.name, f.displayName]));

/** A hold type's name on screen: the platform's defaults in the screen's language, an owner's own as written. */
export function holdTypeName(name, displayName) {
  if (PLATFORM_NAMES[name] && (!displayName || displayName === PLATFORM_NAMES[name])) return t(`holdType.${name}`);
  return displayName || name;
}

/** Fill `el` with a chip per hold type the unit may use (the platform's three when it cannot be read). */
export async function holdTypeLegend(el, unitId, token) {
  let types = FALLBACK;
  try {
    const r = (await gql(HOLD_TYPES, {u: unitId}, token)).holdTypes;
    if (r.__typename === "HoldTypeList" && r.holdTypes.length) types = r.holdTypes;
  } catch {
    // the platform's defaults are shown
  }
  el.replaceChildren(h("span", {class: "legend-sep"}, t("legend.holdTypes")),
    ...types.map((type) => h("span", {class: "chip", dataset: {holdType: type.name}},
      h("i", {style: {background: type.displayColor}}), holdTypeName(type.name, type.displayName))));
}
