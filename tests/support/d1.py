"""Runs SQL on a runtime's local D1 and prints the rows of its last statement as JSON.

    python3 tests/support/d1.py <persist dir> <sql: one statement or several, `;`-separated>

`wrangler dev --persist-to <dir>` keeps the local D1 database in one SQLite file under
<dir>/v3/d1/; this opens that file, as `wrangler d1 execute DB --local --persist-to <dir>`
does from its own process, and prints the rows like its `--json` output's `results`.
Why not wrangler: each `wrangler d1 execute` starts Node and a Miniflare instance, 1.7 s
of CPU for one query, and the real-runtime suites poll D1 hundreds of times. The running
runtime keeps the file in WAL mode, so a second process reads and writes it safely;
a moment's lock is waited out (the busy timeout). Used by tests/support/mod.rs and
tests/e2e/support.mjs; migrations still go through wrangler (`d1 migrations apply`).
"""

import glob
import json
import os
import sqlite3
import sys


def database(persist: str) -> str:
    files = [
        f
        for f in glob.glob(os.path.join(persist, "v3", "d1", "*", "*.sqlite"))
        if os.path.basename(f) != "metadata.sqlite"
    ]
    if len(files) != 1:
        sys.exit(f"d1.py: expected one D1 database under {persist}, found {files}")
    return files[0]


def statements(sql: str) -> list[str]:
    """`sql` cut at the semicolons that end a statement (not those inside literals)."""
    out, buf = [], ""
    for piece in sql.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            out.append(buf)
            buf = ""
    if buf.strip(" \n\t;"):
        out.append(buf)
    return [s for s in out if s.strip(" \n\t;")]


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: d1.py <persist dir> <sql>")
    persist, sql = sys.argv[1], sys.argv[2]
    con = sqlite3.connect(database(persist), timeout=30, isolation_level=None)
    con.row_factory = sqlite3.Row
    try:
        todo = statements(sql)
        # Several statements apply together or not at all, as a D1 batch does.
        if len(todo) > 1:
            con.execute("BEGIN IMMEDIATE")
        rows = []
        for statement in todo:
            rows = con.execute(statement).fetchall()
        if len(todo) > 1:
            con.execute("COMMIT")
    except sqlite3.Error as e:
        sys.exit(f"d1.py: {e}: {sql}")
    finally:
        con.close()
    json.dump([dict(r) for r in rows], sys.stdout)


if __name__ == "__main__":
    main()
