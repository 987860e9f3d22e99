#!/usr/bin/env python3
"""Runs the host-side tests of the tools (tools/tests/test_*.py: no kernel
needed), one file at a time, and ends with "N passed, N failed" (one per
file), as .ci/run counts them.

    python3 tools/host_tests.py [-v]
"""
import os
import sys
import unittest

TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests")


def main():
    # The property tests need hypothesis, which props.py finds by running the
    # whole program again under Debian's python3 if need be: do that before
    # the first file, not in the middle (its lines would be printed twice).
    sys.path.insert(0, TESTS)
    import props  # noqa: F401
    verbosity = 2 if "-v" in sys.argv[1:] else 1
    passed = failed = 0
    for name in sorted(f for f in os.listdir(TESTS) if f.startswith("test_") and f.endswith(".py")):
        suite = unittest.defaultTestLoader.discover(TESTS, pattern=name, top_level_dir=TESTS)
        result = unittest.TextTestRunner(verbosity=verbosity).run(suite)
        ok = result.wasSuccessful() and result.testsRun > 0
        print(f"{'ok' if ok else 'not ok'} {passed + failed + 1} {name} ({result.testsRun} tests)")
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
