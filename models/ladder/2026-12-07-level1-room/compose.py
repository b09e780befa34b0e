# The ladder with the chosen level-1 candidate (README.md, phase 2), written to ladder.jsonl beside
# this script: the shipped ladder (../2026-12-06-leaf-top/candidate-ladder.jsonl) without level 1's
# games, plus the candidate's games (its screen against level 2 and its row) relabelled level:1.
#   python3 compose.py <label> <screen file> [<suffix> <out>]   e.g. compose.py net:32+decisive screen32.jsonl
#   (C24: compose.py net:24+decisive screen24.jsonl 24 ladder24.jsonl)
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED = os.path.join(HERE, '..', '2026-12-06-leaf-top', 'candidate-ladder.jsonl')
label, screen = sys.argv[1], sys.argv[2]
suffix = sys.argv[3] if len(sys.argv) > 3 else ''
target = sys.argv[4] if len(sys.argv) > 4 else 'ladder.jsonl'
with open(os.path.join(HERE, target), 'w') as out:
    n = 0
    for line in open(SHIPPED):
        g = json.loads(line)
        if 'level:1' in (g['a'], g['b']):
            continue
        out.write(json.dumps(g, sort_keys=True) + '\n')
        n += 1
    print('shipped without level 1:', n, 'games')
    for f in [screen, f'row{suffix}.jsonl', f'row-top{suffix}.jsonl']:
        path = os.path.join(HERE, f)
        if not os.path.exists(path):
            print('not played yet:', f)
            continue
        n = 0
        for line in open(path):
            g = json.loads(line)
            g.pop('moves', None)
            assert 'level:1' not in (g['a'], g['b']), (f, g)
            if label not in (g['a'], g['b']):
                continue
            g['a'] = 'level:1' if g['a'] == label else g['a']
            g['b'] = 'level:1' if g['b'] == label else g['b']
            out.write(json.dumps(g, sort_keys=True) + '\n')
            n += 1
        print(f, n, 'games')
