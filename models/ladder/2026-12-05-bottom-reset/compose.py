# The shipped ladder's games since 2026-12-05 20:00 (levels 2-3 re-set, levels 5-6 at their filed budgets), written to
# ladder.jsonl beside this script (committed: public/levels.json names it, and a native test refits it):
# - every game of the 2026-12-05 fit (../2026-12-05-delta/) without levels 2, 3 and 5 (those rows were played again
#   or are gone), with level 6 relabelled level:5: today's level 5 is that search (350,000 heuristic positions,
#   margin 0.02), and its games stay valid move for move;
# - the 600,000-position search's row (../2026-12-05-top-budget/, `hybridqrleaf:600000`), relabelled level:6, as
#   today's level 6 is that search; its games against the old levels 2 and 3 dropped, and 2026-12-05's level 6
#   relabelled level:5 there too;
# - this folder's rows-2-3.jsonl: the new levels 2 and 3 against every other player;
# - this folder's steps-*.jsonl: 72 more games at each of the five steps between levels.
import glob, json, os

HERE = os.path.dirname(os.path.abspath(__file__))
UP = os.path.join(HERE, '..')
GONE = {'level:2', 'level:3', 'level:5'}
out = open(os.path.join(HERE, 'ladder.jsonl'), 'w')


def emit(g):
    out.write(json.dumps(g, sort_keys=True) + '\n')


def relabel(g, names):
    for k in 'ab':
        g[k] = names.get(g[k], g[k])
    return g


delta = ['kept.jsonl', 'rows-3-4.jsonl', 'level4-alphabeta4.jsonl', 'rows-5-6.jsonl', 'level6-alphabeta5.jsonl']
for f in delta:
    for line in open(os.path.join(UP, '2026-12-05-delta', f)):
        g = json.loads(line)
        if GONE & {g['a'], g['b']}:
            continue
        emit(relabel(g, {'level:6': 'level:5'}))
for f in sorted(glob.glob(os.path.join(UP, '2026-12-05-top-budget', '*.jsonl'))):
    if os.path.basename(f) in ('row-level2.jsonl', 'row-level3.jsonl', 'whatif-all.jsonl'):
        continue
    for line in open(f):
        emit(relabel(json.loads(line), {'level:6': 'level:5', 'hybridqrleaf:600000': 'level:6'}))
for f in ['rows-2-3.jsonl', 'steps-1-2.jsonl', 'steps-2-3.jsonl', 'steps-3-4.jsonl', 'steps-4-5.jsonl', 'steps-5-6.jsonl']:
    for line in open(os.path.join(HERE, f)):
        emit(json.loads(line))
out.close()
