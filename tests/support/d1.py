"""Runs SQL on a runtime's local D1 and prints the rows of its last statement as JSON;
or fills a new runtime's state directory with a migrated D1.

    python3 tests/support/d1.py <persist dir> <sql: one statement or several, `;`-separated>
    python3 tests/support/d1.py --fresh <persist dir>

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
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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


def fresh(persist: str) -> None:
    """Fills `persist` with the state of a fresh runtime: the migrations applied. A copy of
    a template that `wrangler d1 migrations apply` made once (1.7 s of CPU each time it
    runs), under target/d1-template/, named by a hash of the migrations and wrangler's
    version, so every test binary, browser test and run that shares them shares it. Made
    aside and renamed into place: harnesses running side by side never see half of one.
    The caller's environment runs wrangler (PATH with Node 22, wrangler kept offline;
    IRON_ARENA_TEST_CONFIG as tests/support/mod.rs reads it)."""
    key = hashlib.sha256()
    migrations = os.path.join(ROOT, "migrations")
    for name in sorted(os.listdir(migrations)):
        key.update(name.encode())
        with open(os.path.join(migrations, name), "rb") as f:
            key.update(f.read())
    with open(os.path.join(ROOT, "node_modules", "wrangler", "package.json"), "rb") as f:
        key.update(f.read())
    template = os.path.join(ROOT, "target", "d1-template", key.hexdigest()[:16])
    if not os.path.isdir(template):
        aside = f"{template}.making-{os.getpid()}"
        shutil.rmtree(aside, ignore_errors=True)
        os.makedirs(aside)
        cmd = [os.path.join(ROOT, "node_modules", ".bin", "wrangler"), "d1", "migrations", "apply",
               "DB", "--local", "--persist-to", aside]
        if os.environ.get("IRON_ARENA_TEST_CONFIG"):
            cmd += ["--config", os.environ["IRON_ARENA_TEST_CONFIG"]]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"d1.py: wrangler d1 migrations apply failed: {done.stderr}{done.stdout}")
        try:
            os.rename(aside, template)
        except OSError:  # another process made it meanwhile: theirs stays
            shutil.rmtree(aside, ignore_errors=True)
    shutil.copytree(template, persist, dirs_exist_ok=True)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--fresh":
        fresh(sys.argv[2])
        return
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
