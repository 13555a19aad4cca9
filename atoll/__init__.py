"""Atoll."""
