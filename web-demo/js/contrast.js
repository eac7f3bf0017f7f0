// The text colour that reads on a background colour (a state's, or a hold type's configured one): black or white,
// whichever contrasts more — one of them always reaches WCAG AA (4.5:1) on any colour.

function channel(v) {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance of "#rgb" or "#rrggbb" (null for anything else). */
export function luminance(color) {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(String(color || "").trim());
  if (!m) return null;
  const hex = m[1].length === 3 ? [...m[1]].map(c => c + c).join("") : m[1];
  const [r, g, b] = [0, 2, 4].map(i => channel(parseInt(hex.slice(i, i + 2), 16)));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** "#000000" or "#ffffff" on `color`; `fallback` when the colour cannot be read. */
export function inkOn(color, fallback = "#ffffff") {
  const l = luminance(color);
  if (l == null) return fallback;
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000000" : "#ffffff";
}
