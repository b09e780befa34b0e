#!/usr/bin/env python3
"""The test executables of one cargo build, from its `--message-format=json` output: a line
"NAME PACKAGE_DIR EXECUTABLE" each, sorted by name. scripts/test.sh runs the native ones
(`--except runtime-tests`), scripts/runtime-tests.sh the real-runtime suites (`--only
runtime-tests`).

    scripts/test-binaries.py BUILD_JSON (--only|--except) PACKAGE
"""
import json
import os
import sys

if len(sys.argv) != 4 or sys.argv[2] not in ("--only", "--except"):
    sys.exit(__doc__.strip().splitlines()[-1].strip())
build, mode, package = sys.argv[1:]
lines = []
for line in open(build):
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
        continue
    if (f"#{package}@" in m["package_id"]) == (mode == "--only"):
        lines.append(f'{m["target"]["name"]} {os.path.dirname(m["manifest_path"])} {m["executable"]}')
if lines:
    print("\n".join(sorted(lines)))
