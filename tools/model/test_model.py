#!/usr/bin/env python3
"""Host tests of make model's tools: bad input fails clearly, the ARMv8
ordering rules, the link check, the trails.  python3 tools/model/test_model.py"""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import armv8  # noqa: E402
import check_links  # noqa: E402
import trail  # noqa: E402

MODEL = os.path.join(HERE, "model.py")


def run_model(models, *args, env=None):
    out = tempfile.mkdtemp()
    try:
        p = subprocess.run([sys.executable, MODEL, "--models", models, "--out", out] + list(args),
                           capture_output=True, text=True, env=env)
        return p.returncode, p.stdout + p.stderr
    finally:
        shutil.rmtree(out, ignore_errors=True)


class BadInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def fails(self, says, *args):
        """make model over self.dir must fail, saying this; returns its output."""
        rc, out = run_model(self.dir, *args)
        self.assertEqual(rc, 1, out)
        self.assertIn(says, out)
        return out

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path

    def test_promela_syntax_error_fails_with_spins_message(self):
        self.write("broken.pml", """\
            /* @check safety
             * @variant base: verify */
            active proctype p() { byte x; x = ; }
            """)
        out = self.fails("spin cannot read the model")
        self.assertIn("syntax error", out)
        self.assertIn("FAILED", out)

    def test_wmm_error_names_file_and_line(self):
        self.write("armv8/bad.wmm", """\
            init: x=0
            thread: P0
                r1 = lod x
            outcome: P0:r1 == 1
            """)
        out = self.fails("bad.wmm:3: cannot read instruction")

    def test_missing_spin_is_a_clear_failure(self):
        bindir = tempfile.mkdtemp()
        try:
            rc, out = run_model(self.dir, env={"PATH": bindir})
        finally:
            shutil.rmtree(bindir)
        self.assertEqual(rc, 2, out)
        self.assertIn("spin and gcc not found", out)

    def test_broken_variant_that_verifies_fails_the_run(self):
        self.write("weak.pml", """\
            /* @check safety
             * @variant base: verify
             * @variant broken -DBROKEN: reject safety "cannot fail: a model that proves nothing" */
            byte x;
            active proctype p() { x = 1; assert(x == 1) }
            """)
        out = self.fails("VERIFIED (expected reject)")

    def test_correct_model_that_fails_prints_its_trail(self):
        self.write("wrong.pml", """\
            /* @check safety
             * @variant base: verify */
            byte x;
            active proctype p() { x = 1; printf("@@ CPU0 p(): write x = 1\\n"); assert(x == 0) }
            """)
        out = self.fails("REJECTED (expected verify)")
        self.assertIn("   1. CPU0 p(): write x = 1", out)

    def test_batch_gives_each_file_and_outcome_its_verdict(self):
        # two files in one verifier; the second's outcome is its second line
        self.write("armv8/mp.wmm", """\
            init: x=0 y=0
            thread: P0
                store x = 1
                wmb [w_mb]
                store y = 1
            thread: P1
                r1 = load y
                rmb [r_mb]
                r2 = load x
            outcome: P1:r1 == 1 && P1:r2 == 0
            """)
        self.write("armv8/sb.wmm", """\
            init: x=0 y=0
            thread: P0
                store x = 1
                r1 = load y
            thread: P1
                store y = 1
                r2 = load x
            outcome: P0:r1 == 2
            outcome: P0:r1 == 0 && P1:r2 == 0
            expect: allowed
            """)
        rc, out = run_model(self.dir, "--no-trails")
        self.assertEqual(rc, 0, out)
        self.assertIn("(batch 1: 4 runs of 2 files, one verifier)", out)
        for name, verdict in (("armv8/mp                 base", "verified"),
                              ("armv8/mp                 no_w_mb", "rejected"),
                              ("armv8/mp                 no_r_mb", "rejected"),
                              ("armv8/sb                 base", "rejected")):
            self.assertRegex(out, name + r"\s+outcome\s+" + verdict)

    def test_a_partial_search_is_refused(self):
        self.write("partial.pml", """\
            /* @check safety
             * @cflags -DBITSTATE
             * @variant base: verify */
            active proctype p() { skip }
            """)
        out = self.fails("only full state-space searches")

    def test_full_compiles_with_its_larger_bound(self):
        self.write("bound.pml", """\
            /* @check safety
             * @variant base: verify */
            byte x;
            active proctype p() {
            #ifdef FULL
                x = 2;
            #endif
                assert(x < 2) }
            """)
        rc, out = run_model(self.dir)
        self.assertEqual(rc, 0, out)
        out = self.fails("REJECTED (expected verify)", "--full")

    def test_no_model_is_a_failure(self):
        out = self.fails("no model matches")


def seq(text):
    path = tempfile.mktemp(suffix=".wmm")
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    try:
        m = armv8.parse(path)
    finally:
        os.remove(path)
    return armv8.preds(m.threads[0][1])


class Ordering(unittest.TestCase):
    """The rules of armv8.py on one CPU's sequence (index: its predecessors)."""

    HEAD = "init: x=0 y=0 z=0\nthread: P0\n"
    TAIL = "outcome: x == 0\n"

    def p(self, body):
        return seq(self.HEAD + textwrap.indent(textwrap.dedent(body), "    ") + self.TAIL)

    def test_plain_accesses_to_different_locations_are_unordered(self):
        self.assertEqual(self.p("store x = 1\nr1 = load y\nstore z = 1\n"), [set(), set(), set()])

    def test_release_then_acquire_is_ordered(self):
        self.assertIn(0, self.p("store.rel x = 1\nr1 = load.acq y\n")[1])

    def test_wmb_orders_stores_only(self):
        p = self.p("store x = 1\nwmb\nr1 = load y\nstore z = 1\n")
        self.assertEqual(p[2], set())
        self.assertEqual(p[3], {0})

    def test_rmb_orders_a_load_before_later_stores(self):
        self.assertEqual(self.p("r1 = load x\nrmb\nstore y = 1\n")[2], {0})

    def test_control_dependency_orders_stores_not_loads(self):
        p = self.p("r1 = load x\nr2 = load y if r1 == 1\nstore z = 1 if r1 == 1\n")
        self.assertEqual(p[1], set())
        self.assertEqual(p[2], {0})

    def test_address_dependency_then_store(self):
        p = self.p("r1 = load x\nr2 = load y addr(r1)\nstore z = 1\n")
        self.assertEqual(p[1], {0})
        self.assertIn(0, p[2])

    def test_same_location_store_then_load_is_left_to_forwarding(self):
        p = self.p("store x = 1\nr1 = load x\nstore x = 2\n")
        self.assertEqual(p[1], set())
        self.assertEqual(p[2], {0, 1})

    def test_fetch_add_stores_what_it_read_plus_its_operand(self):
        p = self.p("r1 = fadd.rel x, -1\nr2 = load y\n")
        # the store half depends on the load half; the later load is free
        self.assertEqual(p[1], {0})
        self.assertEqual(p[2], set())

    def test_exchange_is_two_accesses(self):
        p = self.p("store x = 1\nr1 = xchg.acqrel y = 1\nr2 = load z\n")
        # load half (1): not after the store; store half (2): after both; the load (3): after 1 only
        self.assertEqual(p[1], set())
        self.assertEqual(p[2], {0, 1})
        self.assertEqual(p[3], {1})


class Links(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.root, "tools", "model", "armv8"))
        os.makedirs(os.path.join(self.root, "kernel", "sub"))
        self.write("tools/model/armv8/m.wmm",
                   "init: x=0 y=0\nthread: P0\n    f() store x = 1\n    f() mb [a_mb]\n"
                   "    f() store y = 1\nthread: P1\n    g() r1 = load y\n    g() mb [b_mb]\n"
                   "    g() r2 = load x\noutcome: P1:r1 == 1 && P1:r2 == 0\n")
        self.write("tools/model/barriers.tsv",
                   "# comment\nid\tfunction\tpartner\tmodel\tvariant\n"
                   "a_mb\tfoo\tb_mb\ttools/model/armv8/m.wmm\tno_a_mb\n"
                   "b_mb\tbar\ta_mb\ttools/model/armv8/m.wmm\tno_b_mb\n")

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, rel, text):
        with open(os.path.join(self.root, rel), "w") as f:
            f.write(text)

    def edit(self, rel, old, new):
        """The fixture's file rel with old replaced (which must be there)."""
        with open(os.path.join(self.root, rel)) as f:
            text = f.read()
        self.assertIn(old, text, rel)
        self.write(rel, text.replace(old, new))

    def c(self, text):
        self.write("kernel/sub/x.c", textwrap.dedent(text))

    def check(self, *args):
        p = subprocess.run([sys.executable, os.path.join(HERE, "check_links.py"), "--root", self.root]
                           + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_untagged_is_a_note(self):
        self.c("void foo(void)\n{\n}\n\nint bar(int x) { return x; }\n")
        rc, out = self.check()
        self.assertEqual(rc, 0, out)
        self.assertIn("2 row(s) with no tag in the code", out)
        rc, out = self.check("--strict")
        self.assertEqual(rc, 1, out)

    def tagged(self, extra=""):
        self.c("void foo(void)\n{\n\tsmp_mb();\t/* [a_mb] pairs [b_mb]: why */\n}\n\n"
               "void bar(void)\n{\n\tsmp_mb();\t/* [b_mb] pairs [a_mb]: why */\n}\n" + extra)

    def explain(self, text):
        self.write("tools/model/no_model.tsv", "id\tkind\twhy\tmodel\n" + text)

    def test_tag_in_neither_table_fails(self):
        self.tagged("void baz(void)\n{\n\tsmp_wmb();\t/* [c_wmb] pairs [c_wmb]: why */\n}\n")
        rc, out = self.check("--strict")
        self.assertEqual(rc, 1, out)
        self.assertIn("[c_wmb] is neither checked (tools/model/barriers.tsv) nor explained", out)
        self.explain("c_wmb\thardware\tits partner is a device\n")
        rc, out = self.check("--strict")
        self.assertEqual(rc, 0, out)
        self.assertIn("2 checked by a model, 1 explained, 0 neither", out)

    def test_explained_row_needs_a_known_kind_and_one_table(self):
        self.tagged()
        self.explain("a_mb\tbecause\tno reason\n")
        rc, out = self.check("--strict")
        self.assertEqual(rc, 1, out)
        self.assertIn("also in barriers.tsv", out)
        self.assertIn("kind 'because' is not one of", out)

    def test_barrier_without_a_tag_fails(self):
        self.tagged("void baz(void)\n{\n\tsmp_rmb();\n}\n")
        rc, out = self.check("--strict")
        self.assertEqual(rc, 1, out)
        self.assertIn("smp_rmb() has no tag", out)

    def test_tags_in_their_functions_pass(self):
        self.c("""\
            void foo(void)
            {
            \tsmp_mb();\t/* [a_mb] pairs [b_mb]: why */
            }

            static int bar(int x,
            \t       int y)
            {
            \tsmp_mb();\t/* [b_mb] pairs [a_mb]: why */
            \treturn x;
            }
            """)
        rc, out = self.check("--strict")
        self.assertEqual(rc, 0, out)
        self.assertIn("2 barrier tags in the code: 2 checked by a model", out)

    def test_tag_in_another_function_fails(self):
        self.c("void foo(void)\n{\n}\n\nvoid bar(void)\n{\n\tsmp_mb(); /* [a_mb] pairs [b_mb]: x */\n}\n")
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("tag [a_mb] is in bar(), barriers.tsv says foo()", out)

    def test_missing_function_fails(self):
        self.c("void foo(void)\n{\n}\n")
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("function bar() not found", out)

    def test_missing_barrier_in_model_fails(self):
        self.c("void foo(void)\n{\n}\nvoid bar(void)\n{\n}\n")
        self.edit("tools/model/armv8/m.wmm", " [b_mb]", "")
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("does not carry [b_mb]", out)

    def test_partner_must_name_back(self):
        self.c("void foo(void)\n{\n}\nvoid bar(void)\n{\n}\n")
        self.edit("tools/model/barriers.tsv", "b_mb\tbar\ta_mb", "b_mb\tbar\tb_mb")
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn("does not name [a_mb] back", out)


class Trails(unittest.TestCase):
    def test_numbered_and_cycle(self):
        out = trail.render_pml(["CPU0 f(): write x = 1", trail.CYCLE, "CPU1 g(): read x -> 1"])
        self.assertEqual(out[0], "   1. CPU0 f(): write x = 1")
        self.assertIn("repeats for ever", out[1])
        self.assertEqual(out[2], "   2. CPU1 g(): read x -> 1")


if __name__ == "__main__":
    unittest.main()
