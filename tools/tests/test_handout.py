#!/usr/bin/env python3
"""Tests of the student repositories' tools (tools/handout/handout.py) and
of the lecture's parser (tools/slides.py) on small inputs of their own:
python3 tools/tests/test_handout.py.  CI builds the real handouts
(tools/handout/ci.sh)."""
import os
import re
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(TOOLS, "handout"))
import handout  # noqa: E402
import redact  # noqa: E402
import slides  # noqa: E402
import labs  # noqa: E402

# A reference body, with a comment that becomes a barrier-table row.
PRINTS = {
    "WRITE_ONCE(rdp->idle, true);": ("kernel/rcu/gp.c", "rcu_idle_enter"),
    "our flag is visible before we read gp_seq, as": ("kernel/rcu/gp.c", "rcu_idle_enter"),
}


class Fingerprints(unittest.TestCase):
    def test_normalize_drops_comment_markers_and_blanks(self):
        self.assertEqual(handout.normalize("\t/* [x] pairs [y]:   our flag  */"), "[x] pairs [y]: our flag")
        self.assertEqual(handout.normalize("  * is visible \\"), "is visible")
        self.assertEqual(handout.normalize("\tWRITE_ONCE(a,  b);"), "WRITE_ONCE(a, b);")

    def test_a_quoted_line_is_found_with_its_line_number(self):
        doc = "# Notes\n\nThe code:\n\n```c\n\tWRITE_ONCE(rdp->idle, true);\n```\n"
        found = handout.find_prints(PRINTS, [("docs/x.md", doc)])
        self.assertEqual([(f, line) for f, line, _, _ in found], [("docs/x.md", 6)])

    def test_a_comment_line_is_found_inside_a_table_row(self):
        row = ("| `idle_enter_mb_after` | `kernel/rcu/gp.c` | `gp_start_mb` | our flag is "
               "visible before we read gp_seq, as rcu_gp_start() publishes it |\n")
        found = handout.find_prints(PRINTS, [("docs/rcu.md", "text\n" + row)])
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0][1], 2)

    def test_a_line_split_over_two_lines_is_found(self):
        doc = "our flag is visible\nbefore we read gp_seq, as the other side\n"
        self.assertEqual(len(handout.find_prints(PRINTS, [("a.patch", doc)])), 1)

    def test_what_differs_is_not_found(self):
        doc = "WRITE_ONCE(rdp->idle, false);\nour flag is visible after we read gp_seq\n"
        self.assertEqual(handout.find_prints(PRINTS, [("docs/x.md", doc)]), [])
        self.assertEqual(handout.find_prints({}, [("docs/x.md", doc)]), [])

    def test_a_sentence_naming_a_short_body_is_found(self):
        short = [("kernel/rcu/rcupdate.h", "__rcu_read_lock", "\n\tpreempt_disable();\n")]
        rxs = handout.narrations(short)
        said = "Both call `__rcu_read_lock()`, which is\n`preempt_disable()` here."
        other = "`__rcu_read_lock()` is yours.\n\nSee `preempt_disable()` in kernel/preempt.h."
        self.assertTrue(any(rx.search(" ".join(said.split())) for rx in rxs))
        self.assertFalse(any(rx.search(" ".join(p.split()))
                             for rx in rxs for p in re.split(r"\n\s*\n", other)))


class Redaction(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.out = self.dir.name
        os.makedirs(os.path.join(self.out, "docs"))
        self.saved = dict(redact.PASSAGES), list(redact.EVERY_LAB)
        redact.EVERY_LAB[:] = []

    def tearDown(self):
        redact.PASSAGES.clear()
        redact.PASSAGES.update(self.saved[0])
        redact.EVERY_LAB[:] = self.saved[1]
        self.dir.cleanup()

    def write(self, text):
        with open(os.path.join(self.out, "docs", "d.md"), "w") as f:
            f.write(text)

    def read(self):
        with open(os.path.join(self.out, "docs", "d.md")) as f:
            return f.read()

    def test_a_passage_is_replaced_by_the_note_and_its_heading_kept(self):
        self.write("# D\n\n## Answer\n\nIt is a release.\n\n## Next\n\nkept\n")
        redact.PASSAGES["lab"] = [("docs/d.md", "## Answer", "## Next")]
        handout.redact_passages(self.out, "lab")
        text = self.read()
        self.assertIn("## Answer\n\n*[This passage narrates the reference solution of lab `lab`", text)
        self.assertNotIn("release", text)
        self.assertIn("## Next\n\nkept", text)

    def test_a_missing_or_repeated_anchor_fails_the_build(self):
        self.write("## A\n\nx\n\n## A\n\ny\n")
        redact.PASSAGES["lab"] = [("docs/d.md", "## A", "## B")]
        with self.assertRaisesRegex(handout.Failed, "2 lines start with"):
            handout.redact_passages(self.out, "lab")
        self.write("## A\n\nx\n")
        with self.assertRaisesRegex(handout.Failed, "no line starts with"):
            handout.redact_passages(self.out, "lab")

    def test_a_paragraph_passage_ends_at_its_blank_line(self):
        self.write("# D\n\nClassic wrong solutions are in\n`tools/labs/wrong/d/`.\n\nkept\n")
        redact.PASSAGES["lab"] = [("docs/d.md", "Classic wrong", redact.PARAGRAPH, "Ask.")]
        handout.redact_passages(self.out, "lab")
        self.assertEqual(self.read(), "# D\n\nAsk.\n\nkept\n")

    def test_a_note_that_is_a_heading_replaces_the_passage_heading(self):
        self.write("## Two commands\n\nmake lab\n\n| table |\n")
        redact.PASSAGES["lab"] = [("docs/d.md", "## Two commands", "| table",
                                   "## One command\n\nmake grade ({lab})")]
        handout.redact_passages(self.out, "lab")
        self.assertEqual(self.read(), "## One command\n\nmake grade (lab)\n\n| table |\n")

    def test_the_other_labs_handouts_say_whose_repository_this_is(self):
        os.makedirs(os.path.join(self.out, "docs", "labs"))
        for n in ("mine", "other"):
            with open(os.path.join(self.out, "docs", "labs", n + ".md"), "w") as f:
                f.write(f"# Lab {n}\n\nClassic wrong solutions, each with what the grader "
                        f"says to it, are in\n`tools/labs/wrong/{n}/`.\n\nkept\n")
        handout.redact_lab_handouts(self.out, "mine", ["mine", "other"])
        for n in ("mine", "other"):
            with open(os.path.join(self.out, "docs", "labs", n + ".md")) as f:
                text = f.read()
            self.assertNotIn("tools/labs/wrong", text)
            self.assertIn(redact.WRONG_NOTE + "\n\nkept", text)
            self.assertEqual("This repository is lab `mine`'s" in text, n == "other")

    def test_a_phrase_to_reword_must_occur_once(self):
        saved = list(redact.REWORD)
        try:
            redact.REWORD[:] = [("docs/d.md", "see tools/x.py", "see {lab}'s instructor")]
            self.write("a: see tools/x.py\n")
            handout.reword_phrases(self.out, "lab")
            self.assertEqual(self.read(), "a: see lab's instructor\n")
            with self.assertRaisesRegex(handout.Failed, "0 occurrences of"):
                handout.reword_phrases(self.out, "lab")
        finally:
            redact.REWORD[:] = saved

    def test_the_barrier_table_keeps_only_tagged_rows(self):
        os.makedirs(os.path.join(self.out, "kernel"))
        with open(os.path.join(self.out, "kernel", "k.c"), "w") as f:
            f.write("/* [kept_mb] pairs [gone_mb]: why */\nsmp_mb();\n")
        with open(os.path.join(self.out, "docs", "rcu.md"), "w") as f:
            f.write(f"{handout.TABLE_BEGIN} x -->\n| barrier | where |\n| --- | --- |\n"
                    "| `gone_mb` | `kernel/k.c`: `f()` |\n| `kept_mb` | `kernel/k.c`: `g()` |\n"
                    f"{handout.TABLE_END}\n")
        self.assertEqual(handout.prune_barrier_table(self.out), ["gone_mb"])
        with open(os.path.join(self.out, "docs", "rcu.md")) as f:
            text = f.read()
        self.assertIn("`kept_mb`", text)
        self.assertNotIn("`gone_mb`", text)


class Models(unittest.TestCase):
    def test_a_model_left_out_takes_its_rows_and_the_models_that_share_them(self):
        with tempfile.TemporaryDirectory() as out:
            arm = os.path.join(out, "tools", "model", "armv8")
            os.makedirs(arm)
            os.makedirs(os.path.join(out, "lib"))
            models = {"a.wmm": "mb [lab_mb]\nmb [given_mb]\n", "b.wmm": "mb [given_mb]\n",
                      "c.wmm": "mb [other_mb]\nmb [twin_mb]\n"}
            for f, text in models.items():
                with open(os.path.join(arm, f), "w") as fh:
                    fh.write(text)
            # The lab's function's barrier is tagged in the lab's file; twin_mb's
            # function has the lab function's name, in another file: not the lab's.
            with open(os.path.join(out, "lib", "lab.h"), "w") as fh:
                fh.write("/* [lab_mb] pairs [given_mb]: ... */\n")
            rows = ["# comment", "id\tfunction\tpartner\tmodel\tvariant",
                    "lab_mb\tlab_fn\tgiven_mb\ttools/model/armv8/a.wmm\tno_lab_mb",
                    "given_mb\tgiven_fn\tlab_mb\ttools/model/armv8/a.wmm\tno_given_mb",
                    "other_mb\tother_fn\tother_mb\ttools/model/armv8/c.wmm\tno_other_mb",
                    "twin_mb\tlab_fn\ttwin_mb\ttools/model/armv8/c.wmm\tno_twin_mb"]
            with open(os.path.join(out, "tools", "model", "barriers.tsv"), "w") as fh:
                fh.write("\n".join(rows))
            gone = handout.prune_models(out, "no_such_lab", {("lib/lab.h", "lab_fn")})
            self.assertEqual(gone, ["tools/model/armv8/a.wmm", "tools/model/armv8/b.wmm"])
            self.assertEqual(sorted(os.listdir(arm)), ["c.wmm"])
            with open(os.path.join(out, "tools", "model", "barriers.tsv")) as fh:
                self.assertEqual(fh.read().split("\n"), rows[:2] + rows[4:])


    def test_the_model_doc_lists_only_what_is_there(self):
        with tempfile.TemporaryDirectory() as out:
            arm = os.path.join(out, "tools", "model", "armv8")
            os.makedirs(arm)
            os.makedirs(os.path.join(out, "docs"))
            for f in ("a.wmm", "b.wmm"):
                open(os.path.join(arm, f), "w").close()
            with open(os.path.join(out, "tools", "model", "barriers.tsv"), "w") as fh:
                fh.write("# c\nid\tfunction\tpartner\tmodel\nx\tf\tx\tm\n")
            doc = ["| model | the code |", "| --- | --- |", "| `tour.pml` | tour |",
                   "| `async.pml` | gp.c |", "| `armv8/*.wmm` (52 files) | all (106 tags) |",
                   "", "**`async.pml`: the machinery.**  It models", "call_rcu().", "",
                   "**`tour.pml`: the tour.**", "kept"]
            with open(os.path.join(out, "docs", "model.md"), "w") as fh:
                fh.write("\n".join(doc))
            handout.prune_model_doc(out, "call_rcu", ["tools/model/async.pml",
                                                      "tools/model/armv8/c.wmm"])
            with open(os.path.join(out, "docs", "model.md")) as fh:
                text = fh.read()
            self.assertNotIn("| `async.pml` |", text)
            self.assertIn("| `tour.pml` | tour |", text)
            self.assertIn("| `armv8/*.wmm` (2 files) | all (1 tags) |", text)
            self.assertNotIn("It models", text)
            self.assertIn("`async.pml` spells out lab `call_rcu`'s answer", text)
            self.assertIn("**`tour.pml`: the tour.**\nkept", text)


class MakeLabOnALabBranch(unittest.TestCase):
    """make lab where a lab was started (.lab) refuses and says how to
    start from the lab's base, or, in a student repository, that the lab
    comes in its own."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.saved = labs.ROOT
        labs.ROOT = self.dir.name
        for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "first"]):
            labs.git("-c", "user.name=t", "-c", "user.email=t@t", *args)
        self.first = labs.git("rev-parse", "HEAD")

    def tearDown(self):
        labs.ROOT = self.saved
        self.dir.cleanup()

    def record(self, base):
        with open(os.path.join(self.dir.name, labs.RECORD), "w") as f:
            f.write(f"lab run_on\nbase {base}\n")

    def test_on_a_lab_branch_it_names_the_base(self):
        self.record("0123456789abcdef0123456789abcdef01234567")
        with self.assertRaisesRegex(labs.Refused, r"not starting lab idle here.*\n"
                                    r"  git switch --detach 0123456789ab && make lab LAB=idle"):
            labs.cmd_start("idle")

    def test_in_a_student_repository_it_says_the_lab_comes_apart(self):
        self.record("root")
        self.assertEqual(labs.read_record(), ("run_on", self.first))
        with self.assertRaisesRegex(labs.Refused, "student repository of lab run_on"):
            labs.cmd_start("idle")


class Lecture(unittest.TestCase):
    def test_slides_titles_and_notes(self):
        md = "# One\n\ntext\n\nNote:\nsaid aloud\n\n---\n\n## Two `code`\n\n![f](img/x.png)\n"
        got = slides.slides_of(md)
        self.assertEqual([t for t, _ in got], ["One", "Two `code`"])
        self.assertNotIn("said aloud", got[0][1])
        self.assertEqual(slides.plain(got[1][0]), "Two code")

    def test_a_slide_without_a_title_is_refused(self):
        with self.assertRaisesRegex(slides.Failed, "no title"):
            slides.slides_of("# One\n\n---\n\njust text\n")

    def test_the_lecture_parses(self):
        with open(os.path.join(slides.LECTURE, "slides.md")) as f:
            got = slides.slides_of(f.read())
        self.assertGreaterEqual(len(got), 20)


if __name__ == "__main__":
    unittest.main()
