# The what-if ladder of README.md: the shipped fit's games with level 5 dropped, level 6 relabelled level:5,
# and the 600,000-position search relabelled level:6, with this folder's games (writes whatif-all.jsonl in the current directory).
import json,glob
import os
M=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..') + '/'
out=open('whatif-all.jsonl','w')  # not committed: the relabelled games, for ladder-fit
def emit(g):
    out.write(json.dumps(g)+'\n')
for f in ['2026-12-05-delta/kept.jsonl','2026-12-05-delta/rows-3-4.jsonl','2026-12-05-delta/level4-alphabeta4.jsonl']:
    for l in open(M+f): emit(json.loads(l))
for f in ['2026-12-05-delta/rows-5-6.jsonl','2026-12-05-delta/level6-alphabeta5.jsonl']:
    for l in open(M+f):
        g=json.loads(l)
        if 'level:5' in (g['a'],g['b']): continue
        for k in 'ab':
            if g[k]=='level:6': g[k]='level:5'
        emit(g)
for f in sorted(glob.glob(M+'2026-12-05-top-budget/*.jsonl')):
    if f.endswith('whatif-all.jsonl'): continue
    for l in open(f):
        g=json.loads(l)
        for k in 'ab':
            if g[k]=='level:6': g[k]='level:5'
            if g[k]=='hybridqrleaf:600000': g[k]='level:6'
        emit(g)
out.close()
