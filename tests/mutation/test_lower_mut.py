"""compiler/lower.py and compiler/lower_actions.py in detail: the generated
model checked through play on small specs."""
