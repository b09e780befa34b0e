# ladder-c.jsonl (README.md, rule (ii)), written beside this script: ../2026-12-07-steps-144/ladder-a.jsonl
# without levels 1 and 2's games, plus the candidates' (low, high, row1, row2) relabelled level:1 and level:2.
#   python3 compose.py N    (N: level 1's heuristic leaves, the screen's choice)
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED = os.path.join(HERE, '..', '2026-12-07-steps-144', 'ladder-a.jsonl')
n = sys.argv[1]
names = {f'net:24+decisive+cheap{n}': 'level:1', 'net:48+decisive+cheap4000': 'level:2'}
ladder = []
for line in open(SHIPPED):
    g = json.loads(line)
    if 'level:1' in (g['a'], g['b']) or 'level:2' in (g['a'], g['b']):
        continue
    ladder.append(g)
print('ladder-a without levels 1 and 2:', len(ladder), 'games')
for f in ['low', 'high', 'row1', 'row2']:
    path = os.path.join(HERE, f + '.jsonl')
    if not os.path.exists(path):
        print('not played yet:', f)
        continue
    k = 0
    for line in open(path):
        g = json.loads(line)
        g.pop('moves', None)
        assert 'level:1' not in (g['a'], g['b']) and 'level:2' not in (g['a'], g['b']), (f, g)
        assert g['a'] in names or g['b'] in names, (f, g)
        g['a'], g['b'] = names.get(g['a'], g['a']), names.get(g['b'], g['b'])
        ladder.append(g)
        k += 1
    print(f, k, 'games')
with open(os.path.join(HERE, 'ladder-c.jsonl'), 'w') as out:
    for g in ladder:
        out.write(json.dumps(g, sort_keys=True) + '\n')
print('ladder-c.jsonl:', len(ladder), 'games')
