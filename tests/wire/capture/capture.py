#!/usr/bin/python3
"""Captures the bytes of real ZooKeeper 3.8 conversations for the wire codec's tests.

Starts Debian's ZooKeeper server on 127.0.0.1 (own dataDir, free port), puts a
recording TCP proxy in front of it, and runs four kinds of client through the
proxy, one capture file each under tests/wire/data/:

  c_client.hex  Debian's C client (libzookeeper-mt), c_client.c beside this file
  kazoo.hex     kazoo (python3-kazoo)
  zkcli.hex     the Java client's zkCli (org.apache.zookeeper.ZooKeeperMain)
  probes.hex    hand-made frames (this file's Probe class): requests no client
                sends (null paths, unknown flags and opcodes, truncated bodies,
                oversized frames, a connect without the read-only byte, ...)

Each line of a capture is one frame as it crossed the proxy, length prefix
included: `<conn> <dir> <hex>`, dir `>` client to server, `<` server to
client; `<conn> closed-by <side>` when a side closed; `# ...` comments, and
`#= probe NAME` before each probe. Bytes that never made a whole frame are
logged as `<conn> <dir>partial <hex>`; a frame over 64 KiB as
`<conn> <dir>big <length> <hex of its first 68 bytes>`.

Run once, by hand (needs the zookeeper, default-jre-headless,
libzookeeper-mt-dev and python3-kazoo packages, and gcc):
    /usr/bin/python3 tests/wire/capture/capture.py [OUT_DIR]
The tests read the stored files; they never run this.
"""

import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CP = "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-log4j12.jar:/usr/share/java/log4j-1.2.jar"
SESSION_TIMEOUT_MS = 4000
BIG_FRAME = 65536  # larger frames are logged as their length and first 64 bytes


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """Debian's ZooKeeper 3.8, standalone, as real/testing/zk_server.h starts it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="zksim-capture-")
        self.port = free_port()
        with open(os.path.join(self.dir, "zoo.cfg"), "w") as f:
            f.write(f"tickTime=200\ndataDir={self.dir}/data\nclientPort={self.port}\n"
                    "clientPortAddress=127.0.0.1\n4lw.commands.whitelist=*\nadmin.enableServer=false\n")
        with open(os.path.join(self.dir, "log4j.properties"), "w") as f:
            f.write("log4j.rootLogger=INFO, F\nlog4j.appender.F=org.apache.log4j.FileAppender\n"
                    f"log4j.appender.F.File={self.dir}/server.log\n"
                    "log4j.appender.F.layout=org.apache.log4j.PatternLayout\n"
                    "log4j.appender.F.layout.ConversionPattern=%d %p [%t] %c{1}: %m%n\n")
        self.proc = subprocess.Popen(
            ["java", "-Dzookeeper.extendedTypesEnabled=true", "-Dznode.container.checkIntervalMs=1000",
             f"-Dlog4j.configuration=file:{self.dir}/log4j.properties", "-cp", CP,
             "org.apache.zookeeper.server.ZooKeeperServerMain", os.path.join(self.dir, "zoo.cfg")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while b"Mode: standalone" not in self.four_letter(b"srvr"):
            if time.time() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.2)

    def four_letter(self, word):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(word)
                out = b""
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        return out
                    out += chunk
        except OSError:
            return b""

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        log = os.path.join(self.dir, "server.log")
        if os.path.exists(log):
            shutil.copy(log, "/tmp/zksim-capture-server.log")
        shutil.rmtree(self.dir, ignore_errors=True)


class Proxy:
    """Forwards 127.0.0.1:port to the server and logs every frame, per connection."""

    def __init__(self, upstream_port):
        self.upstream = upstream_port
        self.lock = threading.Lock()
        self.lines = []
        self.conns = []  # (client socket, server socket)
        self.next_id = 1
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def log(self, line):
        with self.lock:
            self.lines.append(line)

    def take(self):
        with self.lock:
            out, self.lines = self.lines, []
            return out

    def drop(self):
        """Cuts every open connection, as a network failure would."""
        with self.lock:
            conns, self.conns = self.conns, []
        for c, s in conns:
            for sock in (c, s):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _accept(self):
        while True:
            client, _ = self.listener.accept()
            server = socket.create_connection(("127.0.0.1", self.upstream))
            with self.lock:
                cid = self.next_id
                self.next_id += 1
                self.conns.append((client, server))
            threading.Thread(target=self._pump, args=(cid, ">", client, server), daemon=True).start()
            threading.Thread(target=self._pump, args=(cid, "<", server, client), daemon=True).start()

    def _pump(self, cid, direction, src, dst):
        pending = b""
        while True:
            try:
                chunk = src.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            pending += chunk
            # Whole frames are logged as they complete; a length over 16 MiB
            # is not a frame (a probe's garbage): it is logged as partial.
            while len(pending) >= 4:
                n = struct.unpack(">i", pending[:4])[0]
                if n < 0 or n > (16 << 20) or len(pending) < 4 + n:
                    break
                if n > BIG_FRAME:
                    self.log(f"{cid} {direction}big {n} {pending[:4 + 64].hex()}")
                else:
                    self.log(f"{cid} {direction} {pending[:4 + n].hex()}")
                pending = pending[4 + n:]
            try:
                dst.sendall(chunk)
            except OSError:
                break
        if pending:
            self.log(f"{cid} {direction}partial {pending.hex()}")
        self.log(f"{cid} closed-by {'client' if direction == '>' else 'server'}")
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def write_capture(out_dir, name, header, lines):
    with open(os.path.join(out_dir, name), "w") as f:
        for h in header:
            f.write(f"# {h}\n")
        for line in lines:
            f.write(line + "\n")


def run_c_client(proxy):
    exe = os.path.join(tempfile.mkdtemp(prefix="zksim-cclient-"), "c_client")
    subprocess.run(["gcc", "-O1", "-o", exe, os.path.join(HERE, "c_client.c"), "-lzookeeper_mt"], check=True)
    p = subprocess.Popen([exe, f"127.0.0.1:{proxy.port}"], stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        if line.strip() == "DROP":
            proxy.drop()
    if p.wait() != 0:
        raise RuntimeError("c_client failed")
    time.sleep(0.5)


def run_kazoo(proxy):
    from kazoo.client import KazooClient
    from kazoo.exceptions import BadVersionError, NoNodeError
    zk = KazooClient(hosts=f"127.0.0.1:{proxy.port}", timeout=SESSION_TIMEOUT_MS / 1000)
    zk.start()
    zk.create("/k", b"kazoo")
    zk.create("/k/e", b"", ephemeral=True)
    zk.create("/k/s-", b"", sequence=True)
    zk.get("/k")
    zk.set("/k", b"again")
    zk.get_children("/k", include_data=True)
    zk.exists("/k/none")
    try:
        zk.get("/k/none")
    except NoNodeError:
        pass
    t = zk.transaction()
    t.create("/k/t", b"t")
    t.set_data("/k/t", b"tt")
    t.check("/k/t", 1)
    t.delete("/k/t")
    t.commit()
    t = zk.transaction()
    t.create("/k/t2", b"")
    t.delete("/k/none")
    t.create("/k/t3", b"")
    t.commit()  # fails on the delete: results, not an exception
    try:
        zk.set("/k", b"x", version=99)
    except BadVersionError:
        pass
    zk.add_auth("digest", "kaz:oo")
    zk.sync("/k")
    zk.delete("/k", recursive=True)
    zk.stop()
    zk.close()
    time.sleep(0.5)


def run_zkcli(proxy):
    """zkCli without jline reads its commands from stdin, one a line."""
    script = [
        "create /j jdata",
        "create -e /j/eph",
        "create -s /j/seq- s",
        "create -c /j/box",
        "create -t 60000 /j/ttl t",
        "get -s /j",
        "set /j jdata2",
        "stat /j",
        "ls -s /j",
        "getAllChildrenNumber /j",
        "getEphemerals",
        "getEphemerals /j",
        "getAcl /j",
        "addauth digest bob:pw",
        "setAcl /j/ttl auth:bob:pw:cdrwa",
        "getAcl /j/ttl",
        "whoami",
        "sync /j",
        "addWatch -m PERSISTENT /j",
        "addWatch -m PERSISTENT_RECURSIVE /j/box",
        "get -w /j",
        "removewatches /j -d",
        "ls -w /j",
        "removewatches /j -c",
        "removewatches /j -c",
        "delete /j/nothing",
        "DROP",
        "create /j/after a",
        "create /j/box/deep d",
        "deleteall /j",
        "quit",
    ]
    p = subprocess.Popen(["java", "-cp", CP, "org.apache.zookeeper.ZooKeeperMain", "-timeout",
                          str(SESSION_TIMEOUT_MS), "-server", f"127.0.0.1:{proxy.port}"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = []
    reader = threading.Thread(target=lambda: out.extend(p.stdout), daemon=True)
    reader.start()
    time.sleep(3)
    for cmd in script:
        if cmd == "DROP":
            proxy.drop()
            time.sleep(3)  # the client reconnects and sends setWatches2
            continue
        p.stdin.write(cmd + "\n")
        p.stdin.flush()
        time.sleep(0.4)
    p.stdin.close()
    p.wait(timeout=30)
    reader.join(timeout=5)
    with open("/tmp/zksim-capture-zkcli.out", "w") as f:
        f.writelines(out)
    time.sleep(0.5)


# jute, enough to build probes.
def i32(v):
    return struct.pack(">i", v)


def i64(v):
    return struct.pack(">q", v)


def ustr(s):
    if s is None:
        return i32(-1)
    b = s.encode() if isinstance(s, str) else s
    return i32(len(b)) + b


def frame(body):
    return i32(len(body)) + body


OPEN_ACL = i32(1) + i32(31) + ustr("world") + ustr("anyone")


def connect_request(read_only_byte=True, timeout_ms=SESSION_TIMEOUT_MS):
    body = i32(0) + i64(0) + i32(timeout_ms) + i64(0) + ustr(b"\0" * 16)
    if read_only_byte:
        body += b"\0"
    return frame(body)


class Probe:
    """One connection of hand-made frames: send, then read what comes back."""

    def __init__(self, proxy, name, read_only_byte=True):
        proxy.log(f"#= probe {name}")
        self.sock = socket.create_connection(("127.0.0.1", proxy.port))
        self.buf = b""
        self.sock.sendall(connect_request(read_only_byte))
        self.read_frame()
        self.xid = 0

    def read_frame(self, timeout_s=3.0):
        """The next whole frame, or None when the server closed or went quiet."""
        self.sock.settimeout(timeout_s)
        try:
            while len(self.buf) < 4 or len(self.buf) < 4 + struct.unpack(">i", self.buf[:4])[0]:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return None
                self.buf += chunk
        except socket.timeout:
            return None
        n = 4 + struct.unpack(">i", self.buf[:4])[0]
        frame, self.buf = self.buf[:n], self.buf[n:]
        return frame

    def request(self, op, body, xid=None):
        """Sends a request and reads until its reply (notifications may come first)."""
        if xid is None:
            self.xid += 1
            xid = self.xid
        self.sock.sendall(frame(i32(xid) + i32(op) + body))
        while True:
            reply = self.read_frame()
            if reply is None or struct.unpack(">i", reply[4:8])[0] == xid:
                return reply

    def raw(self, data, expect_reply=True):
        self.sock.sendall(data)
        return self.read_frame(3.0 if expect_reply else 1.0)

    def close(self):
        self.sock.close()
        time.sleep(0.3)


def run_probes(proxy):
    p = Probe(proxy, "connect-without-read-only-byte", read_only_byte=False)
    p.request(3, ustr("/") + b"\0")
    p.close()

    p = Probe(proxy, "create-and-read-null-data")
    p.request(1, ustr("/p") + ustr(None) + OPEN_ACL + i32(0))
    p.request(4, ustr("/p") + b"\0")
    p.request(5, ustr("/p") + ustr(b"v") + i32(-1))
    p.request(5, ustr("/p") + ustr(None) + i32(-1))
    p.request(4, ustr("/p") + b"\0")
    p.close()

    for op, name, body in [
        (1, "null-path-create", ustr(None) + ustr(b"") + OPEN_ACL + i32(0)),
        (2, "null-path-delete", ustr(None) + i32(-1)),
        (3, "null-path-exists", ustr(None) + b"\0"),
        (4, "null-path-getData", ustr(None) + b"\0"),
        (5, "null-path-setData", ustr(None) + ustr(b"") + i32(-1)),
        (6, "null-path-getACL", ustr(None)),
        (8, "null-path-getChildren", ustr(None) + b"\0"),
        (9, "null-path-sync", ustr(None)),
        (103, "null-prefix-getEphemerals", ustr(None)),
        (106, "null-path-addWatch", ustr(None) + i32(0)),
    ]:
        p = Probe(proxy, name)
        p.request(op, body)
        p.close()

    p = Probe(proxy, "create-flags-out-of-range")
    p.request(1, ustr("/flag7") + ustr(b"") + OPEN_ACL + i32(7))
    p.request(1, ustr("/flag-1") + ustr(b"") + OPEN_ACL + i32(-1))
    p.request(15, ustr("/flag99") + ustr(b"") + OPEN_ACL + i32(99))
    p.request(1, ustr("/ttl-by-create") + ustr(b"") + OPEN_ACL + i32(5))
    p.request(21, ustr("/ttl0") + ustr(b"") + OPEN_ACL + i32(5) + i64(0))
    p.request(21, ustr("/ttl-persistent") + ustr(b"") + OPEN_ACL + i32(0) + i64(1000))
    p.request(19, ustr("/container-flag0") + ustr(b"") + OPEN_ACL + i32(0))
    p.request(14, i32(1) + b"\0" + i32(-1) + ustr("/multi-flag9") + ustr(b"") + OPEN_ACL + i32(9)
              + i32(-1) + b"\1" + i32(-1))
    p.close()

    p = Probe(proxy, "watch-modes-out-of-range")
    p.request(106, ustr("/") + i32(2))
    p.request(106, ustr("/") + i32(-1))
    p.request(18, ustr("/") + i32(0))
    p.request(17, ustr("/") + i32(4))
    p.close()

    p = Probe(proxy, "truncated-bodies")
    p.request(1, ustr("/trunc") + ustr(b"")[:2])
    p.request(4, ustr("/zookeeper")[:5])
    p.request(3, b"")
    p.request(14, i32(1) + b"\0" + i32(-1) + ustr("/m"))
    p.close()

    p = Probe(proxy, "lengths-out-of-range")
    p.request(4, i32(-2) + b"\0")
    p.request(4, i32(0x7fffffff) + b"\0")
    p.request(1, ustr("/neg-acl") + ustr(b"") + i32(-5) + i32(0))
    p.request(1, ustr("/null-acl") + ustr(b"") + i32(-1) + i32(0))
    p.request(1, ustr("/empty-acl") + ustr(b"") + i32(0) + i32(0))
    p.close()

    p = Probe(proxy, "trailing-bytes")
    p.request(3, ustr("/") + b"\0" + b"extra bytes")
    p.request(4, ustr("/zookeeper") + b"\x07")
    p.close()

    p = Probe(proxy, "multi-read")
    p.request(1, ustr("/mr") + ustr(b"d") + OPEN_ACL + i32(0))
    p.request(22, i32(4) + b"\0" + i32(-1) + ustr("/mr") + b"\0"
              + i32(8) + b"\0" + i32(-1) + ustr("/") + b"\0"
              + i32(4) + b"\0" + i32(-1) + ustr("/none") + b"\0"
              + i32(-1) + b"\1" + i32(-1))
    p.request(22, i32(4) + b"\0" + i32(-1) + ustr("/mr") + b"\0"
              + i32(2) + b"\0" + i32(-1) + ustr("/mr") + i32(-1)
              + i32(-1) + b"\1" + i32(-1))
    p.request(14, i32(-1) + b"\1" + i32(-1))
    p.close()

    p = Probe(proxy, "who-am-i-and-ping")
    p.request(107, b"")
    p.request(11, b"", xid=-2)
    p.request(100, i32(0) + ustr("digest") + ustr(b"eve:pw"), xid=-4)
    p.request(107, b"")
    p.close()

    p = Probe(proxy, "set-watches-fresh-session")
    p.request(101, i64(0) + i32(1) + ustr("/") + i32(1) + ustr("/absent") + i32(0), xid=-8)
    p.request(105, i64(0) + i32(0) + i32(0) + i32(0) + i32(1) + ustr("/") + i32(0), xid=-8)
    p.request(1, ustr("/absent") + ustr(b"") + OPEN_ACL + i32(1))
    p.close()

    p = Probe(proxy, "check-and-unwatch-outside-multi")
    p.request(13, ustr("/") + i32(-1))
    p.request(13, ustr("/") + i32(5))
    p.request(18, ustr("/") + i32(1))
    p.request(17, ustr("/") + i32(3))
    p.close()

    p = Probe(proxy, "auth-unknown-scheme")
    p.request(100, i32(0) + ustr("nosuch") + ustr(b"x"), xid=-4)
    p.close()

    p = Probe(proxy, "reconfig-sasl-deleteContainer")
    p.request(16, ustr(None) + ustr("2") + ustr(None) + i64(-1))
    p.request(20, ustr("/zookeeper"))
    p.request(102, ustr(b"token"))
    p.close()

    p = Probe(proxy, "unknown-opcode")
    p.request(50, ustr("/"))
    p.request(3, ustr("/") + b"\0")
    p.close()

    p = Probe(proxy, "notification-opcode")
    p.request(0, b"")
    p.close()

    p = Probe(proxy, "header-truncated")
    p.raw(frame(i32(1)))
    p.close()

    p = Probe(proxy, "frame-at-the-limit")
    body = i32(1) + i32(5) + ustr("/p") + ustr(b"x" * (0xfffff - 8 - 6 - 4 - 4)) + i32(-1)
    assert len(body) == 0xfffff
    p.raw(frame(body))
    p.close()

    p = Probe(proxy, "frame-over-the-limit")
    p.raw(i32(0x100000) + b"\0" * 16, expect_reply=False)
    p.close()

    p = Probe(proxy, "frame-negative-length")
    p.raw(i32(-5), expect_reply=False)
    p.close()

    p = Probe(proxy, "close-session")
    p.request(-11, b"")
    p.request(3, ustr("/") + b"\0")
    p.close()


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "data")
    os.makedirs(out_dir, exist_ok=True)
    server = Server()
    try:
        version = server.four_letter(b"srvr").decode().splitlines()[0]
        proxy = Proxy(server.port)
        common = [f"server: Debian zookeeper package, {version}",
                  "captured by tests/wire/capture/capture.py through its recording proxy"]
        for name, fn, who in [
            ("c_client.hex", run_c_client, "client: Debian libzookeeper-mt (tests/wire/capture/c_client.c)"),
            ("kazoo.hex", run_kazoo, "client: python3-kazoo 2.8.0"),
            ("zkcli.hex", run_zkcli, "client: zkCli (org.apache.zookeeper.ZooKeeperMain 3.8.0), commands on stdin"),
            ("probes.hex", run_probes, "client: hand-made frames (capture.py, run_probes)"),
        ]:
            fn(proxy)
            write_capture(out_dir, name, common + [who], proxy.take())
            print(f"wrote {name}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
