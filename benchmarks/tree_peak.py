"""The peak memory of a process and its descendants, sampled while it runs.

``ru_maxrss`` tells one process's peak; a command with a pool has workers that are not its
children (a fork server's) or not on this machine. :class:`TreePeak` reads every process of the
tree every ``interval`` seconds and keeps the largest sum: of RSS (cheap to read; a page shared
by forked processes counts in each), or of PSS (``/proc/PID/smaps_rollup``: a shared page counts
1/k in each of its k processes; slower to read, so a timed run should go without it).
"""

from __future__ import annotations

import threading
import time


class TreePeak:
    """Sampled from a thread from construction to :meth:`stop`; ``own``: the root's CPU seconds
    at its last reading; ``forked``: the CPU seconds of a fork server's processes (the server
    and its workers, at their last readings): they are not the root's children, so
    ``RUSAGE_CHILDREN`` after the root is reaped leaves them out (each may have run up to
    ``interval`` seconds past its last reading)."""

    def __init__(self, pid: int, interval: float = 0.1, pss: bool = False):
        import psutil

        self.proc = psutil.Process(pid)
        self.interval = interval
        self.pss = pss
        self.peak = 0
        self.own = 0.0
        self._forked: dict[int, float] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _size(self, p) -> int:
        return _pss(p.pid) if self.pss else p.memory_info().rss

    def _run(self) -> None:
        import psutil

        while not self.done.is_set():
            try:
                t = self.proc.cpu_times()
                self.own = t.user + t.system
                procs = [self.proc, *self.proc.children(recursive=True)]
                self.peak = max(self.peak, sum(self._size(p) for p in procs if p.is_running()))
                for server in (p for p in procs if "forkserver" in " ".join(p.cmdline())):
                    for q in (server, *server.children()):
                        c = q.cpu_times()
                        self._forked[q.pid] = c.user + c.system
            except psutil.Error:  # a process ended while it was read
                pass
            time.sleep(self.interval)

    @property
    def forked(self) -> float:
        return sum(self._forked.values())

    def stop(self) -> tuple[int, float]:
        """``(peak bytes, the root's CPU seconds)``."""
        self.done.set()
        self.thread.join()
        return self.peak, self.own


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # ended meanwhile
        pass
    return 0
