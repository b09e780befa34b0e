# The ladder with the search fix (signature 8d31f12b37559f54), written to ladder.jsonl beside this
# script (committed: public/levels.json names it, and a native test refits it):
# - kept.jsonl: the shipped ladder's games (../2026-12-05-level2-2000/ladder.jsonl) without levels 3-6
#   and alphabeta:5, whose every game had one of levels 3-6 in it (their search changed);
# - this folder's games played with the fixed search (run.sh, seeds 4630-4636): rows-3-6.jsonl,
#   steps-2-3 … steps-5-6.jsonl, level4-alphabeta4.jsonl, level4-alphabeta4-more.jsonl (seed 4637, added for
#   precision before it was played: README) and level6-alphabeta5.jsonl.
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ['kept.jsonl', 'rows-3-6.jsonl', 'steps-2-3.jsonl', 'steps-3-4.jsonl', 'steps-4-5.jsonl',
         'steps-5-6.jsonl', 'level4-alphabeta4.jsonl', 'level4-alphabeta4-more.jsonl',
         'level6-alphabeta5.jsonl']
CHANGED = {'level:3', 'level:4', 'level:5', 'level:6', 'alphabeta:5'}
with open(os.path.join(HERE, 'ladder.jsonl'), 'w') as out:
    for f in FILES:
        for line in open(os.path.join(HERE, f)):
            g = json.loads(line)
            # kept.jsonl must hold none of the changed players; the new files only games played now.
            assert f != 'kept.jsonl' or not CHANGED & {g['a'], g['b']}, (f, g)
            out.write(json.dumps(g, sort_keys=True) + '\n')
