// Player Info (/p/<id>): name and badges, rating, games played and won by faction and
// match-up, recent games with their records; on one's own page, the account panel. And
// the Leaderboard (/leaderboard) with the match-up statistics.
import { api } from "./api.js";
import { account, accountPanel, badgeEl, playerName } from "./account.js";
import { FACTION_NAMES, FACTIONS } from "./notation.js";
import { keyboardScrollable } from "./modals.js";
import { announce, h } from "./ui.js";

const SIDE = { south: "South", north: "North" };
const fname = (f) => FACTION_NAMES[f] || f;
const pct = (won, played) => (played ? `${Math.round((100 * won) / played)}%` : "–");

/** A table in a horizontally scrollable (and then keyboard-scrollable) box. */
function table(caption, head, rows, { cls = "" } = {}) {
  const t = h("table", { class: `data-table ${cls}` },
    h("caption", { class: "sr-only", text: caption }),
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col", text: c })))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", {}, c)))))));
  const wrap = h("div", { class: "table-wrap", role: "region", "aria-label": caption }, t);
  requestAnimationFrame(() => keyboardScrollable(wrap));
  return wrap;
}

function card(title, id, ...kids) {
  return h("section", { class: "panel-card", "aria-labelledby": id }, h("h2", { id, text: title }), ...kids);
}

function ratingText(r) {
  return r.rated ? `${r.rating} ± ${r.deviation}` : "Unrated";
}

function when(ms) {
  if (!ms) return "";
  return new Date(ms).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

function recentGame(g) {
  const mineF = g.side === "south" ? g.south : g.north;
  const theirF = g.side === "south" ? g.north : g.south;
  return h("li", { class: `recent ${g.won ? "won" : "lost"}` },
    h("span", { class: "recent-main" },
      h("strong", { class: g.won ? "res-won" : "res-other", text: g.won ? "Won" : /^draw/.test(g.result) ? "Draw" : "Lost" }),
      ` · ${fname(mineF)} (${SIDE[g.side]}) vs ${fname(theirF)} · ${g.mode === "ai" ? "AI" : "link"}${g.rated ? " · rated" : ""}`),
    h("small", { class: "muted", text: `${g.result}${g.finished_at ? ` · ${when(g.finished_at)}` : ""}` }),
    h("span", { class: "recent-links" },
      h("a", { href: `/g/${g.id}`, "data-link": true, text: "View game" }),
      h("a", { href: g.record, text: "Record", "aria-label": `Game record of ${fname(mineF)} vs ${fname(theirF)}, ${when(g.finished_at)}` })));
}

/**
 * The finished games, a page at a time: the first page came with Player Info; "Show more
 * games" asks for the page after the last one shown (`next`, the server's cursor), so a
 * game finished meanwhile neither repeats nor shifts the list.
 */
function recentGames(p) {
  if (!p.recent.length) return h("p", { class: "muted", text: "No finished games yet." });
  const list = h("ul", { class: "recent-list", id: "recent-list" }, p.recent.map(recentGame));
  let next = p.next;
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const more = h("button", { type: "button", class: "show-more", "aria-controls": "recent-list", text: "Show more games" });
  more.hidden = !next;
  more.addEventListener("click", async () => {
    more.disabled = true;
    error.hidden = true;
    try {
      const page = await api.player(p.id, next);
      list.append(...page.recent.map(recentGame));
      next = page.next;
      more.hidden = !next;
      announce(`${page.recent.length} more games shown${next ? "" : ", all of them"}.`);
    } catch (e) {
      error.textContent = `More games could not be loaded: ${e.message}`;
      error.hidden = false;
    } finally {
      more.disabled = false;
    }
  });
  return h("div", { class: "recent-games" }, list, error, more);
}

export async function showPlayer(main, id) {
  main.replaceChildren(h("section", { class: "profile", "aria-label": "Player Info" }, h("p", { class: "loading", text: "Loading the player…" })));
  const section = main.firstElementChild;
  let p;
  try {
    p = await api.player(id);
  } catch (e) {
    section.replaceChildren(h("div", { class: "panel-card notfound" },
      h("h1", { text: "Player not found" }),
      h("p", { text: e.code === "not_found" ? "There is no player at this address." : `The player could not be loaded: ${e.message}` }),
      h("p", {}, h("a", { href: "/", "data-link": true, text: "Back to the home page" }))));
    return;
  }
  document.title = `Iron Arena — ${p.name || "Player"}`;
  const me = await account.ready();
  const mine = me && me.id === p.id;
  const head = h("div", { class: "panel-card profile-head" },
    h("p", { class: "eyebrow", text: mine ? "Player Info · you" : "Player Info" }),
    h("h1", { class: "profile-name" }, playerName(p, { link: false })),
    h("dl", { class: "stat-row" },
      h("div", {}, h("dt", { text: "Rating" }), h("dd", { class: "rating", text: ratingText(p.rating) })),
      h("div", {}, h("dt", { text: "Games played" }), h("dd", { class: "played", text: String(p.games.played) })),
      h("div", {}, h("dt", { text: "Won" }), h("dd", { class: "won", text: `${p.games.won} (${pct(p.games.won, p.games.played)})` })),
      h("div", {}, h("dt", { text: "Account" }), h("dd", { text: p.discord_linked ? "Discord" : "Guest" }))),
    p.rating.rated ? null : h("p", { class: "muted small", text: "The rating counts rated games only: link games between players signed in with Discord." }));
  const cols = h("div", { class: "profile-grid" });
  if (mine) {
    const panel = accountPanel();
    cols.append(card("Your account", "acct-h", panel));
    // Keep the heading in step with a new name or badges.
    account.follow(head, (m) => {
      if (m && m.id === p.id) head.querySelector(".profile-name").replaceChildren(playerName({ ...p, name: m.name, badges: m.badges }, { link: false }));
    });
  }
  cols.append(card("Badges", "badges-h", p.badges.length
    ? h("ul", { class: "badge-list" }, p.badges.map((b) => h("li", {}, badgeEl(b), h("span", {}, h("strong", { text: b.name }), h("small", { class: "muted", text: b.description })))))
    : h("p", { class: "muted", text: mine ? "No badges yet. Finish a story to earn its badge." : "No badges yet." })));
  cols.append(card("By faction", "faction-h", p.by_faction.length
    ? table("Games by faction", ["Faction", "Played", "Won", "Win rate"], p.by_faction.map((f) => [fname(f.faction), String(f.played), String(f.won), pct(f.won, f.played)]))
    : h("p", { class: "muted", text: "No finished games yet." })));
  cols.append(card("By match-up", "matchup-h", p.by_matchup.length
    ? table("Games by match-up", ["Match-up", "Side", "Played", "Won"], p.by_matchup.map((m) => [`${fname(m.south)} vs ${fname(m.north)}`, SIDE[m.side], String(m.played), String(m.won)]))
    : h("p", { class: "muted", text: "No finished games yet." })));
  cols.append(card("Recent games", "recent-h", recentGames(p)));
  section.replaceChildren(head, cols);
}

export async function showLeaderboard(main) {
  main.replaceChildren(h("section", { class: "leaderboard", "aria-labelledby": "lb-h" },
    h("h1", { id: "lb-h", class: "page-title", text: "Leaderboard" }),
    h("p", { class: "muted page-lede", text: "Ratings (Glicko-2, rating ± deviation) from rated games: link games between two players signed in with Discord." }),
    h("div", { class: "lb-grid" },
      h("section", { class: "panel-card lb-players", "aria-labelledby": "lb-players-h" }, h("h2", { id: "lb-players-h", text: "Best players" }), h("p", { class: "loading", text: "Loading…" })),
      h("section", { class: "panel-card lb-matchups", "aria-labelledby": "lb-mu-h" }, h("h2", { id: "lb-mu-h", text: "Match-up statistics" }), h("p", { class: "loading", text: "Loading…" })))));
  const players = main.querySelector(".lb-players");
  const mus = main.querySelector(".lb-matchups");
  const [lb, mu, me] = await Promise.allSettled([api.leaderboard(), api.matchups(), account.ready()]);
  // What this server offers (`GET /api/me`'s discord_available): rated games need Discord
  // sign-in, so without it no advice to tick a box that is not there.
  const discord = me.status === "fulfilled" && (!!me.value?.discord_available || !!me.value?.discord_linked);
  if (!discord) {
    main.querySelector(".page-lede").textContent = "Ratings (Glicko-2, rating ± deviation) come from rated games between players signed in with Discord, which this server does not offer: no rated games are played here.";
  }
  if (lb.status === "fulfilled") {
    const rows = lb.value.players;
    players.querySelector(".loading").replaceWith(rows.length
      ? table("Leaderboard", ["Rank", "Player", "Rating"], rows.map((r) => [String(r.rank), playerName(r), `${r.rating} ± ${r.deviation}`]), { cls: "lb-table" })
      : h("p", { class: "empty-state", text: discord
        ? "No rated players yet. Rated games are link games between two players signed in with Discord: tick “Rated” when you create one. The first results will appear here."
        : "No rated players yet, and none to come on this server: it has no Discord sign-in." }));
  } else {
    players.querySelector(".loading").replaceWith(h("p", { class: "form-error", role: "alert", text: `The leaderboard could not be loaded: ${lb.reason.message}` }));
  }
  if (mu.status === "fulfilled") {
    const order = (f) => FACTIONS.indexOf(f);
    const rows = [...mu.value.matchups].sort((a, b) => order(a.south) - order(b.south) || order(a.north) - order(b.north));
    const wins = (n, all) => h("span", {}, String(n), all ? h("small", { class: "share", text: ` ${Math.round((100 * n) / all)}%` }) : null);
    mus.querySelector(".loading").replaceWith(h("div", {},
      h("p", { class: "muted small", text: "Finished link games (human against human) with at least one move, per match-up." }),
      table("Match-up statistics", ["South vs North", "Games", "South wins", "North wins", "Draws"], rows.map((m) => [
        h("span", { class: "mu-name" }, h("span", { text: fname(m.south) }), h("span", { class: "mu-vs", text: ` vs ${fname(m.north)}` })),
        String(m.games), wins(m.south_wins, m.games), wins(m.north_wins, m.games), String(m.draws),
      ]), { cls: "mu-table" })));
  } else {
    mus.querySelector(".loading").replaceWith(h("p", { class: "form-error", role: "alert", text: `The statistics could not be loaded: ${mu.reason.message}` }));
  }
}
