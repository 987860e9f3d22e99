// make web's page (tools/web.py, docs/web.md): the serial console in
// xterm.js, each CPU's state and RCU's counts, and the RCU timeline drawn
// as the kernel streams it.  The server sends the model tools/timeline.py
// draws (tools/lib/trace_stream.py: readers, waits, switches, marks) and
// timeline_svg's colours and legend; this file draws the same picture,
// scrolling, on a canvas.
"use strict";

const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------ the console

const term = new Terminal({ cols: 100, rows: 30, scrollback: 20000, fontSize: 13,
                            fontFamily: "DejaVu Sans Mono, monospace" });
term.open($("console"));
term.onData((keys) => { if (ws && ws.readyState === WebSocket.OPEN) ws.send(keys); });
term.focus();

// ------------------------------------------------------------ the model

let colours = {};
const store = new Map();	// key -> item (a reader, a wait, a switch, a mark)
let now = 0;			// the kernel's time (ns), as the stream last said
let nowAt = 0;			// performance.now() when it said so
let ncpus = 1;
let ended = null;

function take(items, at) {
  for (const it of items) store.set(it.key, it);
  setNow(at);
}

function setNow(at) {
  if (at > now) { now = at; nowAt = performance.now(); }
}

// Between two records the kernel's time goes on (TCG's clock follows the
// host's): the picture scrolls smoothly, at most a quarter second ahead.
function shownNow() {
  return ended ? now : now + Math.min(performance.now() - nowAt, 250) * 1e6;
}

// ------------------------------------------------------------ the link

let ws = null;

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  ws.binaryType = "arraybuffer";
  ws.onopen = () => { link("up", "live"); };
  ws.onmessage = (ev) => {
    if (typeof ev.data !== "string") { term.write(new Uint8Array(ev.data)); return; }
    const m = JSON.parse(ev.data);
    if (m.t === "hello") hello(m);
    else if (m.t === "items") take(m.items, m.now);
    else if (m.t === "status") status(m);
    else if (m.t === "panic") banner("panic", "KERNEL PANIC: " + m.line);
    else if (m.t === "end") end(m);
  };
  ws.onclose = () => {
    if (ended) { link("down", "QEMU has ended"); return; }
    link("down", "disconnected: reconnecting...");
    setTimeout(connect, 2000);
  };
}

function link(cls, text) { $("link").className = "link " + cls; $("link").textContent = text; }

function hello(m) {
  // A (re)connection: the server resends the scrollback and the model.
  term.reset();
  store.clear();
  colours = m.colours;
  $("machine").textContent = `${m.arch}, ${m.smp} CPUs`;
  const ul = $("legend");
  ul.textContent = "";
  for (const [kind, colour, label] of m.legend) {
    const li = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = colour;
    if (kind === "tick" || kind === "hop") sw.style.height = "3px";
    li.append(sw, label);
    ul.append(li);
  }
}

function banner(cls, text) {
  const b = $("banner");
  b.hidden = false;
  b.className = cls;
  b.textContent = text;
}

function end(m) {
  ended = m;
  banner(m.end === "clean" ? "clean" : m.end === "panic" ? "panic" : "other", m.verdict);
  term.write(`\r\n\x1b[1m[make web] ${m.verdict}\x1b[0m\r\n`);
}

function status(m) {
  ncpus = Math.max(1, m.ncpus);
  setNow(m.now || 0);
  const body = $("cpus").tBodies[0];
  body.textContent = "";
  for (const c of m.cpus) {
    const tr = body.insertRow();
    tr.insertCell().textContent = "CPU" + c.cpu;
    const st = tr.insertCell();
    st.textContent = c.state;
    st.className = c.state;
    tr.insertCell().textContent = c.state === "offline" ? "" : `${c.comm} (pid ${c.pid})`;
    tr.insertCell().textContent = c.state === "offline" ? "" : c.queued;
  }
  const r = m.rcu || {};
  const rows = [
    ["call_rcu() grace period", r.gp === undefined ? "" :
      `${r.gp}: ${r.running === "1" ? "in progress" : "none in progress"}`],
    ["CPUs that still owe it a quiescent state", r.owe],
    ["synchronize_rcu() tours", r.tours === undefined ? "" :
      `started ${r.tours}, completed ${r.toursdone}`],
    ["expedited", r.exp === undefined ? "" : `started ${r.exp}, completed ${r.expdone}`],
    ["callbacks", r.queued === undefined ? "" : `queued ${r.queued}, invoked ${r.invoked}`],
    ["grace periods completed", r.gps], ["stall reports", r.stalls]];
  const rb = $("rcu").tBodies[0];
  rb.textContent = "";
  for (const [k, v] of rows) {
    const tr = rb.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v === undefined ? "" : v;
  }
  $("stream-note").textContent = `${m.events} events streamed` +
    (m.lost ? `; ${m.lost} lost (the trace rings outran the stream: the lanes have gaps)` : "");
}

// ------------------------------------------------------------ the picture

const canvas = $("timeline");
const ctx = canvas.getContext("2d");
const LEFT = 100, RIGHT = 20, BAND_Y = 6, ROW_H = 22, MARK_H = 14, LANE_H = 58;
const MAX_MARK_LEVELS = 3;
let spanMs = 1000;
let follow = true;
let viewEnd = 0;		// ns at the right edge when not following
const hits = [];		// [x0, y0, x1, y1, tip] of what was drawn, for the tooltip
// What the last frames drew (the page's test reads it): the most grace
// periods seen ended in one frame with a pre-existing reader drawn.
const drawn = { frames: 0, spans: 0, readers: 0, pre_readers: 0, gps_with_pre: 0 };

function fmtMs(ns) { return (ns / 1e6).toFixed(3); }

function layout(spans, t0, t1, plotW) {
  // Greedy rows in the band, as timeline_svg.place_spans() does.
  const X = (ns) => LEFT + (Math.min(Math.max(ns, t0), t1) - t0) * plotW / (t1 - t0);
  const rowsEnd = [];
  ctx.font = "bold 11px DejaVu Sans, sans-serif";
  for (const w of spans) {
    const xs = X(w.s), xe = w.e === null ? X(t1) : X(w.e);
    const lab = w.label + (w.e === null ? " (unfinished)" : ` ${((w.e - w.s) / 1e6).toFixed(2)} ms`);
    const tw = ctx.measureText(lab).width;
    const inside = xe - xs >= tw + 8;
    const x1 = inside ? xe : xe + 4 + tw;
    let row = rowsEnd.findIndex((e) => xs > e + 8);
    if (row < 0) { row = rowsEnd.length; rowsEnd.push(x1); } else rowsEnd[row] = x1;
    w._row = row; w._lab = lab; w._inside = inside;
  }
  return Math.max(rowsEnd.length, 1);
}

function spanColour(w) {
  return { tour: colours.tour, exp: colours.exp, async: colours.async }[w.kind] || colours.updater;
}

function draw() {
  requestAnimationFrame(draw);
  const width = canvas.clientWidth;
  const t1 = follow ? shownNow() : viewEnd;
  const t0 = t1 - spanMs * 1e6;
  const plotW = width - LEFT - RIGHT;
  const X = (ns) => LEFT + (Math.min(Math.max(ns, t0), t1) - t0) * plotW / (t1 - t0);
  const items = [...store.values()];
  const visible = (a, b) => (b === null ? t1 : b) >= t0 && a <= t1;
  const spans = items.filter((it) => it.k === "w" && it.drawn && visible(it.s, it.e))
    .sort((a, b) => a.s - b.s);
  const nrows = layout(spans, t0, t1, plotW);
  const marks = items.filter((it) => it.k === "m" && it.ns >= t0 && it.ns <= t1)
    .sort((a, b) => a.ns - b.ns);
  const markY = BAND_Y + nrows * ROW_H + 8;
  const lanesY = markY + MAX_MARK_LEVELS * MARK_H + 6;
  const lanesBottom = lanesY + ncpus * LANE_H;
  const height = lanesBottom + 30;
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width; canvas.height = height;
  }
  ctx.clearRect(0, 0, width, height);
  hits.length = 0;
  const laneY = (cpu) => lanesY + cpu * LANE_H;
  const laneMid = (cpu) => laneY(cpu) + LANE_H / 2;

  // Lanes.
  ctx.textAlign = "right";
  for (let cpu = 0; cpu < ncpus; cpu++) {
    ctx.fillStyle = cpu % 2 ? "#fbfbfb" : "#f4f4f4";
    ctx.fillRect(LEFT, laneY(cpu), plotW, LANE_H);
    ctx.fillStyle = "#000";
    ctx.font = "bold 14px DejaVu Sans, sans-serif";
    ctx.fillText("CPU" + cpu, LEFT - 8, laneMid(cpu) + 5);
  }
  ctx.font = "12px DejaVu Sans, sans-serif";
  ctx.fillStyle = "#333";
  ctx.fillText("grace", LEFT - 8, BAND_Y + 14);
  ctx.fillText("periods", LEFT - 8, BAND_Y + 28);

  // Grace periods: shading through the lanes, start (dashed) and end lines, the band.
  for (const w of spans) {
    const col = spanColour(w), xs = X(w.s), xe = w.e === null ? X(t1) : X(w.e);
    const y = BAND_Y + w._row * ROW_H;
    ctx.globalAlpha = 0.10; ctx.fillStyle = col;
    ctx.fillRect(xs, lanesY, xe - xs, lanesBottom - lanesY);
    ctx.globalAlpha = 0.8; ctx.strokeStyle = col; ctx.lineWidth = 1.2; ctx.setLineDash([5, 4]);
    line(xs, y + 18, xs, lanesBottom);
    ctx.setLineDash([]);
    if (w.e !== null) {
      ctx.strokeStyle = w.bad ? colours.bad : col; ctx.lineWidth = 1.6;
      line(xe, y + 18, xe, lanesBottom);
    }
    ctx.globalAlpha = 0.85; ctx.fillStyle = w.bad ? colours.bad : col;
    ctx.fillRect(xs, y + 4, Math.max(xe - xs, 0.8), 14);
    ctx.globalAlpha = 1;
    ctx.font = "bold 11px DejaVu Sans, sans-serif";
    ctx.textAlign = w._inside || xe + 8 + ctx.measureText(w._lab).width < width ? "left" : "right";
    ctx.fillStyle = w._inside ? "#fff" : (w.bad ? colours.bad : col);
    ctx.fillText(w._lab, w._inside ? xs + 4 : ctx.textAlign === "left" ? xe + 4 : xs - 4, y + 15);
    hits.push([xs, y + 4, xe, y + 18, `${w.tip}: ${fmtMs(w.s)}..${w.e === null ? "?" : fmtMs(w.e)} ms; ` +
               `pre-existing readers ${w.pre}, later ${w.later} (${w.beyond} beyond the end)`]);
  }

  // Context switches (bottom ticks; IPC's direct ones taller) and quiescent states (top ticks).
  for (const it of items) {
    if (it.k !== "s" || it.ns < t0 || it.ns > t1 || it.cpu >= ncpus) continue;
    ctx.strokeStyle = it.direct ? colours.direct : colours.switch; ctx.lineWidth = 1.2;
    const y = laneY(it.cpu);
    line(X(it.ns), y + LANE_H - (it.direct ? 18 : 11), X(it.ns), y + LANE_H - 2);
  }
  for (const w of spans) {
    ctx.strokeStyle = spanColour(w); ctx.lineWidth = 2;
    for (const [ns, cpu] of w.qs)
      if (ns >= t0 && ns <= t1 && cpu < ncpus) line(X(ns), laneY(cpu) + 2, X(ns), laneY(cpu) + 13);
  }

  // Readers, coloured by their class against the grace periods that ended.
  let nreaders = 0, npre = 0;
  for (const r of items) {
    if (r.k !== "r" || r.cpu >= ncpus || !visible(r.s, r.e)) continue;
    const xs = X(r.s), xe = X(r.e === null ? now : r.e), y = laneMid(r.cpu) - 11;
    ctx.globalAlpha = 0.9; ctx.fillStyle = colours[r.kind];
    ctx.fillRect(xs, y, Math.max(xe - xs, 0.8), 22);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = r.kind === "bad" ? "#222" : "#fff"; ctx.lineWidth = r.kind === "bad" ? 2 : 1;
    ctx.strokeRect(xs, y, Math.max(xe - xs, 0.8), 22);
    hits.push([xs, y, xe, y + 22, r.tip + (r.e === null ? " (running)" : "")]);
    nreaders++;
    npre += r.kind === "pre";
  }

  // Tours: the updater's journey, its hops as dots.
  for (const w of spans) {
    if (w.kind !== "tour") continue;
    const stops = [[w.s, w.cpu, false]].concat(w.hops, w.e === null ? [] : [[w.e, w.end_cpu, false]])
      .filter(([ns, cpu]) => ns >= t0 && ns <= t1 && cpu < ncpus);
    for (let i = 1; i < stops.length; i++) {
      ctx.strokeStyle = stops[i][2] ? colours.late_hop : colours.tour; ctx.lineWidth = 1.4;
      line(X(stops[i - 1][0]), laneMid(stops[i - 1][1]), X(stops[i][0]), laneMid(stops[i][1]));
    }
    for (const [ns, cpu, late] of w.hops) {
      if (ns < t0 || ns > t1 || cpu >= ncpus) continue;
      ctx.fillStyle = late ? colours.late_hop : colours.tour;
      ctx.beginPath(); ctx.arc(X(ns), laneMid(cpu), late ? 5.5 : 4.5, 0, 2 * Math.PI); ctx.fill();
      hits.push([X(ns) - 5, laneMid(cpu) - 5, X(ns) + 5, laneMid(cpu) + 5,
                 `${w.label}: run_on(${cpu}) arrived at ${fmtMs(ns)} ms` +
                 (late ? "; it waited for a later reader, begun after the tour started" : "")]);
    }
  }

  // Marks: labels above the lanes, staggered.
  const levelEnd = [];
  ctx.font = "italic 11px DejaVu Sans, sans-serif";
  ctx.textAlign = "left";
  for (const m of marks) {
    const x = X(m.ns), tw = ctx.measureText(m.text).width;
    let lev = levelEnd.findIndex((e) => x > e + 4);
    if (lev < 0) { lev = levelEnd.length; levelEnd.push(0); }
    levelEnd[lev] = x + tw + 4;
    if (lev >= MAX_MARK_LEVELS || m.cpu >= ncpus) continue;
    const y = markY + lev * MARK_H + 10;
    ctx.globalAlpha = 0.5; ctx.strokeStyle = colours.mark; ctx.lineWidth = 0.6;
    line(x, y + 2, x, laneY(m.cpu) + 8);
    ctx.globalAlpha = 1; ctx.fillStyle = colours.mark;
    ctx.fillText(m.text, x + 2, y);
  }

  // The time axis, in ms since boot.
  const step = niceStep(spanMs);
  ctx.font = "11px DejaVu Sans, sans-serif"; ctx.textAlign = "center"; ctx.fillStyle = "#000";
  for (let tick = Math.ceil(t0 / 1e6 / step) * step; tick * 1e6 <= t1; tick += step) {
    const x = X(tick * 1e6);
    ctx.strokeStyle = "#ccc"; ctx.lineWidth = 0.6;
    line(x, lanesY, x, lanesBottom + 5);
    ctx.fillText(String(+tick.toFixed(3)), x, lanesBottom + 18);
  }

  const withPre = spans.filter((w) => w.k === "w" && w.e !== null && w.pre > 0 &&
                               ["tour", "exp", "async"].includes(w.kind)).length;
  drawn.frames++;
  if (withPre && npre) {
    drawn.gps_with_pre = Math.max(drawn.gps_with_pre, withPre);
    drawn.pre_readers = Math.max(drawn.pre_readers, npre);
  }
  drawn.spans = Math.max(drawn.spans, spans.length);
  drawn.readers = Math.max(drawn.readers, nreaders);
  $("counts").textContent = `${fmtMs(t0)}..${fmtMs(t1)} ms since boot: ${spans.length} ` +
    `waits, ${nreaders} readers drawn`;
}

function line(x1, y1, x2, y2) { ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke(); }

function niceStep(ms) {
  const raw = ms / 12, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

// ------------------------------------------------------------ controls

$("span").onchange = (e) => { spanMs = +e.target.value; };
$("follow").onclick = () => {
  follow = !follow;
  viewEnd = now;
  $("follow").textContent = follow ? "pause" : "follow";
};
let drag = null;
canvas.onmousedown = (e) => { if (!follow) drag = [e.clientX, viewEnd]; };
window.onmouseup = () => { drag = null; };
canvas.onwheel = (e) => {
  e.preventDefault();
  spanMs = Math.min(120000, Math.max(20, spanMs * (e.deltaY > 0 ? 1.25 : 0.8)));
};
canvas.onmousemove = (e) => {
  const r = canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
  if (drag) {
    viewEnd = Math.min(now, drag[1] - (e.clientX - drag[0]) * spanMs * 1e6 / (canvas.width - LEFT - RIGHT));
    return;
  }
  const hit = [...hits].reverse().find(([x0, y0, x1, y1]) => x >= x0 && x <= x1 && y >= y0 && y <= y1);
  const tip = $("tip");
  tip.hidden = !hit;
  if (hit) {
    tip.textContent = hit[4];
    tip.style.left = e.clientX + 12 + "px";
    tip.style.top = e.clientY + 12 + "px";
  }
};
canvas.onmouseleave = () => { $("tip").hidden = true; };
$("save").onclick = () => {
  const t1 = follow ? now : viewEnd;
  $("save").href = `/timeline.svg?token=${encodeURIComponent(token)}` +
    `&t0=${Math.round(t1 - spanMs * 1e6)}&t1=${Math.round(t1)}`;
};

// For the page's test (tools/test_web.py): the terminal's text and what was drawn.
window.qweb = {
  term, drawn,
  text: () => {
    const b = term.buffer.active, out = [];
    for (let i = 0; i < b.length; i++) out.push(b.getLine(i).translateToString(true));
    return out.join("\n");
  },
  ended: () => ended,
  items: () => store.size,
  hasMark: (text) => [...store.values()].some((it) => it.k === "m" && it.text === text),
  // Stops following and shows the last second's grace periods whole (for pictures).
  showGps: () => {
    const gps = [...store.values()].filter((w) => w.k === "w" && w.e !== null &&
      ["tour", "exp", "async"].includes(w.kind) && w.e > now - 2e9);
    if (!gps.length) return false;
    const t0 = Math.min(...gps.map((w) => w.s)), t1 = Math.max(...gps.map((w) => w.e));
    const pad = (t1 - t0) * 0.08;
    follow = false;
    $("follow").textContent = "follow";
    viewEnd = t1 + pad;
    spanMs = (t1 - t0 + 2 * pad) / 1e6;
    return true;
  },
};

connect();
requestAnimationFrame(draw);
