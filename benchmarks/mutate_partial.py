"""The `--json` report of an `atoll mutate` run from its cache (a run cut short, or finished in parts).

    python benchmarks/mutate_partial.py SPEC CACHE OUT.json [--toolchain DIGEST] [--seconds S]

Reads back the record of every mutant the cache holds for the spec as it is
now (the same budget and configurations as the run's defaults) and writes
the report over those only, marked partial (benchmarks/mutate_specs.py shows
it as such). ``--toolchain``: the toolchain's digest when the run began
(`atoll.verify.cache.toolchain_digest()`), if the sources changed since;
repeated, records kept under any of them are read (say, a few mutants run
again after a fix).
"""
from __future__ import annotations

import argparse
import json

from atoll.verify import mutate as MU


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec")
    ap.add_argument("cache")
    ap.add_argument("out")
    ap.add_argument("--toolchain", action="append", default=[],
                    help="a toolchain digest the records were kept under (repeatable: the first that "
                    "holds a mutant's record gives it)")
    ap.add_argument("--seconds", type=float, default=0.0, help="the run's wall time so far")
    args = ap.parse_args(argv)
    p = MU.plan(args.spec, st=MU.Settings(), cache_dir=args.cache)
    recs = []
    for m in p.chosen:
        for digest in args.toolchain or [p.toolchain]:
            p.toolchain = digest
            rec = MU._cached(p, m)
            if rec is not None:
                recs.append(rec)
                break
    rep = MU.report(p, recs, args.seconds)
    if len(recs) < len(p.chosen):
        rep["partial"] = f"{len(recs)} of {len(p.chosen)} mutants (the records in the cache)"
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=1, default=str)
    print(rep.get("partial", "every mutant"), rep["score"], rep["totals"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
