#!/usr/bin/env python3
"""Tests of tools/check_docs.py on a small tree of its own:
python3 tools/tests/test_check_docs.py."""
import os
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)
import check_docs  # noqa: E402
sys.path.insert(0, os.path.join(TOOLS, "lib"))

SOURCE = """\
/* a file */
#include "x.h"

static int helper(int x)
{
	return x + 1;
}

void run_on(int cpu)
{
	helper(cpu);
	helper(cpu + 1);
}

DEMO(replacement, "Example 2")
{
	synchronize_rcu();
}

static inline void one_liner(void) { helper(0); }
"""

PYSRC = """\
def first(a):
    return a


def second(b):
    x = b
    return x
"""


class TreeTest(unittest.TestCase):
    """A small tree of FILES ({path: text}) and the checker over it."""
    FILES = {}

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        for rel, text in self.FILES.items():
            path = os.path.join(self.tmp.name, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        self.checker = check_docs.Checker(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def problems(self, text):
        self.checker.problems = []
        self.checker.check_text("doc.md", text)
        return self.checker.problems


class CheckDocsTest(TreeTest):
    FILES = {"kernel/sched.c": SOURCE, "kernel/demo/20_versions.c": SOURCE,
             "tools/x.py": PYSRC}

    def test_functions_found(self):
        f = check_docs.functions(os.path.join(self.tmp.name, "kernel", "sched.c"))
        self.assertEqual(f["helper"], (4, 7))
        self.assertEqual(f["run_on"], (9, 13))
        self.assertEqual(f["demo_fn_replacement"], (15, 18))
        self.assertEqual(f["one_liner"], (20, 20))
        p = check_docs.functions(os.path.join(self.tmp.name, "tools", "x.py"))
        self.assertEqual(p["first"], (1, 2))
        self.assertEqual(p["second"], (5, 7))

    def test_good_references(self):
        self.assertEqual(self.problems(
            "`run_on()` (`kernel/sched.c:11`) and `kernel/demo/` and `kernel/sched.c`.\n"
            "#1 in demo_fn_replacement () at kernel/demo/20_versions.c:17\n"
            "`second()` in `tools/x.py`, `tools/x.py:6` (`second()`)\n"), [])

    def test_missing_path(self):
        out = self.problems("see `kernel/no_such.c` and kernel/rcu/gone.h.\n")
        self.assertEqual(len(out), 2)
        self.assertIn("kernel/no_such.c does not exist", out[0])

    def test_placeholders_and_case_stems(self):
        with open(os.path.join(self.tmp.name, "tools", "case.bin"), "w") as f:
            f.write("x")
        self.assertEqual(self.problems("`tools/fuzz_TARGET.c`, `tools/corpus/TARGET/`, "
                                       "`tools/case`\n"), [])
        self.assertEqual(len(self.problems("`tools/cas`\n")), 1)

    def test_line_outside_the_named_function(self):
        out = self.problems("run_on (cpu=1) at kernel/sched.c:5\n")
        self.assertEqual(len(out), 1)
        self.assertIn("not inside run_on()", out[0])
        self.assertIn("is in helper()", out[0])

    def test_line_past_the_end(self):
        out = self.problems("`kernel/sched.c:400`\n")
        self.assertIn("the file has", out[0])

    def test_bare_file_name_with_a_line(self):
        self.assertEqual(self.problems("demo_fn_replacement () at 20_versions.c:17\n"), [])
        out = self.problems("demo_fn_replacement () at 20_versions.c:11\n")
        self.assertIn("not inside demo_fn_replacement()", out[0])
        out = self.problems("at nowhere.c:3\n")
        self.assertIn("no file of the tree is called nowhere.c", out[0])

    def test_function_named_in_a_file(self):
        out = self.problems("`first()` in `kernel/sched.c`\n")
        self.assertIn("first() is not defined in kernel/sched.c", out[0])

    def test_ktap_failure_line_belongs_to_the_test_below(self):
        text = "# kernel/sched.c:12: EXPECTATION FAILED: x\nnot ok 1 run_on\n"
        self.assertEqual(self.problems(text), [])
        text = "# kernel/sched.c:6: EXPECTATION FAILED: x\nnot ok 1 run_on\n"
        self.assertEqual(len(self.problems(text)), 1)

    def test_a_path_out_of_the_tree(self):
        out = self.problems("as `../shared/NOTES.md` says\n")
        self.assertIn("outside the tree", out[0])


MONITOR = """\
static const struct command commands[] = {
	{ "help", "", "this list", cmd_help },
	{ "cpu", "off|on N", "take CPU N offline or bring it back", cmd_cpu },
};
static int cmd_cpus(void)
{
	printk("%d CPUs online, %d offline\\n", a, b);
	printk("CPU%d: running %s (pid %d)\\n", cpu, t->comm, t->pid);
}
"""

TESTS_C = """\
KTEST(alpha_one)
{
}

KTEST(alpha_two)
{
	KEXPECT(READ_ONCE(x) == 1);
}

KTEST_EXPECT_PANIC(alpha_panics, "BUG")
{
}
"""

RCUPDATE = """\
	X(RCU_INJECT_NO_WAIT, "no_wait", "nothing")		\\
	X(RCU_INJECT_A, "snap_short", "a")			\\
	X(RCU_INJECT_B, "seg_merge", "b")
"""


class TranscriptsAndCounts(TreeTest):
    """The transcript and count checks on a small tree of their own."""
    FILES = {"kernel/monitor.c": MONITOR, "tests/alpha.c": TESTS_C,
             "tests/beta.c": "KTEST(beta_alpha_one)\n{\n}\n",
             "kernel/rcu/rcupdate.h": RCUPDATE, ".ci/run": "snap_short seg_merge\n"}

    def test_monitor_help(self):
        good = ("```\nquiescent> help\n  help                         this list\n"
                "  cpu off|on N                 take CPU N offline or bring it back\n```\n")
        self.assertEqual(self.problems(good), [])
        out = self.problems(good.replace("  cpu off|on N                 take CPU N offline "
                                         "or bring it back\n", ""))
        self.assertIn("help transcript differs", out[0])

    def test_monitor_output(self):
        good = "```\nquiescent> cpus\n4 CPUs online, 0 offline\nCPU0: running demo (pid 7)\n...\n```\n"
        self.assertEqual(self.problems(good), [])
        out = self.problems(good.replace(", 0 offline", ""))
        self.assertIn("'4 CPUs online' after 'cpus'", out[0])

    def test_make_test_transcript(self):
        good = ("```sh\nmake test TESTS='alpha_*'\n```\n\n```\nok 1 alpha_one\n"
                "# tests/alpha.c:7: EXPECTATION FAILED: READ_ONCE(x) == 1 (CPU0)\n"
                "not ok 2 alpha_two\n```\n")
        self.assertEqual(self.problems(good), [])
        out = self.problems(good.replace("ok 1 alpha_one\n", ""))
        self.assertIn("also runs alpha_one", out[0])
        out = self.problems(good.replace("not ok 2", "not ok 3"))
        self.assertIn("runs as test 2", out[0])
        out = self.problems(good.replace("alpha.c:7", "alpha.c:6"))
        self.assertIn("does not check", out[0])
        elided = good.replace("ok 1 alpha_one\n", "...\n")
        self.assertEqual(self.problems(elided), [])

    def test_files_named_beside_a_glob(self):
        self.assertEqual(self.problems("`make test TESTS='alpha*'` (`tests/alpha.c`)\n"), [])
        out = self.problems("`make test TESTS='*alpha*'` (`tests/alpha.c`)\n")
        self.assertIn("also runs tests of tests/beta.c", out[0])

    def test_injection_counts(self):
        import doc_counts
        table = ("### The subtle injections and the tests that catch them\n\n"
                 "| `rcu.inject=` | the bug | caught by |\n| --- | --- | --- |\n"
                 "| `snap_short` | x | y |\n")
        out = doc_counts.check(self.tmp.name, {"docs/rcu.md": table,
                                               "README.md": "Two subtler ones.\nThree subtler ones\n"})
        text = "\n".join(f"{d}:{n}: {p}" for d, n, p in out)
        self.assertIn("lacks rcu.inject=seg_merge", text)
        self.assertIn("README.md:2: 'Three subtler'", text)
        self.assertNotIn("README.md:1", text)


    def test_lab_grading_table(self):
        import doc_labs
        root = self.tmp.name
        os.makedirs(os.path.join(root, "tools/labs/defs"))
        with open(os.path.join(root, "tools/labs/defs/lab.py"), "w") as f:
            f.write('PARTS = [{"id": "a", "name": "A", "points": 60, "smp": [2, 4], '
                    '"tests": "t*"}, {"id": "b", "name": "B", "points": 40, "disasm": '
                    '{"functions": [("x.c", "f")]}}]\n')
        table = "\n".join(doc_labs.table(doc_labs.load(root, "lab")))
        self.assertIn("| `a` | A | `t*` | 2, 4 | 60 |", table)
        self.assertIn("| `b` | B | the AArch64 instructions of `f()` | - | 40 |", table)
        self.assertEqual(doc_labs.check(root, {"docs/labs/lab.md": "x\n" + table + "\n"}), [])
        out = doc_labs.check(root, {"docs/labs/lab.md": table.replace("| 60 |", "| 50 |")})
        self.assertIn("differs from tools/labs/defs/lab.py", out[0][2])

    WRONG = ("Wrong: the tour stops short\nPart: held\nSMP: 2\n"
             "Expect: reader on CPU\\d+ was still inside\n\nThe lesson.\n\n"
             "diff --git a/k.c b/k.c\n")
    GUIDE = """\
## Common mistakes

### Lab 1, `lab`

```text
wrong: ok: lab/short (the tour stops short): part held at SMP=2 gives 0/25 (10 s), saying:
        SMP=2: a_test failed:
          the reader on CPU1 was still inside rcu_read_lock()
```

```text
  not graded: the order of things
```

## Answers
"""

    def assertProblem(self, problems, text):
        self.assertTrue(any(text in p for p in problems), f"no '{text}' in {problems}")

    def test_instructors_guide_against_the_wrong_solutions(self):
        if not os.path.exists(os.path.join(TOOLS, "labs", "wrong.py")):
            self.skipTest("a student repository (make handout): no wrong solutions")
        import doc_wrong
        root = self.tmp.name
        for rel, text in (("tools/labs/wrong/lab/short.patch", self.WRONG),
                          ("tools/labs/defs/lab.py", 'NOT_GRADED = ["the order of things"]\n')):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)

        def check(guide):
            """The problems' texts: the message, without doc and line."""
            return [p for _, _, p in doc_wrong.check(root, {doc_wrong.GUIDE: guide})]
        self.assertEqual(check(self.GUIDE), [])
        # A student repository: no guide, nothing to check.
        self.assertEqual(doc_wrong.check(root, {"docs/labs/lab.md": "x"}), [])
        # The grader's message changed (or was paraphrased).
        out = check(self.GUIDE.replace("was still inside", "stayed inside"))
        self.assertProblem(out, "does not match the patch's Expect")
        # The quote names another part, or is under another lab's heading.
        out = check(self.GUIDE.replace("part held", "part trace"))
        self.assertProblem(out, "the patch says (the tour stops short), part held at SMP=2")
        out = check(self.GUIDE.replace("Lab 1, `lab`", "Lab 1, `other`"))
        self.assertProblem(out, "quoted under lab other's heading")
        # A patch that is not quoted; a quote of a patch that does not exist.
        out = check(self.GUIDE.replace("lab/short", "lab/gone"))
        self.assertProblem(out, "no tools/labs/wrong/lab/gone.patch")
        self.assertProblem(out, "short.patch is not quoted")
        # Quoted twice.
        block = self.GUIDE.split("```text\n")[1].split("```")[0]
        out = check(self.GUIDE + "\n### Lab 1, `lab`\n\n```text\n" + block + "```\n")
        self.assertProblem(out, "quotes lab/short again")
        # A "not graded" line the definition does not have.
        out = check(self.GUIDE.replace("order of things", "order of others"))
        self.assertProblem(out, "not one of tools/labs/defs/lab.py's NOT_GRADED")
        # One of the definition's NOT_GRADED lines left out.
        out = check(self.GUIDE.replace("  not graded: the order of things\n", ""))
        self.assertProblem(out, "is not quoted under lab lab's heading")


class RealDocs(unittest.TestCase):
    def test_the_real_docs_pass(self):
        root = os.path.join(TOOLS, "..")
        self.assertEqual(check_docs.main(["--root", root]), 0)


if __name__ == "__main__":
    unittest.main()
