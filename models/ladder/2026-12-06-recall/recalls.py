# Recalls a game by level 4 and by its opponent in level 4's games with Clockwork in them, won and
# not won (usage: python3 recalls.py FILE.jsonl...; files written with `ladder --moves`, level 4 as `a`).
import json, sys, collections
st = collections.defaultdict(lambda: [0, 0, 0])
for f in sys.argv[1:]:
    for line in open(f):
        r = json.loads(line)
        if 'clockwork' not in r['matchup']:
            continue
        mv = r['moves'].split()
        me = 0 if r['a_side'] == 'south' else 1
        s, n = r['matchup'].split('-')
        mine, theirs = (s, n) if me == 0 else (n, s)
        key = (mine, theirs, 'won' if r['score'] == 1 else 'not won')
        st[key][0] += 1
        st[key][1] += sum('recall' in m for i, m in enumerate(mv) if i % 2 != me)
        st[key][2] += sum('recall' in m for i, m in enumerate(mv) if i % 2 == me)
for k, v in sorted(st.items()):
    print(f'level 4 {k[0]} v {k[1]} {k[2]}: {v[0]} games, opponent recalls a game {v[1]/v[0]:.1f}, level 4 {v[2]/v[0]:.1f}')
