"""What the property tests (tools/tests/test_*_props.py) share: the path to
the parsers (tools/lib, where they are moving, and tools, where they are),
Debian's python3-hypothesis (re-running under /usr/bin/python3 when this
interpreter lacks it: a pyenv python3 does), and the strategies for the
pieces of a console: names, noise lines, and ways to damage a line.
"""
import os
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(TESTS)
SYSTEM_PYTHON = "/usr/bin/python3"	# Debian's, which python3-hypothesis serves

for d in (TOOLS, os.path.join(TOOLS, "lib")):
    if d not in sys.path:
        sys.path.insert(0, d)
# Hypothesis's caches go under build/, not into the tree.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY",
                      os.path.join(os.path.dirname(TOOLS), "build", "hypothesis"))

try:
    import hypothesis  # noqa: F401
except ImportError:
    if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and \
            os.path.exists(SYSTEM_PYTHON):
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    print("props: python3-hypothesis is missing: bash tools/deps.sh fuzz installs it",
          file=sys.stderr)
    sys.exit(1)

from hypothesis import HealthCheck, assume, settings, strategies as st  # noqa: E402

# CI runs these on two shared cores: no per-example deadline, a fixed budget,
# no example database left in the tree, and the same examples every run
# (derandomize): a random draw once failed CI on a generator's mistake that
# 12 earlier runs had not drawn, so CI's verdict must not be a dice roll.
# Looking for new failures is a run of its own, with fresh random examples:
#     HYPOTHESIS_PROFILE=deep python3 tools/host_tests.py
_quiet = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile("ci", deadline=None, max_examples=60, database=None,
                          derandomize=True, suppress_health_check=_quiet)
settings.register_profile("deep", deadline=None, max_examples=2000, database=None,
                          suppress_health_check=_quiet)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

names = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True)
# Console text from elsewhere: words of letters, no keyword of any parser.
noise = st.lists(st.from_regex(r"[A-Za-z:=,()-]{1,8}", fullmatch=True), min_size=1,
                 max_size=6).map(" ".join).filter(
    lambda s: not any(k in s for k in ("ok", "KTAP", "BENCH", "T", "#", "trace")) and
    not any(k.startswith(s) for k in ("not ok ", "1..")))
# Anything a broken serial line could carry, control characters included.
garbage = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2ff), max_size=80)


def cut(line, at):
    """The line cut short (a hang in the middle of a printk)."""
    return line[:at]


def interleave(a, b, at):
    """b printed into the middle of a (two CPUs at once, without a lock)."""
    return a[:at] + b + a[at:]


def interleave_two(lines, among, data, first=0):
    """Two of the lines at the indexes among printed into each other: the
    first drawn gets the second inside it, at a drawn column from first on,
    and the second is gone.  Returns (the lines, the mixed line's index)."""
    assume(len(among) >= 2)
    i, j = data.draw(st.permutations(among))[:2]
    at = data.draw(st.integers(first, len(lines[i])))
    mixed = [l for k, l in enumerate(lines) if k != j]
    n = mixed.index(lines[i])
    mixed[n] = interleave(lines[i], lines[j], at)
    return mixed, n
