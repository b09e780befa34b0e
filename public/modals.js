// Modal dialogs (native <dialog>: focus trapping, Escape to close) and the texts of the
// original game's modals: Game Rules, Dev Notes, Support / contact, Player Info, Server Busy.
import { renderMarkdown } from "./markdown.js";
import { account, accountPanel, playerName } from "./account.js";
import { h } from "./ui.js";

let openCount = 0;

/**
 * Content that scrolls must be reachable by keyboard (WCAG 2.1.1): a box that scrolls (the
 * body of a long modal, a wide table or diagram) is made focusable, so that the arrow keys
 * scroll it, and only while it scrolls. Sizes are followed as the window changes.
 */
export function keyboardScrollable(box) {
  const update = () => {
    const scrolls = box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1;
    if (scrolls) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  };
  if (typeof ResizeObserver === "function") new ResizeObserver(update).observe(box);
  update();
  return update;
}

/**
 * Open a modal. actions: [{label, value, kind: "primary"|"danger"|undefined}].
 * Resolves with the chosen action's value, or null when dismissed (Escape, ×, backdrop).
 */
export function openModal({ title, body, actions = [{ label: "Close", value: null, kind: "primary" }], wide = false, id }) {
  return new Promise((resolve) => {
    const dlg = document.createElement("dialog");
    dlg.className = "modal" + (wide ? " wide" : "");
    if (id) dlg.id = id;
    const hid = `modal-title-${++openCount}`;
    dlg.setAttribute("aria-labelledby", hid);
    dlg.innerHTML = `<div class="modal-head"><h2 id="${hid}"></h2><button class="icon close" type="button" aria-label="Close">×</button></div>
      <div class="modal-body"></div><div class="modal-actions"></div>`;
    dlg.querySelector("h2").textContent = title;
    const bodyEl = dlg.querySelector(".modal-body");
    if (typeof body === "string") bodyEl.innerHTML = body;
    else if (body) bodyEl.append(body);
    let result = null;
    const acts = dlg.querySelector(".modal-actions");
    for (const a of actions) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = a.label;
      b.className = a.kind || "";
      b.addEventListener("click", () => { result = a.value; dlg.close(); });
      acts.append(b);
    }
    dlg.querySelector(".close").addEventListener("click", () => dlg.close());
    dlg.addEventListener("click", (e) => { if (e.target === dlg) dlg.close(); });
    dlg.addEventListener("close", () => { dlg.remove(); resolve(result); });
    document.body.append(dlg);
    dlg.showModal();
    dlg.refreshScroll = keyboardScrollable(bodyEl);
    const primary = acts.querySelector(".primary") || acts.querySelector("button");
    if (primary && actions.length > 1) primary.focus();
  });
}

/** A yes/no confirmation; resolves true only on the confirming button. */
export async function confirmDialog(title, text, okLabel = "Yes", { danger = false } = {}) {
  const p = document.createElement("p");
  p.textContent = text;
  const v = await openModal({
    title, body: p, id: "confirm-dialog",
    actions: [{ label: "Cancel", value: false }, { label: okLabel, value: true, kind: danger ? "danger" : "primary" }],
  });
  return v === true;
}

let rulesHtml = null;
export async function showRules() {
  const body = document.createElement("div");
  body.className = "rules";
  body.innerHTML = rulesHtml || "<p>Loading the rules…</p>";
  const p = openModal({ title: "Game Rules", body, wide: true, id: "rules-dialog" });
  if (!rulesHtml) {
    try {
      const r = await fetch("/rules.md");
      if (!r.ok) throw new Error(r.status);
      rulesHtml = renderMarkdown(await r.text(), { headingOffset: 1 }).replace(/^<h2[^>]*>.*?<\/h2>/, "");
      body.innerHTML = rulesHtml;
    } catch {
      body.innerHTML = "<p>The rules could not be loaded. Please try again.</p>";
    }
  }
  body.closest("dialog")?.refreshScroll?.();
  for (const box of body.querySelectorAll(".table-wrap, pre.diagram")) keyboardScrollable(box);
  return p;
}

export function showDevNotes() {
  return openModal({
    title: "Dev Notes", wide: true, id: "devnotes-dialog",
    body: `<p>The two games I have played most in my life are CHESS and STARCRAFT, so it was natural to
      attempt to combine elements of the two. The result after much experimenting was IRON ARENA.</p>
      <p>This version of the game is a rebuild: the rules engine is written in Rust and runs on
      Cloudflare Workers, every game lives in its own Durable Object, and this browser client is plain
      JavaScript modules with hand-drawn SVG pieces &mdash; no framework, no build step.</p>
      <p>The original AI player was trained with an AlphaZero-style approach: Monte Carlo Tree Search
      guided by a compact convolutional neural network over the 9&times;9 grid. In this build the AI
      seat runs Monte Carlo Tree Search over a hand-written evaluation of the position, inside the
      request, at the difficulty you choose; the neural network is still in training.</p>
      <p>Balancing between factions has so far been done by observing AI versus AI games. Further
      adjustments will be made by reference to observed results in online human vs human matches.</p>
      <p>The music and sound effects of this version are generated in your browser with the Web Audio API.</p>`,
  });
}

export function showSupport() {
  return openModal({
    title: "Support / contact", id: "support-dialog",
    body: `<p>The intention is for IRON ARENA to be (and always remain) free to play.</p>
      <p>It may be that, further down the line, donations will be sought to cover server costs and fund
      further development.</p>
      <p>For now, if you would like to support the development of the game, please join the Iron Arena
      server on Discord.</p>`,
  });
}

/**
 * Player Info (the original game's modal): this browser's player with the badges, the
 * account panel (display name, Sign in with Discord / Sign out) and a link to the full
 * Player Info page (rating, games, match-ups, recent games).
 */
export async function showPlayerInfo() {
  const body = h("div", { class: "player-info-modal" }, h("p", { class: "loading", text: "Loading your player…" }));
  const p = openModal({ title: "Player Info", body, id: "player-dialog" });
  const me = await account.ready();
  if (!me) {
    body.replaceChildren(h("p", { class: "form-error", role: "alert", text: "Your player could not be loaded: the server could not be reached. Please try again." }));
    return p;
  }
  const head = h("p", { class: "pi-name" });
  account.follow(head, (m) => m && head.replaceChildren(playerName(m, { link: false })));
  const page = h("a", { href: `/p/${me.id}`, "data-link": true, text: "Your Player Info page: rating, games and match-ups" });
  page.addEventListener("click", () => body.closest("dialog")?.close());
  const board = h("a", { href: "/leaderboard", "data-link": true, text: "Leaderboard" });
  board.addEventListener("click", () => body.closest("dialog")?.close());
  body.replaceChildren(head, accountPanel(), h("p", { class: "pi-links" }, page, board));
  body.closest("dialog")?.refreshScroll?.();
  return p;
}

export function showServerBusy(retryAfter) {
  const extra = retryAfter ? `<p class="muted">You can try again in about ${Math.ceil(retryAfter / 60)} minute(s).</p>` : "";
  return openModal({
    title: "Server Busy", id: "busy-dialog",
    body: `<p>Sorry, the server is too busy to set up new games - please try again later. We are working on
      expanding capacity ASAP.</p>${extra}`,
  });
}
