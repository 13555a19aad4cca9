"""What each named mutant's checks cost, one after another (the table
"What one mutant costs" of benchmarks/mutate_specs.md).

    python benchmarks/mutate_cost.py SPEC CACHE 2,13,29 [OTHER_CONFIGS]

One JSON line per mutant: its status, what killed it, how many checks ran,
the seconds, and the configurations it was checked and exercised in. Run it
with another checkout's sources first on PYTHONPATH to time that version.
"""
import json
import sys
import time

from atoll.verify import mutate as MU


def main(argv) -> int:
    spec, cache, ids = argv[0], argv[1], [int(x) for x in argv[2].split(",")]
    st = MU.Settings() if len(argv) < 4 else MU.Settings(extra=int(argv[3]))
    t = time.perf_counter()
    p = MU.plan(spec, st=st, ids=ids, cache_dir=cache)
    print(json.dumps({"plan_s": round(time.perf_counter() - t, 1), "cached": p.base.cached}), flush=True)
    for m in p.chosen:
        task = p.task(m)
        task["limit"] = 0
        t = time.perf_counter()
        rec = MU.evaluate(task)
        print(json.dumps({"id": m.id, "rule": m.rule, "what": m.what, "status": rec["status"],
                          "by": (rec.get("by") or {}).get("property") or rec.get("by"),
                          "checked": rec.get("checked"), "s": round(time.perf_counter() - t, 1),
                          "in": rec.get("configurations checked"), "ex": rec.get("exercised in")}),
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
