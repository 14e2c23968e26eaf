"""The screens of each actor, one blueprint each: the table, a player's phone, the host's
device, the TV view, the phones' address, the rules, a game's settings."""
