"""A real mosquitto broker on a free loopback port, owned by one test: stop, kill -9, restart.

The one throwaway broker of the repo, defined in the venue package (controller/venue/
rehearsal_broker.py, which `hub rehearse` uses from an installed wheel): the tests, the hub
benchmarks (bench/) and scripts/demo use it from here; `python -m devsupport.mosquitto DIR`
serves one from DIR, prints its URL once it listens and stops it on SIGTERM or SIGINT.
"""

import signal
import sys
from pathlib import Path

from controller.venue.rehearsal_broker import Broker, find_mosquitto, free_port, venue_broker

__all__ = ["Broker", "find_mosquitto", "free_port", "serve", "venue_broker"]


def serve(workdir: Path) -> None:
    """Run a broker in `workdir` until SIGTERM/SIGINT; its URL on stdout once it listens."""
    broker = Broker(workdir)
    broker.start()
    sys.stdout.write(broker.url + "\n")
    sys.stdout.flush()
    stop = [signal.SIGTERM, signal.SIGINT]
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    try:
        signal.sigwait(stop)
    finally:
        broker.stop()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
