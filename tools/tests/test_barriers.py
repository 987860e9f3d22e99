#!/usr/bin/env python3
"""Tests of tools/barriers.py on small trees, and on this one:
python3 tools/host_tests.py (or run this file)."""
import os
import sys
import tempfile
import textwrap
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)
import barriers  # noqa: E402

DOC = f"# RCU\n\nsome text\n\n{barriers.BEGIN}\n{barriers.END}\n\nmore text\n"

PAIR = """
void publish(void)
{
	/* [pub_release] pairs [sub_acquire]: readers see the data before the flag. */
	smp_store_release(&flag, 1);
}

int subscribe(void)
{
	/* [sub_acquire] pairs [pub_release]: or we see the flag and old data. */
	return smp_load_acquire(&flag);
}
"""


class Tree:
    """A throwaway tree with kernel/, docs/rcu.md and whatever files a test adds."""

    def __init__(self, files, doc=DOC):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.write("docs/rcu.md", doc)
        os.makedirs(os.path.join(self.root, "kernel"), exist_ok=True)
        for path, text in files.items():
            self.write(path, textwrap.dedent(text))

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)

    def read(self, path):
        with open(os.path.join(self.root, path)) as f:
            return f.read()

    def errors(self, write_table=True):
        if write_table:
            tags, _, _, _ = barriers.analyse(self.root)
            barriers.write_doc(tags, self.root)
        return barriers.check(self.root)[2]

    def close(self):
        self.tmp.cleanup()


class BarrierMap(unittest.TestCase):
    def run_tree(self, files, **kw):
        t = Tree(files)
        try:
            return t.errors(**kw)
        finally:
            t.close()

    def assertError(self, errors, text):
        self.assertTrue(any(text in e for e in errors), f"no error with {text!r} in {errors}")

    def test_a_tagged_pair_passes_and_fills_the_table(self):
        t = Tree({"kernel/a.c": PAIR})
        try:
            self.assertEqual(t.errors(), [])
            doc = t.read("docs/rcu.md")
            self.assertIn("| `pub_release` | `kernel/a.c`: `publish()` | `sub_acquire` | "
                          "readers see the data before the flag. |", doc)
            self.assertIn("more text", doc)
        finally:
            t.close()

    def test_an_untagged_barrier_fails(self):
        errors = self.run_tree({"kernel/a.c": "void f(void)\n{\n\tx = 1;\n\tsmp_mb();\n}\n"})
        self.assertError(errors, "kernel/a.c:4: smp_mb() has no tag")

    def test_a_partner_that_does_not_name_it_back_fails(self):
        errors = self.run_tree({"kernel/a.c": PAIR.replace("pairs [pub_release]", "pairs [other]")
                                + "/* [other] pairs [sub_acquire]: x. */\n"})
        self.assertError(errors, "[pub_release] pairs [sub_acquire], but [sub_acquire]")

    def test_a_missing_partner_fails(self):
        errors = self.run_tree({"kernel/a.c": PAIR.replace("pairs [sub_acquire]", "pairs [nobody]")})
        self.assertError(errors, "[pub_release] pairs [nobody], but no tag [nobody] exists")

    def test_an_id_used_twice_fails(self):
        errors = self.run_tree({"kernel/a.c": PAIR, "kernel/b.c": PAIR})
        self.assertError(errors, "tag [pub_release] already used at kernel/a.c")

    def test_a_malformed_tag_fails(self):
        errors = self.run_tree({"kernel/a.c": PAIR.replace("pairs [sub_acquire]:", "pairs sub_acquire:")})
        self.assertError(errors, "malformed tag")

    def test_one_comment_for_two_barriers_fails(self):
        src = ("void f(void)\n{\n\t/* [a] pairs [b]: x. [b] pairs [a]: y. */\n"
               "\tsmp_mb();\n}\n")
        self.assertError(self.run_tree({"kernel/a.c": src}), "several tags apply")

    def test_one_tag_for_two_barriers_fails(self):
        src = ("void f(void)\n{\n\t/* [a] pairs [a]: x. */\n\tsmp_mb(); smp_mb();\n}\n")
        self.assertError(self.run_tree({"kernel/a.c": src}), "tag [a] covers 2 barriers")

    def test_what_counts_as_a_barrier(self):
        strong = ["atomic_inc_return(&v)", "atomic_long_fetch_add(1, &v)", "atomic_dec_and_test(&v)",
                  "xchg(&x, 1)", "cmpxchg_acquire(&x, 0, 1)", "atomic_try_cmpxchg_release(&v, &o, 1)",
                  "__atomic_load_n(&x, __ATOMIC_ACQUIRE)", "smp_mb__after_spinlock()",
                  "__atomic_compare_exchange_n(&x, &o, 1, false,\n\t\t__ATOMIC_RELEASE, __ATOMIC_RELAXED)",
                  '__asm__ __volatile__("dmb ish" ::: "memory")',
                  '__asm__ __volatile__("tlbi x\\n\\t"\n\t\t"dsb ish" ::: "memory")']
        for expr in strong:
            errors = self.run_tree({"kernel/a.c": f"void f(void)\n{{\n\ty = {expr};\n}}\n"})
            self.assertError(errors, "has no tag")
        weak = ["atomic_inc_return_relaxed(&v)", "atomic_inc(&v)", "atomic_read(&v)",
                "xchg_relaxed(&x, 1)", "__atomic_fetch_add(&x, 1, __ATOMIC_RELAXED)",
                "READ_ONCE(x)", "spin_lock(&l)", 'printk("smp_mb() dmb")']
        for expr in weak:
            src = f"void f(void)\n{{\n\t/* smp_mb() in a comment */\n\ty = {expr};\n}}\n"
            self.assertEqual(self.run_tree({"kernel/a.c": src}), [], expr)

    def test_the_definitions_of_the_primitives_are_not_scanned(self):
        src = "#define smp_mb() __asm__ __volatile__(\"dmb ish\" ::: \"memory\")\n"
        self.assertEqual(self.run_tree({"lib/barrier.h": src,
                                        "arch/aarch64/include/asm/barrier.h": src}), [])

    def test_the_tag_may_sit_above_a_statement_or_a_macro(self):
        src = """
        void f(void)
        {
        	/* [loop_release] pairs [mac_dep]: x. */
        	while (a &&
        	       !try_cmpxchg_release(&x, &o, 1))
        		;
        }

        /* [mac_dep] pairs [loop_release]: y. */
        #define publish(p, v)				\\
        	do {					\\
        		trace(v);			\\
        		smp_store_release(&(p), v);	\\
        	} while (0)
        """
        self.assertEqual(self.run_tree({"kernel/a.c": src}), [])

    def test_a_blank_line_or_code_between_comment_and_barrier_fails(self):
        for gap in ("\n", "\tx = 1;\n"):
            src = f"void f(void)\n{{\n\t/* [a] pairs [a]: x. */\n{gap}\tsmp_mb();\n}}\n"
            self.assertError(self.run_tree({"kernel/a.c": src}), "has no tag")

    def test_a_stale_table_fails(self):
        t = Tree({"kernel/a.c": PAIR})
        try:
            self.assertEqual(t.errors(), [])
            t.write("kernel/a.c", PAIR.replace("readers see", "readers now see"))
            self.assertError(t.errors(write_table=False), "the barrier table differs from the tags")
        finally:
            t.close()

    def test_a_function_gone_from_the_table_fails(self):
        t = Tree({"kernel/a.c": PAIR})
        try:
            self.assertEqual(t.errors(), [])
            t.write("kernel/a.c", PAIR.replace("void publish(void)", "void publish_it(void)"))
            self.assertError(t.errors(write_table=False),
                             "the barrier table names publish(), which no longer exists")
        finally:
            t.close()

    def test_this_tree_passes(self):
        tags, found, errors = barriers.check()
        self.assertEqual(errors, [])
        self.assertGreater(len(found), 40)
        for must in ("idle_enter_mb_before", "idle_enter_mb_after", "gp_start_mb", "trylock_acquire",
                     "cb_work_release", "cb_work_acquire", "wake_up_mb", "schedule_mb"):
            self.assertIn(must, tags)
            self.assertTrue(tags[must].barriers, f"[{must}] tags no barrier")


if __name__ == "__main__":
    unittest.main()
