#!/usr/bin/python3
"""Rules of tools/measure/layers.py, on small callgrind profiles written here."""

import os
import subprocess
import sys
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "measure", "layers.py")
sys.path.insert(0, os.path.dirname(TOOL))
import layers  # noqa: E402

# Three scenarios (calls of run), 300 instructions in all: run's own 120,
# malloc's 60, Trace::add's 90, a path lookup's 30. The lines after a
# calls= line are the call's inclusive cost and belong to no one's self cost.
PROFILE = """version: 1
creator: callgrind-3.19.0
positions: line
events: Ir

fl=(1) ???
fn=(1) zksim::scenarios::run(zksim::scenarios::Workload const&)
0 120
cfn=(2) malloc
calls=2 0
0 60
cfn=(3) zksim::Trace::add(long)
calls=4 0
0 90
+2 0
cfn=(4) zksim::detail::DataTree::find(std::basic_string_view<char>) const
calls=1 0
0 30

fn=(2)
0 60
fn=(3)
0 50
+1 40
fn=(4)
0 30
fn=(5) main
cfn=(1)
calls=3 0
0 300
"""


class Layers(unittest.TestCase):
    def profile(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".out", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_SelfCostLeavesOutTheInclusiveCostOfCalls(self):
        self_cost, calls = layers.parse(PROFILE.splitlines())
        self.assertEqual(self_cost["zksim::scenarios::run(zksim::scenarios::Workload const&)"], 120)
        self.assertEqual(self_cost["malloc"], 60)
        self.assertEqual(self_cost["zksim::Trace::add(long)"], 90)
        self.assertNotIn("main", self_cost)
        self.assertEqual(calls["zksim::scenarios::run(zksim::scenarios::Workload const&)"], 3)

    def test_AFunctionBelongsToTheFirstLayerItsNameMatches(self):
        self.assertTrue(layers.layer_of("malloc").startswith("allocation"))
        self.assertTrue(layers.layer_of("operator new(unsigned long)").startswith("allocation"))
        self.assertTrue(layers.layer_of("zksim::Trace::fold(long)").startswith("trace"))
        self.assertTrue(layers.layer_of("zksim::detail::DataTree::find(x) const").startswith("server"))
        self.assertTrue(layers.layer_of("zksim::World::Impl::step(long)").startswith("client library"))
        self.assertTrue(layers.layer_of("zksim::recipes::sequence_after(a, b)").startswith("recipes"))
        self.assertTrue(layers.layer_of("zksim::scenarios::check(w)").startswith("harness"))
        self.assertTrue(layers.layer_of("std::_Rb_tree_increment(x)").startswith("other"))

    def test_TheTableIsPerScenario(self):
        run = subprocess.run([sys.executable, TOOL, self.profile(PROFILE)],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("3 scenarios, 100 instructions each", run.stdout)
        self.assertIn("| allocation (malloc, free, new, delete) | 20 | 20.0 % |", run.stdout)
        self.assertIn("| trace (events, hash) | 30 | 30.0 % |", run.stdout)
        self.assertIn("names and paths (validated, hashed, looked up, split, joined, listed): "
                      "10 per scenario, 10.0 %", run.stdout)

    def test_AProfileWithoutTheScenarioFunctionIsAnError(self):
        run = subprocess.run([sys.executable, TOOL, self.profile(PROFILE), "--per", "nothing("],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertIn("no calls of nothing(", run.stderr)

    def test_AMissingFileIsAnError(self):
        run = subprocess.run([sys.executable, TOOL, "/nonexistent/cg.out"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stderr.count("\n"), 1)

    def test_AReaderThatStopsEarlyEndsItQuietly(self):
        # As with `layers.py cg.out | head -3`: the reader is gone before
        # the table is written.
        read_end, write_end = os.pipe()
        os.close(read_end)
        run = subprocess.run([sys.executable, TOOL, self.profile(PROFILE)],
                             stdout=write_end, stderr=subprocess.PIPE, text=True)
        os.close(write_end)
        self.assertEqual(run.stderr, "")


if __name__ == "__main__":
    unittest.main()
