#!/usr/bin/env python3
"""Draw an RCU trace as a timeline and check RCU's guarantee on it.

    tools/timeline.py LOG [-o build/trace/timeline.svg] [--png FILE]
                      [--window auto|all|A:B] [--gps N] [--width PX]

LOG is a console log holding a trace dump (trace_dump(), docs/trace.md):

    # trace: begin cpus=4 events=1234 lost=0
    T <ns> <cpu> <pid> <event> [args]
    # trace: end

Every other line is ignored; with several dumps, the last one is used.

The picture ("RCU is a way of waiting for pre-existing RCU read-side
critical sections", from "What is RCU, Fundamentally?") has one lane per
CPU with the read-side critical sections as bars, each synchronize_rcu()
tour (sync_begin..sync_end) as a span with the run_on() hops it made, each
asynchronous grace period (gp_start..gp_end) as a span with its quiescent
states, context switches as ticks and marks as labels.  Each reader is
classified against each grace period:

  pre-existing  began before the grace period started and was still
                running then: it must end before the grace period ends;
  later         began after the start: nothing has to wait for it, and it
                may extend beyond the end.  A tour may still wait for one:
                it visits one CPU at a time and waits for whatever runs
                there when it arrives.  Such hops (found with the
                hop_queue event: the reader ran on the target between the
                moment run_on() queued the updater there and the hop) are
                drawn in their own colour and starred in the summary.

The check: every pre-existing reader ends before the grace period ends.
It is made for the tours and asynchronous grace periods, and also from the
updater's side, which holds even when no grace period was recorded at all
(rcu.inject=no_wait): a reader that began before an element was retracted
(unpublish ptr=X) ends before the updater's next "mark kfree..." and a
reader that began before a call_rcu() (cb_queue ptr=P) ends before the
callback runs (cb_invoke ptr=P).

Prints a summary; exit status 1 when a violation is found, 2 when the log
holds no trace.  The SVG is written by hand; the PNG comes from
rsvg-convert when present, else from python3-matplotlib drawing the same
shapes (tools/deps.sh bench installs it), else it is skipped.

The modules: tools/lib/trace_parse.py (parsing, the model, the check and
the summary), tools/lib/timeline_svg.py (the picture), this file (the PNG
and the command line).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from trace_parse import build, ms, parse, summary  # noqa: E402
from timeline_svg import Canvas, choose_window, draw  # noqa: E402


# --------------------------------------------------------------------------
# PNG
# --------------------------------------------------------------------------

DEBIAN_PYTHON = "/usr/bin/python3"


def write_png(canvas, svg_path, png_path):
    """Returns a one-line report."""
    rsvg = shutil.which("rsvg-convert")
    if rsvg:
        r = subprocess.run([rsvg, "-b", "white", "-o", png_path, svg_path],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return f"PNG: {png_path} (rsvg-convert)"
    try:
        import matplotlib  # noqa: F401
        canvas.png_matplotlib(png_path)
        return f"PNG: {png_path} (matplotlib)"
    except ImportError:
        pass
    # Debian's python3-matplotlib belongs to Debian's python3, which may
    # not be the python3 running this (a virtualenv, pyenv).
    if os.path.exists(DEBIAN_PYTHON) and os.path.realpath(sys.executable) != \
            os.path.realpath(DEBIAN_PYTHON):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"width": canvas.width, "height": canvas.height,
                       "items": canvas.items}, f)
        try:
            r = subprocess.run([DEBIAN_PYTHON, os.path.abspath(__file__), "--render-png",
                                f.name, png_path], capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        if r.returncode == 0:
            return f"PNG: {png_path} (matplotlib, {DEBIAN_PYTHON})"
    return "PNG skipped: python3-matplotlib not installed (tools/deps.sh bench installs it)"


def render_png_from_json(json_path, png_path):
    with open(json_path) as f:
        d = json.load(f)
    c = Canvas(d["width"])
    c.height = d["height"]
    c.items = d["items"]
    c.png_matplotlib(png_path)


# --------------------------------------------------------------------------

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--render-png"]:
        render_png_from_json(argv[1], argv[2])
        return 0
    p = argparse.ArgumentParser(description="Draw an RCU trace dump as a timeline and "
                                "check that grace periods outlast their pre-existing readers.")
    p.add_argument("log", help="console log with a '# trace: begin' ... '# trace: end' dump")
    p.add_argument("-o", "--output", default="build/trace/timeline.svg", help="SVG to write")
    p.add_argument("--png", help="PNG to write too (rsvg-convert or python3-matplotlib)")
    p.add_argument("--window", default="auto",
                   help="what to draw: auto (around the first --gps grace periods), all, "
                        "or A:B in ms since boot")
    p.add_argument("--gps", type=int, default=6,
                   help="grace periods in the auto window (5, fewer if they span > 300 ms)")
    p.add_argument("--width", type=int, default=1600, help="picture width in pixels")
    args = p.parse_args(argv)

    try:
        with open(args.log, errors="replace") as f:
            trace = parse(f)
    except OSError as e:
        print(f"timeline: {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    if trace is None or not trace.events:
        print(f"timeline: {args.log}: no trace dump ('# trace: begin' ... '# trace: end'); "
              f"record one with trace=rcu and trace_dump() (make trace)", file=sys.stderr)
        return 2
    model = build(trace)
    print(summary(model, args.log))
    try:
        window = choose_window(model, args.window, max(args.gps, 1))
    except ValueError as e:
        print(f"timeline: {e}", file=sys.stderr)
        return 2
    canvas = draw(model, args.log, window, args.width)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(canvas.svg())
    print(f"SVG: {args.output} (window {ms(window[0])}..{ms(window[1])} ms)")
    if args.png:
        os.makedirs(os.path.dirname(os.path.abspath(args.png)), exist_ok=True)
        print(write_png(canvas, args.output, args.png))
    return 1 if model.violations else 0


if __name__ == "__main__":
    sys.exit(main())
