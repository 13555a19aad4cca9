"""Compare two docs builds' verification caches (by spec, players, options,
property; every field but the seconds) and their built HTML pages of games."""
import json, re, sys
from pathlib import Path

def results(site):
    out = {}
    for p in (Path(site) / ".doctrees" / "atoll-cache").glob("*.json"):
        if p.name == "timings.json":
            continue
        data = json.loads(p.read_text())
        for r in data["results"]:
            r = dict(r)
            r.pop("seconds")
            k = (Path(data["spec"]).name, r["players"], json.dumps(r["options"], sort_keys=True), r["property"])
            out[k] = r
    return out

a, b = results(sys.argv[1]), results(sys.argv[2])
print("results:", len(a), len(b), "same keys:", set(a) == set(b))
diff = [k for k in a if k in b and a[k] != b[k]]
print("differing results:", len(diff))
for k in diff[:20]:
    x, y = a[k], b[k]
    fields = [f for f in x if x[f] != y.get(f)]
    print("  ", k, fields, "verdict", x["verdict"], y["verdict"])
    for f in fields:
        print("      ", f, str(x[f])[:300], "\n    vs", str(y[f])[:300])
verd = [k for k in a if k in b and a[k]["verdict"] != b[k]["verdict"]]
print("differing verdicts:", len(verd))

def pages(site):
    return {p.relative_to(site): p.read_text() for p in (Path(site) / "games").rglob("*.html")}
pa, pb = pages(Path(sys.argv[1])), pages(Path(sys.argv[2]))
print("pages:", len(pa), len(pb))
strip = lambda t: re.sub(r"\d+\.\d+&#160;s|\d+\.\d+ s\b", "T s", t)
for k in sorted(pa):
    if k not in pb:
        print("missing", k); continue
    if pa[k] != pb[k]:
        same_wo_times = strip(pa[k]) == strip(pb[k])
        print("page differs:", k, "(only times)" if same_wo_times else "")
