//! Accounts on the real runtime: guest sessions, display names, and "Sign in with
//! Discord" against a local stand-in server that speaks Discord's OAuth2 (authorize with
//! state and PKCE, token exchange, `users/@me`).

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::json;
use support::discord::{self, Browser};
use support::Server;

/// The binary's shared runtime (see `support::shared`), signing in against the shared
/// stand-in; each test uses Discord user ids of its own.
fn shared() -> &'static Server {
    discord::shared_with(&[]).0
}

/// The players whose Discord id is one of `ids`.
fn linked(s: &Server, ids: &[&str]) -> Vec<String> {
    let list = ids.iter().map(|i| format!("'{i}'")).collect::<Vec<_>>().join(", ");
    s.d1(&format!("SELECT discord_id FROM players WHERE discord_id IN ({list}) ORDER BY discord_id"))
        .iter()
        .map(|r| r["discord_id"].as_str().unwrap().to_owned())
        .collect()
}

fn players(s: &Server) -> usize {
    s.d1("SELECT COUNT(*) AS n FROM players")[0]["n"].as_u64().unwrap() as usize
}

#[test]
fn sign_in_with_discord_links_the_guest_and_reaches_the_same_player_elsewhere() {
    let (s, discord, _) = discord::shared_with(&[]);
    let mut a = Browser::new();
    let guest = a.me(s);
    assert_eq!(guest["discord_linked"], false);
    let first = a.send("GET", &s.url("/api/me"), None);
    assert!(first.set_cookie.is_empty(), "an existing session is kept");
    // The cookie a new browser gets (at its first write) is __Host-, HttpOnly, Secure,
    // SameSite.
    let mut fresh = Browser::new();
    let r = fresh.send("POST", &s.url("/api/me"), None);
    let c = &r.set_cookie[0];
    assert!(c.starts_with("__Host-ia_session=") && c.contains("Path=/;"), "{c}");
    assert!(c.contains("HttpOnly") && c.contains("Secure") && c.contains("SameSite=Lax"), "{c}");
    // The authorize URL carries state and a PKCE challenge, never the verifier.
    let login = a.send("GET", &s.url("/api/auth/discord/login"), None);
    let loc = login.location.unwrap();
    assert!(loc.starts_with(discord) && loc.contains("state=") && loc.contains("code_challenge="), "{loc}");
    assert!(!loc.contains("code_verifier"));

    let before = a.cookie.clone();
    let done = a.sign_in(s, "4242", false);
    assert_eq!((done.status, done.location.as_deref()), (302, Some("/")), "{}", done.body);
    // Regression (issue 11 item 4): a fresh session at sign-in; the old token is dead.
    assert_ne!(a.cookie, before, "a new session token at sign-in");
    let mut old = Browser { cookie: before, agent: Browser::new().agent };
    assert!(old.send("GET", &s.url("/api/me"), None).body.contains(r#""id":null"#));
    let me = a.me(s);
    assert_eq!(me["id"], guest["id"], "the guest became the account");
    assert_eq!(me["discord_linked"], true);
    assert_eq!(me["name"], "Player 4242");

    // A second browser, a new guest, signs in with the same Discord account.
    let mut b = Browser::new();
    let other_guest = b.me(s);
    assert_ne!(other_guest["id"], guest["id"]);
    assert_eq!(b.sign_in(s, "4242", false).status, 302);
    assert_eq!(b.me(s)["id"], guest["id"], "the same player on the second browser");

    // Sign out: the cookie is cleared and the old session is gone.
    let old = b.cookie.clone();
    let out = b.send("POST", &s.url("/api/auth/logout"), None);
    assert_eq!(out.status, 200);
    assert!(out.set_cookie[0].contains("Max-Age=0"));
    let mut stale = Browser { cookie: old, agent: Browser::new().agent };
    assert_ne!(stale.me(s)["id"], guest["id"], "a revoked session is not accepted");
}

#[test]
fn wrong_state_replayed_code_and_denied_consent_are_refused_with_nothing_created() {
    let s = shared();
    let mut a = Browser::new();
    let a_id = a.me(s)["id"].clone();

    // A state this browser never started.
    let r = a.send("GET", &s.url("/api/auth/discord/callback?code=code1&state=forged"), None);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("bad_state"));

    // A browser (it asks for HTML) is sent back to the client with the reason instead.
    let r = a
        .agent
        .get(&s.url("/api/auth/discord/callback?code=code1&state=forged"))
        .header("Cookie", &format!("{}={}", service::accounts::SESSION_COOKIE, a.cookie.clone().unwrap()))
        .header("Accept", "text/html,application/xhtml+xml")
        .call()
        .unwrap();
    assert_eq!(r.status(), 302);
    assert_eq!(r.headers().get("location").unwrap().to_str().unwrap(), "/?signin_error=bad_state");

    // Denied consent.
    let r = a.sign_in(s, "7", true);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("discord_denied"));
    assert_eq!(a.me(s)["discord_linked"], false);

    // Another browser's state (login CSRF): refused for this browser.
    let mut other = Browser::new();
    other.me(s);
    let login = other.send("GET", &s.url("/api/auth/discord/login"), None);
    let consent = other.send("GET", &format!("{}&user=9", login.location.unwrap()), None);
    let r = a.send("GET", &consent.location.unwrap(), None);
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(a.me(s)["discord_linked"], false);

    // A replayed code: the first use links, the replay (with a fresh state) is refused.
    let login = a.send("GET", &s.url("/api/auth/discord/login"), None);
    let consent = a.send("GET", &format!("{}&user=11", login.location.unwrap()), None);
    let back = consent.location.unwrap();
    let code = service::accounts::query_param(back.split_once('?').unwrap().1, "code").unwrap();
    assert_eq!(a.send("GET", &back, None).status, 302);
    let mut c = Browser::new();
    c.me(s);
    let login = c.send("GET", &s.url("/api/auth/discord/login"), None);
    let state =
        service::accounts::query_param(login.location.unwrap().split_once('?').unwrap().1, "state").unwrap();
    let r = c.send("GET", &s.url(&format!("/api/auth/discord/callback?code={code}&state={state}")), None);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("discord_code_rejected"));
    assert_eq!(c.me(s)["discord_linked"], false);
    // No account from any refused attempt (users 7, 9 and the replay), only the one use
    // of user 11's code; the refusals left the guests as they were.
    assert_eq!(linked(s, &["7", "9", "11"]), ["11"]);
    assert_eq!(a.me(s)["id"], a_id, "the guest became the account");
    assert_eq!(
        (other.me(s)["discord_linked"].as_bool(), c.me(s)["discord_linked"].as_bool()),
        (Some(false), Some(false))
    );
}

#[test]
fn display_names_are_validated_and_stored_safely() {
    let s = shared();
    let mut a = Browser::new();
    let a_id = a.me(s)["id"].as_str().unwrap().to_owned();
    for bad in ["<script>alert(1)</script>", "Robert'); DROP TABLE players;--", &"x".repeat(5000), "a"] {
        let r = a.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": bad })));
        assert_eq!(r.status, 422, "{bad}: {}", r.body);
        assert!(r.body.contains("invalid_name"));
    }
    let r = a.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": "Zoë O'Neil" })));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(a.me(s)["name"], "Zoë O'Neil");
    // Another player may not show the same name (ASCII case aside) or pose as a guest.
    let mut b = Browser::new();
    let before = b.me(s)["name"].clone();
    for (bad, status, code) in [
        ("zoë o'neil", 409, "name_taken"),
        ("Zoë O'Neil", 409, "name_taken"),
        ("Guest-abc", 422, "invalid_name"),
    ] {
        let r = b.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": bad })));
        assert_eq!((r.status, r.body.contains(code)), (status, true), "{bad}: {}", r.body);
    }
    assert_eq!(b.me(s)["name"], before);
    // Keeping one's own name is not a clash.
    let r = a.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": "Zoë O'Neil" })));
    assert_eq!(r.status, 200, "{}", r.body);
    // The players table is intact and holds the name verbatim (bound, not spliced).
    assert_eq!(
        s.d1(&format!("SELECT display_name FROM players WHERE id = '{a_id}'"))[0]["display_name"],
        "Zoë O'Neil"
    );
}

/// Regression (issue 11 item 4): signing in with another Discord account on a session
/// already linked re-bound the player to the new id (or merged a non-guest).
#[test]
fn a_linked_session_signing_in_as_another_discord_account_switches_without_rebinding() {
    let s = shared();
    let mut a = Browser::new();
    a.me(s);
    assert_eq!(a.sign_in(s, "100", false).status, 302);
    let first = a.me(s);
    assert_eq!(first["discord_linked"], true);
    assert_eq!(a.sign_in(s, "200", false).status, 302);
    let second = a.me(s);
    assert_ne!(second["id"], first["id"], "another account, another player");
    // The first account is untouched: still linked to 100, not merged, not deleted.
    let row = s.d1(&format!("SELECT discord_id FROM players WHERE id = '{}'", first["id"].as_str().unwrap()));
    assert_eq!(row[0]["discord_id"], "100");
    let row =
        s.d1(&format!("SELECT discord_id FROM players WHERE id = '{}'", second["id"].as_str().unwrap()));
    assert_eq!(row[0]["discord_id"], "200");
    let merges = s.d1(&format!(
        "SELECT COUNT(*) AS n FROM player_merges WHERE from_id IN ('{0}', '{1}') OR into_id IN ('{0}', '{1}')",
        first["id"].as_str().unwrap(),
        second["id"].as_str().unwrap()
    ));
    assert_eq!(merges[0]["n"], 0);
    // Back to the first account: the same player again.
    assert_eq!(a.sign_in(s, "100", false).status, 302);
    assert_eq!(a.me(s)["id"], first["id"]);
}

#[test]
fn sign_out_everywhere_ends_every_session_of_the_player() {
    let s = shared();
    let (mut a, mut b) = (Browser::new(), Browser::new());
    a.me(s);
    b.me(s);
    assert_eq!(a.sign_in(s, "55", false).status, 302);
    assert_eq!(b.sign_in(s, "55", false).status, 302);
    let id = a.me(s)["id"].clone();
    assert_eq!(b.me(s)["id"], id);
    let r = a.send("POST", &s.url("/api/auth/logout/all"), None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.set_cookie.iter().all(|c| c.contains("Max-Age=0")));
    // b's session is gone too: its cookie now reads as no session.
    let r = b.send("GET", &s.url("/api/me"), None);
    assert!(r.body.contains(r#""id":null"#), "{}", r.body);
    assert_eq!(
        s.d1(&format!("SELECT COUNT(*) AS n FROM sessions WHERE player_id = '{}'", id.as_str().unwrap()))[0]
            ["n"],
        0
    );
}

/// Regression (issue 11 item 4): every cookieless GET made a guest (players row + session).
#[test]
fn cookieless_reads_create_no_guest_and_a_first_write_does() {
    // A fresh runtime (without Discord): the test counts every player there is.
    let s = Server::start(&[]);
    for path in ["/api/me", "/api/stories", "/api/leaderboard", "/api/me", "/api/stats/matchups"] {
        let r = s.get(path);
        assert_eq!(r.status, 200, "{path}: {}", r.text);
    }
    assert_eq!(players(&s), 0);
    assert!(s.get("/api/me").json()["id"].is_null());
    let mut a = Browser::new();
    let me = a.me(&s); // POST /api/me: the write that starts a session
    assert!(me["id"].is_string());
    assert_eq!(players(&s), 1);
    // Unconfigured Discord: a clear 503, nothing stored.
    let r = a.send("GET", &s.url("/api/auth/discord/login"), None);
    assert_eq!(r.status, 503);
    assert!(r.body.contains("discord_unconfigured"));
    assert_eq!(players(&s), 1);
}

#[test]
fn look_alike_and_invisible_names_are_refused() {
    let s = shared();
    let (mut a, mut b) = (Browser::new(), Browser::new());
    let a_id = a.me(s)["id"].as_str().unwrap().to_owned();
    b.me(s);
    let r = a.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": "Ada" })));
    assert_eq!(r.status, 200, "{}", r.body);
    // Fullwidth letters fold to the same normalised name; a zero-width space or a Hangul
    // filler is refused outright.
    for (name, status, code) in [
        ("Ａｄａ", 409, "name_taken"),
        ("ADA", 409, "name_taken"),
        ("Ada\u{200B}", 422, "invalid_name"),
        ("Ad\u{3164}a", 422, "invalid_name"),
    ] {
        let r = b.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": name })));
        assert_eq!((r.status, r.body.contains(code)), (status, true), "{name:?}: {}", r.body);
    }
    // The normalised form is what the unique index holds.
    assert_eq!(
        s.d1(&format!("SELECT name_key FROM player_names WHERE player_id = '{a_id}'"))[0]["name_key"],
        "ada"
    );
    // Renaming frees the old name.
    assert_eq!(a.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": "Ada Two" }))).status, 200);
    assert_eq!(b.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": "Ａｄａ" }))).status, 200);
}

/// Regression (issue 11 item 4): a guest that started a story stage and then signed in
/// (merged into an existing account) could not exit the stage: the game named the guest,
/// the session the account (503 `stage_not_ended`).
#[test]
fn a_merged_guest_can_still_exit_its_story_stage() {
    let s = shared();
    let mut account = Browser::new();
    account.me(s);
    assert_eq!(account.sign_in(s, "900", false).status, 302);
    let mut guest = Browser::new();
    guest.me(s);
    let r = guest.send("POST", &s.url("/api/stories/clockwork/stages/0"), None);
    assert_eq!(r.status, 201, "{}", r.body);
    let game: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    let id = game["id"].as_str().unwrap().to_owned();
    assert_eq!(guest.sign_in(s, "900", false).status, 302, "merged into the account");
    assert_eq!(guest.me(s)["id"], account.me(s)["id"]);
    let r = guest.send("POST", &s.url("/api/stories/clockwork/exit"), None);
    assert_eq!(r.status, 200, "{}", r.body);
    let state = s.state(&id);
    assert_eq!(state["result"]["reason"], "abandoned", "{state}");
}

/// Regression: signing in merged a guest into an existing account in one batch that
/// deleted the guest but left its push subscriptions and posted challenges naming it.
/// D1 enforces those foreign keys, so the batch failed and the sign-in ended in
/// `signin_error=storage_unavailable`, every time, for that browser.
#[test]
fn a_guest_with_push_subscriptions_and_challenges_merges_into_the_account() {
    let s = shared();
    let mut account = Browser::new();
    account.me(s);
    assert_eq!(account.sign_in(s, "903", false).location.as_deref(), Some("/"));
    let account_id = account.me(s)["id"].as_str().unwrap().to_owned();
    let mut guest = Browser::new();
    let guest_id = guest.me(s)["id"].as_str().unwrap().to_owned();
    // The row `POST /api/me/push` stores (that route needs a VAPID key: tests/push.rs).
    let endpoint = format!("https://push.example/merge-{guest_id}");
    s.d1(&format!(
        "INSERT INTO push_subscriptions (endpoint, player_id, p256dh, auth, created_at) \
         VALUES ('{endpoint}', '{guest_id}', 'k', 'a', 0)"
    ));
    let r =
        guest.send("POST", &s.url("/api/challenges"), Some(&json!({ "south": "axiom", "north": "blades" })));
    assert_eq!(r.status, 201, "{}", r.body);
    let challenge: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    let challenge = challenge["challenge"]["id"].as_str().unwrap().to_owned();

    let done = guest.sign_in(s, "903", false);
    assert_eq!((done.status, done.location.as_deref()), (302, Some("/")), "{}\n{}", done.body, s.log());
    assert_eq!(guest.me(s)["id"], account_id.as_str(), "merged into the account");
    let one = |sql: String| s.d1(&sql)[0]["v"].clone();
    assert_eq!(
        one(format!("SELECT COUNT(*) AS v FROM players WHERE id = '{guest_id}'")),
        0,
        "the guest went"
    );
    let owner = one(format!("SELECT player_id AS v FROM push_subscriptions WHERE endpoint = '{endpoint}'"));
    assert_eq!(owner, account_id.as_str(), "its notifications are the account's");
    let poster = one(format!("SELECT poster_id AS v FROM challenges WHERE id = '{challenge}'"));
    assert_eq!(poster, account_id.as_str(), "its open challenge is the account's");
}

/// Issue 11 item 4: names chosen before `player_names` (migration 0004) existed get
/// their normalised key from the Cron Trigger, so look-alikes of them are refused too; a
/// clash between two legacy names keeps both names (one gets the key) and nothing fails.
#[test]
fn the_cron_trigger_keys_legacy_names_and_keeps_clashing_ones() {
    // A fresh runtime: the sweep works on the whole players table.
    let s = Server::start(&[]);
    let old = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
        - 3_600_000;
    s.d1(&format!(
        "INSERT INTO players (id, display_name, created_at) VALUES ('legacy-zoe', 'Zoë', {old}), \
             ('legacy-bob-1', 'ＢＯＢ', {old}), ('legacy-bob-2', 'bob', {old}), \
             ('keyed-carol', 'Carol', {old}), ('a-guest', 'Guest-abc123', {old}); \
         INSERT INTO player_names (name_key, player_id) VALUES ('carol', 'keyed-carol');"
    ));
    let keys = || -> Vec<(String, String)> {
        s.d1("SELECT name_key, player_id FROM player_names ORDER BY name_key")
            .iter()
            .map(|r| {
                (r["name_key"].as_str().unwrap().to_owned(), r["player_id"].as_str().unwrap().to_owned())
            })
            .collect()
    };
    assert_eq!(s.get("/cdn-cgi/handler/scheduled?cron=0+*+*+*+*").status, 200);
    let k = support::poll("the cron to key the three names", 30, || Some(keys()).filter(|k| k.len() >= 3));
    assert_eq!(k.len(), 3, "{k:?}");
    assert_eq!(k[0].0, "bob");
    assert!(k[0].1.starts_with("legacy-bob-"), "{k:?}");
    assert_eq!(k[1], ("carol".to_owned(), "keyed-carol".to_owned()));
    assert_eq!(k[2], ("zoë".to_owned(), "legacy-zoe".to_owned()));
    // Both clashing names are kept, and no player went (the named guests are not empty).
    let names = s.d1("SELECT display_name FROM players WHERE id LIKE 'legacy-%' ORDER BY id");
    let names: Vec<&str> = names.iter().map(|r| r["display_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ＢＯＢ", "bob", "Zoë"]);
    // Another run finds the clash again, logs it and changes nothing.
    assert_eq!(s.get("/cdn-cgi/handler/scheduled?cron=0+*+*+*+*").status, 200);
    assert_eq!(keys(), k);
    // A look-alike of a legacy name is now refused.
    let mut b = Browser::new();
    b.me(&s);
    let r = b.send("POST", &s.url("/api/me/name"), Some(&json!({ "name": "ZOË" })));
    assert_eq!((r.status, r.body.contains("name_taken")), (409, true), "{}", r.body);
}
