"""compiler/runtime.py in detail: behaviour of the reference model that the
play-contract and save tests do not pin down."""
