# The shipped ladder's games since 2026-12-05 23:59 (level 2 = net-v8's 48 evaluations then 2,000 heuristic leaves,
# the rest unchanged), written to ladder.jsonl beside this script (committed: public/levels.json names it, and a
# native test refits it):
# - every game of ../2026-12-05-level3-up/ladder.jsonl without level 2 (it changed);
# - this folder's row-2.jsonl (the new level 2 against every other player, seed 4621) and steps-1-2.jsonl,
#   steps-2-3.jsonl (72 more games at each of its two steps, seeds 4622-4623).
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
BEFORE = os.path.join(HERE, '..', '2026-12-05-level3-up')
out = open(os.path.join(HERE, 'ladder.jsonl'), 'w')


def emit(g):
    out.write(json.dumps(g, sort_keys=True) + '\n')


for line in open(os.path.join(BEFORE, 'ladder.jsonl')):
    g = json.loads(line)
    if 'level:2' not in (g['a'], g['b']):
        emit(g)
for f in ['row-2.jsonl', 'steps-1-2.jsonl', 'steps-2-3.jsonl']:
    for line in open(os.path.join(HERE, f)):
        emit(json.loads(line))
out.close()
