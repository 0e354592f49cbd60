#!/usr/bin/python3
"""zkCli (Debian's zookeeper package, org.apache.zookeeper.ZooKeeperMain
3.8) scripted through one session on `zksim serve`; its output, normalized,
must equal the real server's, stored in EXPECTED.

usage: zkcli_session.py ZKSIM EXPECTED           compare (the test)
       zkcli_session.py --capture EXPECTED       write EXPECTED from Debian's
                                                 real server (started here)

Normalized: the SLF4J warnings dropped; dates, session ids and the port
replaced by placeholders; lists ZooKeeper gives in no promised order
(getEphemerals, whoami) sorted; the watch events (printed by the client's event
thread, so at no fixed place among the commands' output) taken out and
listed after it, in the order they came, but for the Closed event of
`quit`, which the JVM's exit may cut off. Exits 77 when zkCli or java is
absent.
"""

import difflib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from zksim_harness import SESSION_S, TICK_MS, WAIT_S, Serve  # noqa: E402

ZKCLI = "/usr/share/zookeeper/bin/zkCli.sh"
# Every command kind zkCli 3.8 has that one server can answer, the errors
# it prints among them. zkCli reads stdin without jline and runs a line
# only after the previous one has its reply.
SCRIPT = """\
create /j jdata
create -e /j/eph
create -s /j/seq- s
create -s /j/seq- s
create -c /j/box
create -t 60000 /j/ttl t
create -e -s /j/eseq-
create /j jdata
create /nothing/child
create /j/eph/child
get -s /j
get /nothing
set /j jdata2
set -v 7 /j x
set -s /j jdata3
stat /j
stat /nothing
ls /j
ls -s /j
ls -R /j
ls /nothing
getAllChildrenNumber /j
getEphemerals
getEphemerals /j
getAcl /j
getAcl -s /j
addauth digest bob:pw
setAcl /j/ttl auth:bob:pw:cdrwa
getAcl /j/ttl
setAcl /j/ttl world:anyone:r
get /j/ttl
set /j/ttl nope
whoami
sync /j
config
addWatch -m PERSISTENT /j
addWatch -m PERSISTENT_RECURSIVE /j/box
addWatch -m NOPE /j
get -w /j
set /j jdata4
ls -w /j
create /j/child c
stat -w /j/maybe
create /j/maybe m
create /j/box/deep d
removewatches /j -d
removewatches /j -c
removewatches /nothing
delete /j/nothing
delete /j
delete -v 9 /j/child
delete /j/child
deleteall /j
ls /
quit
"""


def run_zkcli(hosts):
    """zkCli's output (stdout and stderr as they came) for SCRIPT: the
    JVM's start (a minute at most), then one request after another, on a
    session a loaded machine keeps (the real server clamps it to its own
    maximum; the output shows neither)."""
    run = subprocess.run(["bash", ZKCLI, "-timeout", str(int(SESSION_S * 1000)), "-server", hosts], input=SCRIPT,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60 + WAIT_S)
    return run.stdout


def normalize(out, port):
    # The event thread prints "\nWATCHER::" and "\nWatchedEvent ..." with a
    # println each, which may fall between two prints of a command's line.
    events = re.findall(r"\n(WatchedEvent [^\n]*)\n", out)
    out = re.sub(r"\nWATCHER::\n|\nWatchedEvent [^\n]*\n", "", out)
    # The Closed event of `quit` races the JVM's exit: printed or not.
    events = [e for e in events if e != "WatchedEvent state:Closed type:None path:null"]
    lines = []
    identities, start = False, 0  # in whoami's list, from lines[start]
    for line in out.splitlines():
        if line.startswith("SLF4J:") or line == "":
            continue
        line = line.replace("127.0.0.1:%d" % port, "127.0.0.1:PORT")
        line = re.sub(r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \w+ \d{4}", "DATE", line)
        line = re.sub(r"0x[0-9a-f]{9,16}\b", "SESSION", line)
        # Lists in no promised order, which the real server iterates from
        # Java hash sets and zksim serve gives in byte order: getEphemerals'
        # paths, and whoami's identities (after "Auth scheme: User").
        if re.fullmatch(r"\[/.*\]", line):
            line = "[" + ", ".join(sorted(line[1:-1].split(", "))) + "]"
        if identities and re.match(r"\w+: ", line):
            lines.append(line)
            lines[start:] = sorted(lines[start:])
            continue
        identities = line == "Auth scheme: User"
        start = len(lines) + 1
        lines.append(line)
    return "\n".join(lines + ["--- watch events, in order:"] + events) + "\n"


def capture(expected):
    sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools", "measure"))
    from zk_rules import Server  # Debian's server on a free port, a temp dataDir
    with Server() as server:
        out = normalize(run_zkcli("127.0.0.1:%d" % server.port), server.port)
    with open(expected, "w") as f:
        f.write(out)
    print(out, end="")
    return 0


def compare(zksim, expected):
    serve = Serve(zksim, tick_ms=TICK_MS)
    try:
        got = normalize(run_zkcli(serve.hosts), serve.port)
    finally:
        serve.stop()
    with open(expected) as f:
        want = f.read()
    if got == want:
        print("zkCli's session on zksim serve printed what it prints on the real server (%d lines)"
              % want.count("\n"))
        return 0
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                               "real server (%s)" % expected, "zksim serve"))
    return 1


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    if not os.path.exists(ZKCLI) or not shutil.which("java"):
        print("skipped: %s or java is missing (Debian: zookeeper, default-jre-headless)" % ZKCLI)
        return 77
    if sys.argv[1] == "--capture":
        return capture(sys.argv[2])
    return compare(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
