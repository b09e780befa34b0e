// Small DOM helpers shared by the screens: element from HTML (static markup only), a safe
// element builder for anything that comes from the server, toasts, the screen-reader
// announcer, clipboard copy with a fallback, and client-side navigation.

/** "1 piece", "2 pieces": `n` and the word, plural unless n is 1 (English `s` plurals). */
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function el(html) {
  const t = document.createElement("template");
  t.innerHTML = html.trim();
  return t.content.firstElementChild;
}

/**
 * Builds an element: h("a", {class: "x", href, text: name}, child, "text", …). Strings
 * (children and `text`) are always inserted as text, never parsed as HTML, so names and
 * other texts from the server are safe here. `on<event>` props add listeners; false, null
 * and undefined props and children are skipped.
 */
export function h(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of kids.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

export function toast(text, kind = "info") {
  const host = document.getElementById("toasts");
  const t = document.createElement("div");
  t.className = `toast ${kind}`;
  t.setAttribute("role", kind === "error" ? "alert" : "status");
  t.textContent = text;
  host.append(t);
  setTimeout(() => t.classList.add("out"), 3200);
  setTimeout(() => t.remove(), 3700);
}

/**
 * A toast that stays until it is closed or its link followed: news that needs an answer
 * (a challenge accepted while the player is on another page).
 */
export function notice(text, { href, label }) {
  const host = document.getElementById("toasts");
  const t = h("div", { class: "toast notice", role: "status" }, h("span", { text }), " ",
    h("a", { href, "data-link": true, class: "notice-link", text: label }), " ",
    h("button", { type: "button", class: "icon notice-close", "aria-label": "Close", text: "×" }));
  const close = () => t.remove();
  t.querySelector("a").addEventListener("click", close);
  t.querySelector("button").addEventListener("click", close);
  host.append(t);
  return t;
}

export function announce(text) {
  const a = document.getElementById("announcer");
  a.textContent = "";
  setTimeout(() => { a.textContent = text; }, 30);
}

export async function copyText(text, done = "Copied") {
  try {
    await navigator.clipboard.writeText(text);
    toast(done);
    return true;
  } catch {
    // Fallback for browsers without clipboard access: a selected, read-only field.
    const ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.append(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch { ok = false; }
    ta.remove();
    toast(ok ? done : "Copying failed: select the text and copy it by hand.", ok ? "info" : "error");
    return ok;
  }
}

let router = null;
export function setRouter(fn) { router = fn; }
export function navigate(path) {
  history.pushState(null, "", path);
  router?.();
}
