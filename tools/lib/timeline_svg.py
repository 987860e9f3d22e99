"""The timeline picture of an RCU trace (tools/timeline.py draws with it).

choose_window() picks the part of the trace to draw; draw() turns a model
(tools/lib/trace_parse.py) into a Canvas: a list of shapes with one lane per
CPU, the read-side critical sections as bars coloured by their class, the
grace periods as spans with their hops and quiescent states, context
switches as ticks and marks as labels.  A Canvas is written as SVG by hand
(svg()) or drawn by python3-matplotlib for a PNG (png_matplotlib()).
"""
import math
import os
from xml.sax.saxutils import escape

from trace_parse import count, ms

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
C_PRE = "#1f6fd1"	# pre-existing reader
C_LATER = "#f28e2b"	# later reader
C_OTHER = "#b8b8b8"	# a reader no drawn grace period concerns
C_BAD = "#d62728"	# violation
C_TOUR = "#2a9d3a"	# synchronize_rcu() tour
C_LATE_HOP = "#e7298a"	# a hop that waited for a later reader
C_ASYNC = "#8e44ad"	# asynchronous grace period
C_EXP = "#0e8f8f"	# synchronize_rcu_expedited()
C_UPD = "#7f7f7f"	# updater-side window
C_SWITCH = "#555555"
C_DIRECT = "#c7a000"	# IPC's direct switch
C_MARK = "#333333"

# The colours by name, for the live timeline (tools/web.py sends them to
# the page, so that both pictures use these).
COLOURS = {"pre": C_PRE, "later": C_LATER, "other": C_OTHER, "bad": C_BAD, "tour": C_TOUR,
           "late_hop": C_LATE_HOP, "async": C_ASYNC, "exp": C_EXP, "updater": C_UPD,
           "switch": C_SWITCH, "direct": C_DIRECT, "mark": C_MARK}


def text_width(s, size):
    return 0.58 * size * len(s)


class Canvas:
    def __init__(self, width):
        self.width = width
        self.height = 0
        self.items = []

    def rect(self, x, y, w, h, fill, stroke="none", sw=1.0, opacity=1.0, dash=False, tip=""):
        self.items.append(["rect", x, y, max(w, 0.8), h, fill, stroke, sw, opacity, dash, tip])

    def line(self, x1, y1, x2, y2, stroke, sw=1.0, dash=False, opacity=1.0, arrow=False):
        self.items.append(["line", x1, y1, x2, y2, stroke, sw, dash, opacity, arrow])

    def circle(self, x, y, r, fill, stroke="#ffffff", tip=""):
        self.items.append(["circle", x, y, r, fill, stroke, tip])

    def text(self, x, y, s, size=12, fill="#000000", anchor="start", bold=False, italic=False):
        self.items.append(["text", x, y, s, size, fill, anchor, bold, italic])

    def svg(self):
        w, h = self.width, self.height
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
               f'viewBox="0 0 {w} {h}" font-family="{FONT}">',
               '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
               f'markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
               f'fill="{C_TOUR}"/></marker></defs>',
               f'<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>']
        for it in self.items:
            kind = it[0]
            if kind == "rect":
                _, x, y, rw, rh, fill, stroke, sw, op, dash, tip = it
                d = ' stroke-dasharray="4,3"' if dash else ""
                body = f"<title>{escape(tip)}</title>" if tip else ""
                out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{rw:.1f}" height="{rh:.1f}" '
                           f'fill="{fill}" stroke="{stroke}" stroke-width="{sw}" '
                           f'fill-opacity="{op}"{d}>{body}</rect>')
            elif kind == "line":
                _, x1, y1, x2, y2, stroke, sw, dash, op, arrow = it
                d = ' stroke-dasharray="5,4"' if dash else ""
                a = ' marker-end="url(#arrow)"' if arrow else ""
                out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                           f'stroke="{stroke}" stroke-width="{sw}" stroke-opacity="{op}"{d}{a}/>')
            elif kind == "circle":
                _, x, y, r, fill, stroke, tip = it
                body = f"<title>{escape(tip)}</title>" if tip else ""
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" '
                           f'stroke="{stroke}" stroke-width="1">{body}</circle>')
            elif kind == "text":
                _, x, y, s, size, fill, anchor, bold, italic = it
                st = (' font-weight="bold"' if bold else "") + \
                     (' font-style="italic"' if italic else "")
                out.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}" '
                           f'text-anchor="{anchor}"{st}>{escape(s)}</text>')
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def png_matplotlib(self, path):
        """Draws the same shapes with matplotlib (pixel coordinates, y down)."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Rectangle, Circle

        dpi = 100
        fig = plt.figure(figsize=(self.width / dpi, self.height / dpi), dpi=dpi)
        ax = fig.add_axes([0, 0, 1, 1])
        ax.set_xlim(0, self.width)
        ax.set_ylim(self.height, 0)
        ax.axis("off")
        pt = 72.0 / dpi		# pixels to points
        for z, it in enumerate(self.items):
            kind = it[0]
            if kind == "rect":
                _, x, y, rw, rh, fill, stroke, sw, op, dash, _ = it
                if fill != "none":
                    ax.add_patch(Rectangle((x, y), rw, rh, facecolor=fill, alpha=op,
                                           edgecolor="none", zorder=z))
                if stroke != "none":
                    ax.add_patch(Rectangle((x, y), rw, rh, facecolor="none", edgecolor=stroke,
                                           linewidth=sw * pt, linestyle="--" if dash else "-",
                                           zorder=z))
            elif kind == "line":
                _, x1, y1, x2, y2, stroke, sw, dash, op, arrow = it
                if arrow:
                    ax.annotate("", xy=(x2, y2), xytext=(x1, y1), zorder=z,
                                arrowprops=dict(arrowstyle="-|>", color=stroke, lw=sw * pt,
                                                shrinkA=0, shrinkB=0, mutation_scale=8))
                else:
                    ax.plot([x1, x2], [y1, y2], color=stroke, linewidth=sw * pt, alpha=op,
                            linestyle="--" if dash else "-", zorder=z)
            elif kind == "circle":
                _, x, y, r, fill, stroke, _ = it
                ax.add_patch(Circle((x, y), r, facecolor=fill, edgecolor=stroke, zorder=z))
            elif kind == "text":
                _, x, y, s, size, fill, anchor, bold, italic = it
                ha = {"start": "left", "middle": "center", "end": "right"}[anchor]
                ax.text(x, y, s, fontsize=size * pt, color=fill, ha=ha, va="baseline",
                        fontweight="bold" if bold else "normal",
                        fontstyle="italic" if italic else "normal", zorder=z)
        fig.savefig(path, dpi=dpi)
        plt.close(fig)


def nice_step(span_ms, want=12):
    raw = span_ms / want
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


MAX_AUTO_NS = 300_000_000	# the auto window's grace periods span at most this


def choose_window(model, spec, ngps):
    """(t0, t1) in ns: the part of the trace to draw."""
    first, last = model.first_ns, model.last_ns
    if spec == "all":
        return first, last
    if spec != "auto":
        a, _, b = spec.partition(":")
        t0 = int(float(a) * 1e6) if a else first
        t1 = int(float(b) * 1e6) if b else last
        if t1 <= t0:
            raise ValueError(f"--window {spec}: the end is not after the start")
        return t0, t1
    # auto: the first few grace periods (or whatever must be waited for).
    waits = [w for w in model.waits if w.end is not None and w.is_gp] or \
            [w for w in model.waits if w.end is not None]
    if not waits:
        return first, last
    waits.sort(key=lambda w: w.start)
    chosen = waits[:ngps]
    while len(chosen) > 1 and chosen[-1].end - chosen[0].start > MAX_AUTO_NS:
        chosen.pop()		# too long to read: fewer grace periods
    t0 = min(w.start for w in chosen)
    t1 = max(w.end for w in chosen)
    # Whole readers around the edges: the pre-existing ones and the later ones.
    for w in chosen:
        for r in w.pre:
            t0 = min(t0, r.start if r.start is not None else r.floor)
        for r in w.beyond:
            if r.end is not None:
                t1 = max(t1, r.end)
    pad = max((t1 - t0) // 20, 2_000_000)
    return max(first, t0 - pad), min(last, t1 + pad)


class Frame:
    """Where things go: the time window on the x axis, and the rows of the picture."""

    LEFT, RIGHT = 100, 30
    BAND_Y = 84		# the grace-period band, under the header
    ROW_H = 24		# one row of spans in the band
    MARK_H = 14		# one level of mark labels
    MAX_MARK_LEVELS = 6
    LANE_H = 58		# one CPU's lane

    def __init__(self, window, width, ncpu):
        self.t0, self.t1 = window
        self.width = width
        self.ncpu = ncpu
        self.left = self.LEFT
        self.plot_w = width - self.LEFT - self.RIGHT
        # Set once the spans and the marks are placed (place_marks()).
        self.nrows = 1
        self.mark_y = self.lanes_y = self.lanes_bottom = 0
        self.nlev = 1

    def X(self, ns):
        return self.left + (min(max(ns, self.t0), self.t1) - self.t0) * self.plot_w / (self.t1 - self.t0)

    def visible(self, a, b):
        return b >= self.t0 and a <= self.t1

    def end_x(self, w):
        """x of a span's end, or of the window's end if it has not ended."""
        return self.X(w.end) if w.end is not None else self.X(self.t1)

    def lane_y(self, cpu):
        return self.lanes_y + cpu * self.LANE_H

    def lane_mid(self, cpu):
        return self.lane_y(cpu) + self.LANE_H / 2


def span_colour(w):
    return {"tour": C_TOUR, "exp": C_EXP, "async": C_ASYNC}.get(w.kind, C_UPD)


# ---------------------------------------------------------------- spans

def updater_window_drawn(model, w):
    """An updater-side window is drawn when it found a violation or no
    grace period ran inside it."""
    return not w.is_gp and w.end is not None and \
        bool(w.violators or not any(g.start >= w.start and g.end is not None and
                                    g.end <= w.end for g in model.gps))


def choose_spans(model, f):
    """The waits drawn as spans: grace periods, and the updater-side windows
    updater_window_drawn() picks."""
    gps = [w for w in model.gps if f.visible(w.start, w.end if w.end is not None else f.t1)]
    upd = [w for w in model.waits if updater_window_drawn(model, w) and f.visible(w.start, w.end)]
    return gps, upd, sorted(gps + upd, key=lambda w: w.start)


def span_label(f, w):
    """(text, x, anchor, inside) of a span's label, and the extent of both."""
    xs, xe = f.X(w.start), f.end_x(w)
    lab = w.short + (f" {(w.end - w.start) / 1e6:.2f} ms" if w.end is not None
                     else " (unfinished)")
    tw = text_width(lab, 11)
    if xe - xs >= tw + 8:			# inside the bar
        return lab, xs + 4, "start", True, xs, xe
    if xe + 4 + tw <= f.width - 4:		# after it
        return lab, xe + 4, "start", False, xs, xe + 4 + tw
    return lab, xs - 4, "end", False, xs - 4 - tw, xe	# before it


def place_spans(f, spans):
    """Greedy rows in the band, so that spans (and their labels) do not overlap."""
    rows_end = []
    for w in spans:
        *_, x0, x1 = span_label(f, w)
        for i, e in enumerate(rows_end):
            if x0 > e + 8:
                w.row = i
                rows_end[i] = x1
                break
        else:
            w.row = len(rows_end)
            rows_end.append(x1)
    f.nrows = max(len(rows_end), 1)


def draw_span_band(c, f, spans):
    """The grace-period band: one bar per span, with its label."""
    c.text(f.left - 8, f.BAND_Y + 16, "grace", size=12, anchor="end", fill="#333333")
    c.text(f.left - 8, f.BAND_Y + 30, "periods", size=12, anchor="end", fill="#333333")
    for w in spans:
        col = C_BAD if w.violators else span_colour(w)
        y = f.BAND_Y + w.row * f.ROW_H
        c.rect(f.X(w.start), y + 4, f.end_x(w) - f.X(w.start), 14, col, opacity=0.85,
               tip=f"{w.label}: {ms(w.start)}..{ms(w.end) if w.end else '?'} ms")
        lab, lx, anchor, inside, _, _ = span_label(f, w)
        c.text(lx, y + 15, lab, size=11, fill="#ffffff" if inside else col, bold=True,
               anchor=anchor)


def draw_span_shading(c, f, spans):
    """Grace periods across the lanes: shading and start/end lines."""
    for w in spans:
        col = span_colour(w)
        xe = f.end_x(w)
        y = f.BAND_Y + w.row * f.ROW_H + 18
        c.rect(f.X(w.start), f.lanes_y, xe - f.X(w.start), f.lanes_bottom - f.lanes_y, col,
               opacity=0.10)
        c.line(f.X(w.start), y, f.X(w.start), f.lanes_bottom, col, sw=1.2, dash=True, opacity=0.8)
        if w.end is not None:
            c.line(xe, y, xe, f.lanes_bottom, C_BAD if w.violators else col, sw=1.6, opacity=0.9)


def draw_tours(c, f, gps):
    """The updater's journey: sync_begin, each hop, sync_end."""
    for w in gps:
        if w.kind != "tour":
            continue
        late = {(ns, cpu): r for ns, cpu, r in w.late_hops}
        # Each leg is drawn in the colour of the hop it arrives at.
        stops = [(w.start, w.cpu)] + w.hops + ([(w.end, w.end_cpu)] if w.end else [])
        stops = [(f.X(ns), f.lane_mid(cpu), C_LATE_HOP if (ns, cpu) in late else C_TOUR)
                 for ns, cpu in stops if f.t0 <= ns <= f.t1 and cpu < f.ncpu]
        for (x1, y1, _), (x2, y2, col) in zip(stops, stops[1:]):
            if abs(y2 - y1) > 1 or abs(x2 - x1) > 1:
                c.line(x1, y1, x2, y2, col, sw=1.4, arrow=abs(y2 - y1) > 1)
        for ns, cpu in w.hops:
            if f.t0 <= ns <= f.t1 and cpu < f.ncpu:
                r = late.get((ns, cpu))
                tip = f"{w.short}: run_on({cpu}) arrived at {ms(ns)} ms"
                if r:
                    tip += f"; it waited for a later {r.describe()}, begun after the tour started"
                c.circle(f.X(ns), f.lane_mid(cpu), 5.5 if r else 4.5,
                         C_LATE_HOP if r else C_TOUR, tip=tip)


# ---------------------------------------------------------------- lanes

def draw_header(c, f, model, log):
    trace = model.trace
    t0, t1 = f.t0, f.t1
    c.text(f.left, 30, "RCU waits for pre-existing read-side critical sections "
           "(a real run of Quiescent)", size=20, bold=True)
    c.text(f.left, 52, f"{os.path.basename(log)}: {count(f.ncpu, 'CPU')}, "
           f"{count(model.nevents, 'event')}; "
           f"drawn: {ms(t0)}..{ms(t1)} ms since boot ({(t1 - t0) / 1e6:.1f} ms).",
           size=12, fill="#333333")
    c.text(f.left, 68, f"Whole trace: {count(len(model.gps), 'grace period')}, "
           f"{count(len(model.readers), 'reader')}, "
           f"{count(sum(len(w.pre) - len(w.violators) for w in model.gps), 'pre-existing reader')}"
           f" waited for, {count(sum(len(w.beyond) for w in model.gps), 'later reader')} "
           f"extended beyond the end, {count(len(model.violations), 'violation')}.",
           size=12, fill="#333333")


def place_marks(f, model):
    """Mark labels above the lanes, staggered in levels so that they do not
    collide; fixes where the lanes start.  Returns [(mark, level)]."""
    f.mark_y = f.BAND_Y + f.nrows * f.ROW_H + 8
    level_end = []
    placed = []
    for m in (m for m in model.marks if f.t0 <= m.ns <= f.t1):
        x = f.X(m.ns)
        wtxt = text_width(m.text, 11)
        for i, e in enumerate(level_end):
            if x > e + 4:
                level_end[i] = x + wtxt + 4
                placed.append((m, i))
                break
        else:
            placed.append((m, len(level_end)))
            level_end.append(x + wtxt + 4)
    f.nlev = min(max(len(level_end), 1), f.MAX_MARK_LEVELS)
    f.lanes_y = f.mark_y + f.nlev * f.MARK_H + 6
    f.lanes_bottom = f.lanes_y + f.ncpu * f.LANE_H
    return placed


def draw_lanes(c, f, model):
    """One lane per CPU, named with the updater and the readers that ran there."""
    updater_pids = {w.pid for w in model.waits if w.kind in ("tour", "exp", "removal")}
    for cpu in range(f.ncpu):
        y = f.lane_y(cpu)
        c.rect(f.left, y, f.plot_w, f.LANE_H, "#f4f4f4" if cpu % 2 == 0 else "#fbfbfb")
        c.text(f.left - 8, y + f.LANE_H / 2 + 1, f"CPU{cpu}", size=14, anchor="end", bold=True)
        pids = sorted({r.pid for r in model.readers if r.cpu == cpu and
                       f.visible(r.start or f.t0, r.end or f.t1)})
        who = []
        if any(w.cpu == cpu for w in model.waits if w.kind in ("tour", "exp", "removal")):
            who.append("updater: pid " + ",".join(str(p) for p in sorted(updater_pids)))
        if pids:
            who.append("readers: pid " + ",".join(str(p) for p in pids[:3]))
        for i, s in enumerate(who[:2]):
            c.text(f.left - 8, y + f.LANE_H / 2 + 15 + 11 * i, s, size=9, anchor="end",
                   fill="#555555")


def draw_ticks(c, f, model, gps):
    """Context switches (bottom ticks; IPC's direct ones taller, in their
    own colour) and quiescent states (top ticks)."""
    for e in model.switches:
        if f.t0 <= e.ns <= f.t1 and e.cpu < f.ncpu:
            y = f.lane_y(e.cpu)
            top = 18 if e.direct else 11
            c.line(f.X(e.ns), y + f.LANE_H - top, f.X(e.ns), y + f.LANE_H - 2,
                   C_DIRECT if e.direct else C_SWITCH, sw=1.2)
    for w in gps:
        for ns, cpu in w.qs:
            if f.t0 <= ns <= f.t1 and cpu < f.ncpu:
                y = f.lane_y(cpu)
                c.line(f.X(ns), y + 2, f.X(ns), y + 13, span_colour(w), sw=2)


def reader_kind(r, drawn_pre, drawn_later):
    """A reader's class in the picture (a key of COLOURS), against the
    waits drawn: bad, pre, later or other."""
    if r.violated:
        return "bad"
    if drawn_pre:
        return "pre"
    if drawn_later:
        return "later"
    return "other"


def draw_readers(c, f, model, spans):
    """Each read-side critical section as a bar, coloured by its class;
    VIOLATION labels on top of the bars that follow."""
    bad_labels = []
    for r in model.readers:
        s = r.start if r.start is not None else r.floor
        e = r.end if r.end is not None else model.last_ns
        if not f.visible(s, e) or r.cpu >= f.ncpu:
            continue
        drawn_pre = [w for w in r.pre if w in spans]
        drawn_later = [w for w in r.later if w in spans]
        col = COLOURS[reader_kind(r, drawn_pre, drawn_later)]
        y = f.lane_mid(r.cpu) - 11
        tip = r.describe()
        if drawn_pre:
            tip += "; pre-existing for " + ", ".join(w.short for w in drawn_pre)
        if drawn_later:
            tip += "; later for " + ", ".join(w.short for w in drawn_later)
        c.rect(f.X(s), y, f.X(e) - f.X(s), 22, col, stroke="#222222" if r.violated else "#ffffff",
               sw=2 if r.violated else 1, opacity=0.9, tip=tip)
        if r.violated and f.X(e) > f.X(s):
            bad_labels.append((f.X(s), f.X(e), y))
    for xs, xe, y in bad_labels:
        if xe - xs > 70 or xe + 62 > f.width:
            c.text(xe - 4, y + 15, "VIOLATION", size=10, fill="#ffffff", bold=True, anchor="end")
        else:
            c.text(xe + 3, y + 9, "VIOLATION", size=10, fill=C_BAD, bold=True)


def draw_marks(c, f, placed):
    """Marks, on the lanes as short flags and as labels above."""
    for m, lev in placed:
        if lev >= f.nlev:
            continue
        x = f.X(m.ns)
        y = f.mark_y + lev * f.MARK_H + 10
        c.line(x, y + 2, x, f.lane_y(m.cpu) + 8, C_MARK, sw=0.6, opacity=0.5)
        c.text(x + 2, y, m.text, size=11, fill=C_MARK, italic=True)


def draw_axis(c, f):
    step = nice_step((f.t1 - f.t0) / 1e6)
    tick = math.ceil(f.t0 / 1e6 / step) * step
    while tick * 1e6 <= f.t1:
        x = f.X(tick * 1e6)
        c.line(x, f.lanes_y, x, f.lanes_bottom + 5, "#cccccc", sw=0.6, opacity=0.7)
        c.text(x, f.lanes_bottom + 18, f"{tick:g}", size=11, anchor="middle")
        tick = round(tick + step, 6)
    c.text(f.left + f.plot_w / 2, f.lanes_bottom + 36, "time (ms since boot)", size=12,
           anchor="middle", fill="#333333")


# ---------------------------------------------------------------- legend

LEGEND = [
    ("bar", C_PRE, "pre-existing reader: running when the grace period started; "
                   "it must end before the grace period ends"),
    ("bar", C_LATER, "later reader: began after the grace period started; nothing has to "
                     "wait for it, and it may extend beyond its end"),
    ("bar", C_OTHER, "reader that no drawn grace period concerns"),
    ("bar", C_BAD, "VIOLATION: a pre-existing reader still running when the grace "
                   "period ended"),
    ("span", C_TOUR, "synchronize_rcu(): the tour from sync_begin to sync_end (dashed "
                     "line: start, solid: end)"),
    ("hop", C_TOUR, "run_on() hop: the updater arrives on that CPU after a context "
                    "switch there"),
    ("hop", C_LATE_HOP, "hop that waited for a later reader (begun after the tour "
                        "started): the tour is sequential, call_rcu()'s is not"),
    ("span", C_ASYNC, "call_rcu()'s grace period (gp_start..gp_end); top ticks: "
                      "quiescent states reported"),
    ("span", C_EXP, "synchronize_rcu_expedited() (exp_begin..exp_end): every CPU asked "
                    "at once; top ticks: each CPU's report"),
    ("tick", C_SWITCH, "context switch (bottom ticks); italic labels: trace_mark()"),
]
LEGEND_UPDATER = ("span", C_UPD, "updater's window, list_del_rcu..kfree or "
                  "call_rcu..callback: drawn when no grace period ran inside it")
LEGEND_DIRECT = ("tick", C_DIRECT, "IPC's direct switch (taller tick): the caller hands its "
                 "CPU to the receiver")
LEGEND_ROW_H = 22


def draw_legend(c, f, with_updater, with_direct=False):
    """Two columns under the axis; sets the canvas height."""
    ly = f.lanes_bottom + 58
    entries = LEGEND + ([LEGEND_UPDATER] if with_updater else []) + \
        ([LEGEND_DIRECT] if with_direct else [])
    col_w = f.plot_w / 2
    for i, (kind, col, label) in enumerate(entries):
        x = f.left + (i % 2) * col_w
        y = ly + (i // 2) * LEGEND_ROW_H
        if kind == "bar":
            c.rect(x, y - 10, 30, 13, col, opacity=0.9)
        elif kind == "span":
            c.rect(x, y - 10, 30, 13, col, opacity=0.85)
        elif kind == "hop":
            c.line(x, y - 3, x + 22, y - 3, col, sw=1.4, arrow=True)
            c.circle(x + 26, y - 3, 4.5, col)
        else:
            c.line(x + 15, y - 10, x + 15, y + 2, col, sw=1.5)
        c.text(x + 38, y + 1, label, size=11)
    c.height = int(ly + (len(entries) + 1) // 2 * LEGEND_ROW_H + 10)


# ---------------------------------------------------------------- the picture

def draw(model, log, window, width=1600):
    """The whole picture, back to front: header, spans, lanes, readers, tours, marks, legend."""
    c = Canvas(width)
    f = Frame(window, width, model.trace.cpus)
    gps, upd, spans = choose_spans(model, f)
    place_spans(f, spans)
    draw_header(c, f, model, log)
    draw_span_band(c, f, spans)
    placed = place_marks(f, model)
    draw_lanes(c, f, model)
    draw_span_shading(c, f, spans)
    draw_ticks(c, f, model, gps)
    draw_readers(c, f, model, spans)
    draw_tours(c, f, gps)
    draw_marks(c, f, placed)
    draw_axis(c, f)
    draw_legend(c, f, bool(upd), any(e.direct for e in model.switches))
    return c
