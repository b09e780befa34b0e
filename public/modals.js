// Modal dialogs (native <dialog>: focus trapping, Escape to close) and the texts of the
// original game's modals: Game Rules, Dev Notes, Support / contact, Player Info, Server Busy.
import { account, accountPanel, playerName } from "./account.js";
import { h } from "./ui.js";
import { FACTIONS, FACTION_NAMES, PIECES, PIECE_ORDER } from "./notation.js";
import { pieceSVG } from "./pieces.js";
import { diagramBoard } from "./board.js";
import { lessons, lessonFor } from "./learn.js";

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

/** A yes/no confirmation; resolves true only on the confirming button. `cancelLabel`
 * names the other one where "Cancel" would be ambiguous (cancelling a game). */
export async function confirmDialog(title, text, okLabel = "Yes", { danger = false, cancelLabel = "Cancel" } = {}) {
  const p = document.createElement("p");
  p.textContent = text;
  const v = await openModal({
    title, body: p, id: "confirm-dialog",
    actions: [{ label: cancelLabel, value: false }, { label: okLabel, value: true, kind: danger ? "danger" : "primary" }],
  });
  return v === true;
}

let rulesHtml = null;

/**
 * The rules as HTML, enhanced once (contents, pictures, board diagrams) and kept: public/rules.md
 * rendered at build time (crates/docs-html, run by scripts/build-web-engine.sh): its
 * headings have their ids, its title is left out. ".htm": the asset server answers a
 * "/x.html" with a redirect to "/x".
 */
async function rulesFragment() {
  if (rulesHtml) return rulesHtml;
  const r = await fetch("/rules.htm");
  if (!r.ok) throw new Error(r.status);
  const box = document.createElement("div");
  box.innerHTML = await r.text();
  enhanceRules(box);
  // A "Try it" link on each piece's row and ability's heading that has a lesson (without
  // them if the lessons cannot be loaded: the rules still can).
  tryItLinks(box, await lessons().catch(() => []));
  rulesHtml = box.innerHTML;
  return rulesHtml;
}

/** A link to a section of the rules (`#id`) scrolls within `box` (a dialog's body or the
 * page) and moves the focus there; `onJump(id)` also runs (the page keeps the address). */
function followRulesLinks(box, onJump = null) {
  box.addEventListener("click", (e) => {
    const a = e.target.closest?.("a[href^='#']");
    if (!a) return;
    const id = decodeURIComponent(a.getAttribute("href").slice(1));
    const target = document.getElementById(id);
    if (!target || !box.contains(target)) return;
    e.preventDefault();
    onJump?.(id);
    jumpTo(target);
  });
}

function jumpTo(target) {
  target.scrollIntoView({ block: "start" });
  if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
}

export async function showRules() {
  const body = document.createElement("div");
  body.className = "rules";
  body.innerHTML = rulesHtml || "<p>Loading the rules…</p>";
  const p = openModal({ title: "Game Rules", body, wide: true, id: "rules-dialog" });
  if (!rulesHtml) {
    try {
      body.innerHTML = await rulesFragment();
    } catch {
      body.innerHTML = "<p>The rules could not be loaded. Please try again.</p>";
    }
  }
  body.prepend(h("p", { class: "rules-page-link small" }, h("a", { href: "/rules", target: "_blank", text: "Open the rules as a page" }), " (every section has its own address)."));
  body.closest("dialog")?.refreshScroll?.();
  for (const box of body.querySelectorAll(".table-wrap, pre.diagram")) keyboardScrollable(box);
  // Contents and cross references: jump within the window (the page's address stays).
  followRulesLinks(body);
  // A lesson opens as a page (app.js follows the link): the window closes first.
  body.addEventListener("click", (e) => { if (e.target.closest?.(".try-it")) body.closest("dialog")?.close(); });
  return p;
}

/**
 * The rules as a page (`/rules`): a URL per section (`/rules#sickle`, `/rules#slash`), the
 * short summary first. Scrolls to the address's section once the page is in; `data-ready`
 * on the article says so (the tests wait for it).
 */
export async function showRulesPage(main) {
  const body = h("div", { class: "rules" }, h("p", { class: "loading", text: "Loading the rules…" }));
  const page = h("article", { class: "panel-card rules-page", "aria-labelledby": "rules-h" },
    h("h1", { id: "rules-h", class: "page-title", text: "How to play" }), body);
  main.replaceChildren(page);
  try {
    body.innerHTML = await rulesFragment();
  } catch {
    body.innerHTML = "<p>The rules could not be loaded. Please try again.</p>";
  }
  for (const box of body.querySelectorAll(".table-wrap, pre.diagram")) keyboardScrollable(box);
  // The address follows the section (a link to share), without reloading the page.
  followRulesLinks(body, (id) => history.pushState(null, "", `#${encodeURIComponent(id)}`));
  const id = decodeURIComponent(location.hash.slice(1));
  const target = id && document.getElementById(id);
  if (target && body.contains(target)) jumpTo(target);
  page.dataset.ready = "true";
}

/**
 * The rules page for the screen: a table of contents of its sections, each faction's pieces
 * as they look on the board (with their letters), and the board diagrams drawn with the
 * board's squares and pieces ("before" and "after" side by side where there is room, one
 * under the other on a phone).
 */
function enhanceRules(body) {
  const heads = [...body.querySelectorAll("h3")];
  const toc = h("nav", { class: "rules-toc", "aria-label": "Contents" }, h("p", { class: "eyebrow", text: "Contents" }),
    h("ol", {}, heads.map((hd) => h("li", {}, h("a", { href: `#${hd.id}`, text: hd.textContent.replace(/^\d+\.\s*/, "") })))));
  // After the short summary ("In short"): a newcomer reads that first, on one screen.
  const summary = heads.find((hd) => hd.id === "in-short");
  const afterSummary = summary && heads[heads.indexOf(summary) + 1];
  if (afterSummary) afterSummary.before(toc);
  else body.prepend(toc);
  // Each faction's section opens with its pieces' pictures.
  for (const f of FACTIONS) {
    const hd = heads.find((x) => x.textContent.replace(/^\d+\.\s*/, "").trim() === FACTION_NAMES[f]);
    if (!hd) continue;
    const list = h("ul", { class: "rules-pieces", "aria-label": `${FACTION_NAMES[f]} pieces` });
    for (const l of PIECE_ORDER[f]) {
      const p = PIECES[f][l];
      const pic = h("span", { class: "glyph", "aria-hidden": "true" });
      pic.innerHTML = pieceSVG({ ...p, side: "south", charged: false }, { title: false });
      list.append(h("li", {}, pic, h("span", {}, h("strong", { text: p.name }), h("small", { class: "muted", text: ` ${l} / ${l.toLowerCase()}` }))));
    }
    hd.after(list);
    // ... and its tables show the picture next to each piece's name.
    const names = new Map(PIECE_ORDER[f].map((l) => [PIECES[f][l].name, PIECES[f][l]]));
    for (let n = list.nextElementSibling; n && n.tagName !== "H3"; n = n.nextElementSibling) {
      for (const td of n.querySelectorAll?.("td") || []) {
        const p = names.get(td.textContent.replace(/\s*\(king\)$/, "").trim());
        if (!p) continue;
        const pic = h("span", { class: "glyph cell-glyph", "aria-hidden": "true" });
        pic.innerHTML = pieceSVG({ ...p, side: "south", charged: false }, { title: false });
        td.prepend(pic);
      }
    }
  }
  // The charge badge, pictured where the rules describe it.
  for (const li of body.querySelectorAll("li")) {
    if (!li.textContent.includes("⚡ badge")) continue;
    const pic = h("span", { class: "glyph charged-example", "aria-hidden": "true" });
    pic.innerHTML = pieceSVG({ type: "dagger", name: "Dagger", side: "south", charged: true }, { title: false });
    li.append(" ", pic);
  }
  // Board diagrams (crates/docs-html made each grid a position): drawn with the board's
  // own squares and pieces; the letter grid they came from goes.
  for (const fig of body.querySelectorAll("figure.board-diagram")) {
    const list = (v) => (v ? v.split(",") : []);
    const d = fig.dataset;
    const board = diagramBoard(d.iapn, {
      view: d.view, marks: list(d.marks), destroyed: list(d.destroyed), caption: fig.querySelector("figcaption")?.textContent || "",
    });
    fig.querySelector("pre")?.replaceWith(board);
    fig.classList.add(board.classList[2]); // its width in squares (cN) sizes the figure
  }
  // Notation examples (no board in them) wrap instead of scrolling.
  for (const pre of body.querySelectorAll("pre.diagram")) pre.classList.add("notation");
}

/** Links each rules section that a lesson teaches (a piece's table row, an ability's
 * heading) to that lesson: "Try it" (learn.js). */
function tryItLinks(body, all) {
  for (const el of body.querySelectorAll("tr[id], h4[id]")) {
    const lesson = lessonFor(all, el.id);
    const cell = el.tagName === "TR" ? el.querySelector("td") : el;
    if (!lesson || !cell) continue;
    cell.append(" ", h("a", { class: "try-it", href: `/learn/${lesson.id}`, "data-link": true, "aria-label": `Try it: the lesson ${lesson.title}`, text: "Try it" }));
  }
}

/**
 * The API for people (`/api-docs`): docs/api.md rendered at build time like the rules
 * (public/api.htm), with the machine-readable OpenAPI document linked.
 */
export async function showApiPage(main) {
  const body = h("div", { class: "rules api-doc" }, h("p", { class: "loading", text: "Loading…" }));
  main.replaceChildren(h("article", { class: "panel-card rules-page", "aria-labelledby": "api-h" },
    h("h1", { id: "api-h", class: "page-title", text: "The API" }),
    h("p", {}, "The HTTP and WebSocket API this game's pages use. For programs: the ",
      h("a", { href: "/api/openapi.json", text: "OpenAPI document" }), " (JSON)."), body));
  try {
    const r = await fetch("/api.htm");
    if (!r.ok) throw new Error(r.status);
    body.innerHTML = await r.text();
  } catch {
    body.innerHTML = "<p>This page could not be loaded. Please try again.</p>";
  }
  for (const box of body.querySelectorAll(".table-wrap, pre")) keyboardScrollable(box);
}

/**
 * Dev Notes: the original's sections (the inspiration, how it was made, the AI, balancing,
 * music), in its words where they are true of this build; where this build differs the
 * text says what it is instead (docs/client-texts.md lists each difference).
 */
export function showDevNotes() {
  return openModal({
    title: "Dev Notes", wide: true, id: "devnotes-dialog",
    body: `<h3>The inspiration</h3>
      <p>The two games I have played most in my life are CHESS and STARCRAFT, so it was natural to attempt to
      combine elements of the two. The result after much experimenting was IRON ARENA.</p>
      <h3>How it was made</h3>
      <p>The original game was vibe-coded using Open AI's GPT-Codex, accessed via Visual Studio Code, mostly
      in Python and Java Script. This version is a rebuild of it: the rules engine and the AI are written in
      Rust and compiled to WebAssembly; the server runs on Cloudflare Workers, where every game lives in its
      own Durable Object and players, stories and ratings are kept in a D1 database; this browser client is
      plain Java Script modules with hand-drawn SVG pieces. The game is hosted on Cloudflare.</p>
      <h3>The AI</h3>
      <p>The AI runs on the server for every move, with an engine chosen for each level from 1 (Beginner) to 6
      (Grandmaster). Levels 1 and 2 play in the Alpha Zero style: a small Monte Carlo Tree Search guided by an
      ONNX neural network, a compact 7&#8209;layer CNN that preserves the 9&times;9 grid (a 3&times;3 stem
      expands 22 input planes to 64 channels, followed by six 3&times;3 convolutions before the policy and value
      heads), one network for all nine match-ups, trained on the moves of the stronger levels' search. Their
      mistakes are the moves the network finds natural; level 2 also looks further down its tree with a
      hand-written evaluation.</p>
      <p>Levels 3 to 6 are an alpha-beta search that scores each position with that hand-written evaluation
      (material, mobility, danger to the king-piece, Father Time's advance and charged pieces) plus a small
      learned correction; each level searches more positions than the one below. Every level's rating, measured
      in games between the levels, is shown where you choose it.</p>
      <h3>Balancing</h3>
      <p>Balancing between factions has so far been done by observing AI versus AI games. Further adjustments
      will be made by reference to observed results in online human vs human matches.</p>
      <h3>Music</h3>
      <p>The original game's themes were composed and recorded by Toby Ma. They are not part of this build:
      the music here (several themes, chosen in the Music window) and the sound effects are generated in your
      browser.</p>`,
  });
}

/**
 * Site configuration (public/site.json): the Support modal's Discord invite and contact
 * address. Either may be empty: what is not configured is not shown.
 */
let siteConfig = null;
export async function loadSiteConfig() {
  if (!siteConfig) {
    siteConfig = fetch("/site.json", { cache: "no-store" }).then((r) => (r.ok ? r.json() : {})).catch(() => ({}));
  }
  return siteConfig;
}

export async function showSupport() {
  const cfg = await loadSiteConfig();
  const invite = typeof cfg.discord_invite === "string" && /^https:\/\//.test(cfg.discord_invite) ? cfg.discord_invite : null;
  const email = typeof cfg.contact_email === "string" && /^[^\s@<>"]+@[^\s@<>"]+$/.test(cfg.contact_email) ? cfg.contact_email : null;
  const body = h("div", {},
    h("p", { text: "The intention is for IRON ARENA to be (and always remain) free to play." }),
    h("p", { text: "It may be that, further down the line, donations will be sought to cover server costs and fund further development." }),
    invite ? h("p", {}, "For now, if you would like to support the development of the game, please join the ",
      h("a", { href: invite, class: "discord-invite", rel: "noopener", target: "_blank", text: "Iron Arena server on Discord" }), ".") : null,
    email ? h("p", {}, "You can also contact me at ", h("a", { href: `mailto:${email}`, class: "contact-email", text: email }), ".") : null);
  return openModal({ title: "Support / contact", id: "support-dialog", body });
}

/**
 * Player Info (the original game's modal): this browser's player with the badges, the
 * account panel (display name, Sign in with Discord / Sign out) and a link to the full
 * Player Info page (rating, games, match-ups, recent games).
 */
export async function showPlayerInfo() {
  const body = h("div", { class: "player-info-modal" }, h("p", { class: "loading", text: "Loading your player…" }));
  const p = openModal({ title: "Player Info", body, id: "player-dialog" });
  // The account panel edits the player (its name, sign-in): opening it starts this
  // browser's session if it has none, as any other write would.
  const me = await account.session().catch(() => null);
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

/** How long to wait, in words, from Retry-After seconds. */
export function waitWords(seconds) {
  const n = Math.max(1, Math.round(seconds));
  if (n < 90) return `${n} second${n === 1 ? "" : "s"}`;
  const m = Math.round(n / 60);
  return `${m} minute${m === 1 ? "" : "s"}`;
}

/** The original's Server Busy modal; `what` the server is too busy for (the original's
 * "to set up new games" unless a move was refused: "to take your move"). */
export function showServerBusy(retryAfter, what = "to set up new games") {
  const extra = Number.isFinite(retryAfter) && retryAfter !== null
    ? `<p class="busy-wait">You can try again in about ${waitWords(retryAfter)}.</p>` : "";
  return openModal({
    title: "Server Busy", id: "busy-dialog",
    body: `<p>Sorry, the server is too busy ${what} - please try again later. We are working on
      expanding capacity ASAP.</p>${extra}`,
  });
}

/** The original's badge modal, shown once, when a badge has just been earned. */
export function showBadgeEarned(badge, emblem) {
  const body = h("div", { class: "badge-earned" },
    h("p", { text: "You have earned a Badge." }),
    h("p", { class: "badge-award" }, emblem, h("span", {}, h("strong", { text: badge.name }), badge.description ? h("small", { class: "muted", text: badge.description }) : null)),
    h("p", { text: "This badge will now be displayed next to your name." }));
  return openModal({ title: "Congratulations!", body, id: "badge-dialog", actions: [{ label: "Continue", value: true, kind: "primary" }] });
}

/**
 * The Music window (the original has one): on/off, the theme (several generated themes),
 * the volume; all remembered in this browser. `onChange` lets the header follow.
 */
export function showMusic(settings, themes, onChange = () => {}) {
  const onBox = h("input", { type: "checkbox", id: "music-on", class: "music-on" });
  onBox.checked = settings.music;
  const list = h("fieldset", { class: "theme-pick" }, h("legend", { text: "Theme" }));
  for (const t of themes) {
    const r = h("input", { type: "radio", name: "music-theme", value: t.id });
    r.checked = settings.theme === t.id;
    r.addEventListener("change", () => { settings.setTheme(t.id); onChange(); });
    list.append(h("label", { class: "theme-option" }, r, h("span", {}, h("strong", { text: t.name }), h("small", { class: "muted", text: t.about }))));
  }
  const vol = h("input", { type: "range", id: "music-volume", min: "0", max: "100", step: "5", value: String(Math.round(settings.volume * 100)) });
  const volOut = h("output", { for: "music-volume", text: `${Math.round(settings.volume * 100)}%` });
  vol.addEventListener("input", () => { settings.setVolume(Number(vol.value) / 100); volOut.textContent = `${vol.value}%`; });
  onBox.addEventListener("change", () => { settings.setMusic(onBox.checked); onChange(); });
  const body = h("div", { class: "music-modal" },
    h("label", { class: "check", for: "music-on" }, onBox, "Music on"),
    list,
    h("div", { class: "volume-row" }, h("label", { for: "music-volume", text: "Volume" }), vol, volOut),
    h("p", { class: "muted small", text: "The themes are generated in your browser, a little differently each time. Your choice is remembered here." }));
  return openModal({ title: "Music", body, id: "music-dialog" });
}
