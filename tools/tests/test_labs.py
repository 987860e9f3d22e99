"""The lab grader's host-side parts (tools/labs/): a failed run's
explanation, the early stop, partial credit, the instruction checks, the
wrong solutions' headers and the results.json it writes."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

LABS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "labs")
sys.path.insert(0, LABS)
sys.path.insert(0, os.path.join(os.path.dirname(LABS), "lib"))
import console  # noqa: E402
import disasm  # noqa: E402
import grading  # noqa: E402
import results  # noqa: E402
import wrong  # noqa: E402

# From a real run: lab call_rcu with rcu_seq_snap() one short.
WINDOW_FAIL = """\
KTAP version 1
1..1
# ktest: running rcu_window_reader_after_qs_call_rcu
T 1000 0 5 gp_start gp=-595
# reader on CPU1 after its quiescent state in g=-595, call_rcu(): its element was freed under it
# tests/rcu_window_after_qs.c:209: EXPECTATION FAILED: failed == 0
#   failed is 1 (0x1)
#   0 is 0 (0)
# ktest: rcu_window_reader_after_qs_call_rcu took 310 ms
not ok 1 rcu_window_reader_after_qs_call_rcu
""".splitlines()


class FirstFailure(unittest.TestCase):
    def test_expectation_with_its_explanation(self):
        f = console.first_failure(WINDOW_FAIL)
        self.assertEqual(f.kind, "expectation")
        self.assertEqual(f.test, "rcu_window_reader_after_qs_call_rcu")
        self.assertEqual(f.where, "tests/rcu_window_after_qs.c:209")
        self.assertEqual(f.explanation, ["reader on CPU1 after its quiescent state in g=-595, "
                                         "call_rcu(): its element was freed under it"])
        # The value of a constant says nothing; the trace's line is not the test's.
        self.assertEqual(f.details, ["failed is 1 (0x1)"])
        self.assertIn("tests/rcu_window_after_qs.c:209: EXPECTATION FAILED: failed == 0",
                      f.lines())

    def test_panic(self):
        f = console.first_failure(["# ktest: running run_on_moves_the_task_to_every_cpu",
                                   "Kernel panic - not syncing: lab stub: run_on",
                                   "CPU: 0 Task: ktest"])
        self.assertEqual((f.kind, f.what, f.test),
                         ("panic", "lab stub: run_on", "run_on_moves_the_task_to_every_cpu"))

    def test_lost_request_report(self):
        line = ("rcu: INFO: CPU0: 1 callback waits for grace period 0, which nobody asked "
                "for: none has run for 21083 ms and none is needed (g=-596)")
        f = console.first_failure(["# ktest: running call_rcu_waits_for_a_held_reader", line])
        self.assertEqual(f.kind, "lost")
        self.assertEqual(f.what, line)

    def test_long_explanations_are_cut(self):
        lines = ["# ktest: running t"] + [f"# round {i} failed" for i in range(20)] + \
                ["# tests/t.c:1: EXPECTATION FAILED: failed == 0 (CPU0)"]
        f = console.first_failure(lines)
        self.assertEqual(len(f.explanation), console.MAX_EXPLANATION)
        self.assertEqual(f.more, 20 - console.MAX_EXPLANATION)

    def test_a_passing_run_has_none(self):
        self.assertIsNone(console.first_failure(["# ktest: running t", "ok 1 t"]))


class Watch(unittest.TestCase):
    def test_done_after_the_detail_lines(self):
        w = console.Watch()
        for line in WINDOW_FAIL[:6]:
            w.feed(line)
        self.assertTrue(w.pending)
        self.assertFalse(w.done)		# KEXPECT_EQ's values may follow
        for line in WINDOW_FAIL[6:9]:
            w.feed(line)
        self.assertTrue(w.done)

    def test_passing_lines_never_stop_it(self):
        w = console.Watch()
        for line in ["# ktest: running t", "# 30 rounds", "ok 1 t", "1 passed, 0 failed"]:
            w.feed(line)
        self.assertFalse(w.done or w.pending)


class Credit(unittest.TestCase):
    def test_points_shared_over_cpu_counts(self):
        self.assertEqual(grading.shares(25, 2), [13, 12])
        self.assertEqual(grading.shares(30, 3), [10, 10, 10])
        self.assertEqual(sum(grading.shares(7, 3)), 7)

    def test_partial_part(self):
        part = {"id": "held", "name": "held readers", "points": 25, "smp": [2, 4]}
        res = grading.PartResult(part, counts=[grading.CountResult(2, 13, 13),
                                               grading.CountResult(4, 0, 12, ["t failed:"])])
        self.assertEqual((res.points, res.possible, res.failed), (13, 25, True))
        self.assertIn("PARTIAL  [13/25]", grading.report_line(res))
        self.assertEqual(res.message(), ["SMP=4: t failed:"])

    def test_select_by_id_or_number(self):
        lab = {"NAME": "x", "PARTS": [{"id": "a"}, {"id": "b"}]}
        self.assertEqual(grading.select(lab, "b"), [{"id": "b"}])
        self.assertEqual(grading.select(lab, "1"), [{"id": "a"}])
        with self.assertRaises(ValueError):
            grading.select(lab, "c")


class SharedBoots(unittest.TestCase):
    """Parts at the same CPU count and command line share one boot; a
    failing shared boot leaves every part to a boot of its own."""
    LAB = {"NAME": "x", "PARTS": [
        {"id": "a", "name": "A", "points": 10, "smp": [2, 4], "tests": "a_*"},
        {"id": "b", "name": "B", "points": 10, "smp": [2], "tests": "b_one,b_two"},
        {"id": "t", "name": "T", "points": 10, "smp": [2], "tests": "t_*",
         "cmdline": ["trace=rcu"]}]}

    def setUp(self):
        self.boots = []
        self.saved = grading.runner.boot, grading.build_kernel
        grading.runner.boot = self.fake_boot
        grading.build_kernel = lambda *a: None
        self.fail = set()		# the tests that fail
        self.skip = set()		# the tests that skip

    def tearDown(self):
        grading.runner.boot, grading.build_kernel = self.saved

    def fake_boot(self, root, cmd, limit, stop_at_failure=True):
        tests = next(a for a in cmd if a.startswith("TESTS="))[len("TESTS="):]
        smp = next(a for a in cmd if a.startswith("SMP="))
        self.boots.append((smp, tests))
        names = {"a_*": ["a_x"], "b_one": ["b_one"], "b_two": ["b_two"], "t_*": ["t_x"]}
        lines, n, bad = ["KTAP version 1"], 0, 0
        for glob in tests.split(","):
            for name in names[glob]:
                n += 1
                if name in self.fail:
                    bad += 1
                    lines += [f"# x.c:1: EXPECTATION FAILED: {name}", f"not ok {n} {name}"]
                else:
                    lines.append(f"ok {n} {name}" + (" # SKIP no" if name in self.skip else ""))
        lines.append(f"{n - bad} passed, {bad} failed")
        return (1 if bad else 0), lines, "ended"

    def grade(self):
        return {r.part["id"]: r.points for r in
                grading.grade(self.LAB, "x86_64", self.LAB["PARTS"], say=lambda *a: None)}

    def test_a_passing_grade_shares_boots(self):
        self.assertEqual(self.grade(), {"a": 10, "b": 10, "t": 10})
        self.assertEqual(self.boots, [("SMP=2", "a_*,b_one,b_two"), ("SMP=4", "a_*"),
                                      ("SMP=2", "t_*")])

    def test_a_failing_shared_boot_grades_each_part_alone(self):
        self.fail = {"b_two"}
        self.assertEqual(self.grade(), {"a": 10, "b": 0, "t": 10})
        self.assertIn(("SMP=2", "a_*"), self.boots)
        self.assertIn(("SMP=2", "b_one,b_two"), self.boots)

    def test_a_part_whose_tests_all_skip_is_not_settled_by_the_others(self):
        self.skip = {"b_one", "b_two"}
        self.grade()
        self.assertIn(("SMP=2", "b_one,b_two"), self.boots)
        self.assertNotIn(("SMP=2", "a_*"), self.boots)


# The publication of tests/rcu_article_1_publish.c, as GCC compiles it for AArch64.
PUBLISH = """\
0000000000000674 <ps_init_and_publish>:
 674:	stp	x29, x30, [sp, #-32]!
 680:	str	x19, [sp, #16]
 694:	stp	w1, w0, [x19]
 698:	str	w3, [x19, #8]
 6ac:	stlr	x19, [x0]
 6b8:	ret
"""


class Instructions(unittest.TestCase):
    def test_release_publishes(self):
        funcs = disasm.parse(PUBLISH)
        self.assertEqual(funcs["ps_init_and_publish"][-2], "stlr x19, [x0]")
        self.assertIsNone(disasm.publish_site_releases(funcs))

    def test_plain_store_is_caught(self):
        funcs = disasm.parse(PUBLISH.replace("stlr", "str"))
        problem = disasm.publish_site_releases(funcs)
        self.assertIn("all plain", problem[0])

    def test_a_store_barrier_also_orders(self):
        text = PUBLISH.replace(" 6ac:\tstlr", " 6a8:\tdmb\tishst\n 6ac:\tstr")
        self.assertIsNone(disasm.publish_site_releases(disasm.parse(text)))

    def test_idle_barriers(self):
        enter = ["stp x29, x30, [sp, #-16]!", "dmb ish", "strb w2, [x0, #80]", "dmb ish",
                 "bl 2a0 <note_qs>", "ret"]
        leave = ["strb wzr, [x0, #80]", "dmb ish", "ldr x19, [sp, #16]", "ret"]
        ok = {"rcu_idle_enter": enter, "rcu_idle_exit": leave}
        self.assertIsNone(disasm.idle_barriers(ok))
        no_before = dict(ok, rcu_idle_enter=enter[:1] + enter[2:])
        self.assertIn("before", disasm.idle_barriers(no_before)[0])
        no_after = dict(ok, rcu_idle_exit=[x for x in leave if x != "dmb ish"])
        self.assertIn("[idle_exit_mb]", disasm.idle_barriers(no_after)[0])

    def test_call_rcu_and_expedited_barriers(self):
        self.assertIsNone(disasm.call_rcu_barrier({"call_rcu": ["mrs x0, daif", "dmb ish",
                                                                "ldr x1, [x2]"]}))
        self.assertIn("[call_rcu_mb]", disasm.call_rcu_barrier({"call_rcu": ["ldr x1, [x2]"]})[0])
        exp = ["bl 0 <mutex_lock>", "dmb ish", "bl 0 <rcu_cpu_in_eqs>",
               "bl 0 <wait_for_completion>", "dmb ish", "bl 0 <rcu_wait_end>"]
        self.assertIsNone(disasm.expedited_barriers({"synchronize_rcu_expedited": exp}))
        late = exp[:4] + exp[5:] + ["dmb ish"]	# the barrier after rcu_wait_end()
        out = disasm.expedited_barriers({"synchronize_rcu_expedited": late})
        self.assertEqual(len(out), 1)
        self.assertIn("[exp_wait_mb]", out[0])

    def test_each_new_entry_released(self):
        # kv_put()'s two paths (lab urcu_server), each a malloc() then its publication.
        put = ["bl 0 <malloc>", "str x1, [x0]", "stp x20, x22, [x0, #32]", "stlr x0, [x2]",
               "ret", "bl 0 <malloc>", "str x1, [x0]", "str x2, [x0, #48]", "stlr x0, [x23]",
               "b a0 <kv_put+0x90>", "ret"]
        self.assertIsNone(disasm.each_new_entry_released({"kv_put": put}))
        plain_add = put[:8] + ["str x0, [x23]"] + put[9:]
        out = disasm.each_new_entry_released({"kv_put": plain_add})
        self.assertEqual(len(out), 2)	# the path, then why it matters
        self.assertIn("its 3 stores are all plain", out[0])
        helper = ["bl 0 <new_entry>", "str x0, [x1]", "ret"]	# not inlined, plain
        self.assertIn("all plain", disasm.each_new_entry_released({"kv_put": helper})[0])
        self.assertIn("no call to malloc()", disasm.each_new_entry_released({"kv_put": ["ret"]})[0])

    def test_a_programs_object(self):
        self.assertEqual(disasm.object_path("aarch64", "user/kvserver/table.c"),
                         "build/aarch64/user/obj/user/kvserver/table.c.o")
        self.assertEqual(disasm.object_path("aarch64", "kernel/rcu/tree.c"),
                         "build/aarch64/obj/kernel/rcu/tree.c.o")


class WrongSolutions(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        os.makedirs(os.path.join(self.root, "tools/labs/wrong/lab"))
        os.makedirs(os.path.join(self.root, "k"))
        with open(os.path.join(self.root, "k/a.c"), "w") as f:
            f.write("int f(void)\n{\n\treturn 1;\n}\n")
        subprocess.run(["git", "init", "-q", self.root], check=True)
        self.lab = {"NAME": "lab", "FUNCTIONS": [("k/a.c", "f", "")],
                    "PARTS": [{"id": "p", "smp": [2, 4]}]}

    def write(self, name, header, diff):
        with open(os.path.join(self.root, "tools/labs/wrong/lab", name + ".patch"), "w") as f:
            f.write(header + "\nWhy it is wrong.\n\n" + diff)

    DIFF = """diff --git a/k/a.c b/k/a.c
--- a/k/a.c
+++ b/k/a.c
@@ -1,4 +1,4 @@
 int f(void)
 {
-\treturn 1;
+\treturn 2;
 }
"""

    def test_a_good_one(self):
        self.write("w", "Wrong: two\nPart: p\nSMP: 2\nExpect: x\n", self.DIFF)
        w = wrong.load(self.root, "lab")[0]
        self.assertEqual((w.title, w.smp, w.files(), w.about), ("two", 2, ["k/a.c"],
                                                                "Why it is wrong."))
        problems = wrong.problems(self.root, self.lab)
        self.assertEqual(len(problems), 1)	# only: fewer than MIN_WRONG
        self.assertIn("at least 3", problems[0])

    def test_what_check_refuses(self):
        self.write("w", "Wrong: two\nPart: q\nSMP: 3\nExpect: (\n",
                   self.DIFF.replace("return 1", "return 7"))
        text = "\n".join(wrong.problems(self.root, self.lab))
        for what in ("no such part", "not a regular expression", "does not apply"):
            self.assertIn(what, text)


# A shared boot (SHARED_BOOT): two parts' tests in one run, one failing.
SHARED_RUN = """\
KTAP version 1
1..3
# ktest: running user_bank_errors
# FAILED: an unknown label (99) was answered 0, not -22 (tests/labs/server/bank_errors.c:47)
# lesson: a request the server cannot do gets an error reply, and changes nothing
# kernel/user/usertest.c:124: EXPECTATION FAILED: st->status == 0
#   st->status is 1 (0x1)
not ok 1 user_bank_errors
# ktest: running user_bank_rights
ok 2 user_bank_rights
# ktest: running user_bank_rights_chain
ok 3 user_bank_rights_chain
""".splitlines()


class SharedBoot(unittest.TestCase):
    def test_each_test_has_its_own_lines(self):
        tests = console.by_test(SHARED_RUN)
        self.assertEqual(sorted(tests), ["user_bank_errors", "user_bank_rights",
                                         "user_bank_rights_chain"])
        self.assertEqual(tests["user_bank_rights"], ["# ktest: running user_bank_rights",
                                                     "ok 2 user_bank_rights"])

    def test_a_part_is_scored_on_its_own_tests(self):
        tests = console.by_test(SHARED_RUN)
        errors = {"id": "errors", "tests": "user_bank_errors*"}
        rights = {"id": "rights", "tests": "user_bank_rights*"}
        problem = grading.shared_problem(errors, tests, SHARED_RUN, "ended")
        self.assertIn("lesson: a request the server cannot do gets an error reply, and "
                      "changes nothing", problem)
        self.assertEqual(grading.shared_problem(rights, tests, SHARED_RUN, "ended"), [])
        none = grading.shared_problem({"id": "x", "tests": "user_nothing*"}, tests,
                                      SHARED_RUN, "ended")
        self.assertEqual(none, ["no test matched user_nothing*"])

    def test_a_test_that_never_reported(self):
        lines = SHARED_RUN[:9] + ["run: TIMEOUT after 90 s: QEMU killed"]
        problem = grading.shared_problem({"id": "rights", "tests": "user_bank_rights*"},
                                         console.by_test(lines), lines, "ended")
        self.assertEqual(problem, ["user_bank_rights never reported: run: TIMEOUT after 90 s: "
                                   "QEMU killed"])


class Results(unittest.TestCase):
    def test_gradescope_format(self):
        lab = {"NAME": "call_rcu"}
        ok = grading.PartResult({"id": "wait", "name": "waits", "points": 20, "smp": [2]},
                                counts=[grading.CountResult(2, 20, 20)])
        bad = grading.PartResult({"id": "release", "name": "releases", "points": 15,
                                  "disasm": {}}, problem=["f(): plain"])
        d = results.gradescope(lab, "x86_64", [ok, bad], 12.4)
        self.assertEqual(d["score"], 20)
        self.assertEqual(d["extra_data"]["max_score"], 35)
        self.assertEqual([t["status"] for t in d["tests"]], ["passed", "failed"])
        self.assertEqual([t["max_score"] for t in d["tests"]], [20, 15])
        self.assertEqual(d["tests"][1]["output"], "f(): plain")
        self.assertEqual(d["execution_time"], 12)


if __name__ == "__main__":
    unittest.main()
