"""Babel: two-player temple building on five sites with five nations (rules file 001)."""
