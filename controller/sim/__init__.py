"""Simulated players and the assembly of a fully simulated table."""
