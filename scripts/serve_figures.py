#!/usr/bin/python3
"""Requests per second, latency and concurrent sessions through the socket:
`zksim serve` beside Debian's real ZooKeeper 3.8 on the same machine, each
started here on a free port (the real one with a temp dataDir, as the
tests start it, and maxClientCnxns=0 so that one address may hold many
connections), measured by the same client: raw jute frames from this
process, no client library.

usage: scripts/serve_figures.py [--zksim build/tools/zksim] [--seconds S] [--sessions N,N,...] [--hold S]
       (defaults: 3 s; 1000,5000,10000 sessions held 10 s)

Prints a markdown table per figure:
- latency: one connection, one request at a time (getData of a 10-byte
  node; setData of it), median and 99th percentile of the round trip;
- throughput: 8 connections, each keeping 32 requests in flight, for S
  seconds (default 3): replies per second;
- sessions: N connections opened as fast as the server takes them (100
  handshakes in flight; session timeout 4 s), each pinged every second
  once handshaken, held H seconds (default 10) after the last opened: how
  many the server accepted, and how many answered the last ping.
The client is one Python process, so the throughput figures are a floor
(what this client drives), the same floor for both servers; on a 2-core
machine the client and the server share the CPUs.
"""

import argparse
import os
import selectors
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "measure"))
from zk_rules import CLASSPATH_JARS, JAVA_DIR, TICK_MS, four_letter, free_port  # noqa: E402

GET_DATA, SET_DATA, CREATE, PING = 4, 5, 1, 11


def frame(body):
    return struct.pack(">i", len(body)) + body


def ustr(s):
    b = s.encode()
    return struct.pack(">i", len(b)) + b


def connect_request(timeout_ms):
    return frame(struct.pack(">iqiq", 0, 0, timeout_ms, 0) + struct.pack(">i", 16) + b"\0" * 16 + b"\0")


def request(xid, op, body=b""):
    return frame(struct.pack(">ii", xid, op) + body)


def create(xid, path, data):
    """A persistent node readable and writable by anyone (world:anyone, all perms)."""
    acl = struct.pack(">ii", 1, 31) + ustr("world") + ustr("anyone")
    return request(xid, CREATE, ustr(path) + struct.pack(">i", len(data)) + data + acl + struct.pack(">i", 0))


def get_data(xid, path):
    return request(xid, GET_DATA, ustr(path) + b"\0")


def set_data(xid, path, data):
    return request(xid, SET_DATA, ustr(path) + struct.pack(">i", len(data)) + data + struct.pack(">i", -1))


class Conn:
    """A session on one socket, blocking."""

    def __init__(self, port, timeout_ms=4000):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.sock.sendall(connect_request(timeout_ms))
        self.read_frame()
        self.xid = 0

    def read_frame(self):
        while len(self.buf) < 4 or len(self.buf) < 4 + struct.unpack(">i", self.buf[:4])[0]:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("closed by the server")
            self.buf += chunk
        n = struct.unpack(">i", self.buf[:4])[0]
        body, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
        return body

    def call(self, make):
        self.xid += 1
        self.sock.sendall(make(self.xid))
        body = self.read_frame()
        xid, _, err = struct.unpack(">iqi", body[:16])
        if xid != self.xid or err != 0:
            raise RuntimeError("reply xid %d err %d" % (xid, err))
        return body

    def close(self):
        self.sock.close()


class Zksim:
    name = "zksim serve"

    def __init__(self, zksim):
        self.proc = subprocess.Popen([zksim, "serve", "--port", "0", "--tick-ms", str(TICK_MS)],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("serving on "):
            self.proc.kill()
            raise RuntimeError("zksim serve did not start: %r" % line)
        self.port = int(line.rsplit(":", 1)[1])

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


class Real:
    """Debian's server, as tools/measure/zk_rules.py starts it, with
    maxClientCnxns=0 (no limit per client address; 60 by default)."""
    name = "ZooKeeper 3.8 (Debian)"

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="zkfigures-", dir="/tmp")
        self.port = free_port()
        cfg = os.path.join(self.dir, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write("dataDir=%s/data\nclientPort=%d\nclientPortAddress=127.0.0.1\ntickTime=%d\n"
                    "4lw.commands.whitelist=*\nadmin.enableServer=false\nmaxClientCnxns=0\n"
                    % (self.dir, self.port, TICK_MS))
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        self.proc = subprocess.Popen(
            ["java", "-cp", ":".join(os.path.join(JAVA_DIR, j) for j in CLASSPATH_JARS),
             "org.apache.zookeeper.server.ZooKeeperServerMain", cfg], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while "Mode: standalone" not in self._srvr():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("the real server did not start (log: %s)" % self.log.name)
            time.sleep(0.2)

    def _srvr(self):
        try:
            return four_letter(self.port, "srvr", 1.0)
        except OSError:
            return ""

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def percentile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, int(p * len(sorted_values)))]


def latency(port, make, n=3000):
    c = Conn(port)
    for _ in range(2000):  # warm up (the JIT, for the real server)
        c.call(make)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        c.call(make)
        times.append(time.perf_counter() - t)
    c.close()
    times.sort()
    return percentile(times, 0.5) * 1e6, percentile(times, 0.99) * 1e6


def throughput(port, make, seconds, conns=8, window=32):
    socks = [Conn(port) for _ in range(conns)]
    sel = selectors.DefaultSelector()
    for c in socks:
        c.sock.setblocking(False)
        c.sock.sendall(b"".join(make(0) for _ in range(window)))
        sel.register(c.sock, selectors.EVENT_READ, c)
    replies = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        for key, _ in sel.select(timeout=1):
            c = key.data
            c.buf += c.sock.recv(1 << 18)
            got = 0
            while len(c.buf) >= 4:
                n = struct.unpack(">i", c.buf[:4])[0]
                if len(c.buf) < 4 + n:
                    break
                err = struct.unpack(">i", c.buf[16:20])[0]
                if err != 0:
                    raise RuntimeError("error %d under load" % err)
                c.buf = c.buf[4 + n:]
                got += 1
            if got:
                replies += got
                c.sock.setblocking(True)
                c.sock.sendall(b"".join(make(0) for _ in range(got)))
                c.sock.setblocking(False)
    elapsed = time.perf_counter() - start
    for c in socks:
        c.close()
    return replies / elapsed


def sessions(port, n, hold_s, pending_max=100):
    """Of n sessions: how many the server accepted (its ConnectResponse
    came), and how many answered the last ping, hold_s seconds after the
    last was opened. Connections are opened (at most pending_max handshakes
    in flight) while the handshaken ones are pinged every second, so none
    is left silent past its timeout while others open."""
    sel = selectors.DefaultSelector()
    conns, opened = [], 0
    ping = request(-2, PING)
    start = time.monotonic()
    next_ping = start + 1
    end = None  # hold_s after the last connection opened
    last_ping = start
    while end is None or time.monotonic() < end:
        pending = sum(1 for c in conns if c["state"] in ("connecting", "sent"))
        while opened < n and pending < pending_max:
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            c = {"sock": s, "state": "connecting", "last_reply": 0.0}
            conns.append(c)
            sel.register(s, selectors.EVENT_WRITE, c)
            opened += 1
            pending += 1
        if opened == n and end is None:
            end = time.monotonic() + hold_s
        for key, events in sel.select(timeout=0.05):
            c = key.data
            if c["state"] == "connecting":
                if c["sock"].getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                    c["state"] = "closed"
                    sel.unregister(c["sock"])
                    continue
                c["sock"].send(connect_request(4000))
                c["state"] = "sent"
                sel.modify(c["sock"], selectors.EVENT_READ, c)
                continue
            try:
                got = c["sock"].recv(1 << 16)
            except OSError:
                got = b""
            if not got:  # closed by the server
                c["state"] = "closed"
                sel.unregister(c["sock"])
                continue
            c["state"] = "session"  # the first bytes are the ConnectResponse
            c["last_reply"] = time.monotonic()
        now = time.monotonic()
        if now >= next_ping and (end is None or now < end - 0.5):  # the last, answered by the end
            last_ping = now
            for c in conns:
                if c["state"] == "session":
                    try:
                        c["sock"].send(ping)
                    except OSError:
                        pass
            next_ping = now + 1
    accepted = sum(1 for c in conns if c["state"] == "session" or c["last_reply"])
    answered = sum(1 for c in conns if c["state"] == "session" and c["last_reply"] >= last_ping)
    for c in conns:
        c["sock"].close()
    return accepted, answered


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--zksim", default=os.path.join(ROOT, "build", "tools", "zksim"))
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--sessions", default="1000,5000,10000")
    ap.add_argument("--hold", type=float, default=10.0)
    args = ap.parse_args()
    counts = [int(x) for x in args.sessions.split(",")]
    rows = {}
    for make_server in (lambda: Zksim(args.zksim), Real):
        server = make_server()
        try:
            setup = Conn(server.port)
            setup.call(lambda x: create(x, "/f", b"0123456789"))
            setup.close()
            get = lambda x: get_data(x, "/f")  # noqa: E731
            put = lambda x: set_data(x, "/f", b"0123456789")  # noqa: E731
            r = rows[server.name] = {}
            r["get latency"] = latency(server.port, get)
            r["set latency"] = latency(server.port, put)
            r["get/s"] = throughput(server.port, get, args.seconds)
            r["set/s"] = throughput(server.port, put, args.seconds)
            for n in counts:
                r["sessions %d" % n] = sessions(server.port, n, args.hold)
        finally:
            server.stop()
    load = os.getloadavg()[0]
    print("Measured %s, load average %.1f after, by `scripts/serve_figures.py --seconds %g --sessions %s --hold %g`:\n"
          % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), load, args.seconds, args.sessions, args.hold))
    print("| server | getData median / p99 | setData median / p99 | getData/s | setData/s |")
    print("| --- | --- | --- | --- | --- |")
    for name, r in rows.items():
        print("| %s | %.0f / %.0f µs | %.0f / %.0f µs | %s | %s |" % (
            name, *r["get latency"], *r["set latency"], "{:,.0f}".format(r["get/s"]), "{:,.0f}".format(r["set/s"])))
    print()
    print("| server | " + " | ".join("%d sessions" % n for n in counts) + " |")
    print("| --- |" + " --- |" * len(counts))
    for name, r in rows.items():
        print("| %s | " % name + " | ".join(("%d accepted, %d answer after " % r["sessions %d" % n]) + "%g s" % args.hold
                                            for n in counts) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
