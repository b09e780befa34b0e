// Story mode: the three stories (one per faction) with their stages, progress and badge;
// starting a stage (intro modal, then an AI game from the stage's position); Reset Story
// Progress; and the modal at the end of a stage game. Progress and verdicts come from the
// server only (state.stage.verdict); the client never judges a stage itself.
import { api, fresh, seats } from "./api.js";
import { account, badgeEl } from "./account.js";
import { FACTION_NAMES, PIECES } from "./notation.js";
import { pieceSVG } from "./pieces.js";
import { confirmDialog, openModal, showServerBusy } from "./modals.js";
import { h, navigate, toast } from "./ui.js";
import { ICONS } from "./icons.js";

const SIDE = { south: "South", north: "North" };
/** What a ply is, with the stage goal's own number ("30 plies are 15 of your moves…"). */
export function plyNote(goal) {
  const n = Number(/(\d+)\s*pl(?:y|ies)\b/.exec(goal || "")?.[1]) || 20;
  if (n === 1) return "A ply is one move by either player: 1 ply is your next move.";
  const split = n % 2 === 0 ? `${n / 2} of your moves and ${n / 2} of the AI's`
    : `${Math.ceil(n / 2)} moves by the side that moves first and ${Math.floor(n / 2)} by the other`;
  return `A ply is one move by either player: ${n} plies are ${split}.`;
}

/** The factions of a stage from its IAPN position ("south north board turn …"). */
function stageFactions(stage) {
  const [south, north] = String(stage.position || "").split(" ");
  return { south, north };
}

function kingGlyph(faction, side = "south") {
  const king = Object.values(PIECES[faction] || {}).find((p) => p.king);
  const span = h("span", { class: "glyph", "aria-hidden": "true" });
  if (king) span.innerHTML = pieceSVG({ ...king, side, charged: false }, { title: false });
  return span;
}

/** Creates the stage's game and opens it (the seat is kept like an AI game's). */
export async function startStage(story, index, btn) {
  if (btn) btn.disabled = true;
  try {
    await account.session();
    const r = await api.startStage(story.id, index);
    const st = r.state;
    seats.put(r.id, {
      seat: r.seat, token: r.token, mode: "ai", south: st.south.faction, north: st.north.faction,
      story: story.id, stage: index, stage_title: st.stage?.title || story.stages[index]?.title, created: Date.now(),
    });
    fresh.put(r.id, r.state);
    navigate(`/g/${r.id}`);
    return true;
  } catch (e) {
    if (e.code === "server_busy") showServerBusy(e.retryAfter);
    else if (e.code === "stage_locked") toast(`This stage is locked: ${e.message}.`, "error");
    else toast(`The stage could not be started: ${e.message}`, "error");
    return false;
  } finally {
    if (btn) btn.disabled = false;
  }
}

/** The stage's intro: title, story, intro text and goal; "Start" creates the game. */
export async function stageIntro(story, index, btn) {
  const stage = story.stages[index];
  const f = stageFactions(stage);
  const mine = stage.side === "north" ? f.north : f.south;
  const theirs = stage.side === "north" ? f.south : f.north;
  const body = h("div", { class: "stage-intro" },
    h("p", { class: "muted small", text: `${story.title} · Stage ${index + 1} of ${story.stages.length}` }),
    h("p", { text: stage.intro }),
    h("p", { class: "stage-goal" }, h("strong", { text: "Goal: " }), stage.goal),
    /\bpl(y|ies)\b/.test(stage.goal) ? h("p", { class: "muted small ply-note", text: plyNote(stage.goal) }) : null,
    h("p", { class: "muted small", text: `You play ${SIDE[stage.side]} (${FACTION_NAMES[mine] || mine}) against the AI (${FACTION_NAMES[theirs] || theirs}), level ${stage.level}.` }),
    story.current_game && Number.isInteger(story.current_stage)
      ? h("p", { class: "small warn", text: `Starting ends the stage you are playing in this story (stage ${story.current_stage + 1}, “${story.stages[story.current_stage]?.title}”): that game counts as lost.` })
      : null);
  const go = await openModal({
    title: stage.title, body, id: "stage-dialog",
    actions: [{ label: "Cancel", value: false }, { label: "Start", value: true, kind: "primary" }],
  });
  if (go) return startStage(story, index, btn);
  return false;
}

async function findStory(id) {
  const r = await api.stories();
  return r.stories.find((s) => s.id === id) || null;
}

/**
 * The modal at the end of a stage game, from the server's verdict: won → "Stage complete!"
 * (with the badge when it was the story's last stage), lost → "Stage failed" / Try again.
 */
export async function stageFinished(state) {
  const st = state.stage;
  if (!st || st.verdict === "pending") return;
  let story = null;
  try { story = await findStory(st.story); } catch { /* shown without the story */ }
  const stages = story?.stages.length || 0;
  const last = !!story && st.stage === stages - 1;
  if (st.verdict === "won") {
    const body = h("div", { class: "stage-end" }, h("p", {}, "You completed ", h("strong", { text: st.title }), "."));
    if (last) {
      body.append(
        h("p", { text: `That was the last stage of “${story.title}”: the story is complete.` }),
        h("p", { class: "badge-award" }, badgeEl(story.badge), h("span", {}, h("strong", { text: story.badge.name }), h("small", { class: "muted", text: story.badge.description }))));
      // The server awards the badge with the result: as soon as the account shows it, the
      // header shows it and, if it is new, the "Congratulations!" modal (app.js) opens.
      for (const wait of [0, 800, 2500]) {
        setTimeout(() => account.reload().catch(() => {}), wait);
      }
    } else if (story) {
      body.append(h("p", { class: "muted", text: `Stage ${st.stage + 2}, “${story.stages[st.stage + 1].title}”, is now unlocked.` }));
    }
    const actions = [{ label: "Back to stories", value: "stories" }];
    if (story && !last) actions.push({ label: "Next stage", value: "next", kind: "primary" });
    else actions[0].kind = "primary";
    const v = await openModal({ title: "Stage complete!", body, id: "stage-end-dialog", actions });
    if (v === "stories") navigate("/story");
    else if (v === "next") {
      const fresh = await findStory(st.story).catch(() => story);
      await stageIntro(fresh || story, st.stage + 1);
    }
  } else {
    const reason = state.result?.text ? state.result.text.replace(/^./, (c) => c.toUpperCase()) : "";
    const body = h("div", { class: "stage-end" },
      h("p", {}, "The goal of ", h("strong", { text: st.title }), " was not met."),
      h("p", { class: "stage-goal" }, h("strong", { text: "Goal: " }), st.goal),
      reason ? h("p", { class: "muted", text: `${reason}.` }) : null);
    const v = await openModal({
      title: "Stage failed", body, id: "stage-end-dialog",
      actions: [{ label: "Back to stories", value: "stories" }, { label: "Try again", value: "retry", kind: "primary" }],
    });
    if (v === "stories") navigate("/story");
    else if (v === "retry") {
      const s = story || { id: st.story, stages: [] };
      await startStage(s, st.stage);
    }
  }
}

// --- the story screen

export async function showStories(main) {
  main.replaceChildren(h("section", { class: "stories", "aria-labelledby": "stories-h" },
    h("h1", { id: "stories-h", class: "page-title", text: "Story" }),
    h("p", { class: "muted page-lede", text: "Three stories, one for each faction. Each has six stages against the AI, from a prepared position with its own goal; complete a stage to unlock the next, and finish a story to earn its badge." }),
    h("p", { class: "loading", text: "Loading the stories…" })));
  const section = main.firstElementChild;
  let data;
  try {
    await account.ready();
    data = await api.stories();
  } catch (e) {
    section.querySelector(".loading").replaceWith(h("p", { class: "form-error", role: "alert", text: `The stories could not be loaded: ${e.message}` }));
    return;
  }
  const grid = h("div", { class: "story-grid" });
  section.querySelector(".loading").replaceWith(grid);
  for (const story of data.stories) {
    const card = h("article", { class: "panel-card story-card", "aria-labelledby": `story-${story.id}-h`, dataset: { story: story.id } });
    grid.append(card);
    renderStory(card, story);
  }
}

function renderStory(card, story) {
  const n = story.stages.length;
  const done = Math.min(story.completed, n);
  const headId = `story-${story.id}-h`;
  const progress = h("div", { class: "story-progress" },
    h("progress", { max: String(n), value: String(done), "aria-label": `${story.title}: progress` }),
    h("span", { class: "progress-text", text: `${done} / ${n}` }));
  const badge = h("div", { class: `story-badge${story.badge_earned ? " earned" : ""}` },
    badgeEl(story.badge, { locked: !story.badge_earned }),
    h("div", {},
      h("strong", { text: story.badge.name }),
      h("span", { class: `badge-state${story.badge_earned ? " earned-text" : ""}`, text: story.badge_earned ? "Earned" : "Not earned yet" }),
      h("small", { class: "muted", text: story.badge.description })));
  const list = h("ol", { class: "stage-list", "aria-label": `Stages of ${story.title}` });
  story.stages.forEach((stage, i) => list.append(stageItem(story, stage, i)));
  const reset = h("button", { type: "button", class: "reset-story", "aria-label": `Reset Story Progress: ${story.title}`, text: "Reset Story Progress" });
  reset.addEventListener("click", async () => {
    // The original's words (the button is in the story's card).
    const ok = await confirmDialog("Reset Story Progress?",
      "This will reset your progress for this story. Are you sure?",
      "Reset progress", { danger: true });
    if (!ok) return;
    reset.disabled = true;
    try {
      const fresh = await api.resetStory(story.id);
      renderStory(card, fresh);
      toast(`“${story.title}” starts again from stage 1.`);
      card.querySelector(".reset-story")?.focus();
    } catch (e) {
      toast(`The progress could not be reset: ${e.message}`, "error");
      reset.disabled = false;
    }
  });
  card.replaceChildren(
    h("header", { class: "story-head" }, kingGlyph(story.faction),
      h("div", {}, h("h2", { id: headId, text: story.title }), h("p", { class: "muted small", text: `${FACTION_NAMES[story.faction] || story.faction} story` }))),
    h("p", { class: "story-summary", text: story.summary }),
    progress, badge, list,
    h("div", { class: "story-foot" }, reset));
}

function stageItem(story, stage, i) {
  const playing = story.current_stage === i && story.current_game;
  const held = playing && seats.get(story.current_game)?.token;
  const state = stage.completed ? "completed" : stage.unlocked ? "unlocked" : "locked";
  const status = stage.completed ? "Completed" : playing ? "In progress" : stage.unlocked ? "Unlocked" : "Locked";
  const num = h("span", { class: "stage-num", "aria-hidden": "true" });
  if (stage.completed) num.innerHTML = ICONS.check;
  else if (!stage.unlocked) num.innerHTML = ICONS.lock;
  else num.textContent = String(i + 1);
  const li = h("li", { class: `stage ${state}${playing ? " playing" : ""}`, dataset: { stage: String(i) } },
    num,
    h("div", { class: "stage-text" },
      h("strong", { class: "stage-title" }, h("span", { class: "sr-only", text: `Stage ${i + 1}: ` }), stage.title),
      h("small", { class: "stage-meta", text: `${stage.goal} · as ${SIDE[stage.side]} · AI level ${stage.level}` }),
      h("small", { class: "stage-status", text: status })));
  let btn;
  if (!stage.unlocked) {
    btn = h("button", { type: "button", class: "stage-play", disabled: true, "aria-label": `Stage ${i + 1}, ${stage.title}: locked`, text: "Locked" });
  } else if (held) {
    btn = h("button", { type: "button", class: "stage-play primary", "aria-label": `Continue stage ${i + 1}: ${stage.title}`, text: "Continue" });
    btn.addEventListener("click", () => navigate(`/g/${story.current_game}`));
  } else {
    const label = stage.completed ? "Replay" : "Play";
    btn = h("button", { type: "button", class: `stage-play${stage.completed ? "" : " primary"}`, "aria-label": `${label} stage ${i + 1}: ${stage.title}`, text: label });
    btn.addEventListener("click", () => stageIntro(story, i, btn));
  }
  li.append(btn);
  return li;
}
