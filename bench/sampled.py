"""Run a module as `python -m` would, sampling every thread's stack each millisecond; when the
process ends (or gets SIGTERM) write where each thread spent its wall time to a text file.

    .venv/bin/python bench/sampled.py OUT.txt -m controller hub --mqtt ... --db ... --keys ...

A sampler, not a tracer: the code runs at full speed (one thread wakes 1000 times a second),
time spent waiting (select, fsync, locks) shows as plainly as time spent computing. Per thread:
the share of samples in each function itself ("self") and in it or what it called ("total").
bench/hub_bench.py --profile uses it on the recorder's process.

It says where each thread waits, not what costs CPU: the sampler runs only when it gets the
GIL, so its samples land where the other threads let go of it (select, SQLite calls, fsync)
and pure-Python work is under-counted. For CPU by function, cProfile the code in one process.
"""

import collections
import runpy
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

INTERVAL_S = 0.001
TOP = 30


class Sampler:
    """Counts, per thread name, the functions on the stack at each sample."""

    def __init__(self) -> None:
        self.own: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self.total: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter
        )
        self.samples: collections.Counter[str] = collections.Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.wait(INTERVAL_S):
            names = {t.ident: t.name for t in threading.enumerate()}
            for ident, frame in sys._current_frames().items():
                if ident != me:
                    self._note(names.get(ident, str(ident)), frame)

    def _note(self, thread: str, frame: FrameType | None) -> None:
        self.samples[thread] += 1
        seen: set[str] = set()
        first = True
        while frame is not None:
            code = frame.f_code
            where = f"{code.co_filename.rsplit('/', 2)[-1]}:{code.co_firstlineno}({code.co_name})"
            if first:
                self.own[thread][where] += 1
                first = False
            if where not in seen:
                seen.add(where)
                self.total[thread][where] += 1
            frame = frame.f_back

    def report(self) -> str:
        self._stop.set()
        lines = []
        for thread, count in self.samples.most_common():
            lines.append(f"== thread {thread}: {count} samples ({count * INTERVAL_S:.1f} s)")
            for title, table in (("self", self.own[thread]), ("total", self.total[thread])):
                lines.append(f"  -- {title}")
                for where, n in table.most_common(TOP):
                    lines.append(f"  {100 * n / count:5.1f}%  {where}")
        return "\n".join(lines) + "\n"


def main() -> None:
    out, module, args = Path(sys.argv[1]), sys.argv[3], sys.argv[4:]
    if sys.argv[2] != "-m":
        raise SystemExit("usage: sampled.py OUT.txt -m MODULE [ARGS...]")
    sampler = Sampler()

    def stop(signum: int, _: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    sys.argv = [module, *args]
    sampler.start()
    started = time.perf_counter()
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        took = time.perf_counter() - started
        out.write_text(f"{module} {' '.join(args)}\nran {took:.1f} s\n" + sampler.report())


if __name__ == "__main__":
    main()
