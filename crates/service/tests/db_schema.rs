//! The schema's two forms agree, natively: the repository's `migrations/` applied in
//! order (as `wrangler d1 migrations apply` does, [`Sqlite::migrated`]) give exactly the
//! tables, columns, constraints and indexes of `schema.sql`. The real-runtime form of
//! this check (wrangler's own SQLite files) is `tests/reliability.rs`'s
//! `applying_the_migrations_in_order_yields_exactly_schema_sql`.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use rusqlite::types::Value;
use service::sqlite::{migrations_dir, Sqlite};

/// SQL without comments, case or layout: `create table t(a integer,b text)`.
fn normalise(sql: &str) -> String {
    let no_comments: Vec<&str> = sql.lines().map(|l| l.split("--").next().unwrap_or_default()).collect();
    let joined = no_comments.join(" ").to_lowercase();
    let mut s = joined.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in ["(", ")", ","] {
        s = s.replace(&format!(" {p}"), p).replace(&format!("{p} "), p);
    }
    s
}

/// Every row of a query, each as one line of its values.
fn lines(db: &Sqlite, sql: &str, arg: &str) -> Vec<String> {
    let mut stmt = db.conn().prepare(sql).unwrap();
    let n = stmt.column_count();
    let rows = stmt
        .query_map([arg], |r| {
            (0..n)
                .map(|i| {
                    Ok(match r.get::<_, Value>(i)? {
                        Value::Null => "NULL".to_owned(),
                        Value::Integer(v) => v.to_string(),
                        Value::Real(v) => v.to_string(),
                        Value::Text(v) => v,
                        Value::Blob(v) => format!("{v:?}"),
                    })
                })
                .collect::<rusqlite::Result<Vec<_>>>()
                .map(|v| v.join(" | "))
        })
        .unwrap();
    rows.collect::<rusqlite::Result<Vec<_>>>().unwrap()
}

/// The schema as SQLite sees it: each object's normalised SQL, and per table its columns
/// (name, type, NOT NULL, default, key), foreign keys, and indexes with their columns.
fn describe(db: &Sqlite) -> Vec<String> {
    let mut out = Vec::new();
    let mut stmt = db
        .conn()
        .prepare(
            "SELECT type, name, tbl_name, sql FROM sqlite_master \
             WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
        )
        .unwrap();
    let objects: Vec<(String, String, String, Option<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    for (kind, name, table, sql) in &objects {
        out.push(format!("{kind} {name} on {table}: {}", normalise(sql.as_deref().unwrap_or_default())));
        if kind != "table" {
            continue;
        }
        for l in
            lines(db, "SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)", name)
        {
            out.push(format!("  column {l}"));
        }
        for l in lines(
            db,
            "SELECT id, seq, \"table\", \"from\", \"to\", on_update, on_delete, \"match\" \
             FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
            name,
        ) {
            out.push(format!("  foreign key {l}"));
        }
        for l in lines(
            db,
            "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1) ORDER BY name",
            name,
        ) {
            let index = l.split(" | ").next().unwrap().to_owned();
            out.push(format!("  index {l}"));
            for c in lines(
                db,
                "SELECT seqno, cid, name, \"desc\", coll, key FROM pragma_index_xinfo(?1) ORDER BY seqno",
                &index,
            ) {
                out.push(format!("    {c}"));
            }
        }
    }
    out
}

fn from_schema_sql() -> Sqlite {
    let db = Sqlite::empty().unwrap();
    db.execute_file(&migrations_dir().join("../schema.sql")).unwrap();
    db
}

#[test]
fn applying_the_migrations_in_order_yields_exactly_schema_sql() {
    let migrated = describe(&Sqlite::migrated().unwrap());
    let direct = describe(&from_schema_sql());
    assert!(migrated.iter().filter(|l| l.starts_with("table ")).count() >= 13, "{migrated:#?}");
    for (a, b) in migrated.iter().zip(&direct) {
        assert_eq!(a, b, "migrations (left) vs schema.sql (right)");
    }
    assert_eq!(migrated, direct, "migrations (left) vs schema.sql (right)");
}

/// The comparison sees what a schema change would change: a column's default, an
/// index's column, a foreign key (each made on a copy of `schema.sql`'s database).
#[test]
fn the_schema_comparison_sees_a_changed_default_index_or_foreign_key() {
    let base = describe(&from_schema_sql());
    for change in [
        "ALTER TABLE players ADD COLUMN extra INTEGER",
        "DROP INDEX games_unfinished; CREATE INDEX games_unfinished ON games (result) WHERE result IS NOT NULL",
        "DROP INDEX sessions_by_player; CREATE INDEX sessions_by_player ON sessions (expires_at)",
        "DROP TABLE discord_dm; CREATE TABLE discord_dm (player_id TEXT PRIMARY KEY, created_at INTEGER NOT NULL)",
        "DROP TABLE discord_dm; CREATE TABLE discord_dm (player_id TEXT PRIMARY KEY REFERENCES players(id), created_at INTEGER)",
    ] {
        let db = from_schema_sql();
        db.conn().execute_batch(change).unwrap();
        assert_ne!(describe(&db), base, "{change}");
    }
}
