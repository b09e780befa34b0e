import json,subprocess,sys
B="target/release/iron-arena"
M={'clockwork':{'C':1,'G':2.5,'P':3,'S':3,'H':5,'D':3.5,'F':0},
   'blades':{'D':1,'A':3,'K':3.5,'B':4,'W':4.5,'M':0},
   'axiom':{'P':1,'M':3,'T':3.5,'B':4,'L':4,'S':0}}
def mat(iapn,s,n):
    board=iapn.split()[2] if iapn.split()[0] in M else iapn.split()[0]
    parts=iapn.split()
    board=parts[2]
    ms=mn=0
    for ch in board:
        if ch.isupper(): ms+=M[s][ch]
        elif ch.isalpha(): mn+=M[n][ch.upper()]
    return ms,mn
f=sys.argv[1]
for l in open(f):
    g=json.loads(l)
    if g["score"]<1:
        s,n=g["matchup"].split("-")
        start=subprocess.run([B,"start",s,n],capture_output=True,text=True).stdout.strip().splitlines()[0]
        mv=g["moves"].split()
        row=[]
        for k in (40,80,120,140,len(mv)):
            out=subprocess.run([B,"apply",start]+mv[:k],capture_output=True,text=True).stdout.strip().splitlines()[0]
            ms,mn=mat(out,s,n)
            d=ms-mn if g["a_side"]=="south" else mn-ms
            row.append(f"{k}:{d:+.1f}")
        print(g["matchup"],"L4",g["a_side"],g["end"][:22]," ".join(row))
