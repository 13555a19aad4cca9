"""ObservationEncoder.encode_state/encode_array (the vector kept per player
and brought up to date with what changed: collections element by element,
other variables by parts) give exactly encode(state.observation(player)),
in random games of every shipped spec, variant and tests/good spec, for
every player, hidden parts included, however far apart the states a
player's vector is brought from and to."""
from __future__ import annotations

import io
import random
import re
import tokenize
from pathlib import Path

import numpy as np
import pytest

import atoll
from atoll.encoding import ObservationEncoder, _map_diff, _seq_diff

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "spec").glob("*.atoll")) + sorted((ROOT / "spec" / "variants").glob("*.atoll")) + \
    sorted((ROOT / "tests" / "good").glob("*.atoll"))


def _games(spec):
    """The spec with the fewest and with the most players it allows."""
    from atoll.compiler.pipeline import compile_spec
    try:
        game = atoll.load(str(spec))
    except Exception as e:
        pytest.skip(f"does not load with defaults: {e}")
    hi = compile_spec(spec).program.player_range[1]
    return [game] + ([atoll.load(str(spec), players=hi)] if hi != game.num_players else [])


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_kept_vectors_give_the_whole_encoding(spec):
    for k, game in enumerate(_games(spec)):
        n = game.num_players
        # one encoder per hash size kept across games and states; the reference is encode()
        sizes = (None, 7) if k == 0 else (None, 0)
        kept = [ObservationEncoder(game, h) for h in sizes]
        fresh = [ObservationEncoder(game, h) for h in sizes]
        rng = random.Random(spec.stem)
        checked = 0
        for seed in (k, k + 10):   # two games: a new one starts from the last one's vectors
            st = game.new_initial_state(seed=seed)
            past = [st.clone()]
            for _ in range(40):
                # some players look now, in some order; sometimes one looks at an older state
                look = [p for p in range(n) if rng.random() < 0.6]
                rng.shuffle(look)
                if rng.random() < 0.15:
                    look = [(p, past[rng.randrange(len(past))]) for p in look]
                else:
                    look = [(p, st) for p in look]
                for p, s in look:
                    obs = s.observation(p)
                    for enc, ref in zip(kept, fresh):
                        want = ref.encode(obs)
                        if rng.random() < 0.5:
                            assert enc.encode_state(s, p) == want
                        else:
                            assert enc.encode_array(s, p).tolist() == np.array(want, np.float32).tolist()
                        checked += 1
                if st.is_terminal() or not st.legal_actions():
                    break
                legal = st.legal_actions()
                st.apply_action(legal[rng.randrange(len(legal))])
                if rng.random() < 0.2:
                    past.append(st.clone())
        assert checked
    with pytest.raises(ValueError):
        kept[0].encode_state(st, n)
    with pytest.raises(ValueError):
        kept[0].encode_state(st, "0")
    assert kept[0].encode_state(st, np.int64(n - 1)) == kept[0].encode_state(st, n - 1)


def test_the_differences_are_exact():
    """What _map_diff and _seq_diff take away and add turns the old
    collection's elements into the new one's (as multisets)."""
    from collections import Counter
    rng = random.Random(5)
    for _ in range(2000):
        a = tuple(sorted(rng.randrange(5) for _ in range(rng.randrange(7))))
        b = list(a)
        for _ in range(rng.randrange(4)):
            op = rng.randrange(3)
            if op == 0 or not b:
                b.insert(rng.randrange(len(b) + 1), rng.randrange(5))
            elif op == 1:
                del b[rng.randrange(len(b))]
            else:
                b[rng.randrange(len(b))] = rng.randrange(5)
        b = tuple(b)
        gone, came = _seq_diff(a, b)
        assert Counter(a) - Counter(gone) + Counter(came) == Counter(b)
        assert Counter(gone) <= Counter(a)
        old = {k: rng.randrange(3) for k in a}
        new = dict(old) if rng.random() < 0.5 else {}
        for k in b:
            new[k] = rng.randrange(3)
        if new and rng.random() < 0.3:
            new.pop(next(iter(new)))
        for o, nw in ((old, new), (None, new), (old, None)):
            gone, came = _map_diff(o, nw)
            have = Counter((o or {}).items())
            have.subtract(Counter(gone))
            have.update(Counter(came))
            assert +have == Counter((nw or {}).items())


@pytest.mark.parametrize("size", [1024, 64, 13])
def test_slots_of_moves_are_the_slots_of_actions(size):
    """ActionIndex.assign_moves (from legal_moves(), no Action objects) gives
    each action the slot assign gives it, clashes included."""
    from atoll.compiler.playout import Moves
    from atoll.encoding import ActionIndex, ActionIndexFull
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"), players=3)
    index = ActionIndex(game, size)
    seen = 0
    for seed in range(3):
        st = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not st.is_terminal():
            moves, actions = st.legal_moves(), st.legal_actions()
            if moves.__class__ is Moves:
                try:
                    want = {s: (a.kind, a.params) for s, a in index.assign(actions).items()}
                except ActionIndexFull as e:
                    with pytest.raises(ActionIndexFull, match=str(e)[:30]):
                        index.assign_moves(moves)
                else:
                    got = index.assign_moves(moves)
                    assert {s: (actions[i].kind, actions[i].params) for s, i in got.items()} == want
                    seen += 1
            st.apply_action(actions[rng.randrange(len(actions))])
    assert seen > 50


_GENERATED_NAMES = re.compile(r"(def|if|else|is|not|None|or|return|float|len|x|o|seen|player|vec|oq|nq|gone|came|"
                              r"md|sd|count|part|parts|swap|BV|get|p|old|U|NONES|f\d+|T\d+|P\d+_\d+|K\d+_\d+|A\d+|B\d+|C\d+)")


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_the_generated_updaters_hold_no_text_of_the_spec(spec):
    """The updaters generated per encoder (ObservationEncoder._updaters) are
    written from positions, seats and names of the generator's own: no
    string literal, every name one of the generator's vocabulary (the
    spec's names and types reach them as values only)."""
    for game in _games(spec):
        enc = ObservationEncoder(game)
        enc._updaters()
        text = enc._fn_text
        assert text.count("def ") == len(game.layout.names) - 1
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            assert tok.type != tokenize.STRING, tok
            if tok.type == tokenize.NAME:
                assert _GENERATED_NAMES.fullmatch(tok.string), tok
