#!/usr/bin/python3
"""Curator 5.4's InterProcessMutex and LeaderLatch (Debian
libcurator-recipes-java) on `zksim serve`, with faults through the control
interface, checked by the project's checkers: compiles CuratorRecipes.java
with javac, runs each scenario on a fresh server, checks its history.

usage: curator_recipes.py ZKSIM CHECKER OUTDIR [SCENARIO ...]

Each scenario prints its seed when it starts and with its verdict;
ZKSIM_SEED=N with that scenario alone replays its faults. Exits 77 when the
jars or the JDK are not installed.
"""

import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zksim_harness import SESSION_S, TICK_MS, WAIT_S, Serve, check, parse_args

JARS = ["curator-recipes", "curator-framework", "curator-client", "zookeeper", "zookeeper-jute", "guava",
        "slf4j-api", "slf4j-nop"]
CLASSPATH = ":".join("/usr/share/java/%s.jar" % j for j in JARS)
SCENARIOS = {"mutex": None, "leader-latch": None}  # name: expected violation (None: pass)


def run_scenario(serve, classes, name, seed, outdir, checker):
    # Named by the seed: a later run does not overwrite a failure's.
    path = os.path.join(outdir, "curator-%s.seed%d.history.json" % (name, seed))
    print("%s: seed %d" % (name, seed), flush=True)
    # The JVM's start, then what CuratorRecipes bounds: three connections
    # (WAIT_S each at most), the run and its threads' ends.
    limit_s = 60 + 4 * WAIT_S
    try:
        run = subprocess.run(["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classes + ":" + CLASSPATH,
                              "CuratorRecipes", serve.hosts, str(serve.control_port), name, str(seed), path,
                              str(int(SESSION_S * 1000))],
                             capture_output=True, text=True, timeout=limit_s)
        ok = run.returncode == 0
        out = run.stdout + run.stderr[-2000:]
    except subprocess.TimeoutExpired:
        ok, out = False, "CuratorRecipes did not end in %d s" % limit_s
    if ok:
        ok, checked = check(checker, path, SCENARIOS[name])
        out += checked
    print("%s: %s (expected %s); seed %d\n  %s" % (name, "as expected" if ok else "NOT AS EXPECTED",
                                                   SCENARIOS[name] or "pass", seed,
                                                   out.strip().replace("\n", "\n  ")), flush=True)
    if ok:
        os.remove(path)
    else:
        print("  rerun: ZKSIM_SEED=%d %s ZKSIM CHECKER OUTDIR %s" % (seed, sys.argv[0], name), flush=True)
        serve.save_trace(os.path.join(outdir, "curator-%s.seed%d.trace.html" % (name, seed)))
    return ok


def main():
    args = parse_args(__doc__, SCENARIOS)
    if args is None:
        return 2
    zksim, checker, outdir, names = args
    missing = [j for j in CLASSPATH.split(":") if not os.path.exists(j)] + \
        [tool for tool in ("javac", "java") if not shutil.which(tool)]
    if missing:
        print("skipped: missing %s (Debian: libcurator-recipes-java, default-jdk-headless)" % ", ".join(missing))
        return 77
    classes = os.path.join(outdir, "curator-classes")
    os.makedirs(classes, exist_ok=True)
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "CuratorRecipes.java")
    subprocess.run(["javac", "-cp", CLASSPATH, "-d", classes, source], check=True)
    seed = int(os.environ.get("ZKSIM_SEED", random.randrange(1 << 31)))
    results = []
    for k, name in enumerate(names):
        serve = Serve(zksim, tick_ms=TICK_MS)
        try:
            results.append(run_scenario(serve, classes, name, seed + k, outdir, checker))
        finally:
            serve.stop()
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
