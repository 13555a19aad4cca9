"""A data table whose rows hold a record (a card with its function) is shown
in the rulebooks with that record's values in words, the absent ones left
out, not as a constructor call."""
import json

from atoll.docgen import editions, rulebook

SPEC = """
game shop { players: 2 }
enum Kind { refund, bonus }
enum Colour { red, blue }
record Power { kind: Kind, amount: int, colour: maybe[Colour] }
  "What a card does."
record Card { name: str, power: Power }
  "A card and its power."
data cards: list[Card] from "cards.json" key "cards" "The cards."
state { player coins: int = 0 visible all }
phase go { action earn() "Earn a coin." { coins[me] = coins[me] + 1  end turn } }
flow { round { turns in players: go } }
ending over after_round when current_round >= size(cards) => rank p by coins[p]
"""


def test_a_nested_record_in_a_table_reads_as_its_values(tmp_path):
    (tmp_path / "cards.json").write_text(json.dumps({"cards": [
        {"name": "first", "power": {"kind": "refund", "amount": 2, "colour": "red"}},
        {"name": "second", "power": {"kind": "bonus", "amount": 3, "colour": None}}]}))
    p = tmp_path / "shop.atoll"
    p.write_text(SPEC)
    text = editions.players_edition(rulebook.load(p), editions.Context())
    assert "refund\\, 2\\, red" in text and "bonus\\, 3" in text
    assert "Power\\(" not in text and "none" not in text.split("The cards")[1].split("house")[0]
