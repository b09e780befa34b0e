// Small inline SVG icons (no emoji: not every system has an emoji font). Decorative:
// always aria-hidden, the text next to them says what they mean.
const svg = (body, cls = "icon-svg") => `<svg class="${cls}" viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;

export const ICONS = {
  // An open book: Story.
  story: svg(`<path d="M12 6.5C10 5 7 4.6 3.5 5v13c3.5-.4 6.5 0 8.5 1.5 2-1.5 5-1.9 8.5-1.5V5C17 4.6 14 5 12 6.5z"/><path d="M12 6.5v13"/>`),
  // A small board of four squares with a piece's path: Learn the pieces.
  learn: svg(`<rect x="3.5" y="3.5" width="17" height="17" rx="1.5"/><path d="M12 3.5v17M3.5 12h17"/><path d="M7.75 16.25l8.5-8.5" stroke-dasharray="2 2"/><circle cx="16.25" cy="7.75" r="1.6"/>`),
  // A rising and falling line over an axis: Analyse a record (the evaluation graph).
  graph: svg(`<path d="M3.5 20.5h17M3.5 3.5v17"/><path d="M6 15l4-5 3 3 5-7"/>`),
  // A trophy: Leaderboard.
  trophy: svg(`<path d="M8 4h8v5a4 4 0 0 1-8 0z"/><path d="M8 6H5a3 3 0 0 0 3 4M16 6h3a3 3 0 0 1-3 4M12 13v4M8.5 20h7M10 17h4"/>`),
  // A padlock: locked.
  lock: svg(`<rect x="5.5" y="10.5" width="13" height="9.5" rx="1.8"/><path d="M8.5 10.5V8a3.5 3.5 0 0 1 7 0v2.5"/>`, "icon-svg lock"),
  // A check mark: completed.
  check: svg(`<path d="M5 12.5l4.5 4.5L19 7.5"/>`, "icon-svg check"),
  // A loudspeaker with sound waves, and struck through: the sound effects' toggle, on and off.
  soundOn: svg(`<path d="M4 9.5h3.5L12 5.5v13l-4.5-4H4z"/><path d="M15.5 9a4 4 0 0 1 0 6M18 6.5a7.5 7.5 0 0 1 0 11"/>`),
  soundOff: svg(`<path d="M4 9.5h3.5L12 5.5v13l-4.5-4H4z"/><path d="M15.5 9.5l5 5M20.5 9.5l-5 5"/>`),
  // A person: the player's profile.
  person: svg(`<circle cx="12" cy="8.5" r="3.6"/><path d="M4.8 20c.8-3.9 3.6-6 7.2-6s6.4 2.1 7.2 6"/>`),
};
