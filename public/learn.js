// "Learn the pieces" (issue 31, item 3): a lesson per piece and ability, grouped by faction,
// each a small position on the game's own board with a goal. The lessons are data
// (lessons.json: the position as IAPN, per step the goal as a line of facts, the scripted
// solution and reply, the hint); the engine in the browser gives the legal moves, plays them and judges each
// move against its step's goal (lessonGoal, crates/engine-wasm/src/lessons.rs), so this
// module holds no rule: the native test plays the same file through the same code.
// Progress is kept in this browser (localStorage) and, when the browser has a session (a
// guest or signed in with Discord), on the account too (GET/PUT /api/me/lessons), so a
// second browser or a cleared one shows it: the page shows the union of the two. The
// browser's copy is written first and never depends on the server: a failed request loses
// nothing, and the next visit sends the account what it is missing.
import { abilityChoice, pickAbilityTarget, recallSelection, abilityPrompt, fillAbilityBar, clearAbilityBar } from "./ability-choice.js";
import { account } from "./account.js";
import { api } from "./api.js";
import { BoardView } from "./board.js";
import { parsePosition, legalMoves, applyMove, previewBase, lessonGoal, describeMove,
  FACTIONS, FACTION_NAMES, FACTION_TAGLINES, PIECES, idx } from "./notation.js";
import { pieceSVG } from "./pieces.js";
import { pieceTip } from "./piece-tip.js";
import { sfx } from "./audio.js";
import { announce, h } from "./ui.js";
import { ICONS } from "./icons.js";

const PROGRESS_KEY = "ironarena.lessons.v1";

let loaded = null;
/** The lessons, fetched once: [{id, faction, piece, rules, title, goal, start, steps}]. */
export function lessons() {
  loaded ||= fetch("/lessons.json").then((r) => {
    if (!r.ok) throw new Error(`lessons: ${r.status}`);
    return r.json();
  }).then((j) => j.lessons).catch((e) => { loaded = null; throw e; });
  return loaded;
}

/** The ids of the lessons completed in this browser. */
export function doneLessons() {
  try {
    const v = JSON.parse(localStorage.getItem(PROGRESS_KEY));
    return new Set(Array.isArray(v?.done) ? v.done : []);
  } catch {
    return new Set();
  }
}

function markDone(id) {
  const done = doneLessons();
  done.add(id);
  try { localStorage.setItem(PROGRESS_KEY, JSON.stringify({ done: [...done] })); } catch { /* private mode: kept for this page only */ }
  recordOnAccount(id);
}

// The account's lessons, read once per player and page load: {player, done: Promise<Set|null>}.
let onAccount = null;

/** The session's player's id, or null (signed out, or the server not reached). Never makes a guest. */
async function player() {
  const me = await account.ready();
  return me?.id || null;
}

/**
 * The account's completed lessons (null without a session or when they could not be read);
 * those this browser completed that the account lacks (played signed out, or a request that
 * failed) are sent to it meanwhile. Read once per player; a failure is tried again on the
 * next call.
 */
async function accountLessons() {
  const id = await player();
  if (!id) return null;
  if (onAccount?.player !== id) {
    const done = api.lessons().then(({ completed }) => {
      const have = new Set(completed);
      sendMissing(have); // in the background: the page shows the union meanwhile
      return have;
    }).catch(() => {
      onAccount = null;
      return null;
    });
    onAccount = { player: id, done };
  }
  return onAccount.done;
}

/** The lessons this browser completed that the account lacks, sent one by one (at most one per lesson). */
async function sendMissing(have) {
  try {
    // Only lessons that exist (an id left from an older lessons.json would be refused every time).
    const known = new Set((await lessons()).map((l) => l.id));
    for (const lesson of doneLessons()) {
      if (have.has(lesson) || !known.has(lesson)) continue;
      await api.completeLesson(lesson);
      have.add(lesson);
    }
  } catch { /* kept here; the next visit sends the rest */ }
}

/** A completion sent to the account too (with a session); the browser's copy is already written. */
async function recordOnAccount(lesson) {
  try {
    const id = await player();
    if (!id) return;
    const { completed } = await api.completeLesson(lesson);
    if (onAccount?.player === id) onAccount.done = Promise.resolve(new Set(completed));
  } catch { /* the browser's copy stands; the next visit sends it */ }
}

/** The lessons completed: this browser's and, with a session, the account's. */
export async function progress() {
  const done = doneLessons();
  for (const l of (await accountLessons()) || []) done.add(l);
  return done;
}

/** The lesson that teaches the rules' section `anchor` (`sickle`, `recall`), for its "Try it" link. */
export function lessonFor(all, anchor) {
  return all.find((l) => l.rules.includes(anchor)) || null;
}

function glyph(lesson) {
  const p = Object.values(PIECES[lesson.faction]).find((x) => x.type === lesson.piece);
  const span = h("span", { class: "glyph", "aria-hidden": "true" });
  if (p) span.innerHTML = pieceSVG({ ...p, side: "south", charged: false }, { title: false });
  return span;
}

/** `/learn`: every lesson, by faction, with what this browser has completed. */
export async function showLearn(main) {
  const page = h("article", { class: "panel-card learn-page", "aria-labelledby": "learn-h" },
    h("h1", { id: "learn-h", class: "page-title", text: "Learn the pieces" }),
    h("p", { class: "muted", text: "One small board per piece and ability: reach the goal with a move, checked by the game's own rules. Your progress is kept in this browser, and on your account once you have one (after a first game, or signing in)." }));
  main.replaceChildren(page);
  let all, done;
  try {
    [all, done] = await Promise.all([lessons(), progress()]);
  } catch {
    page.append(h("p", { text: "The lessons could not be loaded. Please try again." }));
    return;
  }
  for (const f of FACTIONS) {
    const mine = all.filter((l) => l.faction === f);
    const n = mine.filter((l) => done.has(l.id)).length;
    page.append(h("section", { class: "learn-faction", "aria-labelledby": `learn-${f}` },
      h("h2", { id: `learn-${f}` }, FACTION_NAMES[f], h("span", { class: "learn-count muted small", text: ` ${n} of ${mine.length} done` })),
      h("p", { class: "muted small", text: FACTION_TAGLINES[f] }),
      h("ul", { class: "lesson-list" }, mine.map((l) => {
        const ok = done.has(l.id);
        const a = h("a", { class: `lesson-card${ok ? " done" : ""}`, href: `/learn/${l.id}`, "data-link": true, dataset: { lesson: l.id } },
          glyph(l), h("span", { class: "lesson-card-text" }, h("strong", { text: l.title }), h("small", { text: l.goal })));
        if (ok) {
          const tick = h("span", { class: "lesson-done" });
          tick.innerHTML = `${ICONS.check}<span class="sr-only">done</span>`;
          a.append(tick);
        }
        return h("li", {}, a);
      }))));
  }
  page.dataset.ready = "true";
}

/** `/learn/<id>`: one lesson. Returns its teardown. */
export async function showLesson(main, id, { stale = () => false } = {}) {
  let all, done;
  try {
    [all, done] = await Promise.all([lessons(), progress()]);
  } catch {
    if (stale()) return null; // the player has gone elsewhere: their page stays
    main.replaceChildren(h("p", { text: "The lessons could not be loaded. Please try again." }));
    return null;
  }
  if (stale()) return null;
  const lesson = all.find((l) => l.id === id);
  if (!lesson) {
    main.replaceChildren(h("section", { class: "panel-card notfound" }, h("h1", { text: "Lesson not found" }),
      h("p", {}, "There is no lesson at this address. ", h("a", { href: "/learn", "data-link": true, text: "All lessons" }))));
    return null;
  }
  document.title = `Iron Arena — Learn: ${lesson.title}`;
  const view = new LessonView(main, lesson, all, done);
  return () => view.destroy();
}

class LessonView {
  constructor(main, lesson, all, done) {
    this.lesson = lesson;
    const same = all.filter((l) => l.faction === lesson.faction);
    this.next = same[same.indexOf(lesson) + 1] || all[all.indexOf(lesson) + 1] || null;
    this.root = h("section", { class: "lesson", "aria-labelledby": "lesson-h", dataset: { lesson: lesson.id } },
      h("div", { class: "board-col" }, h("div", { class: "board-host" })),
      h("aside", { class: "lesson-panel", "aria-label": "Lesson" },
        h("div", { class: "lesson-card-main" },
          h("p", { class: "eyebrow" }, h("a", { href: "/learn", "data-link": true, text: "Learn the pieces" }), ` · ${FACTION_NAMES[lesson.faction]}`),
          h("h1", { id: "lesson-h", class: "lesson-title" }, glyph(lesson), h("span", { text: lesson.title })),
          h("p", { class: "lesson-step muted small" }),
          h("p", { class: "lesson-task" }),
          h("div", { class: "lesson-feedback", role: "status", "aria-live": "polite" }),
          h("div", { class: "ability-bar", hidden: true, role: "region", "aria-label": "Ability choice" }),
          h("div", { class: "row lesson-actions" },
            h("button", { type: "button", class: "restart", text: "Start again" }),
            this.next ? h("a", { class: "button next-lesson", href: `/learn/${this.next.id}`, "data-link": true, title: this.next.title, "aria-label": `Next lesson: ${this.next.title}`, text: "Next lesson ›" }) : null))),
      h("nav", { class: "lesson-strip", "aria-label": `${FACTION_NAMES[lesson.faction]} lessons` },
        h("ol", {}, same.map((l) => h("li", {}, h("a", {
          href: `/learn/${l.id}`, "data-link": true, class: done.has(l.id) ? "done" : null,
          "aria-current": l === lesson ? "page" : null, title: l.title,
        }, glyph(l), h("span", { class: "sr-only", text: `${l.title}${done.has(l.id) ? " (done)" : ""}` })))))));
    main.replaceChildren(this.root);
    this.$ = (s) => this.root.querySelector(s);
    this.board = new BoardView(this.$(".board-host"), {
      onActivate: (sq, how) => this.activate(sq, how),
      onDrop: (from, to) => this.drop(from, to),
      onCancel: () => this.cancel(),
      describe: (sq) => pieceTip(this.board.pos, sq, "south"),
    });
    this.$(".restart").addEventListener("click", () => this.start());
    this.start();
  }

  destroy() {
    this.gone = true;
    this.board.destroy();
  }

  /** The lesson from its first step. */
  start() {
    // A move still sliding when the lesson starts again finishes into nothing (see submit).
    this.run = (this.run || 0) + 1;
    this.stepIndex = 0;
    this.tries = 0;
    this.pos = parsePosition(this.lesson.start);
    this.last = null;
    this.busy = false;
    this.sel = null;
    this.hideAbilityBar();
    this.root.dataset.state = "ready";
    this.feedback("");
    this.showStep();
    this.draw();
  }

  get step() { return this.lesson.steps[this.stepIndex]; }

  showStep() {
    const n = this.lesson.steps.length;
    this.$(".lesson-step").textContent = n > 1 ? `Step ${this.stepIndex + 1} of ${n}` : "Goal";
    this.$(".lesson-task").textContent = this.step.task;
    this.root.dataset.step = String(this.stepIndex);
    this.legal = legalMoves(this.pos);
  }

  draw(animate = null) {
    const marks = { canPick: new Set(), last: this.last?.effects ? [this.last.effects.from, this.last.effects.landed] : null };
    if (this.last?.effects) {
      marks.destroyed = new Set(this.last.effects.destroyed);
      marks.moved = new Set(this.last.effects.moved.map((m) => m[1]));
      marks.movedFrom = new Set(this.last.effects.moved.map((m) => m[0]));
    }
    let pos = this.pos;
    const open = this.root.dataset.state === "ready" && !this.busy;
    if (open) marks.canPick = new Set(this.legal.map((m) => m.slice(0, 2)));
    const sel = this.sel;
    if (open && sel?.stage === "piece") {
      marks.selected = sel.from;
      marks.targets = new Set(this.legal.filter((m) => m.startsWith(sel.from)).map((m) => m.slice(2, 4)));
    } else if (open && sel) {
      pos = previewBase(pos, sel.base).pos;
      marks.selected = sel.landed;
      marks.preview = new Set([sel.landed]);
      marks.last = [sel.from, sel.landed];
      marks.abilityTargets = new Set(sel.stage === "recall" ? sel.dests.map((d) => d.square) : sel.options.flatMap((o) => o.squares));
    }
    this.board.render(pos, marks, animate);
    // The step's goal squares: a mark of their own, named for screen readers too.
    if (this.root.dataset.state !== "done") {
      for (const sq of this.step.marks) {
        const c = this.board.cells[sq];
        if (!c) continue;
        c.classList.add("lesson-mark");
        c.insertAdjacentHTML("afterbegin", `<span class="goal-mark" aria-hidden="true"></span>`);
        c.setAttribute("aria-label", `${c.getAttribute("aria-label")}, goal`);
      }
    }
    this.root.classList.toggle("my-turn", open);
    this.board.grid.setAttribute("aria-disabled", open ? "false" : "true");
  }

  feedback(text, kind = "") {
    const box = this.$(".lesson-feedback");
    box.className = `lesson-feedback${kind ? ` ${kind}` : ""}`;
    box.replaceChildren(...(text ? [h("p", { text })] : []));
    return box;
  }

  // --- input: the legal moves are the engine's; a move with an ability is picked in two steps

  activate(square, how) {
    if (this.root.dataset.state !== "ready" || this.busy) { if (how !== "drag") this.board.showTipFor(square); return; }
    const sel = this.sel;
    if (sel?.stage === "ability") return this.pickAbilityTarget(square);
    if (sel?.stage === "recall") return this.pickRecallDest(square);
    if (sel?.stage === "piece") {
      if (square === sel.from && how !== "drag") return this.cancel();
      if (this.legal.some((m) => m.startsWith(sel.from + square))) return this.chooseBase(sel.from + square);
    }
    const from = this.legal.filter((m) => m.startsWith(square));
    if (from.length) {
      this.sel = { stage: "piece", from: square };
      const n = new Set(from.map((m) => m.slice(2, 4))).size;
      announce(`${this.pos.board[idx(square)].name} selected: ${n} destination${n === 1 ? "" : "s"}.`);
    } else {
      // A piece that cannot move now explains itself (its tip), once the board is drawn.
      this.sel = null;
      this.draw();
      if (how !== "drag") this.board.showTipFor(square);
      return;
    }
    this.draw();
  }

  drop(from, to) {
    if (this.root.dataset.state !== "ready" || this.busy) return;
    if (this.legal.some((m) => m.startsWith(from + to))) this.chooseBase(from + to);
    else { this.sel = { stage: "piece", from }; this.draw(); }
  }

  cancel() {
    if (!this.sel) return;
    this.sel = null;
    this.hideAbilityBar();
    this.draw();
    announce("Selection cleared.");
  }

  chooseBase(base) {
    const choice = abilityChoice(this.pos, this.legal, base);
    if (!choice) return this.submit(base);
    this.sel = choice;
    this.showAbilityBar();
    this.draw();
    announce(abilityPrompt(choice));
  }

  showAbilityBar() {
    const bar = this.$(".ability-bar");
    fillAbilityBar(bar, this.sel, { play: (m) => this.submit(m), recall: (t) => this.startRecall(t), cancel: () => this.cancel() });
    bar.querySelector("button")?.focus({ preventScroll: true });
  }

  hideAbilityBar() {
    // The keyboard's place is not lost with the buttons: back to the board.
    clearAbilityBar(this.$(".ability-bar"), this.board);
  }

  pickAbilityTarget(square) {
    const pick = pickAbilityTarget(this.sel, square);
    if (pick.move) this.submit(pick.move);
    else if (pick.recall) this.startRecall(pick.recall);
    else if (pick.cancel) this.cancel();
    else announce("Choose a highlighted square, Skip, or Cancel.");
  }

  startRecall(target) {
    this.sel = recallSelection(this.sel, target);
    this.showAbilityBar();
    this.draw();
    announce(`Recall ${target}: choose its destination.`);
  }

  pickRecallDest(square) {
    const d = this.sel.dests.find((o) => o.square === square);
    if (d) this.submit(d.move);
    else announce("Choose one of the highlighted starting squares.");
  }

  /** The player's move, judged by the engine against the step's goal. */
  async submit(move) {
    this.sel = null;
    this.hideAbilityBar();
    let met = false;
    try {
      met = lessonGoal(this.pos, move, this.step.check);
    } catch {
      met = false; // not a legal move here: never a success
    }
    if (!met) {
      this.tries += 1;
      sfx.error();
      // Not played: the board stays as it was, with the hint (and after a second try, the move).
      const box = this.feedback(`Not quite. ${this.step.hint}`, "wrong");
      if (this.tries >= 2) box.append(h("p", { class: "lesson-answer", text: `The move: ${describeMove(this.pos, this.step.solution)}.` }));
      this.root.dataset.state = "ready";
      this.root.dataset.tries = String(this.tries);
      this.draw();
      return;
    }
    this.busy = true;
    this.feedback("");
    const run = this.run;
    const stale = () => this.gone || run !== this.run;
    await this.play(move);
    if (stale()) return;
    if (this.stepIndex + 1 < this.lesson.steps.length) {
      const reply = this.step.reply;
      this.feedback("Good. Now the opponent moves…", "ok");
      if (reply) await this.play(reply);
      if (stale()) return;
      this.stepIndex += 1;
      this.tries = 0;
      this.busy = false;
      this.showStep();
      this.feedback("Good.", "ok");
      this.draw();
      announce(`Step ${this.stepIndex + 1} of ${this.lesson.steps.length}: ${this.step.task}`);
      return;
    }
    this.busy = false;
    markDone(this.lesson.id);
    this.root.dataset.state = "done";
    this.$(".lesson-strip [aria-current]")?.classList.add("done");
    this.draw();
    const box = this.feedback("", "ok");
    box.append(h("p", { class: "lesson-done-line" }, h("strong", { text: "Well done!" }),
      this.next ? " Lesson complete." : " Lesson complete: that was the last one.", this.pos.outcome ? ` (${this.pos.outcome.text.replace(/^./, (c) => c.toUpperCase())}.)` : ""));
    const next = this.$(".next-lesson");
    if (next) next.classList.add("primary");
    (next || this.$(".restart")).focus({ preventScroll: true });
    announce(`Well done! Lesson complete.${this.next ? ` Next: ${this.next.title}.` : ""}`);
  }

  /** Plays a move (the engine's), draws it (its slide, what it changed) and waits for it to settle. */
  async play(move) {
    const before = this.pos;
    const { pos, effects } = applyMove(before, move);
    this.pos = pos;
    this.last = { effects };
    this.legal = legalMoves(pos);
    if (effects.ability) sfx.ability(); else if (effects.captured.length || effects.destroyed.length) sfx.capture(); else sfx.move();
    this.root.dataset.animating = "true";
    this.draw({ from: effects.from, to: effects.landed, moved: effects.moved });
    const who = before.turn === "south" ? "You" : "Opponent";
    announce(`${who}: ${describeMove(before, move)}.`);
    await this.board.idle();
    this.root.dataset.animating = "false";
  }
}
