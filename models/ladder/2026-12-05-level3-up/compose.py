# The shipped ladder's games since 2026-12-05 23:15 (level 3 = 8,000 leaf-scored positions, the rest unchanged),
# written to ladder.jsonl beside this script (committed: public/levels.json names it, and a native test refits it):
# - every game of ../2026-12-05-bottom-reset/ladder.jsonl without level 3 (it changed);
# - the 8,000-position level 3's row from ../2026-12-05-bottom-reset/first/rows-2-3.jsonl (seed 4602, played as
#   level:3 with exactly today's setting; replay-level3.jsonl replays its first game against each player), without
#   its games against that run's level 2 (then 1,000 heuristic leaves, not today's 4,000);
# - this folder's pair-2-3.jsonl (levels 2 and 3, 36 games) and steps-2-3.jsonl, steps-3-4.jsonl (72 more games at
#   each of the two steps level 3 changed).
# Not in it: row-1.jsonl and steps-1-2.jsonl, the level 1 candidate (8 network evaluations, then 300 heuristic
# leaves) that was not shipped (README.md). whatif-level1.jsonl beside it: the same games with level 1's replaced by
# the candidate's, relabelled net:8+decisive+cheap300 (what the CLI calls that player).
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
BEFORE = os.path.join(HERE, '..', '2026-12-05-bottom-reset')
out = open(os.path.join(HERE, 'ladder.jsonl'), 'w')


def emit(g):
    out.write(json.dumps(g, sort_keys=True) + '\n')


for line in open(os.path.join(BEFORE, 'ladder.jsonl')):
    g = json.loads(line)
    if 'level:3' not in (g['a'], g['b']):
        emit(g)
for line in open(os.path.join(BEFORE, 'first', 'rows-2-3.jsonl')):
    g = json.loads(line)
    if 'level:3' in (g['a'], g['b']) and 'level:2' not in (g['a'], g['b']):
        emit(g)
for f in ['pair-2-3.jsonl', 'steps-2-3.jsonl', 'steps-3-4.jsonl']:
    for line in open(os.path.join(HERE, f)):
        emit(json.loads(line))
out.close()

shipped = [json.loads(line) for line in open(os.path.join(HERE, 'ladder.jsonl'))]
out = open(os.path.join(HERE, 'whatif-level1.jsonl'), 'w')
for g in shipped:
    if 'level:1' not in (g['a'], g['b']):
        emit(g)
for f in ['row-1.jsonl', 'steps-1-2.jsonl']:
    for line in open(os.path.join(HERE, f)):
        g = json.loads(line)
        for k in 'ab':
            g[k] = 'net:8+decisive+cheap300' if g[k] == 'level:1' else g[k]
        emit(g)
out.close()
