"""A spec is data: whatever it contains, the generated Python runs only the
compiler's own code, with no access to files, imports or eval."""
import atoll

SPEC = '''
game sneaky { title: "\\"); import os; os.system(\\"echo pwned\\"); (\\"" players: 2..2 }
const text: str = "__import__('os').system('echo pwned')"
state { x: int = 0 }
flow { round { turns in seats: p } }
phase p "'''  + "''' ; import os" + '''" {
  action go() when text == "__import__('os').system('echo pwned')" { x = x + 1  end phase }
}
ending over immediately when x >= 2 => tie
'''


def test_strings_stay_strings(tmp_path, capfd):
    path = tmp_path / "sneaky.atoll"
    path.write_text(SPEC)
    game = atoll.load(path, players=2)
    assert game.ns["k_text"] == "__import__('os').system('echo pwned')"
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert "pwned" not in capfd.readouterr().out


def test_generated_code_has_no_dangerous_builtins(tmp_path):
    path = tmp_path / "sneaky.atoll"
    path.write_text(SPEC)
    game = atoll.load(path, players=2)
    builtins = game.ns["__builtins__"]
    for name in ("open", "__import__", "eval", "exec", "compile", "getattr", "globals", "input"):
        assert name not in builtins
    import ast
    tree = ast.parse(game.source)
    for node in ast.walk(tree):
        assert not isinstance(node, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal))
        if isinstance(node, ast.Attribute):
            assert not node.attr.startswith("__"), node.attr
        if isinstance(node, ast.Name):
            assert node.id not in ("eval", "exec", "open", "__import__", "getattr", "compile")
    # the spec's text reaches the module only as string constants
    texts = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert "__import__('os').system('echo pwned')" in texts
