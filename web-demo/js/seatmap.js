// Seat map of an event with live seat states (ACTIVE / LOCKED / SOLD / BLOCKED, SPEC §3 mapping).
// Placeholder until the API's seatMap(eventId) query exists.

import {h} from "./session.js";

export class SeatMapView {
  constructor(root) {
    root.replaceChildren(h("div", {class: "card"}, h("h2", {}, "Seat map"),
      h("p", {}, "Seat maps arrive with the seatMap(eventId) query; this view will show them live.")));
  }

  onReconnect() {}

  destroy() {}
}
