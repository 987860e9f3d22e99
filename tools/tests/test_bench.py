#!/usr/bin/env python3
"""Unit tests for tools/bench.py and tools/lib/bench_*.py: result lines,
statistics, tables, and the zero-instruction check on canned objdump/nm
output.

    python3 tools/host_tests.py (all host tests), or python3 tools/tests/test_bench.py
"""

import csv
import os
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [TOOLS, os.path.join(TOOLS, "lib")]
import bench  # noqa: E402
import bench_objdump  # noqa: E402
import bench_parse  # noqa: E402
import bench_report  # noqa: E402


def line(**kw):
    return "# BENCH " + " ".join(f"{k}={v}" for k, v in kw.items())


def read_samples(struct, method, writers, cpus, values, metric="lookups_per_cpu"):
    return [bench_parse.parse_line(line(bench="read", struct=struct, method=method, writers=writers,
                                  cpus=cpus, rep=i, metric=metric, value=f"{v:.3f}",
                                  unit="1/s"))
            for i, v in enumerate(values)]


CTX = {"arch": "x86_64", "accel": "tcg", "host_cpu": "Test CPU 9000", "host_cores": 2,
       "reps": 5, "command": "make bench", "date": "2025-01-01"}

# objdump -d --no-show-raw-insn of the production build (x86-64, GCC 12):
# the same lookup twice, each followed by alignment padding outside its size.
OBJDUMP_X86_SAME = """
build/x86_64-prod/kernel.elf:     file format elf64-x86-64


Disassembly of section .text:

0000000000111730 <bench_reader_rcu>:
  111730:	mov    (%rdi),%rdx
  111733:	lea    -0x10(%rdx),%rax
  111737:	cmp    %rdx,%rdi
  11173a:	jne    11174d <bench_reader_rcu+0x1d>
  11173c:	jmp    111758 <bench_reader_rcu+0x28>
  11173e:	xchg   %ax,%ax
  111740:	mov    0x10(%rax),%rdx
  111744:	lea    -0x10(%rdx),%rax
  111748:	cmp    %rdx,%rdi
  11174b:	je     111758 <bench_reader_rcu+0x28>
  11174d:	cmp    %esi,(%rax)
  11174f:	jne    111740 <bench_reader_rcu+0x10>
  111751:	mov    0x4(%rax),%eax
  111754:	ret
  111755:	nopl   (%rax)
  111758:	mov    $0xffffffff,%eax
  11175d:	ret
  11175e:	xchg   %ax,%ax

0000000000111760 <bench_reader_plain>:
  111760:	mov    (%rdi),%rdx
  111763:	lea    -0x10(%rdx),%rax
  111767:	cmp    %rdx,%rdi
  11176a:	jne    11177d <bench_reader_plain+0x1d>
  11176c:	jmp    111788 <bench_reader_plain+0x28>
  11176e:	xchg   %ax,%ax
  111770:	mov    0x10(%rax),%rdx
  111774:	lea    -0x10(%rdx),%rax
  111778:	cmp    %rdx,%rdi
  11177b:	je     111788 <bench_reader_plain+0x28>
  11177d:	cmp    %esi,(%rax)
  11177f:	jne    111770 <bench_reader_plain+0x10>
  111781:	mov    0x4(%rax),%eax
  111784:	ret
  111785:	nopl   (%rax)
  111788:	mov    $0xffffffff,%eax
  11178d:	ret
  11178e:	xchg   %ax,%ax
  111790:	nopw   0x0(%rax,%rax,1)
"""
NM_X86 = """\
0000000000111760 000000000000002e T bench_reader_plain
0000000000111730 000000000000002e T bench_reader_rcu
0000000000100000 T _start
"""

# The checking build's shape: rcu_read_lock() counts the nesting in the task.
OBJDUMP_X86_CHECKING = """
0000000000111730 <bench_reader_rcu>:
  111730:	mov    %gs:0x0,%rax
  111739:	mov    0x48(%rax),%rax
  11173d:	addl   $0x1,0x60(%rax)
  111741:	mov    (%rdi),%rdx
  111744:	cmp    %rdx,%rdi
  111747:	je     111760 <bench_reader_rcu+0x30>
  111749:	cmp    %esi,-0x10(%rdx)
  11174c:	jne    111744 <bench_reader_rcu+0x14>
  11174e:	mov    -0xc(%rdx),%eax
  111751:	mov    %gs:0x0,%rdx
  11175a:	mov    0x48(%rdx),%rdx
  11175e:	subl   $0x1,0x60(%rdx)
  111762:	ret

0000000000111770 <bench_reader_plain>:
  111770:	mov    (%rdi),%rdx
  111773:	cmp    %rdx,%rdi
  111776:	je     111784 <bench_reader_plain+0x14>
  111778:	cmp    %esi,-0x10(%rdx)
  11177b:	jne    111773 <bench_reader_plain+0x3>
  11177d:	mov    -0xc(%rdx),%eax
  111780:	ret
  111781:	mov    $0xffffffff,%eax
  111786:	ret
"""
NM_X86_CHECKING = """\
0000000000111770 0000000000000017 T bench_reader_plain
0000000000111730 0000000000000033 T bench_reader_rcu
"""

# AArch64: '#' is part of an immediate, '//' starts a comment.
OBJDUMP_ARM = """
0000000040201000 <bench_reader_rcu>:
    40201000:	ldr	x2, [x0]
    40201004:	cmp	x0, x2
    40201008:	b.eq	40201024 <bench_reader_rcu+0x24>  // b.none
    4020100c:	ldur	w3, [x2, #-16]
    40201010:	cmp	w3, w1
    40201014:	b.ne	40201000 <bench_reader_rcu>  // b.any
    40201018:	ldur	w0, [x2, #-12]
    4020101c:	ret
    40201020:	nop
    40201024:	mov	w0, #0xffffffff            	// #-1
    40201028:	ret

0000000040201040 <bench_reader_plain>:
    40201040:	ldr	x2, [x0]
    40201044:	cmp	x0, x2
    40201048:	b.eq	40201064 <bench_reader_plain+0x24>  // b.none
    4020104c:	ldur	w3, [x2, #-16]
    40201050:	cmp	w3, w1
    40201054:	b.ne	40201040 <bench_reader_plain>  // b.any
    40201058:	ldur	w0, [x2, #-12]
    4020105c:	ret
    40201060:	nop
    40201064:	mov	w0, #0xfffffffe            	// #-2
    40201068:	ret
"""
NM_ARM = """\
0000000040201040 000000000000002c T bench_reader_plain
0000000040201000 000000000000002c T bench_reader_rcu
"""


class ParseTest(unittest.TestCase):
    def test_result_line(self):
        s = bench_parse.parse_line("# BENCH bench=read struct=list method=rcu writers=1 cpus=4 "
                             "rep=2 metric=lookups_per_cpu value=123456.789 unit=1/s")
        self.assertEqual(s["bench"], "read")
        self.assertEqual(s["method"], "rcu")
        self.assertEqual(s["writers"], "1")
        self.assertEqual(s["cpus"], 4)
        self.assertEqual(s["rep"], 2)
        self.assertAlmostEqual(s["value"], 123456.789)
        self.assertEqual(s["unit"], "1/s")

    def test_line_with_trailing_carriage_return_and_spaces(self):
        s = bench_parse.parse_line("  # BENCH bench=call_rcu cpus=1 rep=0 metric=cbs_per_gp "
                             "value=7.951 unit=count\r\n")
        self.assertEqual(s["metric"], "cbs_per_gp")
        self.assertAlmostEqual(s["value"], 7.951)

    def test_other_lines_are_ignored(self):
        for text in ["ok 1 bench_read_list", "# ktest: running bench_readside",
                     "# BENCH-META checking=0 cpus=2", "# BENCHMARK value=1",
                     "# BENCH bench=read cpus=2 rep=0 metric=x",          # no value
                     "# BENCH bench=read cpus=two rep=0 metric=x value=1",  # not a number
                     "# BENCH bench=read cpus=2 rep=0 metric=x value=1 junk", ""]:
            self.assertIsNone(bench_parse.parse_line(text), text)

    def test_meta_and_log(self):
        lines = ["KTAP version 1", "# BENCH-META checking=0 cpus=2 reps=5 window_ms=100",
                 line(bench="readside", method="rcu", cpus=2, rep=0, metric="cycles_per_cs",
                      value="2.000", unit="cycles"),
                 "ok 1 bench_readside"]
        samples, metas = bench_parse.parse_log(lines)
        self.assertEqual(len(samples), 1)
        self.assertEqual(metas, [{"checking": "0", "cpus": "2", "reps": "5",
                                  "window_ms": "100"}])


class StatsTest(unittest.TestCase):
    def test_median_odd_and_even(self):
        self.assertEqual(bench_parse.median([5, 1, 3]), 3)
        self.assertEqual(bench_parse.median([4, 1, 3, 2]), 2.5)
        self.assertEqual(bench_parse.median([7]), 7)

    def test_quartiles_like_numpy(self):
        xs = [1, 2, 3, 4, 5]
        self.assertEqual(bench_parse.quantile(xs, 0.25), 2)
        self.assertEqual(bench_parse.quantile(xs, 0.75), 4)
        self.assertEqual(bench_parse.quantile([1, 2, 3, 4], 0.25), 1.75)
        self.assertEqual(bench_parse.quantile([10, 0], 0.0), 0)
        self.assertEqual(bench_parse.quantile([10, 0], 1.0), 10)

    def test_quantile_of_nothing(self):
        with self.assertRaises(ValueError):
            bench_parse.quantile([], 0.5)

    def test_summarize(self):
        s = bench_parse.summarize([3.0, 100.0, 1.0, 2.0, 4.0])
        self.assertEqual(s, {"n": 5, "median": 3.0, "min": 1.0, "max": 100.0,
                             "q1": 2.0, "q3": 4.0})

    def test_aggregate_groups_repetitions_and_cpu_counts(self):
        samples = read_samples("list", "rcu", 0, 2, [10, 30, 20, 50, 40]) + \
            read_samples("list", "rcu", 0, 4, [1, 2, 3, 4, 5])
        rows = bench_parse.aggregate(samples)
        self.assertEqual(len(rows), 2)
        r2 = bench_parse.find_row(rows, cpus=2)
        self.assertEqual((r2["n"], r2["median"], r2["min"], r2["max"]), (5, 30, 10, 50))
        self.assertEqual(bench_parse.find_row(rows, cpus=4)["median"], 3)

    def test_ratios(self):
        samples = (read_samples("hash", "none", 0, 2, [100] * 5)
                   + read_samples("hash", "rcu", 0, 2, [90] * 5)
                   + read_samples("hash", "rwlock", 0, 2, [30] * 5)
                   + read_samples("hash", "rcu", 1, 2, [60] * 5)
                   + read_samples("hash", "spinlock", 1, 2, [6] * 5))
        rows = bench_parse.aggregate(samples)
        rw = bench_parse.find_row(rows, method="rwlock")
        self.assertAlmostEqual(rw["vs_floor"], 0.3)
        self.assertAlmostEqual(rw["rcu_ratio"], 3.0)
        self.assertAlmostEqual(bench_parse.find_row(rows, method="rcu", writers="0")["rcu_ratio"], 1)
        # with a writer: floor from the readers-only run, RCU from the same writer setting
        sp = bench_parse.find_row(rows, method="spinlock")
        self.assertAlmostEqual(sp["vs_floor"], 0.06)
        self.assertAlmostEqual(sp["rcu_ratio"], 10.0)


def full_rows():
    samples = []
    for n in (1, 2):
        for st in ("list", "hash"):
            for w in (0, 1):
                for i, m in enumerate(bench_report.METHODS):
                    if w and m == "none":
                        continue
                    samples += read_samples(st, m, w, n, [1000.0 * n / (i + 1)] * 5)
                    if w:
                        samples += read_samples(st, m, w, n, [77.0] * 5, metric="updates")
        for m in bench_report.METHODS:
            samples += [bench_parse.parse_line(line(bench="readside", method=m, cpus=n, rep=r,
                                              metric="cycles_per_cs", value="2.5",
                                              unit="cycles")) for r in range(5)]
        for op in bench_report.UPDATE_OPS:
            for load in ("idle", "busy"):
                if n == 1 and (load == "busy" or op == "ipi_round_trip"):
                    continue
                samples += [bench_parse.parse_line(line(bench="update", op=op, load=load, cpus=n,
                                                  rep=r, metric="ns_per_op",
                                                  value=f"{1000 * (r + 1)}.000", unit="ns"))
                            for r in range(5)]
        for metric in ("calls_per_s", "cbs_per_gp", "gps_per_s"):
            samples += [bench_parse.parse_line(line(bench="call_rcu", cpus=n, rep=r, metric=metric,
                                              value="10.000", unit="1/s")) for r in range(5)]
    return bench_parse.aggregate(samples)


class TableTest(unittest.TestCase):
    def setUp(self):
        self.rows = full_rows()
        self.check = bench_objdump.compare_readers(OBJDUMP_X86_SAME, NM_X86)
        self.md = bench_report.markdown(self.rows, CTX, self.check)

    def test_header_names_machine_and_warns_about_tcg(self):
        self.assertIn("Test CPU 9000", self.md)
        self.assertIn("tcg", self.md)
        self.assertIn("Under TCG absolute numbers are those of an emulator", self.md)
        self.assertIn("`make bench`", self.md)

    def test_zero_instruction_section(self):
        self.assertIn("difference **0 instructions**", self.md)
        self.assertIn("identical instruction sequences", self.md)

    def test_read_tables_have_every_method_and_cpu_count(self):
        self.assertIn("| method | 1 CPU | ×floor | RCU÷ | 2 CPUs | ×floor | RCU÷ |", self.md)
        for title in bench_report.METHOD_TITLES.values():
            self.assertIn(f"| {title} |", self.md)
        # rwlock is method 2: 1000 * n / 3 per CPU; RCU (method 1) 1000 * n / 2
        self.assertIn("| reader-writer lock | 333 [333–333] | 0.33× | 1.50× | 667 [667–667] "
                      "| 0.33× | 1.50× |", self.md)
        self.assertIn("*writer's updates/s*", self.md)
        self.assertEqual(self.md.count("### 64-element list"), 2)
        self.assertEqual(self.md.count("### 1024-bucket hash table"), 2)

    def test_table_rows_are_well_formed(self):
        for text in self.md.splitlines():
            if not text.startswith("|"):
                continue
            self.assertTrue(text.endswith("|"), text)

    def test_update_side_in_microseconds(self):
        # 1000..5000 ns: median 3 us, min 1, max 5
        self.assertIn("| synchronize_rcu() | idle | 3 [1–5] | 3 [1–5] |", self.md)
        self.assertIn("| synchronize_rcu() | busy | - | 3 [1–5] |", self.md)
        self.assertIn("| one IPI round trip | idle | - | 3 [1–5] |", self.md)

    def test_csv_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results.csv")
            bench_report.write_csv(self.rows, path, CTX)
            with open(path, newline="", encoding="utf-8") as f:
                got = list(csv.DictReader(f))
            self.assertEqual(len(got), len(self.rows))
            self.assertTrue(all(r["host_cpu"] == "Test CPU 9000" and r["accel"] == "tcg"
                                and r["cpus"] in ("1", "2") for r in got))
            back = bench_report.read_csv(path)
            self.assertEqual(bench_report.markdown(back, CTX, self.check), self.md)

    def test_number_format(self):
        self.assertEqual(bench_report.fmt_num(1234567), "1.23M")
        self.assertEqual(bench_report.fmt_num(999), "999")
        self.assertEqual(bench_report.fmt_num(2.345), "2.35")
        self.assertEqual(bench_report.fmt_num(0), "0")
        self.assertEqual(bench_report.fmt_num(None), "-")
        self.assertEqual(bench_report.fmt_ratio(1.5), "1.50×")


class RoundTripTest(unittest.TestCase):
    """The null system call, IPC and the lookup's call, each timed by the program
    (timed=loop) and by the kernel (timed=spawn), in rows of their own; under
    ICOUNT=1 to a tenth of an instruction."""

    def rows(self):
        samples = []
        for timed, base in (("loop", 0.0), ("spawn", 1.0)):
            for r in range(5):
                samples.append(bench_parse.parse_line(line(
                    bench="user", op="syscall", timed=timed, cpus=1, rep=r, metric="ns",
                    value=f"{399.04 + base:.3f}", unit="ns")))
                for between, v in (("threads", 3167.35), ("tasks", 3353.39)):
                    samples.append(bench_parse.parse_line(line(
                        bench="ipc", op="ipc", between=between, cpus_apart=0, timed=timed,
                        cpus=1, rep=r, metric="ns", value=f"{v + base:.3f}", unit="ns")))
            samples += [bench_parse.parse_line(line(bench="ipc", op="cap_call", timed="loop",
                                                    cpus=1, rep=r, metric="ns",
                                                    value="555.085", unit="ns"))
                        for r in range(5)]
        return bench_parse.aggregate(samples)

    def test_rows_by_clock(self):
        md = bench_report.markdown(self.rows(), dict(CTX, icount="0"))
        self.assertIn("| null system call round trip, the program's clock (ns) | "
                      "399.0 [399.0–399.0] |", md)
        self.assertIn("| null system call round trip, spawn to exit (ns) | "
                      "400.0 [400.0–400.0] |", md)
        self.assertIn("| IPC call between threads, one CPU | 3167.3 [3167.3–3167.3] (7.94×) |", md)
        self.assertIn("| IPC call between tasks, one CPU, spawn to exit | "
                      "3354.4 [3354.4–3354.4] (8.39×) |", md)
        self.assertIn("| capability lookup (SYS_ntf_poll) | 555.1 [555.1–555.1] (1.39×) |", md)

    def test_three_figures_without_icount(self):
        md = bench_report.markdown(self.rows(), CTX)
        self.assertIn("| IPC call between threads, one CPU | 3.17k [3.17k–3.17k] (7.94×) |", md)

    def test_csv_keeps_the_clock(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results.csv")
            bench_report.write_csv(self.rows(), path, CTX)
            back = bench_report.read_csv(path)
        self.assertEqual(sorted({r["timed"] for r in back}), ["loop", "spawn"])


class FastestTest(unittest.TestCase):
    """The "who reads fastest" lines follow from the tables they sit under."""

    def test_generated_from_the_rows(self):
        rows = [dict(bench="read", metric="lookups_per_cpu", struct="hash", writers="1",
                     method=m, cpus=4, median=v)
                for m, v in (("rcu", 6.86e6), ("seqlock", 7.5e6), ("rwlock", 1.99e6))]
        lines = bench_report.fastest_lines(rows)
        self.assertEqual(len(lines), 1)
        self.assertIn("with a writer, 4 CPUs: **seqlock** fastest", lines[0])
        self.assertLess(lines[0].index("seqlock 7.5M"), lines[0].index("RCU 6.86M"))

    def test_markdown_round_trip(self):
        text = bench_report.markdown(full_rows(), {"host_cpu": "x", "arch": "x86_64",
                                                         "accel": "tcg"})
        rows = bench_report.rows_from_markdown(text)
        self.assertEqual(bench_report.fastest_lines(rows),
                         bench_report.fastest_lines(full_rows()))

    def test_docs_benchmarks_md_agrees_with_its_tables(self):
        path = os.path.join(TOOLS, "..", "docs", "benchmarks.md")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        br = bench_report
        self.assertIn(br.FASTEST_BEGIN, text)
        block = text.split(br.FASTEST_BEGIN, 1)[1].split(br.FASTEST_END, 1)[0].strip()
        self.assertEqual(block.splitlines(), br.fastest_lines(br.rows_from_markdown(text)))


class ObjdumpTest(unittest.TestCase):
    def test_production_build_same_code(self):
        r = bench_objdump.compare_readers(OBJDUMP_X86_SAME, NM_X86)
        self.assertEqual(r["with_count"], 17)	# bounded by the symbol size: no tail padding
        self.assertEqual(r["without_count"], 17)
        self.assertEqual(r["with_real"], 15)	# the two alignment nops inside
        self.assertEqual(r["diff"], 0)
        self.assertTrue(r["identical"])
        self.assertIn("jne <SELF+0x1d>", r["with_insns"])

    def test_checking_build_differs(self):
        r = bench_objdump.compare_readers(OBJDUMP_X86_CHECKING, NM_X86_CHECKING)
        self.assertEqual(r["with_count"], 13)
        self.assertEqual(r["without_count"], 9)
        self.assertEqual(r["diff"], 4)
        self.assertFalse(r["identical"])

    def test_aarch64_immediates_survive_comment_stripping(self):
        r = bench_objdump.compare_readers(OBJDUMP_ARM, NM_ARM)
        self.assertEqual(r["diff"], 0)
        # same count, but -1 and -2 differ: not identical
        self.assertFalse(r["identical"])
        self.assertIn("mov w0, #0xffffffff", r["with_insns"])
        self.assertIn("b.ne <SELF>", r["with_insns"])

    def test_missing_symbol(self):
        with self.assertRaises(ValueError):
            bench_objdump.compare_readers(OBJDUMP_X86_SAME, "0000000000111760 2e T other\n")

    def test_rip_relative_operands_compare_by_symbol(self):
        a = bench_objdump.normalize_insn("mov    0x1234(%rip),%rax        # 112000 <jiffies>", "f")
        b = bench_objdump.normalize_insn("mov    0x1204(%rip),%rax        # 112000 <jiffies>", "g")
        self.assertEqual(a, b)
        self.assertEqual(a, "mov <jiffies>(%rip),%rax")

    def test_calls_keep_their_callee(self):
        self.assertEqual(bench_objdump.normalize_insn("call   10f000 <printk>", "f"), "call <printk>")

    def test_nm_parse(self):
        self.assertEqual(bench_objdump.parse_nm(NM_X86),
                         {"bench_reader_plain": (0x111760, 0x2e),
                          "bench_reader_rcu": (0x111730, 0x2e)})


class HostTest(unittest.TestCase):
    def test_cpu_model_from_cpuinfo(self):
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                    "model name\t: AMD EPYC 7B13 64-Core Processor\n")
        try:
            self.assertEqual(bench.host_cpu_model(f.name), "AMD EPYC 7B13 64-Core Processor")
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
