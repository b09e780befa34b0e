// This browser's player (GET /api/me; a guest session starts at the first write), badges
// as small emblems, player names with their badges, and the account panel (display name,
// Sign in with Discord / Sign out). Names and every other server text are inserted as
// text (ui.h), never as HTML.
import { api, discordSignIn } from "./api.js";
import { h, toast } from "./ui.js";

let me = null;
const listeners = new Set();
let loading = null;

function set(next) {
  me = next;
  for (const fn of [...listeners]) {
    try { fn(me); } catch (e) { console.error(e); }
  }
}

export const account = {
  /** The player, or null until loaded (or when the server could not be reached). */
  get me() { return me; },
  /**
   * Loads the player once (GET /api/me). Reading never creates a player, here as on the
   * server: a visit that only looks (a crawler, a link preview, a first look at the home
   * page) leaves no guest behind. Without a session the answer has `id: null`; the guest
   * is made by `session()`, only before a write that needs one.
   */
  ready() {
    if (!loading) {
      loading = api.me()
        .then((p) => { set(p); return p; }, (e) => { loading = null; throw e; });
    }
    return loading.catch(() => null);
  },
  /**
   * The player, starting a session (a guest) if this browser has none: before a write
   * that should be linked to the player (a new game, a join, a story stage).
   */
  async session() {
    const p = await this.ready();
    if (p && p.id) return p;
    const s = await api.session();
    loading = Promise.resolve(s);
    set(s);
    return s;
  },
  async reload() {
    const p = await api.me();
    loading = Promise.resolve(p);
    set(p);
    return p;
  },
  /** fn(me) now (if loaded) and on every change; returns the unsubscribe function. */
  subscribe(fn) {
    listeners.add(fn);
    if (me) fn(me);
    return () => listeners.delete(fn);
  },
  /** Subscribes while `node` is in the document (screens have no teardown of their own). */
  follow(node, fn) {
    let called = false;
    const off = this.subscribe((p) => {
      if (called && !node.isConnected) { off(); return; }
      called = true;
      fn(p);
    });
    return off;
  },
  async setName(name) {
    await this.session(); // naming is a write: it needs this browser's player
    const p = await api.setName(name);
    set(p);
    return p;
  },
  async signOut() {
    await api.logout();
    loading = null;
    set(await this.ready()); // no session now: the next write starts a new guest
  },
};

// --- badges

const BADGE_GLYPHS = {
  // A clock face: Master Clockmaker.
  clockwork: `<circle cx="12" cy="14.5" r="4.2" fill="none" stroke="#1b1712" stroke-width="1.4"/><path d="M12 14.5V11.6M12 14.5l2.2 1.3" stroke="#1b1712" stroke-width="1.4" stroke-linecap="round"/>`,
  // A sword: Mistress of Blades.
  blades: `<g transform="rotate(40 12 14.5)"><path d="M12 7.4l1.3 1.8v6.6h-2.6V9.2z" fill="#1b1712"/><path d="M9 16.1h6M12 16.3v2.5" stroke="#1b1712" stroke-width="1.6" stroke-linecap="round"/><circle cx="12" cy="19.7" r=".9" fill="#1b1712"/></g>`,
  // A flask: Grand Scientist.
  axiom: `<path d="M10.6 9.2h2.8M11 9.4v3l-3 5.2h8l-3-5.2v-3" fill="none" stroke="#1b1712" stroke-width="1.4" stroke-linejoin="round"/><path d="M9.4 16.2h5.2" stroke="#1b1712" stroke-width="1.2"/>`,
  other: `<path d="M12 9.4l1.5 3.1 3.4.4-2.5 2.3.7 3.4-3.1-1.7-3.1 1.7.7-3.4-2.5-2.3 3.4-.4z" fill="#1b1712"/>`,
};
const BADGE_COLOURS = { clockwork: "#e0b24f", blades: "#d9dee6", axiom: "#8fd6f2", other: "#e0b24f" };

function badgeKind(id) {
  const k = String(id).split("-")[0];
  return BADGE_GLYPHS[k] ? k : "other";
}

/** A badge emblem: class `badge`, data-badge=id, the badge's name as its label and tooltip. */
export function badgeEl(b, { locked = false } = {}) {
  const kind = badgeKind(b.id);
  const span = h("span", { class: `badge badge-${kind}${locked ? " locked" : ""}`, role: "img", "aria-label": b.name, title: b.name, dataset: { badge: b.id } });
  // Static SVG (no server text in it).
  span.innerHTML = `<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
    <path d="M6.5 1h4.2l2 6.6H8.5z" fill="#b8433b"/><path d="M17.5 1h-4.2l-2 6.6h4.2z" fill="#3f6fb5"/>
    <circle cx="12" cy="14.5" r="8.3" fill="${BADGE_COLOURS[kind]}" stroke="#1b1712" stroke-width="1.3"/>
    <circle cx="12" cy="14.5" r="6.6" fill="none" stroke="#1b1712" stroke-opacity=".35" stroke-width=".8"/>${BADGE_GLYPHS[kind]}</svg>`;
  return span;
}

/** The badges of a player, in a row (empty span when none). */
export function badgesEl(badges = []) {
  return h("span", { class: "badges" }, badges.map((b) => badgeEl(b)));
}

/**
 * A player's name with the badges next to it; a link to their Player Info page unless
 * `link` is false. `suffix` (e.g. " (you)") is added as plain text after the badges.
 */
export function playerName(p, { link = true, suffix = "" } = {}) {
  const name = p.name || "Unnamed player";
  const label = link
    ? h("a", { class: "pname", href: `/p/${p.id}`, "data-link": true, text: name })
    : h("span", { class: "pname", text: name });
  return h("span", { class: "player-name" }, label, (p.badges || []).length ? badgesEl(p.badges) : null,
    suffix ? h("span", { class: "suffix", text: suffix.trim() }) : null);
}

// --- account panel

let panelCount = 0;

export const DISCORD_UNAVAILABLE =
  "Sign in with Discord is not available on this server (no Discord application is configured). You can keep playing as a guest: your games, story progress and badges stay with this browser.";

/** Starts "Sign in with Discord"; shows why when it cannot (in `errEl`, or as a toast). */
export async function signInWithDiscord(errEl) {
  const show = (text) => {
    if (errEl) { errEl.hidden = false; errEl.textContent = text; } else toast(text, "error");
  };
  try {
    await discordSignIn();
  } catch (e) {
    show(e.code === "discord_unconfigured" ? DISCORD_UNAVAILABLE : `Sign in with Discord failed: ${e.message}`);
  }
}

/**
 * The account panel: the display name form and Sign in with Discord / Sign out. Follows
 * the player store (a change of name or sign-in shows at once).
 */
export function accountPanel() {
  const n = ++panelCount;
  const root = h("div", { class: "account-panel" });
  const input = h("input", { id: `acct-name-${n}`, name: "name", maxlength: "24", minlength: "2", autocomplete: "nickname", spellcheck: "false", "aria-describedby": `acct-name-help-${n} acct-name-err-${n}` });
  const err = h("p", { class: "form-error", id: `acct-name-err-${n}`, role: "alert", hidden: true });
  const save = h("button", { type: "submit", text: "Save name" });
  const form = h("form", { class: "name-form" },
    h("label", { for: input.id, text: "Display name" }),
    h("div", { class: "copy-row" }, input, save),
    h("p", { class: "muted small", id: `acct-name-help-${n}`, text: "2 to 24 letters, digits, spaces and - _ . '" }),
    err);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.hidden = true;
    err.textContent = "";
    save.disabled = true;
    try {
      const p = await account.setName(input.value.trim());
      toast(`Your name is now ${p.name}.`);
    } catch (ex) {
      err.hidden = false;
      err.textContent = ex.code === "invalid_name" || ex.code === "name_taken" ? `That name cannot be used: ${ex.message}.` : `The name was not saved: ${ex.message}`;
      input.focus();
    } finally {
      save.disabled = false;
    }
  });
  const discord = h("div", { class: "discord-row" });
  root.append(form, discord);
  let lastName = null;
  account.follow(root, (p) => {
    if (!p) return;
    if (p.name !== lastName && document.activeElement !== input) input.value = p.name || "";
    lastName = p.name;
    discord.replaceChildren();
    const derr = h("p", { class: "form-error", role: "alert", hidden: true });
    if (p.discord_linked) {
      discord.append(
        h("p", { class: "signed-in" }, h("span", { class: "ok-mark", "aria-hidden": "true", text: "✓ " }), "Signed in with Discord. You can play rated games."),
        h("button", {
          type: "button", class: "sign-out", text: "Sign out",
          onclick: async () => {
            try { await account.signOut(); toast("Signed out. Your next game starts a new guest player."); } catch (ex) { derr.hidden = false; derr.textContent = `Signing out failed: ${ex.message}`; }
          },
        }), derr);
    } else if (!p.discord_available) {
      // This server has no Discord application: no button that cannot work.
      discord.append(h("p", { class: "muted small guest-note", text: "You are playing as a guest: this browser keeps your games, story progress and badges." }));
    } else {
      discord.append(
        h("p", { class: "muted small", text: "You are playing as a guest: this browser keeps your games, story progress and badges. Sign in with Discord to keep them on every device and to play rated games." }),
        h("button", { type: "button", class: "primary sign-in", text: "Sign in with Discord", onclick: () => signInWithDiscord(derr) }),
        derr);
    }
  });
  return root;
}
