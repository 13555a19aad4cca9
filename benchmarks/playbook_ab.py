"""The shared games of one configuration (verify.playbook.play_together)
with another commit's playbook against this tree's: CPU time
(time.process_time) in alternating blocks within one process, and the runs
compared field by field.

    mkdir old && git show BASE:verify/explore.py > old/old_explore.py
    git show BASE:verify/playbook.py | sed 's/from atoll.verify.explore import/from old_explore import/' \
        > old/old_playbook.py
    python benchmarks/playbook_ab.py old spec/kanaloa.atoll 3 take_optional=false refill=stage_ends equal_turns=in_game
"""
from __future__ import annotations

import sys
import time


def main() -> None:
    old_dir, spec, players, *kvs = sys.argv[1:]
    sys.path.insert(0, old_dir)
    import old_playbook
    from atoll.compiler import pipeline
    from atoll.verify import playbook
    opts = {}
    for kv in kvs:
        k, v = kv.split("=", 1)
        opts[k] = {"true": True, "false": False}.get(v, v)
    comp = pipeline.compile_spec(spec)
    game = pipeline.instantiate(comp, int(players), opts)
    book = playbook.Book(game, list(comp.program.properties.values()), 4, 0, spec)
    checks = [book.check_of(n) for n in book._players()]
    for c in checks:
        c.record_states = True
    games, blocks = 4, 3

    def run(mod):
        t, n = time.process_time(), 0
        for i in range(games):
            n += mod.play_together(game, checks, i)[0].steps
        return time.process_time() - t, n
    tot = {"old": 0.0, "new": 0.0}
    n = 0
    for _ in range(blocks):
        for name, mod in (("old", old_playbook), ("new", playbook)):
            t, n = run(mod)
            tot[name] += t
    for i in range(games):
        for x, y in zip(old_playbook.play_together(game, checks, i), playbook.play_together(game, checks, i)):
            assert (x.violation, x.actions, x.steps, x.outcome, x.ending, x.cut, x.choices, sorted(x.states)) == \
                   (y.violation, y.actions, y.steps, y.outcome, y.ending, y.cut, y.choices, sorted(y.states))
    print(f"{len(checks)} properties watching, {n} actions a block")
    for k in tot:
        print(f"{k}: {tot[k] / blocks:.3f} CPU s a block, {1e6 * tot[k] / blocks / n:.2f} us an action")
    print(f"new / old {tot['new'] / tot['old']:.3f}")


if __name__ == "__main__":
    main()
