"""The rules of Templari (RULES.md R1-R12), pure: the game state is a fold over the event
log, legality a query, every refusal names the rule, the player and the numbers. Imports
nothing but the standard library and itself (tests/test_layout.py keeps it so)."""
