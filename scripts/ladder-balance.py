#!/usr/bin/env python3
"""The factions' balance in the ladder's games (issue 32's games, read for the rules' balance):
  scripts/ladder-balance.py [REGEX] [FILE.jsonl ...]
Reads every game with its moves from FILE.jsonl (default: models/ladder/**/*.jsonl), counts each
game once (its moves and match-up; the composed ladders repeat their sources' games), keeps the
games whose two players both match REGEX (default: every game), and prints per match-up (South's
faction first) the wins of each side, the draws and South's score, then per pair of factions the
score of the first faction over both colours. Every ladder pair plays each match-up from both
colours equally often, so the players' strength cancels out of these figures."""
import collections, glob, json, re, sys

pattern = re.compile(sys.argv[1] if len(sys.argv) > 1 else '.*')
files = sys.argv[2:] or sorted(glob.glob('models/ladder/**/*.jsonl', recursive=True))
seen = set()
by_matchup = collections.defaultdict(lambda: [0, 0, 0])  # south wins, draws, north wins
for path in files:
    for line in open(path):
        try:
            g = json.loads(line)
        except ValueError:
            continue
        if 'moves' not in g or 'matchup' not in g:
            continue
        key = (g['moves'], g['matchup'])
        if key in seen:
            continue
        seen.add(key)
        if not (pattern.fullmatch(g['a']) and pattern.fullmatch(g['b'])):
            continue
        end = g['end']
        by_matchup[g['matchup']][0 if end.startswith('south') else 2 if end.startswith('north') else 1] += 1
if not by_matchup:
    sys.exit('no games with moves match')
print('| match-up (South-North) | South wins | draws | North wins | South\'s score | games |')
print('|---|---|---|---|---|---|')
for mu in sorted(by_matchup):
    s, d, n = by_matchup[mu]
    t = s + d + n
    print(f'| {mu} | {s} | {d} | {n} | {100 * (s + d / 2) / t:.1f}% | {t} |')
print()
print('| factions | first faction\'s score, both colours | games |')
print('|---|---|---|')
factions = sorted({f for mu in by_matchup for f in mu.split('-')})
for i, a in enumerate(factions):
    for b in factions[i + 1:]:
        pts = t = 0
        for mu, first_south in ((f'{a}-{b}', True), (f'{b}-{a}', False)):
            s, d, n = by_matchup.get(mu, (0, 0, 0))
            pts += (s if first_south else n) + d / 2
            t += s + d + n
        if t:
            print(f'| {a} v {b} | {100 * pts / t:.1f}% | {t} |')
