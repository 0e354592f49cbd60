#!/usr/bin/python3
"""Where a lock scenario's instructions go, layer by layer.

Reads a callgrind profile (the raw `callgrind.out` file) of a run that
collected inside one function only, e.g.

  valgrind --tool=callgrind --callgrind-out-file=cg.out \
      '--toggle-collect=zksim::scenarios::run(*' \
      build/tools/zksim-bench-harness --benchmark_filter=BM_LockScenario/0 \
      --benchmark_min_time=1
  python3 tools/measure/layers.py cg.out

and prints, per call of that function (a scenario), the instructions each
layer executed itself (self cost), as a Markdown table, then the share of
the work on names and paths, which is what interning them could save.
Instruction counts, unlike times, are the same on every run of the same
binary, whatever else the machine does.

Usage: layers.py PROFILE [--per FUNCTION]
  --per: the function called once per scenario (default: the one collected,
         zksim::scenarios::run).
"""

import re
import signal
import sys

# A function belongs to the first layer whose pattern its name matches.
LAYERS = [
    ("allocation (malloc, free, new, delete)",
     r"^(malloc|_int_malloc|_int_free|free|cfree|malloc_consolidate|unlink_chunk"
     r"|tcache_\w+|_int_memalign|operator new|operator delete)\b"),
    ("byte copies and compares (libc, std::string)",
     r"^(__mem\w+|mem(cpy|move|cmp|set)|__strlen\w*|strlen"
     r"|(void )?std::__cxx11::basic_string|std::operator==<char>"
     r"|__gnu_cxx::__enable_if<std::__is_char<char>)"),
    ("trace (events, hash)", r"^zksim::(Trace|is_fault)\b"),
    ("server (data tree, sessions, watches)",
     r"^zksim::(Server|Ensemble|detail::(DataTree|SessionTable|WatchManager|hash_bytes|SmallString"
     r"|ChildIds|NodeReuse)|validate_path|open_acl|detail::acl)"),
    ("client library and event loop",
     r"^(zksim::(World|SimClient|Handle|Outcome|DownMsg|UpMsg|PendingOp|CreateRequest|Signal|Watching|Network|runtime::"
     r"|client_accepts_path|c_client_refusal|path_of|parent_of|\(anonymous namespace\))"
     r"|std::_Function_handler<void \(\), zksim::)"),
    ("recipes", r"^zksim::recipes::"),
    ("harness (workload, history, checkers, probes)", r"^zksim::scenarios::"),
    ("decisions", r"^zksim::\w*Decision"),
    ("coroutine frames", r"^zksim::detail::(TaskPromise|FramePool)"),
]
# Work on names and paths, across the layers: validating, hashing, looking
# up, splitting and joining them, and listing children by name.
NAME_WORK = (r"^zksim::(client_accepts_path|validate_path|parent_of|path_of"
             r"|detail::(DataTree::(find|has_path|child_names|path)|hash_bytes)"
             r"|recipes::(sequence_after|detail::join))")

NAME_DEF = re.compile(r"^\((\d+)\)(?: (.*))?$")


def parse(lines):
    """Self cost per function name, and the calls made to each function."""
    names = {}
    self_cost = {}
    calls = {}
    fn = None
    callee = None
    after_calls = False
    for raw in lines:
        line = raw.rstrip("\n")
        if not line:
            continue
        key, sep, value = line.partition("=")
        if sep and key in ("fn", "cfn", "cfi", "cfl", "fl", "fi", "fe", "ob", "cob"):
            if key in ("fn", "cfn"):
                m = NAME_DEF.match(value)
                if m:
                    if m.group(2) is not None:
                        names[m.group(1)] = m.group(2)
                    name = names.get(m.group(1), value)
                else:
                    name = value
                if key == "fn":
                    fn = name
                else:
                    callee = name
            continue
        if sep and key == "calls":
            count = int(value.split()[0])
            calls[callee] = calls.get(callee, 0) + count
            after_calls = True
            continue
        if line[0].isdigit() or line[0] in "+-*":
            parts = line.split()
            cost = int(parts[1]) if len(parts) > 1 else 0
            if after_calls:
                after_calls = False  # the call's inclusive cost, not the caller's own
            elif fn is not None:
                self_cost[fn] = self_cost.get(fn, 0) + cost
    return self_cost, calls


def layer_of(name):
    for layer, pattern in LAYERS:
        if re.search(pattern, name):
            return layer
    return "other (std containers, std::function, shared_ptr, ...)"


def report(self_cost, per_calls):
    total = sum(self_cost.values())
    by_layer = {}
    for name, cost in self_cost.items():
        layer = layer_of(name)
        by_layer[layer] = by_layer.get(layer, 0) + cost
    names = sum(c for n, c in self_cost.items() if re.search(NAME_WORK, n))
    out = [f"{per_calls} scenarios, {total // per_calls:,} instructions each", "",
           "| layer | instructions per scenario | share |", "| --- | --- | --- |"]
    for layer, cost in sorted(by_layer.items(), key=lambda kv: -kv[1]):
        out.append(f"| {layer} | {cost // per_calls:,} | {100 * cost / total:.1f} % |")
    out += ["", f"names and paths (validated, hashed, looked up, split, joined, listed): "
            f"{names // per_calls:,} per scenario, {100 * names / total:.1f} %"]
    return "\n".join(out)


def main(argv):
    # A reader that stops early (`| head`) ends the program as it ends any
    # filter, without a traceback.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--per"):
        print("usage: layers.py PROFILE [--per FUNCTION]", file=sys.stderr)
        return 2
    per = argv[3] if len(argv) == 4 else "zksim::scenarios::run("
    try:
        with open(argv[1], encoding="utf-8", errors="replace") as f:
            self_cost, calls = parse(f)
    except OSError as e:
        print(f"layers.py: {argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    per_calls = sum(n for name, n in calls.items() if name and name.startswith(per))
    if per_calls == 0 or not self_cost:
        print(f"layers.py: {argv[1]}: no calls of {per} with a cost in it", file=sys.stderr)
        return 2
    print(report(self_cost, per_calls))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
