// Sound: short effects for move, capture and ability, and original background music
// generated with Web Audio (a slow minor-key clockwork ostinato over a drone). The music
// is off by default; both are mutable and remembered in localStorage.

const PREF = "ironarena.audio.v1";
const prefs = Object.assign({ music: false, sounds: true, theme: "clockwork", volume: 0.7 }, (() => {
  try { return JSON.parse(localStorage.getItem(PREF)) || {}; } catch { return {}; }
})());
const save = () => localStorage.setItem(PREF, JSON.stringify(prefs));

let ctx = null;
let master = null;
function audio() {
  if (!ctx) {
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    ctx = new AC();
    master = ctx.createGain();
    master.gain.value = 0.6;
    master.connect(ctx.destination);
  }
  if (ctx.state === "suspended") ctx.resume();
  return ctx;
}

function tone(freq, t, dur, { type = "sine", gain = 0.2, to = null, dest = master } = {}) {
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.setValueAtTime(freq, t);
  if (to) o.frequency.exponentialRampToValueAtTime(to, t + dur);
  g.gain.setValueAtTime(0.0001, t);
  g.gain.exponentialRampToValueAtTime(gain, t + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, t + dur);
  o.connect(g).connect(dest);
  o.start(t);
  o.stop(t + dur + 0.05);
}

function noise(t, dur, gain = 0.2, freq = 1200, dest = master) {
  const len = Math.floor(ctx.sampleRate * dur);
  const buf = ctx.createBuffer(1, len, ctx.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < len; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / len);
  const src = ctx.createBufferSource();
  src.buffer = buf;
  const f = ctx.createBiquadFilter();
  f.type = "bandpass";
  f.frequency.value = freq;
  const g = ctx.createGain();
  g.gain.value = gain;
  src.connect(f).connect(g).connect(dest);
  src.start(t);
}

export const sfx = {
  move() { if (prefs.sounds && audio()) { const t = ctx.currentTime; tone(660, t, 0.08, { type: "triangle", gain: 0.18 }); noise(t, 0.04, 0.15, 2500); } },
  capture() { if (prefs.sounds && audio()) { const t = ctx.currentTime; noise(t, 0.18, 0.35, 900); tone(220, t, 0.2, { type: "square", gain: 0.08, to: 110 }); } },
  ability() {
    if (prefs.sounds && audio()) {
      const t = ctx.currentTime;
      [523, 659, 784, 1047].forEach((f, i) => tone(f, t + i * 0.05, 0.18, { type: "sine", gain: 0.12 }));
      noise(t, 0.3, 0.1, 4000);
    }
  },
  end() { if (prefs.sounds && audio()) { const t = ctx.currentTime; [392, 523, 659].forEach((f) => tone(f, t, 0.9, { type: "triangle", gain: 0.08 })); } },
  error() { if (prefs.sounds && audio()) tone(160, ctx.currentTime, 0.18, { type: "sawtooth", gain: 0.06 }); },
};

// --- Music: generated themes, each a small set of rules (scale, chord progression, tempo,
// ostinato, voices), scheduled ahead with a look-ahead timer; the melody is different on
// every pass. Chosen in the Music window; the theme and the volume are remembered.
export const THEMES = [
  { id: "clockwork", name: "Clockwork", about: "A ticking ostinato in A minor over a slow drone.",
    root: 57, scale: [0, 2, 3, 5, 7, 8, 10], prog: [0, 5, 3, 4], beat: 0.3,
    pattern: [0, 2, 4, 7, 4, 2, 4, 2], lead: "triangle", bass: "sine", melody: [7, 9, 11, 8, 6], tick: true },
  { id: "blades", name: "Blades", about: "Quick and restless, D dorian, plucked square-wave bass.",
    root: 62, scale: [0, 2, 3, 5, 7, 9, 10], prog: [0, 3, 6, 4], beat: 0.2,
    pattern: [0, 4, 2, 4, 0, 5, 2, 4], lead: "square", bass: "square", melody: [7, 8, 9, 11, 4], tick: false },
  { id: "axiom", name: "Axiom", about: "Slow, bright arpeggios in C lydian.",
    root: 60, scale: [0, 2, 4, 6, 7, 9, 11], prog: [0, 1, 4, 5], beat: 0.42,
    pattern: [0, 2, 4, 6, 7, 6, 4, 2], lead: "sine", bass: "sine", melody: [9, 11, 13, 8], tick: false },
  { id: "field", name: "Electric Field", about: "A dark pulse in E phrygian.",
    root: 52, scale: [0, 1, 3, 5, 7, 8, 10], prog: [0, 1, 0, 6], beat: 0.25,
    pattern: [0, 0, 4, 0, 0, 3, 0, 1], lead: "sawtooth", bass: "triangle", melody: [7, 8, 10], tick: true },
];
let musicTimer = null;
let musicBus = null;
let nextTime = 0;
let step = 0;

function midi(n) { return 440 * Math.pow(2, (n - 69) / 12); }
function theme() { return THEMES.find((t) => t.id === prefs.theme) || THEMES[0]; }

function scheduleMusic() {
  const th = theme();
  const degree = (root, d) => root + th.scale[((d % 7) + 7) % 7] + 12 * Math.floor(d / 7);
  const beat = th.beat;
  while (nextTime < ctx.currentTime + 0.6) {
    const bar = Math.floor(step / 8) % th.prog.length;
    const chord = th.prog[bar];
    const inBar = step % 8;
    const root = th.root;
    const leadGain = th.lead === "sawtooth" || th.lead === "square" ? 0.025 : 0.05;
    tone(midi(degree(root, chord + th.pattern[inBar])), nextTime, beat * 0.9, { type: th.lead, gain: leadGain, dest: musicBus });
    if (inBar === 0) {
      tone(midi(degree(root - 24, chord)), nextTime, beat * 8, { type: th.bass, gain: th.bass === "square" ? 0.03 : 0.09, dest: musicBus });
      tone(midi(degree(root - 12, chord + 4)), nextTime, beat * 8, { type: "sine", gain: 0.03, dest: musicBus });
    }
    // A sparse melody, different on each pass.
    if ((inBar === 0 || inBar === 5) && Math.random() < 0.7) {
      const d = chord + th.melody[Math.floor(Math.random() * th.melody.length)];
      tone(midi(degree(root, d)), nextTime, beat * 2.5, { type: "sine", gain: 0.045, dest: musicBus });
    }
    if (th.tick && inBar % 2 === 1) noise(nextTime, 0.03, 0.03, 6000, musicBus);
    nextTime += beat;
    step++;
  }
}

function startMusic() {
  if (musicTimer || !audio()) return;
  musicBus = ctx.createGain();
  musicBus.gain.value = prefs.volume;
  musicBus.connect(master);
  nextTime = ctx.currentTime + 0.1;
  step = 0;
  scheduleMusic();
  musicTimer = setInterval(scheduleMusic, 150);
}
function stopMusic() {
  clearInterval(musicTimer);
  musicTimer = null;
  if (musicBus) {
    const b = musicBus;
    b.gain.setTargetAtTime(0, ctx.currentTime, 0.1);
    setTimeout(() => b.disconnect(), 600);
    musicBus = null;
  }
}

/** Browsers start audio only inside a user gesture: the first tap, click or key unlocks it. */
function unlock() {
  if (!audio()) return;
  if (prefs.music) startMusic();
  if (ctx.state === "running") {
    for (const ev of ["pointerdown", "pointerup", "keydown", "touchend"]) window.removeEventListener(ev, unlock, true);
  }
}
if (typeof window !== "undefined") {
  for (const ev of ["pointerdown", "pointerup", "keydown", "touchend"]) window.addEventListener(ev, unlock, true);
}

export const settings = {
  get music() { return prefs.music; },
  get sounds() { return prefs.sounds; },
  get theme() { return theme().id; },
  get volume() { return prefs.volume; },
  /** "running" once a gesture has unlocked audio, else "locked" (for tests and the UI). */
  get audioState() { return ctx ? ctx.state : "locked"; },
  setMusic(on) { prefs.music = on; save(); on ? startMusic() : stopMusic(); },
  setSounds(on) { prefs.sounds = on; save(); },
  setTheme(id) {
    if (!THEMES.some((t) => t.id === id)) return;
    prefs.theme = id;
    save();
    if (musicTimer) { stopMusic(); startMusic(); }
  },
  setVolume(v) {
    prefs.volume = Math.max(0, Math.min(1, Number(v)));
    save();
    if (musicBus) musicBus.gain.setTargetAtTime(prefs.volume, ctx.currentTime, 0.05);
  },
  resumeAfterGesture() { unlock(); },
};
