// The service worker for turn notifications (Web Push): shows what the server sent
// ({title, body, url}, decrypted by the browser) and opens the game when it is clicked.
self.addEventListener("push", (event) => {
  let msg = {};
  try { msg = event.data ? event.data.json() : {}; } catch { msg = { title: "Iron Arena", body: event.data?.text() || "" }; }
  const url = typeof msg.url === "string" && msg.url.startsWith("/") ? msg.url : "/";
  event.waitUntil(self.registration.showNotification(msg.title || "Iron Arena", {
    body: msg.body || "",
    icon: "/favicon.svg",
    tag: msg.game ? `game-${msg.game}` : undefined,
    data: { url },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data?.url || "/";
  event.waitUntil((async () => {
    const wins = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const w of wins) {
      if (new URL(w.url).pathname === url && "focus" in w) return w.focus();
    }
    return self.clients.openWindow(url);
  })());
});
