// Turn notifications (Web Push), opt-in per browser: a toggle that registers the service
// worker (/sw.js), subscribes with the server's VAPID key and stores the subscription for
// this player (POST /api/me/push); off unsubscribes. Hidden where the browser or the
// server does not offer push.

import { api } from "./api.js";
import { ICONS } from "./icons.js";
import { el, toast } from "./ui.js";

const supported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

function keyBytes(b64) {
  const pad = "=".repeat((4 - (b64.length % 4)) % 4);
  const raw = atob((b64 + pad).replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

async function current() {
  const reg = await navigator.serviceWorker.getRegistration("/");
  return reg ? reg.pushManager.getSubscription() : null;
}

/** The toggle (a button with aria-pressed), or null when push is unavailable here. */
export async function pushToggle() {
  if (!supported()) return null;
  let key;
  try { key = await api.pushKey(); } catch { return null; }
  if (!key.available) return null;
  // A toggle: the name stays; aria-pressed and the check mark say whether it is on.
  const btn = el(`<button type="button" class="push-toggle toggle" aria-pressed="false"><span class="state-icon"></span>🔔 Notify me when it is my move</button>`);
  const show = (on) => {
    btn.setAttribute("aria-pressed", String(on));
    btn.querySelector(".state-icon").innerHTML = on ? ICONS.check : "";
  };
  show(!!(await current().catch(() => null)) && Notification.permission === "granted");
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    try {
      const sub = await current();
      if (sub && btn.getAttribute("aria-pressed") === "true") {
        await api.pushUnsubscribe(sub.endpoint).catch(() => {});
        await sub.unsubscribe();
        show(false);
        return;
      }
      if ((await Notification.requestPermission()) !== "granted") {
        toast("Notifications are blocked for this site in your browser.", "error");
        return;
      }
      const reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
      await navigator.serviceWorker.ready;
      const fresh = sub || await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key.public_key) });
      await api.pushSubscribe(fresh.toJSON());
      show(true);
      toast("You will be notified when it is your move.");
    } catch (e) {
      toast(`Notifications could not be turned on: ${e.message}`, "error");
    } finally {
      btn.disabled = false;
    }
  });
  return btn;
}

/** The Discord-messages toggle for players signed in with Discord (null where the server
 * has no bot or the player is not signed in with Discord). */
export async function discordToggle() {
  let st;
  try { st = await api.discordDm(); } catch { return null; }
  if (!st.available) return null;
  const btn = el(`<button type="button" class="discord-dm-toggle toggle" aria-pressed="false"><span class="state-icon"></span>Message me on Discord when it is my move</button>`);
  const show = (on) => {
    btn.setAttribute("aria-pressed", String(on));
    btn.querySelector(".state-icon").innerHTML = on ? ICONS.check : "";
  };
  show(!!st.enabled);
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    try {
      show((await api.setDiscordDm(btn.getAttribute("aria-pressed") !== "true")).enabled);
    } catch (e) {
      toast(e.message, "error");
    } finally {
      btn.disabled = false;
    }
  });
  return btn;
}
