"""Where games are kept: the SQLite store (the log is the only truth), the stored game
(its log folded, changes appended or corrected), and the caches in front of them."""
