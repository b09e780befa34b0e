# Paired scores against the shipped level 4 on seed 4635 (usage: python3 paired.py FILE.jsonl...).
import json,sys,math
base={}
for l in open("models/ladder/2026-12-06-search-fix/level4-alphabeta4-moves.jsonl"):
    g=json.loads(l); base[(g["seed"],g["matchup"],g["a_side"])]=g
for f in sys.argv[1:]:
    rows=[json.loads(l) for l in open(f)]
    d=[r["score"]-base[(r["seed"],r["matchup"],r["a_side"])]["score"] for r in rows]
    s=sum(r["score"] for r in rows); n=len(rows)
    m=sum(d)/n; sd=math.sqrt(sum((x-m)**2 for x in d)/(n-1)) if n>1 else 0
    lim=sum(1 for r in rows if r.get("plies")==160)
    print(f"{f}: {n} games {100*s/n:.1f}% (base {100*(s-sum(d))/n:.1f}%), paired {100*m:+.1f} se {100*sd/math.sqrt(n):.1f}; better {sum(x>0 for x in d)} worse {sum(x<0 for x in d)}; draws at 160: {lim}")
