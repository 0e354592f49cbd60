#!/usr/bin/python3
"""kazoo 2.8's server_version() and command() on `zksim serve`: kazoo reads
the version from `envi`'s zookeeper.version line (client.py,
server_version); on Debian's 3.8 server it gives (3, 8, 0), and so must it
here. conf and dump answer as the real server's do (four_letter_real_test
compares the texts); here, what a kazoo user reads of them.

usage: kazoo_server_version.py ZKSIM

Exits 77 when kazoo is not installed.
"""

import logging
import os
import sys

try:
    from kazoo.client import KazooClient
except ImportError as missing:
    print("skipped: kazoo is not installed for %s (Debian: python3-kazoo): %s" % (sys.executable, missing))
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zksim_harness import SESSION_S, TICK_MS, WAIT_S, Serve  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.CRITICAL)
    serve = Serve(sys.argv[1], tick_ms=TICK_MS)
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append("%s: %r, not %r" % (what, got, want))
    try:
        zk = KazooClient(hosts=serve.hosts, timeout=SESSION_S)
        zk.start(timeout=WAIT_S)
        try:
            expect("server_version()", zk.server_version(), (3, 8, 0))
            zk.create("/e", ephemeral=True)
            session = "0x%x" % zk.client_id[0]
            conf = dict(line.split("=", 1) for line in zk.command(b"conf").splitlines() if "=" in line)
            expect("conf's clientPort", conf.get("clientPort"), str(serve.port))
            expect("conf's tickTime", conf.get("tickTime"), str(TICK_MS))
            expect("conf's maxSessionTimeout", conf.get("maxSessionTimeout"), str(20 * TICK_MS))
            dump = zk.command(b"dump")
            expect("dump's ephemerals", dump[dump.find("Sessions with Ephemerals"):dump.find("Connections dump")],
                   "Sessions with Ephemerals (1):\n%s:\n\t/e\n" % session)
        finally:
            zk.stop()
            zk.close()
    finally:
        serve.stop()
    for f in failures:
        print(f)
    if not failures:
        print("kazoo reads version (3, 8, 0), conf and dump from zksim serve")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
