# The ladder with levels 5 and 6 searching with level 4's options (README.md), written to ladder.jsonl
# beside this script (committed: public/levels.json names it, and a native test refits it):
# - kept.jsonl: the level-4-time ladder's games (../2026-12-06-level4-time/ladder.jsonl) without
#   levels 5 and 6, whose every game had one of them in it; every other player is unchanged;
# - the candidates' games (run.sh): step45 (L5c against level 4, seed 4670), step56 (L6c against
#   L5c, 4671), ab5 (L6c against alphabeta:5, 4672), row5 (L5c's row, 4673), row6 (L6c's row, 4674),
#   played as the hleaf specs, which are the shipped levels 5 and 6 move for move (README),
#   relabelled level:5 and level:6.
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
BEFORE = os.path.join(HERE, '..', '2026-12-06-level4-time', 'ladder.jsonl')
CHANGED = {'level:5', 'level:6'}
LABELS = {'hybridqrleaf:233333': 'level:5', 'hybridqrleaf:600000': 'level:6'}
with open(os.path.join(HERE, 'kept.jsonl'), 'w') as kept:
    for line in open(BEFORE):
        g = json.loads(line)
        if not CHANGED & {g['a'], g['b']}:
            kept.write(json.dumps(g, sort_keys=True) + '\n')
with open(os.path.join(HERE, 'ladder.jsonl'), 'w') as out:
    for f in ['kept.jsonl', 'step45.jsonl', 'step56.jsonl', 'ab5.jsonl', 'row5.jsonl', 'row6.jsonl']:
        for line in open(os.path.join(HERE, f)):
            g = json.loads(line)
            g.pop('moves', None)
            assert not CHANGED & {g['a'], g['b']} or f == 'kept.jsonl', g
            g['a'] = LABELS.get(g['a'], g['a'])
            g['b'] = LABELS.get(g['b'], g['b'])
            out.write(json.dumps(g, sort_keys=True) + '\n')
