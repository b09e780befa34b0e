# The ladder with level 4's new search (signature 0a56c05b1bd24795, 72,000 positions), written to ladder.jsonl beside
# this script (committed: public/levels.json names it, and a native test refits it):
# - kept.jsonl: the shipped ladder's games (../2026-12-06-search-fix/ladder.jsonl) without level 4,
#   whose every game had level 4 in it (its search changed); every other player is unchanged;
# - row-4.jsonl: level 4's row at 72,000 positions (run.sh row72, seed 4665);
# - confirm-72000.jsonl's 144 games against alphabeta:4 (seed 4664), played as
#   hleaf:…:4+null=2+trade=50+enemydial=250+nodes=72000, which is level 4's
#   search move for move (README), relabelled level:4;
# - steps-3-4.jsonl and steps-4-5.jsonl: 72 more games on each of level 4's steps (run.sh row72,
#   seeds 4666 and 4667).
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED = os.path.join(HERE, '..', '2026-12-06-search-fix', 'ladder.jsonl')
RUN4 = os.path.join(HERE, 'confirm-72000.jsonl')
CHANGED = 'level:4'
with open(os.path.join(HERE, 'kept.jsonl'), 'w') as kept:
    for line in open(SHIPPED):
        g = json.loads(line)
        if CHANGED not in (g['a'], g['b']):
            kept.write(json.dumps(g, sort_keys=True) + '\n')
with open(os.path.join(HERE, 'ladder.jsonl'), 'w') as out:
    for f in ['kept.jsonl', 'row-4.jsonl', 'steps-3-4.jsonl', 'steps-4-5.jsonl', RUN4]:
        for line in open(os.path.join(HERE, f)):
            g = json.loads(line)
            g.pop('moves', None)
            if f == RUN4:
                assert g['a'] == 'hybridqrleaf:72000' and g['b'] == 'alphabeta:4', g
                g['a'] = CHANGED
            out.write(json.dumps(g, sort_keys=True) + '\n')
