#!/usr/bin/env python3
"""Rewrites models/README.md's ladder tables from a fitted ladder, so that a refit changes them
mechanically rather than by hand:
  scripts/ladder-tables.py <ladder.jsonl> <ladder.md> [models/README.md]
- between `<!-- ladder-table -->` and `<!-- /ladder-table -->`: each player's Elo, interval, games and
  score, as `iron-arena ladder-fit <ladder.jsonl> … > <ladder.md>` printed them;
- between `<!-- steps-table -->` and `<!-- /steps-table -->`: each level's direct games against the
  level below it (score of the higher level, wins, draws, losses), counted from <ladder.jsonl>.
The prose around them (span, sources) is still written by hand."""
import json, sys, re
if len(sys.argv) not in (3, 4):
    sys.exit(__doc__)
jl, md = sys.argv[1:3]
readme = sys.argv[3] if len(sys.argv) == 4 else "models/README.md"
rows = []
for line in open(md):
    if line.startswith('| ') and not line.startswith('| player') and not line.startswith('| |'):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) == 6 and cells[1].lstrip('-').isdigit():
            rows.append(cells[:5])
    if line.startswith('Score of the row'):
        break
table = '| player | Elo | 95% interval | games | score |\n|---|---|---|---|---|\n' + ''.join('| ' + ' | '.join(r) + ' |\n' for r in rows)
games = [json.loads(l) for l in open(jl)]
steps = '| step | score of the higher level (+ wins = draws − losses) | games |\n|---|---|---|\n'
for lo in range(1, 6):
    a, b = f'level:{lo}', f'level:{lo+1}'
    w = d = l = 0
    for g in games:
        if {g['a'], g['b']} != {a, b}: continue
        s = g['score'] if g['a'] == b else 1 - g['score']
        if s == 1: w += 1
        elif s == 0: l += 1
        else: d += 1
    n = w + d + l
    if n == 0:
        sys.exit(f'{jl}: no games between {a} and {b}: the steps table needs each step played')
    steps += f'| level {lo} → {lo+1} | {100*(w+d/2)/n:.1f}% (+{w} ={d} −{l}) | {n} |\n'
s = open(readme).read()
s = re.sub(r'(<!-- ladder-table -->\n).*?(<!-- /ladder-table -->)', lambda m: m.group(1) + table + m.group(2), s, flags=re.S)
s = re.sub(r'(<!-- steps-table -->\n).*?(<!-- /steps-table -->)', lambda m: m.group(1) + steps + m.group(2), s, flags=re.S)
open(readme, 'w').write(s)
print(table); print(steps)
