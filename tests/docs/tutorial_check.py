#!/usr/bin/env python3
"""Runs the commands of a markdown tutorial and compares their output with
the text written under them, so the tutorial stays true (label tutorial).

Usage: tutorial_check.py DOC BUILD_DIR [--write]

In each ```console block, a line "$ COMMAND" is run with bash in a fresh
directory where `build` is the project's build directory; the lines after
it, up to the next command or the end of the block, are its output
(stdout and stderr). A line "..." stands for any number of lines. A
command whose line ends in "# exit N" must exit with N, any other with 0.
The build directory's absolute path, where it shows (a scenario file's
plugin line), reads /path/to/zksim/build. --write puts the actual outputs
in the file instead (to review before committing).
"""
import os
import re
import subprocess
import sys
import tempfile

EXIT = re.compile(r"\s+# exit (\d+)$")


def blocks(lines):
    """(start, end) line indexes of each ```console block's body."""
    out, start = [], None
    for i, line in enumerate(lines):
        if start is None and line.strip() == "```console":
            start = i + 1
        elif start is not None and line.strip() == "```":
            out.append((start, i))
            start = None
    return out


def matches(expected, actual):
    """Whether `actual` lines match `expected`, where "..." is any run of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: tutorial_check.py DOC BUILD_DIR [--write]")
    doc, build = sys.argv[1], os.path.realpath(sys.argv[2])
    write = "--write" in sys.argv[3:]
    lines = open(doc).read().split("\n")
    failures, ran = [], 0
    work = tempfile.mkdtemp(prefix="zksim-tutorial-")
    os.symlink(build, os.path.join(work, "build"))
    edits = []  # (start, end, new lines) to apply from the bottom up
    for start, end in blocks(lines):
        i = start
        while i < end:
            if not lines[i].startswith("$ "):
                failures.append(f"{doc}:{i + 1}: expected a '$ ' command line, found: {lines[i]}")
                i += 1
                continue
            command = lines[i][2:]
            j = i + 1
            while j < end and not lines[j].startswith("$ "):
                j += 1
            expected = lines[i + 1:j]
            status = 0
            m = EXIT.search(command)
            if m:
                status = int(m.group(1))
                command = command[:m.start()]
            done = subprocess.run(["bash", "-c", command], cwd=work, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=600)
            ran += 1
            actual = done.stdout.replace(build, "/path/to/zksim/build").rstrip("\n").split("\n")
            if actual == [""]:
                actual = []
            if done.returncode != status:
                failures.append(f"{doc}:{i + 1}: '{command}' exited {done.returncode}, not {status}:\n"
                                + "\n".join(actual))
            elif write:
                edits.append((i + 1, j, actual))
            elif not matches(expected, actual):
                failures.append(f"{doc}:{i + 1}: '{command}' printed:\n" + "\n".join(actual)
                                + "\n--- where the tutorial says:\n" + "\n".join(expected))
            i = j
    if write:
        for s, e, new in reversed(edits):
            lines[s:e] = new
        open(doc, "w").write("\n".join(lines))
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{ran} commands run, {len(failures)} not as the tutorial says")
    sys.exit(1 if failures or ran == 0 else 0)


if __name__ == "__main__":
    main()
