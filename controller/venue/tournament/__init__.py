"""Tournaments run by the venue hub: the definition file, seat draws, standings, cut, prizes."""
