// The board view: a 9×9 ARIA grid of focusable squares with coordinates, the Electric
// Field (rank 5) and both end rows marked, flipped for North. Input: click, drag (pointer
// events) and keyboard (arrow keys move the focus, Enter/Space activates, Escape cancels).
// It only draws what it is given and reports what the player pointed at.
import { FILES, PIECES, sqName, idx } from "./notation.js";
import { pieceSVG } from "./pieces.js";

let tipIds = 0;
// Each board's arrow-head marker needs an id of its own: a page may hold two boards (the
// game's and the analysis board), and url(#id) would take the first one's.
let boardIds = 0;

export class BoardView {
  /**
   * describe(square): the tip's content for the piece there (an element), or null for just
   * its name (piece-tip.js writes it; the board only shows it).
   */
  constructor(root, { onActivate, onDrop, onCancel, describe = null }) {
    this.root = root;
    this.onActivate = onActivate;
    this.onDrop = onDrop;
    this.onCancel = onCancel;
    this.describe = describe;
    this.flipped = false;
    this.focusSq = "e1";
    this.interactive = true;
    this.uid = ++boardIds;
    root.classList.add("board-frame");
    root.innerHTML = `<div class="ranks" aria-hidden="true"></div><div class="board" role="grid" aria-label="Board"></div><div class="files" aria-hidden="true"></div>`;
    this.grid = root.querySelector(".board");
    this.cells = {};
    this.build();
    this.grid.addEventListener("keydown", (e) => this.key(e));
    this.grid.addEventListener("pointerdown", (e) => this.pointerDown(e));
    // A piece explains itself (its tip): on hover (mouse, pen: a glance, without the rules
    // link), on a long press (touch), on a right click, when the keyboard's focus is on it,
    // and when game.js asks (a tap on a piece that cannot move, or on an enemy piece).
    // Those last ones stay until the next tap elsewhere or Escape, so the link is reachable.
    this.grid.addEventListener("pointerover", (e) => {
      if (e.pointerType === "touch" || this.tipSticky) return;
      const c = e.target.closest?.(".sq");
      if (c?.dataset.piece) this.showTip(c); else this.hideTip();
    });
    this.grid.addEventListener("pointerleave", () => { if (!this.tipSticky) this.hideTip(); });
    this.grid.addEventListener("contextmenu", (e) => {
      const c = e.target.closest?.(".sq");
      if (!c) return;
      e.preventDefault();
      if (c.dataset.piece && e.pointerType !== "touch") this.showTip(c, { sticky: true });
    });
    this.grid.addEventListener("focusin", (e) => {
      const c = e.target.closest?.(".sq");
      if (!c) return;
      this.setFocus(c.dataset.sq, false);
      // Keyboard focus (not a click) shows the tip; Tab then reaches its rules link.
      if (c.matches(":focus-visible")) { if (c.dataset.piece) this.showTip(c, { sticky: true }); else this.hideTip(); }
    });
    this.grid.addEventListener("focusout", (e) => {
      if (!this.tip?.contains(e.relatedTarget) && !this.grid.contains(e.relatedTarget)) this.hideTip();
    });
    this.outside = (e) => { if (this.tipSticky && !this.tip?.contains(e.target)) this.hideTip(); };
    document.addEventListener("pointerdown", this.outside, true);
  }

  /** Removes the listeners the board put on the document. */
  destroy() {
    document.removeEventListener("pointerdown", this.outside, true);
  }

  build() {
    this.grid.innerHTML = "";
    const ranks = this.flipped ? [0, 1, 2, 3, 4, 5, 6, 7, 8] : [8, 7, 6, 5, 4, 3, 2, 1, 0];
    const files = this.flipped ? [8, 7, 6, 5, 4, 3, 2, 1, 0] : [0, 1, 2, 3, 4, 5, 6, 7, 8];
    for (const r of ranks) {
      const row = document.createElement("div");
      row.setAttribute("role", "row");
      row.className = "row";
      for (const f of files) {
        const name = sqName(f, r);
        const c = document.createElement("div");
        c.setAttribute("role", "gridcell");
        c.className = `sq ${(f + r) % 2 ? "light" : "dark"}${r === 4 ? " field" : ""}${r === 0 || r === 8 ? " endrow" : ""}`;
        c.dataset.sq = name;
        c.tabIndex = name === this.focusSq ? 0 : -1;
        row.append(c);
        this.cells[name] = c;
      }
      this.grid.append(row);
    }
    // The hint's arrow: one SVG over the whole grid (it spans every row and column), in
    // squares as units, drawn by render() and ignored by pointers and assistive technology
    // (the squares' labels say the hint).
    this.grid.insertAdjacentHTML("beforeend", `<svg class="arrows" viewBox="0 0 9 9" aria-hidden="true" focusable="false"></svg>`);
    this.arrows = this.grid.querySelector(".arrows");
    this.root.querySelector(".ranks").innerHTML = ranks.map((r) =>
      `<span class="${r === 4 ? "field-label" : r === 0 || r === 8 ? "end-label" : ""}">${r + 1}</span>`).join("");
    this.root.querySelector(".files").innerHTML = files.map((f) => `<span>${FILES[f]}</span>`).join("");
  }

  setFlipped(flipped) {
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.build();
  }

  /**
   * Draw a position. marks: {selected, targets: Set, abilityTargets: Set, last: [from, to],
   * destroyed: Set, moved: Set, movedFrom: Set (where a pulled or recalled piece came
   * from), preview: Set, canPick: Set (own movable pieces), threatened (the player's
   * king-piece's square when the opponent could take it next move), threatFrom: Set (the
   * pieces that could), losing: Set (destinations where every move loses by repetition),
   * hint: [from, to] (a suggested move: both squares marked and an arrow between them),
   * line: [[from, to], …] (an expected line of play: an arrow per move, each fainter than
   * the one before; the squares are not marked, the page says the line in words)}.
   */
  render(pos, marks = {}, animate = null) {
    this.pos = pos;
    this.hideTip();
    const m = { targets: new Set(), abilityTargets: new Set(), destroyed: new Set(), moved: new Set(), movedFrom: new Set(), preview: new Set(), canPick: new Set(), threatFrom: new Set(), losing: new Set(), ...marks };
    for (const [name, c] of Object.entries(this.cells)) {
      const p = pos.board[idx(name)];
      const cls = ["sq", c.classList.contains("light") ? "light" : "dark"];
      if (c.classList.contains("field")) cls.push("field");
      if (c.classList.contains("endrow")) cls.push("endrow");
      const labels = [name];
      if (p) labels.push(`${p.side === "south" ? "South" : "North"} ${p.name}${p.charged ? ", charged" : ""}`);
      else labels.push("empty");
      if (m.last && (m.last[0] === name || m.last[1] === name)) { cls.push("last"); labels.push(m.last[0] === name ? "last move from" : "last move to"); }
      if (m.selected === name) { cls.push("selected"); labels.push("selected"); }
      if (m.targets.has(name)) { cls.push(p ? "target capture" : "target"); labels.push(p ? "can capture" : "legal destination"); }
      if (m.abilityTargets.has(name)) { cls.push("ability-target"); labels.push("ability target"); }
      if (m.destroyed.has(name)) { cls.push("destroyed"); labels.push("piece destroyed here"); }
      if (m.moved.has(name)) { cls.push("moved"); labels.push("piece moved here by an ability"); }
      if (m.movedFrom.has(name)) { cls.push("moved-from"); labels.push("a piece was moved away from here by an ability"); }
      if (m.losing.has(name)) { cls.push("losing"); labels.push("loses by a third repetition"); }
      if (m.threatened === name) { cls.push("threatened"); labels.push("your king-piece can be taken next move"); }
      if (m.threatFrom.has(name)) { cls.push("threat-from"); labels.push("can win the game next move"); }
      if (m.hint && m.hint.includes(name)) { cls.push("hint"); labels.push(m.hint[0] === name ? "hint: move from here" : "hint: move here"); }
      if (m.canPick.has(name)) cls.push("pickable");
      if (m.preview.has(name)) cls.push("preview");
      if (name === this.focusSq) cls.push("kbd");
      c.className = cls.join(" ");
      c.setAttribute("aria-label", labels.join(", "));
      c.setAttribute("aria-selected", m.selected === name ? "true" : "false");
      c.innerHTML = p ? pieceSVG(p, { title: false }) : "";
      if (m.destroyed.has(name) && !p) c.innerHTML = `<span class="boom" aria-hidden="true"></span>`;
      // Legal destinations: a real element, centred on the square (on every rank, the
      // Electric Field's hatching included), so that it can be seen and measured.
      if (m.targets.has(name)) c.insertAdjacentHTML("beforeend", `<span class="${p ? "target-ring" : "target-dot"}" aria-hidden="true"></span>`);
      if (m.hint && m.hint.includes(name)) c.insertAdjacentHTML("beforeend", `<span class="hint-mark" aria-hidden="true"></span>`);
      if (p) c.dataset.piece = `${p.side === "south" ? "South" : "North"} ${p.name}${p.charged ? " (charged)" : ""}`;
      else delete c.dataset.piece;
    }
    this.drawArrows(m.hint, m.line);
    if (animate) this.animate(animate);
  }

  /** The hint's arrow from `hint[0]` to `hint[1]`, and an arrow per move of `line` (the
   * first the strongest: its class says its place, `step-0`, `step-1`, …), in display
   * squares; nothing without either. */
  drawArrows(hint, line = null) {
    if (!hint && !line?.length) { this.arrows.replaceChildren(); return; }
    const at = (name) => {
      const f = FILES.indexOf(name[0]);
      const r = Number(name.slice(1)) - 1;
      return [(this.flipped ? 8 - f : f) + 0.5, (this.flipped ? r : 8 - r) + 0.5];
    };
    // A head per kind: a marker's colour is its own, not the line's.
    const heads = { hint: `arrow-head-${this.uid}`, line: `line-head-${this.uid}` };
    const arrow = ([from, to], cls, head) => {
      const [[x1, y1], [x2, y2]] = [at(from), at(to)];
      // Stopped short of the destination's centre so the head does not hide its piece.
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const [ex, ey] = [x2 - ((x2 - x1) / len) * 0.3, y2 - ((y2 - y1) / len) * 0.3];
      return `<line class="arrow ${cls}" x1="${x1}" y1="${y1}" x2="${ex}" y2="${ey}" marker-end="url(#${head})"/>`;
    };
    // Drawn last to first, so that the first move's arrow is on top where they cross.
    const lines = (line || []).map((mv, i) => arrow(mv, `line-arrow step-${i}`, heads.line)).reverse();
    const marker = (id, cls) => `<marker id="${id}" viewBox="0 0 4 4" refX="2" refY="2" markerWidth="3" markerHeight="3" orient="auto"><path d="M0,0 L4,2 L0,4 z" class="${cls}"/></marker>`;
    this.arrows.innerHTML = `<defs>${marker(heads.hint, "arrow-head")}${marker(heads.line, "arrow-head line-head")}</defs>` +
      lines.join("") + (hint ? arrow(hint, "hint-arrow", heads.hint) : "");
  }

  animate({ from, to, moved = [] }) {
    const slide = (a, b, dur) => {
      const src = this.cells[a];
      const dst = this.cells[b];
      const el = dst?.querySelector(".piece");
      if (!src || !el || a === b) return;
      const r1 = src.getBoundingClientRect();
      const r2 = dst.getBoundingClientRect();
      const anim = el.animate([{ transform: `translate(${r1.left - r2.left}px, ${r1.top - r2.top}px)` }, { transform: "none" }],
        { duration: dur, easing: "cubic-bezier(.3,.7,.3,1)" });
      this.anims.push(anim);
      this.running.push(anim.finished.catch(() => {}));
    };
    this.running = [];
    this.anims = [];
    if (window.matchMedia?.("(prefers-reduced-motion: reduce)").matches) return;
    slide(from, to, 260);
    for (const [a, b] of moved) slide(a, b, 380);
  }

  /** Shows the tip of the piece on `square` (game.js: a tap on a piece that cannot move). */
  showTipFor(square) {
    const c = this.cells[square];
    if (c?.dataset.piece) this.showTip(c, { sticky: true });
  }

  showTip(c, { sticky = false } = {}) {
    if (!this.tip) {
      this.tip = document.createElement("div");
      this.tip.className = "piece-tip";
      this.tip.id = `piece-tip-${++tipIds}`;
      this.tip.setAttribute("role", "tooltip");
      this.tip.addEventListener("keydown", (e) => {
        if (e.key === "Escape") { e.stopPropagation(); const sq = this.tip.dataset.sq; this.hideTip(); this.setFocus(sq); }
      });
      // A tap on the tip (not on its link) puts it away: it may cover squares.
      this.tip.addEventListener("click", (e) => { if (!e.target.closest("a")) this.hideTip(); });
      this.tip.addEventListener("focusout", (e) => {
        if (!this.tip.contains(e.relatedTarget) && !this.grid.contains(e.relatedTarget)) this.hideTip();
      });
      this.root.append(this.tip);
    }
    const content = this.describe?.(c.dataset.sq);
    if (content) this.tip.replaceChildren(content);
    else this.tip.textContent = c.dataset.piece;
    this.tipSticky = sticky;
    this.tip.classList.toggle("sticky", sticky);
    // Screen readers: the square the tip is about is described by it.
    for (const x of this.grid.querySelectorAll("[aria-describedby]")) x.removeAttribute("aria-describedby");
    c.setAttribute("aria-describedby", this.tip.id);
    this.tip.dataset.sq = c.dataset.sq;
    this.tip.hidden = false;
    const host = this.root.getBoundingClientRect();
    const r = c.getBoundingClientRect();
    const tw = this.tip.offsetWidth;
    const left = Math.max(0, Math.min(host.width - tw, r.left - host.left + r.width / 2 - tw / 2));
    this.tip.style.left = `${left}px`;
    // Above the square where it fits, else below; else on the side with more room.
    const th = this.tip.offsetHeight;
    const above = r.top - host.top - th - 4;
    const below = r.bottom - host.top + 4;
    const fitsBelow = below + th <= host.height;
    this.tip.style.top = `${above >= 0 || (!fitsBelow && r.top - host.top > host.height - r.bottom + host.top) ? Math.max(above, -th / 2) : below}px`;
  }

  hideTip() {
    if (this.tip) {
      this.tip.hidden = true;
      this.cells[this.tip.dataset.sq]?.removeAttribute("aria-describedby");
    }
    this.tipSticky = false;
    clearTimeout(this.pressTimer);
  }

  /** Resolves when the pieces drawn last have finished sliding. */
  idle() { return Promise.all(this.running || []); }

  /** Ends every slide at once (a move that was refused slides no further). */
  finish() {
    for (const a of this.anims || []) { try { a.finish(); } catch { /* already gone */ } }
  }

  setFocus(name, move = true) {
    const prev = this.cells[this.focusSq];
    if (prev) { prev.tabIndex = -1; prev.classList.remove("kbd"); }
    this.focusSq = name;
    const c = this.cells[name];
    c.tabIndex = 0;
    c.classList.add("kbd");
    if (move) c.focus();
  }

  key(e) {
    const c = e.target.closest(".sq");
    if (!c) return;
    const name = c.dataset.sq;
    let f = FILES.indexOf(name[0]);
    let r = Number(name[1]) - 1;
    const s = this.flipped ? -1 : 1;
    switch (e.key) {
      case "ArrowUp": r += s; break;
      case "ArrowDown": r -= s; break;
      case "ArrowLeft": f -= s; break;
      case "ArrowRight": f += s; break;
      case "Home": f = this.flipped ? 8 : 0; break;
      case "End": f = this.flipped ? 0 : 8; break;
      case "Enter":
      case " ":
        e.preventDefault();
        this.onActivate(name, "key");
        return;
      case "Escape":
        if (this.tip && !this.tip.hidden) this.hideTip();
        this.onCancel();
        return;
      default:
        return;
    }
    e.preventDefault();
    f = Math.max(0, Math.min(8, f));
    r = Math.max(0, Math.min(8, r));
    this.setFocus(sqName(f, r));
  }

  pointerDown(e) {
    if (e.button !== 0) return;
    const c = e.target.closest(".sq");
    if (!c) return;
    const from = c.dataset.sq;
    const startX = e.clientX;
    const startY = e.clientY;
    let ghost = null;
    const piece = c.querySelector(".piece");
    const draggable = piece && c.classList.contains("pickable");
    // A long press on a touch screen names the piece (and is not a click).
    let longPress = false;
    clearTimeout(this.pressTimer);
    if (e.pointerType !== "mouse" && c.dataset.piece) {
      this.pressTimer = setTimeout(() => { if (!ghost) { longPress = true; this.showTip(c, { sticky: true }); } }, 450);
    }
    const move = (ev) => {
      if (Math.hypot(ev.clientX - startX, ev.clientY - startY) > 6) clearTimeout(this.pressTimer);
      if (!draggable) return;
      if (!ghost && Math.hypot(ev.clientX - startX, ev.clientY - startY) > 6) {
        // Start dragging: select the piece so its destinations show.
        this.onActivate(from, "drag");
        const rect = c.getBoundingClientRect();
        ghost = c.querySelector(".piece")?.cloneNode(true) || piece.cloneNode(true);
        ghost.classList.add("drag-ghost");
        ghost.style.width = `${rect.width}px`;
        ghost.style.height = `${rect.height}px`;
        document.body.append(ghost);
        c.classList.add("dragging");
      }
      if (ghost) {
        ghost.style.left = `${ev.clientX}px`;
        ghost.style.top = `${ev.clientY}px`;
      }
    };
    const up = (ev) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      clearTimeout(this.pressTimer);
      if (longPress) return; // the tip stays until the next tap elsewhere
      if (ghost) {
        ghost.remove();
        this.cells[from]?.classList.remove("dragging");
        const under = document.elementFromPoint(ev.clientX, ev.clientY)?.closest?.(".sq");
        if (under && under.dataset.sq !== from && ev.type === "pointerup") this.onDrop(from, under.dataset.sq);
        return;
      }
      if (ev.type === "pointerup") {
        this.setFocus(from, false);
        this.onActivate(from, "click");
      }
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
    if (draggable) e.preventDefault();
  }
}

/**
 * A board diagram of the rules, drawn with the board's own squares and pieces: a still
 * picture (one image for assistive technology, its pieces and marks named in its label),
 * not the playable grid above. `iapn`: the position (rendered at build time from the
 * rules' letter grids, crates/docs-html); `view`: the part of the board shown ("c2 g6");
 * `marks`: squares marked with a dot (a path, an area); `destroyed`: squares where a piece
 * was destroyed. Reading IAPN's board field is notation, not rules: the build checks each
 * diagram with the engine's own parser.
 */
export function diagramBoard(iapn, { view = "a1 i9", marks = [], destroyed = [], caption = "" } = {}) {
  const [south, north, board, , charged = "-"] = iapn.trim().split(" ");
  const on = new Set(charged === "-" ? [] : charged.split(","));
  const pieces = {};
  board.split("/").forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (/[1-9]/.test(ch)) { f += Number(ch); continue; }
      const side = ch === ch.toUpperCase() ? "south" : "north";
      const letter = ch.toUpperCase();
      const p = (letter === "G" ? PIECES.clockwork : PIECES[side === "south" ? south : north])?.[letter];
      const name = sqName(f, 8 - i);
      if (p) pieces[name] = { ...p, side, charged: on.has(name) };
      f++;
    }
  });
  const [from, to] = view.split(" ").map((s) => ({ f: FILES.indexOf(s[0]), r: Number(s.slice(1)) - 1 }));
  const files = [];
  for (let f = from.f; f <= to.f; f++) files.push(f);
  const ranks = [];
  for (let r = to.r; r >= from.r; r--) ranks.push(r);
  const marked = new Set(marks);
  const gone = new Set(destroyed);
  const frame = document.createElement("div");
  // Its size in squares as classes (cN columns, rN rows; style.css): the rules' HTML is
  // kept and inserted again as markup, where the page's CSP allows no style attributes.
  frame.className = `board-frame mini-frame c${files.length} r${ranks.length}`;
  frame.setAttribute("role", "img");
  frame.innerHTML = `<div class="ranks" aria-hidden="true"></div><div class="board mini-board" aria-hidden="true"></div><div class="files" aria-hidden="true"></div>`;
  const grid = frame.querySelector(".board");
  const said = [];
  for (const r of ranks) {
    for (const f of files) {
      const name = sqName(f, r);
      const c = document.createElement("div");
      c.className = `sq ${(f + r) % 2 ? "light" : "dark"}${r === 4 ? " field" : ""}${r === 0 || r === 8 ? " endrow" : ""}${gone.has(name) ? " destroyed" : ""}`;
      const p = pieces[name];
      if (p) {
        c.innerHTML = pieceSVG(p, { title: false });
        said.push(`${p.side === "south" ? "South" : "North"} ${p.name}${p.charged ? " (charged)" : ""} on ${name}`);
      } else if (gone.has(name)) {
        c.innerHTML = `<span class="boom"></span>`;
      }
      if (marked.has(name)) c.insertAdjacentHTML("beforeend", `<span class="target-dot"></span>`);
      grid.append(c);
    }
  }
  frame.querySelector(".ranks").innerHTML = ranks.map((r) =>
    `<span class="${r === 4 ? "field-label" : r === 0 || r === 8 ? "end-label" : ""}">${r + 1}</span>`).join("");
  frame.querySelector(".files").innerHTML = files.map((f) => `<span>${FILES[f]}</span>`).join("");
  const extra = [];
  if (marked.size) extra.push(`marked: ${[...marked].join(", ")}`);
  if (gone.size) extra.push(`destroyed: ${[...gone].join(", ")}`);
  frame.setAttribute("aria-label", `${caption ? `${caption}: ` : ""}board ${FILES[from.f]}${from.r + 1} to ${FILES[to.f]}${to.r + 1}; ` +
    `${said.length ? said.join(", ") : "no pieces"}${extra.length ? `; ${extra.join("; ")}` : ""}`);
  return frame;
}
