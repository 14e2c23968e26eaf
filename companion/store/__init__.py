"""Where games are kept: the store (SQLite in the data directory by default, PostgreSQL
with --database; the log is the only truth), the stored game (its log folded, changes
appended or corrected), and the caches in front of them."""


def open_store(data_dir, database: str | None = None):
    """The store of the games: PostgreSQL at `database` (a postgresql:// URL), else SQLite
    in `data_dir`. StorageFault says in one line what is wrong."""
    if not database:
        from .sqlite import Store
        return Store(data_dir)
    from .sql import StorageFault
    if not database.startswith(("postgresql://", "postgres://")):
        raise StorageFault(f"--database {database}: give a postgresql://USER@HOST:PORT/DATABASE "
                           "URL (SQLite needs none: it is the default, in --data-dir)")
    try:
        from .postgres import Store
    except ImportError:
        raise StorageFault("--database needs psycopg: install the app with "
                           "pip install '.[postgres]'") from None
    return Store(database)
