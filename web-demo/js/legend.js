// The hold types' display colours, from holdTypes(unitId): platform defaults and the organization's own.

import {gql} from "./gql.js";
import {h} from "./session.js";

const HOLD_TYPES = `query($u: ID!) { holdTypes(unitId: $u) { __typename
  ... on HoldTypeList { holdTypes { name displayName displayColor validStates } } } }`;
const FALLBACK = [
  {name: "CART", displayName: "Hold do bot", displayColor: "#F59E0B"},
  {name: "RESERVED", displayName: "Reservado", displayColor: "#6366F1"},
  {name: "WAITLIST_OFFER", displayName: "Oferta da fila", displayColor: "#14B8A6"},
];

/** Fill `el` with a chip per hold type the unit may use (the platform's three when it cannot be read). */
export async function holdTypeLegend(el, unitId, token) {
  let types = FALLBACK;
  try {
    const r = (await gql(HOLD_TYPES, {u: unitId}, token)).holdTypes;
    if (r.__typename === "HoldTypeList" && r.holdTypes.length) types = r.holdTypes;
  } catch {
    // the platform's defaults are shown
  }
  el.replaceChildren(h("span", {class: "legend-sep"}, "Hold types:"),
    ...types.map((t) => h("span", {class: "chip", dataset: {holdType: t.name}},
      h("i", {style: {background: t.displayColor}}), `${t.displayName} (${t.name})`)));
}
