// Issue 34, item 10: pieces and the last-move mark readable on every square colour. The
// colours are read from public/style.css, so the check follows the style sheet. A piece is
// seen by whichever of its two colours (body, outline) stands out from the square: at
// least 3:1 (WCAG 1.4.11, graphical objects) on every square, under the last-move tint too;
// the last-move mark's frame at least 3:1 against every square and the tint it frames.
// No browser: the figures are WCAG's relative luminance, printed for the record.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./support.mjs";

const css = readFileSync(join(ROOT, "public/style.css"), "utf8");
const rule = (selector) => {
  const i = css.indexOf(`${selector} {`);
  assert.ok(i >= 0, `style.css has no rule ${selector}`);
  return css.slice(i, css.indexOf("}", i));
};
const cssVar = (name) => new RegExp(`--${name}:\\s*(#[0-9a-f]{6})`, "i").exec(css)[1];
const lastHex = (text) => [...text.matchAll(/#[0-9a-f]{6}\b/gi)].pop()[0];

const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const lin = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
const lum = (rgb) => 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2]);
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const over = (bg, fg, alpha) => bg.map((c, i) => c * (1 - alpha) + fg[i] * alpha);

test("pieces and the last-move mark stand out at 3:1 on every square colour", () => {
  // The Electric Field's squares carry light hatching: both the square and its stripes count.
  const hatch = (c) => [hex(c), over(hex(c), [255, 255, 255], 0.3)];
  const squares = {
    light: [hex(cssVar("sq-light"))],
    dark: [hex(cssVar("sq-dark"))],
    "field light": hatch(lastHex(rule(".sq.field.light"))),
    "field dark": hatch(lastHex(rule(".sq.field.dark"))),
    "end row light": [hex(lastHex(rule(".sq.endrow.light")))],
    "end row dark": [hex(lastHex(rule(".sq.endrow.dark")))],
  };
  const last = rule(".sq.last::after");
  const tint = /background:\s*rgba\((\d+),\s*(\d+),\s*(\d+),\s*([.\d]+)\)/.exec(last);
  const tintRgb = tint.slice(1, 4).map(Number);
  const frame = hex(/box-shadow:\s*inset 0 0 0 \d+px (#[0-9a-f]{6})/i.exec(last)[1]);
  const sides = {
    South: [hex(cssVar("south-fill")), hex(cssVar("south-line"))],
    North: [hex(cssVar("north-fill")), hex(cssVar("north-line"))],
  };
  const rows = [];
  const bad = [];
  for (const [name, colours] of Object.entries(squares)) {
    for (const sq of colours) {
      const tinted = over(sq, tintRgb, Number(tint[4]));
      const row = { square: name };
      for (const [side, [fill, line]] of Object.entries(sides)) {
        const plain = Math.max(ratio(fill, sq), ratio(line, sq));
        const marked = Math.max(ratio(fill, tinted), ratio(line, tinted));
        row[side] = `${plain.toFixed(2)} (last move ${marked.toFixed(2)})`;
        if (Math.min(plain, marked) < 3) bad.push(`${side} piece on ${name}: ${Math.min(plain, marked).toFixed(2)}`);
      }
      const mark = Math.min(ratio(frame, sq), ratio(frame, tinted));
      row["last-move frame"] = mark.toFixed(2);
      if (mark < 3) bad.push(`last-move frame on ${name}: ${mark.toFixed(2)}`);
      rows.push(row);
    }
  }
  console.table(rows);
  assert.deepEqual(bad, [], "below 3:1");
});
