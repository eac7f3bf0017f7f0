// The customer's page of the demo (#/book): the embeddable booking widget (web-demo/widget/widget.js), mounted for
// the unit with the very script tag a venue puts in its own site (here on the API's own origin), so that there is
// one customer path — the widget — and no second booking page to keep in step with it.

import {locale} from "./i18n.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A service as the widget's data-service wants it: the API's global id (the demo's ?service= may be a raw UUID). */
function serviceRef(id) {
  if (!id || !UUID.test(id)) return id;
  return btoa(`Service:${id.toLowerCase()}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function mountWidget(root, unit, serviceId) {
  const tag = document.createElement("script");
  tag.src = "/web-demo/widget/widget.js";
  tag.dataset.unit = unit.id;
  tag.dataset.locale = locale();
  const service = serviceRef(serviceId);
  if (service) tag.dataset.service = service;
  root.replaceChildren(tag);
  return {destroy() { root.replaceChildren(); }};  // the widget lets its feed and timers go once off the page
}
