"""The short version of bench/faults.py: the real server killed 3 times while 2 tables
record through its forms (a few of their writes answered between two kills), started
again on the same data directory, or the same PostgreSQL database, each time."""
from bench import faults


def test_a_killed_server_loses_nothing_acknowledged_and_applies_nothing_twice(tmp_path,
                                                                              database):
    result = faults.run(kills=3, clients=2, data_dir=tmp_path, answers=(1, 4), url=database)
    tally = result.tally
    assert result.kills == len(result.restarts) == 3
    assert tally.acknowledged > 0 and result.games > 0
    assert (tally.lost, tally.doubled, tally.differing) == (0, 0, 0)
    assert result.integrity == ("ok" if database is None else faults.NOT_SQLITE)
    assert result.exported == result.stored >= result.games and not result.unreplayable
    assert result.failures() == []


def test_postgresql_stopped_mid_game_is_said_on_every_page_and_loses_nothing(tmp_path,
                                                                            postgres_server):
    """PostgreSQL stopped a few ms into a write while 2 tables record, then started again:
    every page answers 503 with the sentence meanwhile, and so does any change the tables
    send then (the bench fails on any other answer; whether one is sent in that moment is
    the clock's: a change refused is tests/test_postgres.py's), nothing acknowledged is
    lost or applied twice, and a change is acknowledged within 5 s of its return."""
    postgres_server.fresh()
    result = faults.run(kills=1, clients=2, data_dir=tmp_path, answers=(1, 4),
                        database=postgres_server)
    (outage,) = result.outages
    assert len(outage.pages) == len(faults.PAGES) and not any(outage.pages.values())
    assert outage.back_within < faults.BACK_WITHIN
    assert result.tally.acknowledged > 0 and not result.tally.errors
    assert (result.tally.lost, result.tally.doubled, result.tally.differing) == (0, 0, 0)
    assert result.failures() == []
