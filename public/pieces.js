// Piece glyphs: our own SVG drawings, one per piece type (19), in a 100×100 box.
// Classes: .pf = body (side fill + outline), .pd = detail line (outline colour),
// .pk = solid detail (outline colour), .pl = outlined line (drawn twice: outline, then fill).
// The side colours come from CSS (.side-south / .side-north).

function gear(cx, cy, ro, ri, teeth) {
  let d = "";
  const n = teeth * 4;
  for (let i = 0; i < n; i++) {
    const a = (i / n) * Math.PI * 2 - Math.PI / 2;
    const r = i % 4 < 2 ? ro : ri;
    const x = (cx + r * Math.cos(a)).toFixed(1);
    const y = (cy + r * Math.sin(a)).toFixed(1);
    d += (i ? "L" : "M") + x + " " + y;
  }
  return d + "Z";
}

// An outlined thick line: the outline colour below, the fill colour on top. The outline is
// 4.5 units wide on each side (it was 3): on a light square, a light piece drawn with thin
// lines (Sabres, Axe, Spring, Scales) is seen by its outline alone.
const line = (d, w = 7) =>
  `<path d="${d}" class="pl-o" stroke-width="${w + 9}" fill="none" stroke-linecap="round" stroke-linejoin="round"/>` +
  `<path d="${d}" class="pl-i" stroke-width="${w}" fill="none" stroke-linecap="round" stroke-linejoin="round"/>`;

const base = `<path class="pf" d="M24 90h52l-4-9H28z"/>`;
const crown = (y = 4) =>
  `<path class="pf" d="M36 ${y + 16}l-3-13 9 7 8-10 8 10 9-7-3 13z"/><circle class="pk" cx="50" cy="${y + 1}" r="2.6"/>`;

const GLYPHS = {
  // Clockwork
  cog: base + `<path class="pf" d="${gear(50, 52, 27, 20, 8)}"/><circle class="pk" cx="50" cy="52" r="7"/>`,
  gear: base + `<path class="pf" d="${gear(50, 46, 36, 28, 10)}"/><circle class="pd" cx="50" cy="46" r="18" fill="none"/>` +
    `<path class="pd" d="M50 28v36M32 46h36M37 33l26 26M63 33L37 59" fill="none"/><circle class="pk" cx="50" cy="46" r="6"/>`,
  pendulum: base + `<rect class="pf" x="30" y="8" width="40" height="9" rx="3"/>` + line("M50 16L50 56", 6) +
    `<circle class="pf" cx="50" cy="64" r="14"/><circle class="pk" cx="50" cy="64" r="4"/>` +
    `<path class="pd" d="M24 50q26 22 52 0" fill="none" stroke-dasharray="4 5"/>`,
  spring: base + line("M50 10L68 20L32 32L68 44L32 56L68 68L50 78", 9),
  hands: base + `<circle class="pf" cx="50" cy="66" r="9"/>` +
    `<path class="pf" d="M47 64L30 22l-7 3 12-18 6 20-6-2 17 40z"/>` +
    `<path class="pf" d="M52 63L70 38l-5-4 17-5-6 16-4-5-18 25z"/><circle class="pk" cx="50" cy="66" r="3.5"/>`,
  dial: base + `<circle class="pf" cx="50" cy="46" r="31"/>` +
    `<path class="pd" d="M50 19v8M50 65v8M23 46h8M69 46h8M31 27l5 5M69 27l-5 5M31 65l5-5M69 65l-5-5" fill="none"/>` +
    `<path class="pk" d="M47 47L51 24l3 23z"/><circle class="pk" cx="50" cy="46" r="4.5"/>`,
  fathertime: base + crown(3) + `<rect class="pf" x="28" y="22" width="44" height="8" rx="2"/><rect class="pf" x="28" y="72" width="44" height="8" rx="2"/>` +
    `<path class="pf" d="M33 30h34c0 14-12 18-12 21s12 7 12 21H33c0-14 12-18 12-21s-12-7-12-21z"/>` +
    `<path class="pk" d="M41 66h18l-9-9z"/>`,
  // Blades
  // A short, straight-edged blade held at an angle (a long straight sword is the Sword).
  dagger: base + `<g transform="rotate(-32 50 50)"><path class="pf" d="M50 8l9 14-2 34H43l-2-34z"/><path class="pd" d="M50 18v34" fill="none"/>` +
    `<path class="pf" d="M30 55c6 3 34 3 40 0l-3 8c-6 2-28 2-34 0z"/><rect class="pf" x="45" y="63" width="10" height="13" rx="2"/><circle class="pf" cx="50" cy="80" r="6"/><circle class="pk" cx="50" cy="80" r="2.2"/></g>`,
  // A single-bladed axe: a long handle; the head's blade flares up and down to a curved edge.
  axe: base + line("M44 86L52 8", 7) +
    `<path class="pf" d="M46 20H60C68 18 74 12 80 6C92 22 92 46 80 62C74 54 68 46 60 44H46z"/>` +
    `<path class="pd" d="M78 16C86 28 86 42 78 54" fill="none"/>` +
    `<rect class="pf" x="36" y="22" width="10" height="20" rx="2"/>`,
  sickle: base + `<path class="pf" d="M64 10C30 8 16 40 34 62c2-14 8-24 20-30 10-5 18-7 24-4-2-10-6-16-14-18z"/>` +
    line("M36 62L64 84", 7),
  sabres: base + line("M24 80C40 60 58 36 74 12", 6) + line("M76 80C60 60 42 36 26 12", 6) +
    `<path class="pf" d="M18 70l14 4-4 10zM82 70l-14 4 4 10z"/>`,
  sword: base + `<path class="pf" d="M50 4l7 10v44H43V14z"/><path class="pd" d="M50 12v44" fill="none"/>` +
    `<rect class="pf" x="28" y="57" width="44" height="8" rx="3"/><rect class="pf" x="45" y="65" width="10" height="11"/><circle class="pf" cx="50" cy="80" r="5"/>`,
  mistress: base + crown(2) + `<circle class="pf" cx="50" cy="34" r="12"/>` +
    `<path class="pf" d="M30 80c2-20 8-30 20-32 12 2 18 12 20 32z"/><path class="pd" d="M40 62l10 10 10-10" fill="none"/>`,
  // Axiom
  phial: base + `<rect class="pf" x="42" y="10" width="16" height="24" rx="2"/><rect class="pf" x="38" y="8" width="24" height="6" rx="2"/>` +
    `<path class="pf" d="M42 32h16c0 6 18 12 18 28a26 24 0 0 1-52 0c0-16 18-22 18-28z"/>` +
    `<path class="pk" d="M27 60h46a23 20 0 0 1-46 0z"/>`,
  magnet: base + `<path class="pf" d="M24 16h16v34a10 10 0 0 0 20 0V16h16v34a26 26 0 0 1-52 0z"/>` +
    `<rect class="pk" x="24" y="16" width="16" height="12"/><rect class="pk" x="60" y="16" width="16" height="12"/>`,
  torch: base + `<path class="pf" d="M40 44h20l-6 36h-8z"/><rect class="pf" x="36" y="38" width="28" height="9" rx="2"/>` +
    `<path class="pf" d="M50 4c4 10 16 14 14 26-1 6-6 9-14 9s-13-3-14-9c-1-8 6-10 8-18 2 4 4 6 6 6 2-4 2-9 0-14z"/>` +
    `<path class="pk" d="M50 22c3 5 6 7 5 11-1 3-3 4-5 4s-4-1-5-4c0-3 2-5 5-11z"/>`,
  scales: base + line("M50 14V80", 6) + line("M20 26H80", 5) +
    `<path class="pd" d="M22 28l-10 24M22 28l10 24M78 28l-10 24M78 28l10 24" fill="none"/>` +
    `<path class="pf" d="M8 52h28a14 9 0 0 1-28 0zM64 52h28a14 9 0 0 1-28 0z"/><circle class="pf" cx="50" cy="12" r="6"/>`,
  telescope: base + `<path class="pf" d="M14 46l56-30 8 15-56 30z"/><path class="pf" d="M66 12l14-7 12 22-14 7z"/>` +
    `<path class="pf" d="M10 48l8-4 6 11-8 4z"/>` + line("M48 44L34 82M48 44L62 82M48 44V80", 4),
  scientist: base + crown(0) + `<circle class="pf" cx="50" cy="34" r="14"/>` +
    `<circle class="pk" cx="44" cy="33" r="4.5"/><circle class="pk" cx="56" cy="33" r="4.5"/><path class="pd" d="M36 31h4M60 31h4" fill="none"/>` +
    `<path class="pf" d="M28 82c0-18 8-30 22-32 14 2 22 14 22 32z"/><path class="pd" d="M50 52v28M42 60h4" fill="none"/>`,
};

const BOLT = `<g class="charge" aria-hidden="true"><circle cx="82" cy="18" r="15"/><path d="M85 5l-11 16h8l-5 13 12-17h-8z"/></g>`;

/** SVG markup for a piece: {type, side, charged, name}. */
export function pieceSVG(p, { title = true } = {}) {
  const label = `${p.side === "south" ? "South" : "North"} ${p.name}${p.charged ? ", charged" : ""}`;
  return `<svg class="piece side-${p.side}${p.charged ? " charged" : ""}" viewBox="0 0 100 100" role="img" aria-label="${label}">` +
    (title ? `<title>${label}</title>` : "") + GLYPHS[p.type] + (p.charged ? BOLT : "") + `</svg>`;
}

export const PIECE_TYPES = Object.keys(GLYPHS);
