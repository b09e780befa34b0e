# The ladders of README.md, written beside this script (game records without their moves):
#   python3 compose.py a   -> ladder-a.jsonl: the shipped ladder (../2026-12-07-level1-room/ladder24.jsonl)
#                             plus Part A's games (every step at 144)
#   python3 compose.py b   -> ladder-b.jsonl: ladder-a without level 2's games, plus C2b's (b-low, b-high, row)
#                             relabelled level:2
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED = os.path.join(HERE, '..', '2026-12-07-level1-room', 'ladder24.jsonl')
C2B = 'net:48+decisive+cheap3000'


def games(path):
    for line in open(path):
        g = json.loads(line)
        g.pop('moves', None)
        yield g


def part_a():
    out = list(games(SHIPPED))
    print('shipped:', len(out), 'games')
    for f in ['a12', 'a23', 'a34', 'a45', 'a56']:
        path = os.path.join(HERE, f + '.jsonl')
        if not os.path.exists(path):
            print('not played yet:', f)
            continue
        new = list(games(path))
        print(f, len(new), 'games')
        out += new
    return out


which = sys.argv[1] if len(sys.argv) > 1 else 'a'
if which == 'a':
    ladder = part_a()
elif which == 'b':
    ladder = [g for g in part_a() if 'level:2' not in (g['a'], g['b'])]
    print('without level 2:', len(ladder), 'games')
    for f in ['b-low', 'b-high', 'row']:
        path = os.path.join(HERE, f + '.jsonl')
        if not os.path.exists(path):
            print('not played yet:', f)
            continue
        n = 0
        for g in games(path):
            assert 'level:2' not in (g['a'], g['b']), (f, g)
            assert C2B in (g['a'], g['b']), (f, g)
            g['a'] = 'level:2' if g['a'] == C2B else g['a']
            g['b'] = 'level:2' if g['b'] == C2B else g['b']
            ladder.append(g)
            n += 1
        print(f, n, 'games')
else:
    sys.exit('usage: compose.py a | b')
with open(os.path.join(HERE, f'ladder-{which}.jsonl'), 'w') as out:
    for g in ladder:
        out.write(json.dumps(g, sort_keys=True) + '\n')
print('ladder-' + which + '.jsonl:', len(ladder), 'games')
