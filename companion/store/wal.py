"""The write-ahead log beside an SQLite database (its `-wal` file), checked before SQLite
opens the database.

On opening, SQLite takes in the log's frames up to the first one that fails its checksum
and drops the rest without a word. Frames of the same log (its salts) that follow a
failing one and end in a commit were acknowledged writes: that is damage. Frames that
fail only at the end (a torn last write, an older log's leftovers) are what SQLite leaves
normally. Format: https://www.sqlite.org/fileformat2.html#walformat
"""
import struct
from dataclasses import dataclass

# magic, format version, page size, checkpoint number, salt-1, salt-2, checksum-1, -2
HEADER = struct.Struct(">8I")
# page number, database size after a commit (0: not a commit), salt-1, salt-2, checksum-1, -2
FRAME = struct.Struct(">6I")
MAGIC = 0x377F0682  # with its lowest bit set (0x377F0683), the checksums read big-endian
VERSION = 3007000
WORD = 0xFFFFFFFF


@dataclass(frozen=True)
class Damage:
    """Where SQLite would stop reading a log, and the commits it would drop."""

    frame: int  # the first frame SQLite would not take in (0: the log's header)
    frames: int  # the whole frames in the log
    lost: int  # transactions of the log committed from that frame on
    intact: int  # the log's bytes before that frame (the log cut there has no damage)


def damage(log: bytes) -> Damage | None:
    """The damage in a log's bytes; None if there is none to tell: a whole log, one whose
    failing frames come only at its end, or bytes that are no log at all."""
    header = _header(log)
    if header is None:
        return None
    page_size, salts, order, sums = header
    broken = None if sums else 0  # a failing header: SQLite ignores the whole log
    frame_size = FRAME.size + page_size
    starts = range(HEADER.size, len(log) - frame_size + 1, frame_size)  # the whole frames'
    commits = []
    for number, start in enumerate(starts, 1):
        page, committed, *frame_salts, check_1, check_2 = FRAME.unpack_from(log, start)
        if broken is None:
            sums = _checksum(log, start, 8, sums, order)
            sums = _checksum(log, start + FRAME.size, page_size, sums, order)
            if not (frame_salts == salts and page and sums == (check_1, check_2)):
                broken = number
        if broken is not None and frame_salts == salts and committed:
            commits.append(number)
    if not commits or commits[-1] == broken:
        return None  # nothing committed after the first failing frame
    return Damage(broken, len(starts), len(commits), broken and starts[broken - 1])


def _header(log: bytes) -> tuple | None:
    """A log's page size, salts, checksum byte order (for struct) and the checksum its
    frames carry on from (None if the header fails its own); None if it is no log."""
    if len(log) < HEADER.size:
        return None
    magic, version, page_size, _, *salts, check_1, check_2 = HEADER.unpack_from(log)
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return None
    order = ">" if magic & 1 else "<"
    sums = _checksum(log, 0, HEADER.size - 8, (0, 0), order)
    whole = magic | 1 == MAGIC | 1 and version == VERSION and sums == (check_1, check_2)
    return page_size, salts, order, sums if whole else None


def _checksum(log: bytes, start: int, length: int, sums: tuple[int, int],
              order: str) -> tuple[int, int]:
    """SQLite's running checksum of a log, carried on over `length` bytes from `start`."""
    first, second = sums
    words = iter(struct.unpack_from(f"{order}{length // 4}I", log, start))
    for even, odd in zip(words, words):
        first = (first + even + second) & WORD
        second = (second + odd + first) & WORD
    return first, second
