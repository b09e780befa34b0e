// Iron Arena browser client: the entry module.
//
// Stack choice: plain ES modules served as static files, no framework and no build step.
// The client is small (a home screen, a game screen, a few dialogs), modern browsers load
// modules natively, and with no build the Worker serves public/ exactly as it is in the
// repository, so there is nothing to install or run for the client. Rules stay on the
// server: the client never decides legality (it uses the server's `legal_moves`);
// notation.js only replays accepted moves to draw earlier positions and animations.
import { showHome } from "./home.js";
import { showGame } from "./game.js";
import { showStories } from "./story.js";
import { showLearn, showLesson } from "./learn.js";
import { showPlayer, showLeaderboard } from "./players.js";
import { showRecord } from "./record.js";
import { account, badgesEl, badgeEl } from "./account.js";
import { showRules, showRulesPage, showApiPage, showDevNotes, showSupport, showPlayerInfo, showMusic, showBadgeEarned } from "./modals.js";
import { settings, THEMES } from "./audio.js";
import { lobby } from "./lobby.js";
import { ICONS } from "./icons.js";
import { FACTION_NAMES } from "./notation.js";
import { setRouter, navigate, toast, notice, h } from "./ui.js";

const main = document.getElementById("main");
let teardown = null;
/** The route being shown: each call of route() takes the next number. A page that awaits
 * (a game loading, its join dialog, a lesson's files) may finish after the player has gone
 * elsewhere; compared after each await, the number says whether it is still wanted. */
let routeSeq = 0;

async function route() {
  teardown?.();
  teardown = null;
  const token = ++routeSeq;
  const stale = () => token !== routeSeq;
  const path = location.pathname;
  const m = /^\/g\/([0-9a-f]{24})\/?$/.exec(path);
  const player = /^\/p\/([0-9a-f]{24})\/?$/.exec(path);
  const hasInvite = /^#invite/.test(location.hash);
  const invite = /^#invite=([0-9a-f]{64})$/.exec(location.hash)?.[1] || null;
  const lesson = /^\/learn\/([a-z0-9-]+)\/?$/.exec(path);
  if (m) {
    document.title = "Iron Arena — game";
    // A cut or damaged invite says so (the game is still shown, to watch).
    // Its teardown is held from the start: leaving while it loads (or while its join
    // dialog is open) ends it there, before it can draw over the next page.
    const game = showGame(main, m[1], invite, { badInvite: hasInvite && !invite });
    teardown = game.stop;
    await game.ready;
  } else if (/^\/[gp]\//.test(path) && !player) {
    const game = path.startsWith("/g/");
    document.title = `Iron Arena — ${game ? "game" : "player"} not found`;
    notFound(game ? "Game not found" : "Player not found",
      `This ${game ? "game" : "player"} link is incomplete or wrong: the address must end in 24 letters and digits (0–9, a–f). ${hasInvite ? "If a friend sent it, ask them to send the whole invite link again." : "Please check the link."}`);
  } else if (/^\/rules\/?$/.test(path)) {
    document.title = "Iron Arena — How to play";
    await showRulesPage(main);
    return; // the page moves the focus to the address's section itself
  } else if (/^\/learn\/?$/.test(path)) {
    document.title = "Iron Arena — Learn the pieces";
    await showLearn(main);
  } else if (lesson) {
    document.title = "Iron Arena — lesson";
    const stop = await showLesson(main, lesson[1], { stale });
    if (stale()) { stop?.(); return; } // left while it loaded: not this route's teardown
    teardown = stop;
  } else if (/^\/analyse\/?$/.test(path)) {
    document.title = "Iron Arena — Analyse a record";
    teardown = showRecord(main);
  } else if (/^\/api-docs\/?$/.test(path)) {
    document.title = "Iron Arena — API";
    await showApiPage(main);
  } else if (!player && !/^\/(index\.html)?$/.test(path) && !/^\/story\/?$/.test(path) && !/^\/leaderboard\/?$/.test(path)) {
    document.title = "Iron Arena — page not found";
    notFound("Page not found", "There is no page at this address.");
  } else if (/^\/story\/?$/.test(path)) {
    document.title = "Iron Arena — Story";
    await showStories(main);
  } else if (player) {
    document.title = "Iron Arena — Player Info";
    await showPlayer(main, player[1]);
  } else if (/^\/leaderboard\/?$/.test(path)) {
    document.title = "Iron Arena — Leaderboard";
    await showLeaderboard(main);
  } else {
    if (location.pathname !== "/") history.replaceState(null, "", "/");
    document.title = "Iron Arena — v2.3";
    teardown = showHome(main);
  }
  if (stale()) return; // another page has been shown meanwhile: its focus is its own
  main.focus({ preventScroll: true });
}
/** A page for an address that leads nowhere: says so, with the way home. */
function notFound(title, text) {
  main.replaceChildren(h("section", { class: "panel-card notfound", "aria-labelledby": "nf-h" },
    h("h1", { id: "nf-h", text: title }), h("p", { text }),
    h("p", {}, h("a", { href: "/", "data-link": true, text: "Back to the home page" }))));
}

setRouter(route);
window.addEventListener("popstate", route);

// A refused "Sign in with Discord" comes back as /?signin_error=<code>: say why, once.
const SIGNIN_ERRORS = {
  discord_denied: "Sign in with Discord was cancelled: nothing changed, you are still playing as before.",
  bad_state: "That sign-in link was not started in this browser or was already used. Please try again.",
  // A callback with no state at all (400): the same advice as a state from elsewhere.
  no_state: "That sign-in link was not started in this browser or was already used. Please try again.",
  discord_code_rejected: "Discord did not accept the sign-in (it expired or was already used). Please try again.",
  discord_failed: "Discord could not be reached to finish signing in. Please try again later.",
  server_busy: "Too many sign-ins from your network just now. Please wait a minute and try again.",
};
const signinError = new URLSearchParams(location.search).get("signin_error");
if (signinError) {
  history.replaceState(null, "", location.pathname);
  queueMicrotask(() => toast(SIGNIN_ERRORS[signinError] || "Sign in with Discord did not complete. Please try again.", "error"));
}

// Internal links navigate without reloading.
document.addEventListener("click", (e) => {
  const a = e.target.closest?.("a[data-link]");
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(a.getAttribute("href"));
});

// Header and footer buttons.
const on = (id, fn) => document.getElementById(id).addEventListener("click", fn);
on("btn-rules", showRules);
on("btn-devnotes", showDevNotes);
on("btn-support", showSupport);
on("btn-player", showPlayerInfo);

// The header's "My profile" link: this browser's player, with the badges next to the name.
const meLink = document.getElementById("me-link");
account.subscribe((me) => {
  meLink.hidden = !me?.id; // no session yet (reads create none): no profile to link
  if (!me?.id) return;
  meLink.href = `/p/${me.id}`;
  const name = meLink.querySelector(".me-name");
  name.textContent = me.name || "Player";
  meLink.querySelector(".badges")?.remove();
  if (me.badges.length) name.after(badgesEl(me.badges));
});
account.ready();

// The original's "Congratulations!" modal, once per badge, when it is newly earned: the
// badges this browser has already seen (per player) are kept in localStorage; a player
// seen for the first time has nothing new.
const SEEN = "ironarena.badges.seen.v1";
account.subscribe(async (me) => {
  if (!me?.id) return;
  let all = {};
  try { all = JSON.parse(localStorage.getItem(SEEN)) || {}; } catch { all = {}; }
  const ids = me.badges.map((b) => b.id);
  const seen = all[me.id];
  all[me.id] = [...new Set([...(seen || []), ...ids])];
  localStorage.setItem(SEEN, JSON.stringify(all));
  if (!seen) return;
  for (const b of me.badges.filter((x) => !seen.includes(x.id))) await showBadgeEarned(b, badgeEl(b));
});

const musicBtn = document.getElementById("btn-music");
const soundBtn = document.getElementById("btn-sounds");
function syncAudioButtons() {
  musicBtn.querySelector(".state").textContent = settings.music ? "on" : "off";
  musicBtn.classList.toggle("on", settings.music);
  // A toggle: its name stays "Sounds"; aria-pressed and the icon say whether they are on.
  soundBtn.setAttribute("aria-pressed", String(settings.sounds));
  soundBtn.querySelector(".state-icon").innerHTML = settings.sounds ? ICONS.soundOn : ICONS.soundOff;
}
musicBtn.addEventListener("click", () => showMusic(settings, THEMES, syncAudioButtons));
soundBtn.addEventListener("click", () => { settings.setSounds(!settings.sounds); syncAudioButtons(); });
syncAudioButtons();
// Music remembered as "on" starts after the first user gesture (browser autoplay rules):
// audio.js unlocks sound and music on the first tap, click or key.

// A challenge of ours accepted (lobby.js: the lobby's socket is open on every page while we
// have one open): the home page goes into the game, as the accepter's did; any other page
// (a game in progress, a story) is left as it is, with a notice that links to the game.
lobby.onAccepted(({ game }) => {
  const side = game.side === "south" ? "South" : "North";
  const what = `Your challenge was accepted: you play ${side} (${FACTION_NAMES[game[game.side]] || game[game.side]}).`;
  if (location.pathname === "/") {
    navigate(`/g/${game.id}`);
    toast(`${what} The game has begun.`);
  } else if (location.pathname !== `/g/${game.id}`) {
    notice(what, { href: `/g/${game.id}`, label: "Open the game" });
  }
});

// Every control has its handler from here on (the module may run after the page's load
// event): tests wait for this before they click.
document.documentElement.dataset.app = "ready";
route();
