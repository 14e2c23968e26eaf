"""Templari Companion: the bookkeeper for a table of Templari (Igiari 2017)."""
