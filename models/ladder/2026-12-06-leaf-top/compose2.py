# The candidate ladder with levels 5 and 6 on leaf-v3 (README.md, phase 2), written to
# candidate-ladder.jsonl beside this script; the shipped ladder since levels 5-6 took leaf-v3 (late
# 2026-12-06: public/levels.json's source):
# - the top-options ladder's games (../2026-12-06-top-options/kept.jsonl, the ladder without levels 5
#   and 6) unchanged;
# - g1 (L6v3 against level 4, seed 4680), g2 (against alphabeta:5, 4681), step45 (L5v3 against level 4,
#   4684), step56 (L6v3 against L5v3, 4685), row6 and row5 (their rows, 4687 and 4686), relabelled
#   level:5 and level:6. g3 (L6v3 against the shipped level 6) is left out: that level 6 is not in
#   this ladder. A file not yet played is named and skipped.
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
KEPT = os.path.join(HERE, '..', '2026-12-06-top-options', 'kept.jsonl')
LABELS = {'hybridqrleaf:233333': 'level:5', 'hybridqrleaf:600000': 'level:6'}
with open(os.path.join(HERE, 'candidate-ladder.jsonl'), 'w') as out:
    for f in [KEPT] + [os.path.join(HERE, n + '.jsonl') for n in ['g1', 'g2', 'step45', 'step56', 'row6', 'row5']]:
        if not os.path.exists(f):
            print('not played yet:', os.path.basename(f))
            continue
        n = 0
        for line in open(f):
            g = json.loads(line)
            g.pop('moves', None)
            assert not {'level:5', 'level:6'} & {g['a'], g['b']}, (f, g)
            g['a'] = LABELS.get(g['a'], g['a'])
            g['b'] = LABELS.get(g['b'], g['b'])
            out.write(json.dumps(g, sort_keys=True) + '\n')
            n += 1
        print(os.path.basename(f), n, 'games')
