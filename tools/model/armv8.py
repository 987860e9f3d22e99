"""The ARMv8 encoding: a .wmm file (short access sequences, one per CPU)
turned into Promela, with the reorderings the architecture allows.

Promela is sequentially consistent, so the weak memory is ours, and it is
this, an out-of-order machine over one shared memory:

  * Each CPU holds its whole sequence at once and may perform any access
    whose ordering constraints are met, in any order.  A store is visible
    to every CPU the moment it is performed (ARMv8 is other-multi-copy
    atomic); a load reads the memory at the moment it is performed.
  * What orders two accesses of one CPU (earlier -> later in program
    order), as ARMv8's "ordered-before" does for these instructions:
      dmb ish (smp_mb)    everything before -> everything after
      dmb ishld (smp_rmb) loads before -> loads and stores after
      dmb ishst (smp_wmb) stores before -> stores after
      ldar / acquire      the load -> everything after
      stlr / release      everything before -> the store
      stlr then ldar      ordered (ARMv8 acquire is RCsc)
      address dependency  the load -> the access whose address it gives,
                          and -> every store after that access
      data dependency     the load -> the store whose value it gives
      control dependency  the load -> stores under the `if` it decides
      same location       load->load, load->store and store->store keep
                          their order (coherence); a load after a store to
                          the same location may take the store's value
                          before the store is visible (forwarding)
    Nothing else is ordered: a load under an `if` may be performed before
    the `if` is decided (speculation); a load may pass an earlier store,
    a store an earlier load, a store an earlier store.
  * An atomic exchange or compare-and-swap is a load-exclusive and a
    store-exclusive: two accesses, ordered only by their own .acq/.rel,
    with no other store to the location between them.
  * lock/unlock: a lock taken with an acquire (the load that sees the
    unlock) and released with a release store, as the ticket lock is.

tools/model/litmus/ holds the classic tests with the architecture's
answers; make model runs them first and stops if this encoding disagrees.

Simplifications (each makes the machine stronger, never weaker, so a
barrier the model calls unnecessary is checked by the litmus tests
only as far as they reach): a lock is one step; an instruction under an
`if` that turns out false still keeps the order it would have had; the
reservation of an exclusive blocks other CPUs' stores to the location
instead of failing and retrying (the outcomes are the same).
"""

import json
import re

KINDS_ACCESS = ("ld", "st", "xld", "xst", "lock", "unlock")
FENCES = ("mb", "wmb", "rmb")


class WmmError(Exception):
    """A .wmm file that does not parse: message names file and line."""


class Insn:
    def __init__(self, **kw):
        self.kind = None        # ld st xld xst lock unlock mb wmb rmb
        self.func = ""          # the C function this step stands for
        self.reg = None         # register a load writes
        self.loc = None
        self.value = None       # store value expression (Promela)
        self.expect = None      # cas: expected value expression
        self.guard = None       # `if` condition (Promela), None: always
        self.addr = []          # registers giving the address
        self.acq = False
        self.rel = False
        self.barrier = None     # barrier id ([id] in the file)
        self.text = ""          # the source line, for trails
        self.line = 0
        self.cas = False
        self.__dict__.update(kw)

    def is_load(self):
        return self.kind in ("ld", "xld", "lock")

    def is_store(self):
        return self.kind in ("st", "xst", "lock", "unlock")

    def is_access(self):
        return self.kind in KINDS_ACCESS


class Model:
    def __init__(self):
        self.path = ""
        self.title = ""
        self.doc = []
        self.init = {}          # location -> initial value
        self.names = {}         # location -> display name
        self.threads = []       # (name, [Insn])
        self.outcomes = []      # [source expression, what it means]
        self.expect = "forbidden"
        self.variants = []      # (name, removed ids, expect, why)
        self.kind = "kernel"    # kernel | litmus

    def barrier_ids(self):
        ids = []
        for _, insns in self.threads:
            for i in insns:
                if i.barrier and i.barrier not in ids:
                    ids.append(i.barrier)
        return ids


_REG = re.compile(r"\br(\d+)\b")
_TOKEN = re.compile(r"\s*(?:(\w+:r\d+)|(\w+)|(\d+)|(==|!=|<=|>=|&&|\|\||[-+&|!<>()~^*]))")


def _regs(expr):
    return ["r" + n for n in _REG.findall(expr or "")]


def _check_expr(expr, where, allowed):
    """Tokenizes expr; allowed(name) says whether an identifier may appear."""
    pos = 0
    expr = expr.strip()
    if not expr:
        raise WmmError(f"{where}: empty expression")
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise WmmError(f"{where}: cannot read expression at '{expr[pos:]}'")
        ident = m.group(1) or m.group(2)
        if ident and not ident.isdigit() and not allowed(ident):
            raise WmmError(f"{where}: unknown name '{ident}' in '{expr}'")
        pos = m.end()


def parse(path):
    m = Model()
    m.path = path
    cur = None
    with open(path) as f:
        lines = f.read().split("\n")
    for n, raw in enumerate(lines, 1):
        where = f"{path}:{n}"
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        head, _, rest = line.strip().partition(":")
        key = head.strip()
        if not raw[0].isspace() and key in ("title", "doc", "init", "expect", "outcome",
                                              "says", "variant", "thread", "kind"):
            rest = rest.strip()
            if key == "title":
                m.title = rest
            elif key == "doc":
                m.doc.append(rest)
            elif key == "kind":
                if rest not in ("kernel", "litmus"):
                    raise WmmError(f"{where}: kind is kernel or litmus")
                m.kind = rest
            elif key == "init":
                for item in rest.split():
                    name, eq, val = item.partition("=")
                    if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name) or not val.isdigit():
                        raise WmmError(f"{where}: init wants name=number, got '{item}'")
                    m.init[name] = int(val)
            elif key == "expect":
                if rest not in ("allowed", "forbidden"):
                    raise WmmError(f"{where}: expect is 'allowed' or 'forbidden'")
                m.expect = rest
            elif key == "outcome":
                m.outcomes.append([rest, ""])
            elif key == "says":
                if not m.outcomes:
                    raise WmmError(f"{where}: 'says:' explains the 'outcome:' line above it")
                m.outcomes[-1][1] = rest.strip('"')
            elif key == "variant":
                _parse_variant(m, rest, where)
            elif key == "thread":
                cur = (rest, [])
                if not re.fullmatch(r"[A-Za-z]\w*", rest):
                    raise WmmError(f"{where}: thread name '{rest}' is not an identifier")
                m.threads.append(cur)
            continue
        if not raw[0].isspace():
            raise WmmError(f"{where}: unknown key '{key}' (instructions are indented under 'thread:')")
        if cur is None:
            raise WmmError(f"{where}: instruction before any 'thread:'")
        cur[1].append(_parse_insn(line.strip(), where, n, m))
    _finish(m)
    return m


def _parse_variant(m, rest, where):
    # variant NAME = id+id : allowed|forbidden "why"
    mm = re.fullmatch(r'(\w+)\s*=\s*([\w+]+)\s*:\s*(allowed|forbidden)\s*(?:"(.*)")?', rest)
    if not mm:
        raise WmmError(f'{where}: variant wants: NAME = id+id : allowed|forbidden "why"')
    m.variants.append((mm.group(1), mm.group(2).split("+"), mm.group(3), mm.group(4) or ""))


_OPS = [
    ("ld", re.compile(r"(r\d+)\s*=\s*load(\.acq)?\s+(\w+)$")),
    ("st", re.compile(r"store(\.rel)?\s+(\w+)\s*=\s*(.+)$")),
    ("xchg", re.compile(r"(r\d+)\s*=\s*xchg(\.acq|\.rel|\.acqrel)?\s+(\w+)\s*=\s*(.+)$")),
    ("cas", re.compile(r"(r\d+)\s*=\s*cas(\.acq|\.rel|\.acqrel)?\s+(\w+)\s*,\s*(.+?)\s*->\s*(.+)$")),
    ("fadd", re.compile(r"(r\d+)\s*=\s*fadd(\.acq|\.rel|\.acqrel)?\s+(\w+)\s*,\s*(.+)$")),
    ("lock", re.compile(r"lock\s+(\w+)$")),
    ("unlock", re.compile(r"unlock\s+(\w+)$")),
    ("fence", re.compile(r"(mb|wmb|rmb)$")),
]


def _parse_insn(text, where, n, model):
    src = text
    func = ""
    mm = re.match(r"([A-Za-z_]\w*\(\))\s*(.*)$", text)
    if mm:
        func, text = mm.group(1), mm.group(2)
    barrier = None
    bm = re.search(r"\[(\w+)\]", text)
    if bm:
        barrier = bm.group(1)
        text = (text[:bm.start()] + text[bm.end():]).strip()
    guard = None
    gm = re.search(r"\s+if\s+(.+)$", text)
    if gm:
        guard = gm.group(1).strip()
        text = text[:gm.start()].strip()
    addr = []
    am = re.search(r"\s+addr\(([^)]*)\)", text)
    if am:
        addr = [a.strip() for a in am.group(1).split(",") if a.strip()]
        text = (text[:am.start()] + text[am.end():]).strip()
    base = dict(func=func, barrier=barrier, guard=guard, addr=addr, text=src, line=n)
    for kind, rx in _OPS:
        mm = rx.match(text)
        if not mm:
            continue
        if kind == "ld":
            return [Insn(kind="ld", reg=mm.group(1), acq=bool(mm.group(2)), loc=mm.group(3), **base)]
        if kind == "st":
            return [Insn(kind="st", rel=bool(mm.group(1)), loc=mm.group(2), value=mm.group(3).strip(), **base)]
        if kind in ("xchg", "cas", "fadd"):
            o = mm.group(2) or ""
            acq, rel = "acq" in o, "rel" in o
            reg, loc = mm.group(1), mm.group(3)
            if kind == "xchg":
                expect, value = None, mm.group(4).strip()
            elif kind == "fadd":	# fetch-and-add: stores the value read plus EXPR
                expect, value = None, f"{reg} + ({mm.group(4).strip()})"
            else:
                expect, value = mm.group(4).strip(), mm.group(5).strip()
            ld = Insn(kind="xld", reg=reg, loc=loc, acq=acq, cas=kind == "cas", **base)
            st = Insn(kind="xst", loc=loc, rel=rel, value=value, expect=expect, pair=reg,
                      cas=kind == "cas", **base)
            return [ld, st]
        if kind == "lock":
            return [Insn(kind="lock", loc=mm.group(1), acq=True, **base)]
        if kind == "unlock":
            return [Insn(kind="unlock", loc=mm.group(1), rel=True, value="0", **base)]
        if guard:
            raise WmmError(f"{where}: a fence cannot sit under an 'if' (write the two paths as two models)")
        return [Insn(kind=mm.group(1), **base)]
    raise WmmError(f"{where}: cannot read instruction '{src}'")


def _finish(m):
    if not m.threads:
        raise WmmError(f"{m.path}: no thread")
    if not m.outcomes:
        raise WmmError(f"{m.path}: no 'outcome:' line")
    tnames = [t for t, _ in m.threads]
    if len(set(tnames)) != len(tnames):
        raise WmmError(f"{m.path}: two threads with one name")
    for t, groups in m.threads:
        flat, written = [], set()
        for g in groups:
            for i in g:
                i.tid = t
                where = f"{m.path}:{i.line}"
                if i.loc is not None and i.loc not in m.init:
                    raise WmmError(f"{where}: location '{i.loc}' is not in 'init:'")
                if i.reg:
                    if i.reg in written:
                        raise WmmError(f"{where}: register {i.reg} written twice (use a new one)")
                used = _regs(i.guard) + _regs(i.value) + _regs(i.expect) + i.addr
                for r in used:
                    if r not in written and r != i.reg and r != getattr(i, "pair", None):
                        raise WmmError(f"{where}: register {r} used before a load writes it")
                for e in (i.guard, i.value, i.expect):
                    if e is not None:
                        _check_expr(e, where, lambda name: re.fullmatch(r"r\d+", name) is not None)
                flat.append(i)
            for i in g:
                if i.reg:
                    written.add(i.reg)
        groups[:] = flat
        for k, i in enumerate(flat):
            i.idx = k
    regs = {f"{t}:{i.reg}" for t, ins in m.threads for i in ins if i.reg}
    for src, _ in m.outcomes:
        _check_expr(src, f"{m.path}: outcome", lambda name: name in regs or name in m.init)
    known = m.barrier_ids()
    for name, ids, _, _ in m.variants:
        for b in ids:
            if b not in known:
                raise WmmError(f"{m.path}: variant {name} removes [{b}], which no instruction carries")


def _outcome_promela(src, m):
    def sub(mm):
        tok = mm.group(0)
        if ":" in tok:
            t, r = tok.split(":")
            return f"{t}_{r}"
        if tok in m.init:
            return f"m_{tok}"
        return tok
    return re.sub(r"\w+:r\d+|[A-Za-z_]\w*", sub, src)


def variants(m):
    """[(name, removed ids, expect, why)]: the base model, then every barrier
    removed in turn, then the file's own variants (which may override the
    expectation of a one-barrier variant)."""
    out = [("base", [], m.expect, "")]
    own = {v[0]: v for v in m.variants}
    for b in m.barrier_ids():
        name = "no_" + b
        if name in own:
            out.append(own.pop(name))
        else:
            out.append((name, [b], "allowed", ""))
    out.extend(v for v in m.variants if v[0] in own)
    return out


# ---- ordering ---------------------------------------------------------------

def _strip(insns, removed):
    """Copies insns with the removed barriers gone: a fence disappears, an
    acquire/release access becomes a plain one, an access tagged for its
    address dependency (rcu_dereference()) loses it."""
    out = []
    for i in insns:
        c = Insn(**i.__dict__)
        if c.barrier in removed:
            if c.kind in FENCES:
                continue
            c.acq = c.rel = False
            c.addr = []
        out.append(c)
    for k, c in enumerate(out):
        c.idx = k
    return out


def _fence_orders(kind, a, b):
    if kind == "mb":
        return True
    if kind == "wmb":
        return a.is_store() and b.is_store()
    if kind == "rmb":
        return a.is_load()
    return False


def preds(insns):
    """For each instruction, the set of earlier ones it must wait for."""
    writer = {}
    for i in insns:
        if i.reg:
            writer[i.reg] = i.idx
    out = []
    for b in insns:
        p = set()
        if b.kind in FENCES:
            out.append(p)
            continue
        for a in insns[:b.idx]:
            if not a.is_access():
                continue
            fences = [f for f in insns[a.idx + 1:b.idx] if f.kind in FENCES]
            if any(_fence_orders(f.kind, a, b) for f in fences):
                p.add(a.idx)
            elif a.acq and a.is_load():
                p.add(a.idx)
            elif b.rel and b.is_store():
                p.add(a.idx)
            elif a.rel and a.is_store() and b.acq and b.is_load():
                p.add(a.idx)
            elif a.loc == b.loc and not (a.kind in ("st", "unlock") and b.kind == "ld"):
                p.add(a.idx)            # coherence (store->plain load: forwarding, below)
        deps = list(b.addr) + _regs(b.value) + _regs(b.expect)
        if b.is_store() and b.kind != "xld":
            deps += _regs(b.guard)
        if b.kind == "xst":
            deps.append(b.pair)
        for r in deps:
            p.add(writer[r])
        # address dependency, then po, to a store
        if b.is_store():
            for a in insns[:b.idx]:
                if a.addr and a.is_access():
                    for r in a.addr:
                        p.add(writer[r])
        out.append(p)
    return out


def _mask(s):
    v = 0
    for k in s:
        v |= 1 << k
    return v


# ---- Promela ----------------------------------------------------------------

def emit(m, removed):
    """Returns (promela text, metadata for trails)."""
    th = [(t, _strip(ins, set(removed))) for t, ins in m.threads]
    P = []
    P.append(f"/* Generated by tools/model/armv8.py from {m.path}; variant removes "
             f"{', '.join(removed) or 'nothing'}.  Do not edit. */")
    for loc, v in m.init.items():
        P.append(f"byte m_{loc} = {v};")
    xlocs = sorted({i.loc for _, ins in th for i in ins if i.kind == "xld"})
    for loc in xlocs:
        P.append(f"byte resv_{loc} = 0;\t/* CPU (1-based) holding an exclusive reservation */")
    for t, ins in th:
        for i in ins:
            if i.reg:
                P.append(f"byte {t}_{i.reg};")
        P.append(f"bit done_{t};")
    P.append("")
    for tn, (t, ins) in enumerate(th, 1):
        P.extend(_emit_thread(t, tn, ins))
    P.append("active proctype outcome()")
    P.append("{")
    P.append("\t(" + " && ".join(f"done_{t}" for t, _ in th) + ");")
    P.append('\tprintf("@@F ' + " ".join(f"{loc}=%d" for loc in m.init) + '\\n", '
             + ", ".join(f"m_{loc}" for loc in m.init) + ");")
    outs = [_outcome_promela(src, m) for src, _ in m.outcomes]
    for k, o in enumerate(outs):
        P.append(f'\tif :: ({o}) -> printf("@@B {k}\\n") :: else -> skip fi;')
    P.append("\tassert(!((" + " || ".join(f"({o})" for o in outs) + ")))")
    P.append("}")
    meta = {"title": m.title, "path": m.path, "kind": m.kind, "outcomes": m.outcomes,
            "threads": {t: [{"func": i.func, "text": i.text, "kind": i.kind, "loc": i.loc,
                             "reg": i.reg, "acq": i.acq, "rel": i.rel, "barrier": i.barrier,
                             "line": i.line} for i in ins] for t, ins in th}}
    return "\n".join(P) + "\n", meta


def _emit_thread(t, tn, ins):
    pr = preds(ins)
    writer = {i.reg: i.idx for i in ins if i.reg}
    acc = [i for i in ins]
    allmask = _mask(range(len(ins)))
    L = [f"active proctype {t}()", "{", "\tint ex = 0;\t/* performed instructions, a bit each */", "\tdo"]

    def R(e):
        return re.sub(r"\br(\d+)\b", lambda mm: f"{t}_r{mm.group(1)}", e)

    def ready(regs):
        return _mask({writer[r] for r in regs})

    for i in acc:
        bit = 1 << i.idx
        base = f"!(ex & {bit}) && (ex & {_mask(pr[i.idx])}) == {_mask(pr[i.idx])}"
        done = f"ex = ex | {bit}"
        tag = f"{tn} {i.idx}"
        if i.kind in FENCES:
            L.append(f"\t:: atomic {{ {base} -> {done} }}")
            continue
        g = R(i.guard) if i.guard else None
        gready = ready(_regs(i.guard)) if i.guard else 0
        if i.kind in ("ld", "xld"):
            same = [s for s in ins[:i.idx] if s.loc == i.loc and s.kind in ("st", "unlock")]
            resv = f" && (resv_{i.loc} == 0 || resv_{i.loc} == {tn})" if i.kind == "xld" else ""
            mem_ok = " && ".join(f"(ex & {1 << s.idx})" for s in same) or "true"
            setres = f"; resv_{i.loc} = {tn}" if i.kind == "xld" else ""
            read = f"{t}_{i.reg} = m_{i.loc}{setres}"
            spec = f"((ex & {gready}) != {gready})" if i.guard else "0"
            if i.guard:
                L.append(f"\t:: atomic {{ {base} && (ex & {gready}) == {gready} && !({g}) -> {done}; "
                         f'printf("@@ {tag} skip\\n") }}')
                base_r = f"{base} && ((ex & {gready}) != {gready} || ({g}))"
            else:
                base_r = base
            L.append(f"\t:: atomic {{ {base_r} && {mem_ok}{resv} -> {read}; {done}; "
                     f'printf("@@ {tag} read %d %d\\n", {t}_{i.reg}, {spec}) }}')
            if same and i.kind == "ld":
                s = same[-1]
                sready = _mask({writer[r] for r in _regs(s.value) + _regs(s.guard) + s.addr})
                sg = f" && ({R(s.guard)})" if s.guard else ""
                L.append(f"\t:: atomic {{ {base_r} && !(ex & {1 << s.idx}) && (ex & {sready}) == {sready}{sg}"
                         f" -> {t}_{i.reg} = {R(s.value)}; {done}; "
                         f'printf("@@ {tag} fwd %d {s.idx}\\n", {t}_{i.reg}) }}')
            continue
        # stores: st, xst, lock, unlock
        if i.guard:
            L.append(f"\t:: atomic {{ {base} && !({g}) -> {done}; "
                     f'printf("@@ {tag} skip\\n"){_clear_resv(i, tn)} }}')
            cond = f"{base} && ({g})"
        else:
            cond = base
        if i.kind == "lock":
            L.append(f"\t:: atomic {{ {cond} && m_{i.loc} == 0 -> m_{i.loc} = 1; {done}; "
                     f'printf("@@ {tag} lock\\n") }}')
            continue
        others = f" && (resv_{i.loc} == 0 || resv_{i.loc} == {tn})" if _has_x(i.loc) else ""
        val = R(i.value)
        if i.kind == "xst":
            reg = f"{t}_{i.pair}"
            if i.cas:
                ok = f"{reg} == ({R(i.expect)})"
                L.append(f"\t:: atomic {{ {cond} && !({ok}) -> {done}{_clear_resv(i, tn)}; "
                         f'printf("@@ {tag} casfail\\n") }}')
                cond = f"{cond} && {ok}"
            L.append(f"\t:: atomic {{ {cond} -> m_{i.loc} = {val}{_clear_resv(i, tn)}; {done}; "
                     f'printf("@@ {tag} write %d\\n", m_{i.loc}) }}')
            continue
        L.append(f"\t:: atomic {{ {cond}{others} -> m_{i.loc} = {val}; {done}; "
                 f'printf("@@ {tag} write %d\\n", m_{i.loc}) }}')
    L.append(f"\t:: atomic {{ ex == {allmask} -> break }}")
    L.append("\tod;")
    L.append(f"\tdone_{t} = 1")
    L.append("}")
    L.append("")
    return L


_XLOCS = set()


def _has_x(loc):
    return loc in _XLOCS


def _clear_resv(i, tn):
    if i.kind != "xst":
        return ""
    return f"; resv_{i.loc} = (resv_{i.loc} == {tn} -> 0 : resv_{i.loc})"


def generate(path, removed, out_pml, out_meta):
    m = parse(path)
    _XLOCS.clear()
    _XLOCS.update(i.loc for _, ins in m.threads for i in ins if i.kind == "xld")
    text, meta = emit(m, removed)
    with open(out_pml, "w") as f:
        f.write(text)
    with open(out_meta, "w") as f:
        json.dump(meta, f, indent=1)
    return m


def emit_batch(models):
    """One Promela model holding every (model, removed barriers) pair of the
    list: init picks one, and the failed assertion names it (test == K).
    One verifier instead of one per test or variant."""
    out = ["/* Generated by tools/model/armv8.py: a batch of litmus tests.  Do not edit. */",
           "byte test;", ""]
    runs = []
    metas = []
    for k, (m, removed) in enumerate(models, 1):
        _XLOCS.clear()
        _XLOCS.update(i.loc for _, ins in m.threads for i in ins if i.kind == "xld")
        text, meta = emit(m, removed)
        metas.append(meta)
        names = {f"m_{loc}" for loc in m.init} | {f"resv_{loc}" for loc in m.init}
        names |= {f"done_{t}" for t, _ in m.threads} | {t for t, _ in m.threads} | {"outcome"}
        names |= {f"{t}_{i.reg}" for t, ins in m.threads for i in ins if i.reg}
        text = re.sub(r"\b[A-Za-z_]\w*\b",
                      lambda mm: f"t{k}_{mm.group(0)}" if mm.group(0) in names else mm.group(0), text)
        text = text.replace("active proctype", "proctype")
        text = text.replace("\tassert(!((", f"\tassert(!(test == {k} && (")
        out.append(text)
        runs.append(f"\t:: test = {k}; " + "; ".join(f"run t{k}_{t}()" for t, _ in m.threads)
                    + f"; run t{k}_outcome()")
    out.append("init\n{\n\tatomic {\n\tif")
    out.extend(runs)
    out.append("\tfi\n\t}\n}")
    return "\n".join(out) + "\n", metas
