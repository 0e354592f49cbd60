#!/usr/bin/env python3
"""Checks a markdown document of the project against the project, so that
what it shows stays true (label docs: README.md and every docs/*.md).

Usage: docs_check.py DOC BUILD_DIR [--write] [--max-lines N]

What it checks:

- ```console blocks are run. A line "$ COMMAND" is run with bash in a fresh
  directory that holds `build` (the project's build directory) and the
  source tree's top-level entries; the lines after it, up to the next
  command or the end of the block, are its output (stdout and stderr),
  compared line by line. A line "..." stands for any number of lines. A
  command whose line ends in "# exit N" must exit with N, any other with 0.
  The build directory's absolute path, where it shows, reads
  /path/to/zksim/build. --write puts the actual outputs in the file instead
  (to review before committing).
- ```sh blocks are commands too slow or too stateful to run here (a server,
  a benchmark, a build). Each command in them is checked, not run: a
  `zksim SUBCOMMAND` must be a subcommand `zksim --help` lists and each of
  its --options one that `zksim SUBCOMMAND --help` lists; a
  `zksim-bench-NAME` program must be one tools/CMakeLists.txt builds, and
  each BM_NAME it is given one that tools/bench/ registers; a script under
  scripts/ must exist and know each --option it is given (the option
  appears in its text); `ctest -L LABEL` (and -LE) must name labels some
  CMakeLists.txt gives a test. A word in capitals (LABEL, FILE) is a
  placeholder. Heredoc bodies are not commands.
- Inline code in the text: a span that is such a command (`zksim explore
  --swarm`, `explore --swarm`, `ctest -L wire`, `scripts/main.sh`) is
  checked the same way; a span that is a path in the source tree
  (`recipes/src/lock.cpp`, `tests/wire/data/*.hex`) must exist; a span
  naming a public header (`zksim/client.h`) must be one under some
  include/ directory; a span `BM_NAME` must be a registered benchmark.
- In sh blocks, every word that is a path in the source tree must exist.
- Links to files ([text](docs/cli.md#anchor)) must reach a file, and an
  anchor a heading of it.
- --max-lines N: the document has at most N lines.

Other code blocks (cpp, cmake, python, java, diagrams) are illustrations and
are not checked. Exit status: 0 when everything holds, 1 otherwise.
"""
import fnmatch
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXIT = re.compile(r"\s+# exit (\d+)$")
# Words that run the next word as a program, with their own options first.
WRAPPERS = {"time", "/usr/bin/time", "sudo", "exec", "env", "nohup", "bash", "sh", "python3",
            "/usr/bin/python3", "valgrind"}
SUBCOMMAND_LINE = re.compile(r"^\s+(?:-\w, )?(--[\w-]+)")


def fenced_blocks(lines):
    """(language, start, end): the line indexes of each fenced block's body."""
    out, start, lang = [], None, None
    for i, line in enumerate(lines):
        s = line.strip()
        if start is None and s.startswith("```"):
            start, lang = i + 1, s[3:].strip()
        elif start is not None and s == "```":
            out.append((lang, start, i))
            start = None
    return out


def matches(expected, actual):
    """Whether `actual` lines match `expected`, where "..." is any run of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


class Project:
    """What the documents are checked against, each read once."""

    def __init__(self, build):
        self.build = build
        self.zksim = os.path.join(build, "tools", "zksim")
        self._help = {}
        self.top = {e for e in os.listdir(ROOT)
                    if not e.startswith(".") and not e.startswith("build")}
        self.labels = set()
        for f in glob.glob(os.path.join(ROOT, "**", "CMakeLists.txt"), recursive=True):
            if os.path.relpath(f, ROOT).split(os.sep)[0] not in self.top:
                continue
            for m in re.finditer(r'\bLABELS?\s+(?:"([^"]*)"|([^\s)"]+))', open(f).read()):
                self.labels.update(x for x in (m.group(1) or m.group(2) or "").split(";")
                                   if x and not re.search(r"[$<]", x))
        tools = open(os.path.join(ROOT, "tools", "CMakeLists.txt")).read()
        self.benches = set(re.findall(r"add_executable\((zksim-bench-[\w-]+)", tools))
        self.bm = set()
        for f in glob.glob(os.path.join(ROOT, "tools", "bench", "*.cpp")):
            text = open(f).read()
            self.bm.update(re.findall(r"\bBENCHMARK\((BM_\w+)\)", text))
            self.bm.update(re.findall(r"\bRegisterBenchmark\(\s*(?:fmt::format\()?\"(BM_\w+)", text))

    def help(self, sub):
        """The options `zksim SUB --help` lists (SUB None: the subcommands)."""
        if sub not in self._help:
            args = [self.zksim, "--help"] if sub is None else [self.zksim, sub, "--help"]
            done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if done.returncode != 0:
                self._help[sub] = None
            elif sub is None:
                section = done.stdout.split("Commands:\n", 1)[-1].split("\n\n", 1)[0]
                self._help[sub] = {line.split()[0] for line in section.splitlines() if line.strip()}
            else:
                self._help[sub] = {"-h", "--help"} | {m.group(1) for m in
                                                     map(SUBCOMMAND_LINE.match, done.stdout.splitlines()) if m}
        return self._help[sub]

    def source_path(self, word):
        """Whether `word` is a path in the source tree, and then whether it exists
        (None: not such a path, or one with a placeholder)."""
        word = word.rstrip(".,;:")
        parts = word.split("/")
        if len(parts) < 2 or parts[0] not in self.top or re.search(r"[<>{}$]|\.\.\.|…", word):
            return None
        return bool(glob.glob(os.path.join(ROOT, word)))

    def header(self, word):
        """Whether a public header `zksim/...h` exists under some include/."""
        return bool(glob.glob(os.path.join(ROOT, "**", "include", word), recursive=True))


def split_commands(line):
    """The simple commands of a shell line, each a list of words, with
    redirections and their targets left out."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = "#"
    commands, words, skip = [], [], False
    for tok in lex:
        if re.fullmatch(r"[();<>|&]+", tok):
            if "<" in tok or ">" in tok:
                skip = True  # the next word is a file
                if words and words[-1].isdigit():
                    words.pop()  # 2>...
                continue
            if words:
                commands.append(words)
            words = []
        elif skip:
            skip = False
        else:
            words.append(tok)
    if words:
        commands.append(words)
    return commands


def program_of(words):
    """(index of the program word, or None)."""
    i = 0
    while i < len(words):
        w = words[i]
        if re.fullmatch(r"[A-Za-z_]\w*=.*", w):
            i += 1
        elif w in WRAPPERS:
            i += 1
            while i < len(words) and words[i].startswith("-") and words[i] != "-":
                i += 1
        else:
            return i
    return None


def options(words):
    return [w.split("=", 1)[0] for w in words if re.match(r"--?[A-Za-z]", w)]


def check_command(project, words, subcommand_first=False):
    """What is wrong with one simple command (a list of messages)."""
    problems = []
    for w in words:
        if project.source_path(w) is False:
            problems.append(f"no such file or directory in the source tree: {w}")
    i = 0 if subcommand_first else program_of(words)
    if i is None:
        return problems
    prog, args = ("zksim", words) if subcommand_first else (words[i], words[i + 1:])
    base = os.path.basename(prog)
    if base == "zksim" and args:
        sub = args[0]
        if sub in ("--help", "-h", "help"):
            return problems
        subs = project.help(None)
        if subs is None:
            return problems + [f"cannot run {project.zksim} --help: is zksim built?"]
        if sub not in subs:
            return problems + [f"'zksim {sub}': no such subcommand (zksim --help: {', '.join(sorted(subs))})"]
        known = project.help(sub)
        problems += [f"'zksim {sub} {o}': no such option (zksim {sub} --help)"
                     for o in options(args[1:]) if o not in known]
    elif base.startswith("zksim-bench-"):
        if not fnmatch.filter(project.benches, base):
            problems.append(f"'{base}': no such benchmark program in tools/CMakeLists.txt")
        for name in re.findall(r"\bBM_\w+", " ".join(args)):
            if name not in project.bm:
                problems.append(f"'{name}': no such benchmark in tools/bench/")
    elif re.fullmatch(r"(.*/)?scripts/[^/]+", prog):
        path = os.path.join(ROOT, prog[prog.index("scripts/"):])
        if not os.path.isfile(path):
            problems.append(f"'{prog}': no such script")
        else:
            text = open(path).read()
            problems += [f"'{prog} {o}': the script does not know the option" for o in options(args)
                         if o not in text]
    elif base == "ctest":
        for k, w in enumerate(args[:-1]):
            if w in ("-L", "-LE", "--label-regex", "--label-exclude"):
                problems += [f"'ctest {w} {label}': no test has the label (LABELS in CMakeLists.txt)"
                             for label in args[k + 1].split("|")
                         if label.strip("^$") not in project.labels and not label.isupper()]
    return problems


def command_span(project, span):
    """The span's words, if it is a command to check; (words, subcommand first)."""
    try:
        words = split_commands(span)
    except ValueError:
        return None
    if len(words) != 1:
        return None
    words = words[0]
    i = program_of(words)
    if i is None:
        return None
    prog = words[i]
    base = os.path.basename(prog)
    if base == "zksim" or base.startswith("zksim-bench-") or base == "ctest" or re.fullmatch(r"scripts/[^/]+", prog):
        return words, False
    subs = project.help(None) or set()
    if words[0] in subs and len(words) > 1 and words[1].startswith("--"):
        return words, True
    return None


def check_text(project, doc, lines, fenced):
    """Inline code spans and links outside fenced blocks."""
    problems = []
    in_block = set()
    for _, start, end in fenced:
        in_block.update(range(start - 1, end + 1))
    headings = {}
    for i, line in enumerate(lines):
        if i in in_block:
            continue
        for m in re.finditer(r"(?<!`)`([^`\n]+)`(?!`)", line):
            span = m.group(1).strip()
            where = f"{doc}:{i + 1}"
            cmd = command_span(project, span)
            if cmd is not None:
                problems += [f"{where}: {p}" for p in check_command(project, *cmd)]
            elif re.fullmatch(r"zksim/[\w/]+\.h", span):
                if not project.header(span):
                    problems.append(f"{where}: no such header under any include/: {span}")
            elif re.fullmatch(r"BM_\w+(/\S*)?", span):
                if span.split("/")[0] not in project.bm:
                    problems.append(f"{where}: no such benchmark in tools/bench/: {span}")
            elif project.source_path(span) is False:
                problems.append(f"{where}: no such file or directory in the source tree: {span}")
        for m in re.finditer(r"\]\(([^)\s]+)\)", line):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if not os.path.exists(file):
                problems.append(f"{doc}:{i + 1}: the link's file does not exist: {target}")
            elif anchor and file.endswith(".md"):
                if file not in headings:
                    headings[file] = {slug(h[1:].lstrip("#")) for h in open(file).read().split("\n")
                                      if h.startswith("#")}
                if anchor not in headings[file]:
                    problems.append(f"{doc}:{i + 1}: no heading for the link's anchor: {target}")
    return problems


def check_sh_block(project, doc, lines, start, end):
    problems = []
    i, heredoc = start, None
    while i < end:
        line, first = lines[i], i
        i += 1
        if heredoc is not None:
            if line.strip() == heredoc:
                heredoc = None
            continue
        while line.endswith("\\") and i < end:
            line = line[:-1] + " " + lines[i]
            i += 1
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if m:
            heredoc = m.group(1)
            line = line[:m.start()]
        try:
            commands = split_commands(line)
        except ValueError as e:
            problems.append(f"{doc}:{first + 1}: cannot parse the command: {e}")
            continue
        for words in commands:
            problems += [f"{doc}:{first + 1}: {p}" for p in check_command(project, words)]
    return problems


def run_console_blocks(doc, lines, fenced, build, write):
    """Runs each ```console block's commands; (commands run, problems)."""
    problems, ran, edits = [], 0, []
    work = tempfile.TemporaryDirectory(prefix="zksim-docs-")
    os.symlink(build, os.path.join(work.name, "build"))
    for entry in os.listdir(ROOT):
        if not entry.startswith(".") and not entry.startswith("build"):
            os.symlink(os.path.join(ROOT, entry), os.path.join(work.name, entry))
    for lang, start, end in fenced:
        if lang != "console":
            continue
        i = start
        while i < end:
            if not lines[i].startswith("$ "):
                problems.append(f"{doc}:{i + 1}: expected a '$ ' command line, found: {lines[i]}")
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
            done = subprocess.run(["bash", "-c", command], cwd=work.name, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=600)
            ran += 1
            actual = done.stdout.replace(build, "/path/to/zksim/build").rstrip("\n").split("\n")
            if actual == [""]:
                actual = []
            if done.returncode != status:
                problems.append(f"{doc}:{i + 1}: '{command}' exited {done.returncode}, not {status}:\n"
                                + "\n".join(actual))
            elif write:
                edits.append((i + 1, j, actual))
            elif not matches(expected, actual):
                problems.append(f"{doc}:{i + 1}: '{command}' printed:\n" + "\n".join(actual)
                                + "\n--- where the document says:\n" + "\n".join(expected))
            i = j
    work.cleanup()
    if write:
        for s, e, new in reversed(edits):
            lines[s:e] = new
        with open(doc, "w") as f:
            f.write("\n".join(lines))
    return ran, problems


def main():
    argv = sys.argv[1:]
    write = "--write" in argv
    max_lines = None
    if "--max-lines" in argv:
        k = argv.index("--max-lines")
        max_lines = int(argv[k + 1])
        del argv[k:k + 2]
    argv = [a for a in argv if a != "--write"]
    if len(argv) != 2:
        sys.exit("usage: docs_check.py DOC BUILD_DIR [--write] [--max-lines N]")
    doc, build = os.path.realpath(argv[0]), os.path.realpath(argv[1])
    lines = open(doc).read().split("\n")
    project = Project(build)
    fenced = fenced_blocks(lines)
    problems = []
    length = len(lines) - (1 if lines and lines[-1] == "" else 0)
    if max_lines is not None and length > max_lines:
        problems.append(f"{doc}: {length} lines, more than {max_lines}")
    checked = 0
    for lang, start, end in fenced:
        if lang == "sh":
            checked += 1
            problems += check_sh_block(project, doc, lines, start, end)
    problems += check_text(project, doc, lines, fenced)
    ran, run_problems = run_console_blocks(doc, lines, fenced, build, write)
    problems += run_problems
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{os.path.relpath(doc, ROOT)}: {ran} commands run, {checked} sh blocks checked, "
          f"problems: {len(problems)}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
