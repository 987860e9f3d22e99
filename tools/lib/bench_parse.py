"""make bench, the numbers: the '# BENCH' result lines and '# BENCH-META'
lines the kernel prints (tests/bench/), parsed into samples, then grouped
per measurement with the median, extremes and quartiles over the
repetitions and the ratios against the no-lock floor and against RCU.
tools/bench.py drives it; tools/lib/bench_report.py draws the rows.
"""

RESULT_PREFIX = "# BENCH "
META_PREFIX = "# BENCH-META "
# Columns of a sample that are not part of what was measured.
NOT_KEY = ("rep", "value")


# ---------------------------------------------------------------- parsing

def parse_line(line):
    """One '# BENCH k=v ...' line as a dict (value: float, cpus and rep: int);
    None for any other line or a malformed one."""
    line = line.strip()
    if not line.startswith(RESULT_PREFIX):
        return None
    fields = {}
    for word in line[len(RESULT_PREFIX):].split():
        if "=" not in word:
            return None
        k, v = word.split("=", 1)
        fields[k] = v
    for k in ("bench", "metric", "value", "cpus", "rep"):
        if k not in fields:
            return None
    try:
        fields["value"] = float(fields["value"])
        fields["cpus"] = int(fields["cpus"])
        fields["rep"] = int(fields["rep"])
    except ValueError:
        return None
    return fields


def parse_meta(line):
    """'# BENCH-META checking=0 cpus=2 ...' as a dict of strings, else None."""
    line = line.strip()
    if not line.startswith(META_PREFIX):
        return None
    return dict(w.split("=", 1) for w in line[len(META_PREFIX):].split() if "=" in w)


def parse_log(lines, malformed=None):
    """(samples, metas) from console lines.  A '# BENCH' line that cannot be
    read (cut short, or two CPUs' lines interleaved) is skipped, and when
    malformed is a list, (line number, line) is appended to it."""
    samples, metas = [], []
    for lineno, line in enumerate(lines, 1):
        s = parse_line(line)
        if s is not None:
            samples.append(s)
            continue
        m = parse_meta(line)
        if m is not None:
            metas.append(m)
        elif malformed is not None and looks_like_result(line):
            malformed.append((lineno, line.rstrip("\r\n")))
    return samples, metas


def looks_like_result(line):
    """A line meant as a result: it starts with the prefix (or a cut piece
    of it), or holds the prefix further in (interleaved)."""
    line = line.strip()
    prefix = RESULT_PREFIX.strip()
    return (line.startswith(prefix) or (len(line) >= 3 and prefix.startswith(line))
            or prefix in line[1:])


# ---------------------------------------------------------------- statistics

def quantile(xs, q):
    """The q-quantile of xs, linear between closest ranks (numpy's default)."""
    if not xs:
        raise ValueError("quantile of nothing")
    s = sorted(xs)
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def median(xs):
    return quantile(xs, 0.5)


def summarize(xs):
    """n, median, min, max and the quartiles of xs."""
    return {"n": len(xs), "median": median(xs), "min": min(xs), "max": max(xs),
            "q1": quantile(xs, 0.25), "q3": quantile(xs, 0.75)}


def sample_key(s):
    return tuple(sorted((k, v) for k, v in s.items() if k not in NOT_KEY))


def aggregate(samples):
    """One row per measurement (everything but rep and value), with its
    statistics over the repetitions.  Rows keep the first-seen order."""
    groups, order = {}, []
    for s in samples:
        k = sample_key(s)
        if k not in groups:
            groups[k] = []
            order.append(k)
        groups[k].append(s["value"])
    rows = []
    for k in order:
        row = dict(k)
        row.update(summarize(groups[k]))
        rows.append(row)
    add_ratios(rows)
    return rows


def find_row(rows, **want):
    for r in rows:
        if all(r.get(k) == v for k, v in want.items()):
            return r
    return None


def add_ratios(rows):
    """Read throughput rows get 'vs_floor' (median / the no-lock floor's at
    the same structure and CPU count, readers only) and 'rcu_ratio' (RCU's
    median / this one's, same structure, writers and CPUs)."""
    for r in rows:
        if r.get("bench") != "read" or r.get("metric") != "lookups_per_cpu":
            continue
        floor = find_row(rows, bench="read", metric="lookups_per_cpu", struct=r.get("struct"),
                         method="none", writers="0", cpus=r["cpus"])
        rcu = find_row(rows, bench="read", metric="lookups_per_cpu", struct=r.get("struct"),
                       method="rcu", writers=r.get("writers"), cpus=r["cpus"])
        if floor and floor["median"] > 0:
            r["vs_floor"] = r["median"] / floor["median"]
        if rcu and r["median"] > 0:
            r["rcu_ratio"] = rcu["median"] / r["median"]

