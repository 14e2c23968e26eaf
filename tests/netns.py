"""Work done from inside a network namespace of the tests' own: a thread that enters it
(setns, Linux, root), so that every socket it opens lives in that namespace's network."""
import ctypes
import threading

CLONE_NEWNET = 0x40000000


def inside(namespace: str, work):
    """`work()` run in a thread that lives in `namespace`'s network: its answer (or the
    exception it raised, raised again here)."""
    outcome = {}

    def run():
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            with open(f"/var/run/netns/{namespace}") as handle:
                if libc.setns(handle.fileno(), CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns")
            outcome["answer"] = work()
        except BaseException as error:  # noqa: BLE001 (raised again in the caller)
            outcome["error"] = error
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["answer"]
