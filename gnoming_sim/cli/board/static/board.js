// gnoming-sim board: the page's script. Plain JavaScript, no build step, nothing fetched from elsewhere.
// The position is kept as the TOML-shaped dict the loader reads (players, me, layouts, piles, decision...);
// every edit sends it to /api/validate, which answers with the loader's own sentence or the position's options.
"use strict";

const $ = (id) => document.getElementById(id);
const S = {
  facts: null, pos: null, brush: "?", rules: null, valid: false, options: [],
  job: null, source: null, last: null, moves: [], current: -1, kind: "none", tried: null,
  card: null, drilled: [],
};

async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  return res.json();
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("data-")) e.setAttribute(k, v); else e[k] = v;
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

function options(select, values, labels) {
  select.replaceChildren(...values.map((v, i) => el("option", {value: String(v)}, labels ? labels[i] : String(v))));
}

// ------------------------------------------------------------------ the editor
function blankSeat() { return ["?", "?", "?", "?", "?", "?", "?", "?", "?"]; }

function setPlayers(n) {
  const p = S.pos;
  while (p.layouts.length < n) p.layouts.push(blankSeat());
  p.layouts.length = n;
  const scores = p.scores || [];
  p.scores = Array.from({length: n}, (_, i) => scores[i] || 0);
  p.players = n;
  for (const key of ["me", "starter"]) if (p[key] >= n) p[key] = 0;
  if (p.finisher !== undefined && p.finisher >= n) delete p.finisher;
}

function render() {
  const p = S.pos, f = S.facts;
  const seats = Array.from({length: p.players}, (_, i) => i);
  options($("players"), Array.from({length: f.players[1] - f.players[0] + 1}, (_, i) => f.players[0] + i));
  $("players").value = String(p.players);
  options($("me"), seats); $("me").value = String(p.me);
  options($("starter"), seats); $("starter").value = String(p.starter || 0);
  options($("round"), Array.from({length: f.rounds}, (_, i) => i + 1)); $("round").value = String(p.round || 1);
  options($("finisher"), ["none", ...seats]);
  $("finisher").value = p.finisher === undefined ? "none" : String(p.finisher);
  $("turn").value = p.turn || 0;
  $("removed").value = p.removed_hazards || 0;
  $("draw").value = p.draw_pile;
  const dec = p.decision || {kind: "draw"};
  $("kind").value = dec.kind;
  $("decision").className = "fields " + dec.kind;
  $("hand").textContent = dec.card || "·";
  $("source").value = dec.source || "draw";
  $("twin").checked = !!dec.same_card_below;
  options($("discarder"), seats.filter((s) => s !== p.me));
  if (dec.discarder !== undefined) $("discarder").value = String(dec.discarder);
  // layouts
  const lays = $("layouts");
  lays.replaceChildren();
  p.layouts.forEach((row, s) => {
    const box = el("div", {class: "seat" + (s === p.me ? " me" : ""), "data-seat": s});
    const head = el("div", {class: "seat-head"});
    head.append(el("b", {}, `seat ${s}${s === p.me ? " (to move)" : ""}`));
    const score = el("input", {type: "number", value: p.scores[s], title: `seat ${s}'s game score so far`});
    score.setAttribute("aria-label", `score of seat ${s}`);
    score.className = "score";
    score.addEventListener("change", () => { p.scores[s] = parseInt(score.value || "0", 10); changed(); });
    head.append(el("span", {}, "score"), score);
    const grid = el("div", {class: "grid"});
    row.forEach((card, q) => {
      const b = el("button", {type: "button", class: "slot" + (card === "?" ? " down" : ""),
                              "data-seat": s, "data-slot": q, title: `seat ${s}, slot ${q}`},
                   card === "?" ? "" : card);
      b.setAttribute("aria-label", `seat ${s} slot ${q}: ${card === "?" ? "face down" : card}`);
      b.addEventListener("click", () => { p.layouts[s][q] = S.brush; changed(); });
      grid.append(b);
    });
    box.append(head, grid);
    lays.append(box);
  });
  // piles
  const piles = $("piles");
  piles.replaceChildren();
  p.piles = p.piles || [[], []];
  p.piles.forEach((pile, k) => {
    const box = el("div", {class: "pile", "data-pile": k});
    box.append(el("span", {}, `pile ${k}:`));
    pile.forEach((card, i) => {
      const b = el("button", {type: "button", class: "card", title: "click to take it off the pile"}, card);
      b.addEventListener("click", () => { pile.splice(i, 1); changed(); });
      box.append(b);
    });
    const add = el("button", {type: "button", class: "add", title: "put the chosen card on top"}, "+");
    add.setAttribute("data-pile", k);
    add.addEventListener("click", () => { if (S.brush !== "?") { pile.push(S.brush); changed(); } });
    box.append(add);
    piles.append(box);
  });
}

function palette() {
  const pal = $("palette");
  pal.replaceChildren();
  for (const name of [...S.facts.cards, "?"]) {
    const b = el("button", {type: "button", class: "card" + (name === S.brush ? " chosen" : ""),
                            "data-card": name, title: name === "?" ? "face down" : `card ${name}`},
                 name === "?" ? "?" : name);
    b.addEventListener("click", () => { S.brush = name; palette(); });
    pal.append(b);
  }
}

function readFields() {
  const p = S.pos;
  const n = parseInt($("players").value, 10);
  if (n !== p.players) setPlayers(n);
  p.me = parseInt($("me").value, 10);
  p.starter = parseInt($("starter").value, 10);
  p.round = parseInt($("round").value, 10);
  p.turn = parseInt($("turn").value || "0", 10);
  const fin = $("finisher").value;
  if (fin === "none") delete p.finisher; else p.finisher = parseInt(fin, 10);
  p.removed_hazards = parseInt($("removed").value || "0", 10);
  p.draw_pile = parseInt($("draw").value || "0", 10);
  const kind = $("kind").value;
  const dec = {kind};
  if (kind === "place") {
    dec.card = (p.decision && p.decision.card) || (S.brush !== "?" ? S.brush : S.facts.cards[0]);
    dec.source = $("source").value;
    if ($("twin").checked) dec.same_card_below = true;
  } else if (kind === "hazard_flip") {
    const d = parseInt($("discarder").value, 10);
    dec.discarder = Number.isNaN(d) ? (p.me + 1) % p.players : d;
  }
  p.decision = dec;
}

let validating = 0;
async function changed(fromFields) {
  if (fromFields) readFields();
  stopAnalysis();   // a changed position: the last one's rollouts stop
  render();
  const ticket = ++validating;
  const r = await api("/api/validate", {position: S.pos, rules: S.rules, fill_draw_pile: $("auto-draw").checked});
  if (ticket !== validating) return;   // a later edit answers instead
  S.valid = !!r.ok;
  const st = $("status");
  if (r.ok) {
    if ($("auto-draw").checked) { S.pos.draw_pile = r.position.draw_pile; $("draw").value = r.position.draw_pile; }
    S.options = r.options;
    $("posid").value = r.id || "";
    st.className = "ok";
    st.textContent = `${r.describe} — ${r.options.length} option${r.options.length === 1 ? "" : "s"}`;
  } else {
    S.options = [];
    $("posid").value = "";
    st.className = "error";
    st.textContent = r.error;
  }
  $("analyse").disabled = !S.valid;
}

// ------------------------------------------------------------------ the analysis
function stopAnalysis() {
  if (S.source) { S.source.close(); S.source = null; }
  if (S.job) { fetch(`/api/analysis/${S.job}`, {method: "DELETE"}); S.job = null; }
  $("stop").disabled = true;
}

function fmt(x, d) { return x === null || x === undefined ? "–" : x.toFixed(d === undefined ? 2 : d); }
function sign(x) { return x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + x.toFixed(2); }

async function analyse() {
  stopAnalysis();
  $("why").textContent = ""; $("tried").textContent = ""; S.tried = null; S.last = null;
  $("table").querySelector("tbody").replaceChildren();
  const body = {position: S.pos, rules: S.rules, fill_draw_pile: $("auto-draw").checked,
                horizon: $("horizon").value, k: parseFloat($("k").value), cap: parseInt($("cap").value, 10),
                seed: parseInt($("seed").value || "0", 10)};
  $("verdict").className = ""; $("verdict").textContent = "starting…";
  const r = await api("/api/analysis", body);
  if (!r.ok) { $("verdict").className = "error"; $("verdict").textContent = r.error; return; }
  S.job = r.job;
  $("stop").disabled = false;
  const src = new EventSource(`/api/analysis/${r.job}/events`);
  S.source = src;
  src.addEventListener("update", (e) => showUpdate(JSON.parse(e.data)));
  src.addEventListener("why", (e) => { $("why").textContent = JSON.parse(e.data).text; });
  src.addEventListener("error", (e) => {
    if (e.data) { $("verdict").className = "error"; $("verdict").textContent = JSON.parse(e.data).error; }
    src.close(); if (S.source === src) { S.source = null; $("stop").disabled = true; }
  });
  src.addEventListener("done", (e) => {
    const d = JSON.parse(e.data);
    src.close(); if (S.source === src) S.source = null;
    $("stop").disabled = true;
    $("verdict").setAttribute("data-done", d.stopped);
  });
}

function showUpdate(u) {
  S.last = u;
  const game = u.horizon === "game";
  $("metric-head").textContent = game ? "win chance %" : "margin (adj.)";
  $("points-head").textContent = u.points_metric;
  const tbody = $("table").querySelector("tbody");
  tbody.replaceChildren();
  const played = S.current >= 0 ? S.moves[S.current].played : null;
  for (const o of u.options) {
    const half = (o.ci95[1] - o.ci95[0]) / 2;
    const tr = el("tr", {class: (o.best ? "best" : "") + (o.key === played ? " played" : "") +
                                (o.key === S.tried ? " tried" : ""), "data-key": o.key});
    tr.append(el("td", {}, o.option), el("td", {}, `${fmt(o.mean)} ±${fmt(half)}`),
              el("td", {}, o.best ? "best" : `${sign(o.diff)} [${sign(o.diff_ci95[0])}, ${sign(o.diff_ci95[1])}]`),
              el("td", {class: "wide"}, fmt(o.points.mean)), el("td", {class: "wide"}, String(o.n)));
    tr.addEventListener("click", () => tryOption(o.key));
    tbody.append(tr);
  }
  const v = $("verdict");
  const lead = u.lead_se === null ? "" : ` · lead ${fmt(u.lead_se, 1)} SE (stop at ${u.k})`;
  const state = u.stopped === "separated" ? `separated: ${u.best_label} is best`
    : u.stopped === "cap" ? "stopped at the cap, not separated at this k"
    : u.stopped === "no rival" ? "no other option differs in any rollout" : "running…";
  v.textContent = `n = ${u.n} per option · best: ${u.best_label}${lead} · ${state}`;
  v.className = u.stopped === "separated" ? "separated" : "";
  v.setAttribute("data-n", u.n);
  v.setAttribute("data-best", u.best);
  v.setAttribute("data-updates", String(parseInt(v.getAttribute("data-updates") || "0", 10) + 1));
  v.setAttribute("data-stopped", u.stopped);
  if (S.tried) tryOption(S.tried);
}

function tryOption(key) {
  // try another option at this decision: its value against the best (and the move played), from the rollouts
  const u = S.last;
  if (!u) return;
  S.tried = key;
  const o = u.options.find((x) => x.key === key);
  const best = u.options.find((x) => x.best);
  for (const tr of $("table").querySelectorAll("tbody tr")) tr.classList.toggle("tried", tr.getAttribute("data-key") === key);
  let text = o.best ? `${o.option}: the best option (${fmt(o.mean)} ${u.unit})`
    : `${o.option}: ${fmt(o.mean)}, behind ${best.option} by ${sign(o.diff)} [${sign(o.diff_ci95[0])}, ${sign(o.diff_ci95[1])}] ${u.unit}`;
  const played = S.current >= 0 ? u.options.find((x) => x.key === S.moves[S.current].played) : null;
  if (played && played.key !== key) text += `; the move played (${played.option}) ${played.best ? "is the best" : "is behind by " + sign(played.diff)}`;
  $("tried").textContent = text;
}

// ------------------------------------------------------------------ a game: record or review
function isError(m) { return m.mark === "inaccuracy" || m.mark === "mistake" || m.mark === "blunder"; }

function showGame(opened) {
  S.moves = opened.moves; S.kind = opened.kind;
  if (!S.moves.length) return;
  $("game").hidden = false;
  $("game-name").textContent = `${opened.kind} ${opened.name}, seat ${opened.seat}`;
  const list = $("moves");
  list.replaceChildren();
  S.moves.forEach((m, i) => {
    const li = el("li", {"data-i": i});
    li.append(el("span", {}, `${m.where}: ${m.played_label}`));
    if (m.symbol) li.append(el("span", {class: "mark", title: m.mark}, m.symbol));
    li.addEventListener("click", () => select(i));
    list.append(li);
  });
  graph();
  select(0);
}

function graph() {
  const svg = $("graph");
  const pts = S.moves.map((m, i) => [i, m.win]).filter(([, w]) => w !== null && w !== undefined);
  const W = 400, H = 120, n = Math.max(S.moves.length - 1, 1);
  const x = (i) => 4 + (W - 8) * i / n, y = (w) => H - 4 - (H - 8) * w / 100;
  let out = `<line x1="0" x2="${W}" y1="${y(50)}" y2="${y(50)}" stroke="#ccd" stroke-dasharray="4 3"/>`;
  if (pts.length) {
    out += `<polyline fill="none" stroke="#23405e" stroke-width="1.5" vector-effect="non-scaling-stroke" points="${
      pts.map(([i, w]) => `${x(i).toFixed(1)},${y(w).toFixed(1)}`).join(" ")}"/>`;
    for (const [i, w] of pts) {
      if (isError(S.moves[i])) out += `<circle class="err" cx="${x(i).toFixed(1)}" cy="${y(w).toFixed(1)}" r="3" fill="#b42318"/>`;
    }
  } else {
    out += `<text x="8" y="20" font-size="11" fill="#56606b">a record has no win chances: review it for the graph</text>`;
  }
  if (S.current >= 0) out += `<line id="cursor" x1="${x(S.current)}" x2="${x(S.current)}" y1="0" y2="${H}" stroke="#e08a00"/>`;
  svg.innerHTML = out;
}

function select(i) {
  if (i < 0 || i >= S.moves.length) return;
  S.current = i;
  const m = S.moves[i];
  for (const li of $("moves").children) li.classList.toggle("current", li.getAttribute("data-i") === String(i));
  const cur = $("moves").children[i];
  if (cur && cur.scrollIntoView) cur.scrollIntoView({block: "nearest"});
  let info = `${m.describe}. Played: ${m.played_label}`;
  if (m.best_label && m.best !== m.played) info += `; best: ${m.best_label}`;
  if (m.loss_pp !== null && m.loss_pp !== undefined) info += `; win chance lost ${m.loss_pp.toFixed(1)} pp`;
  if (m.symbol) info += ` (${m.mark} ${m.symbol})`;
  $("move-info").textContent = info;
  $("move-info").setAttribute("data-i", i);
  S.pos = JSON.parse(JSON.stringify(m.position));
  graph();
  changed();
}

function nextError() {
  for (let i = S.current + 1; i < S.moves.length; i++) if (isError(S.moves[i])) return select(i);
  $("move-info").textContent = "no later error in this game";
}

document.addEventListener("keydown", (e) => {
  if (!S.moves.length || /INPUT|SELECT|TEXTAREA/.test(e.target.tagName)) return;
  if (e.key === "ArrowRight" || e.key === "ArrowDown") { select(S.current + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft" || e.key === "ArrowUp") { select(S.current - 1); e.preventDefault(); }
  else if (e.key === "n") { nextError(); e.preventDefault(); }
});

// ------------------------------------------------------------------ drills
async function drillNext() {
  const r = await api("/api/drill/next", {retry: $("drill-retry").checked, include_inaccuracies: $("drill-inacc").checked,
                                          skip: S.drilled});
  $("drill-verdict").textContent = ""; $("drill-verdict").className = ""; $("drill-table").replaceChildren();
  const opts = $("drill-options");
  opts.replaceChildren();
  if (!r.ok) { $("drill-info").textContent = r.error; return; }
  if (!r.card) {
    $("drill-info").textContent = `nothing to drill now (${r.deck} card${r.deck === 1 ? "" : "s"} in the deck)`;
    $("drill-info").removeAttribute("data-card");
    return;
  }
  const c = r.card;
  S.card = c;
  $("drill-info").textContent = `${c.describe}. Your ${c.mark} (${c.symbol}) from ${c.source}; box ${c.box}, `
    + `${r.due} due now. What is the best move?`;
  $("drill-info").setAttribute("data-card", c.id);
  for (const o of c.options) {
    const b = el("button", {type: "button", "data-key": o.key}, o.label);
    b.addEventListener("click", () => drillAnswer(o.key));
    opts.append(b);
  }
  const skip = el("button", {type: "button", "data-key": "skip"}, "Skip (show the answer)");
  skip.addEventListener("click", () => drillAnswer(null));
  opts.append(skip);
  S.current = -1;   // the game stays listed; nothing shows the move played (the answer stays hidden)
  S.pos = c.position;
  if (c.rules) { S.rules = c.rules; $("rules-name").textContent = c.rules.name; }
  changed();
}

async function drillAnswer(key) {
  const c = S.card;
  if (!c) return;
  const r = await api("/api/drill/answer", {id: c.id, key});
  const v = $("drill-verdict");
  if (!r.ok) { v.className = "wrong"; v.textContent = r.error; return; }
  S.drilled.push(c.id); S.card = null;
  for (const b of $("drill-options").querySelectorAll("button")) b.disabled = true;
  const head = r.skipped ? "skipped (counts as a miss)" : r.right ? `right: ${r.answer_label}` : `wrong: ${r.answer_label}`;
  const [lo, hi] = r.loss_ci95_pp;
  v.textContent = `${head}. The best: ${r.best_label}. In the game you played ${r.played_label}, which lost `
    + `${r.loss_pp.toFixed(1)} pp of win chance (95% CI ${lo.toFixed(1)}..${hi.toFixed(1)}). Next: box ${r.box}, due ${r.due}.`;
  v.className = r.right ? "right" : "wrong";
  v.setAttribute("data-right", String(r.right));
  v.setAttribute("data-box", String(r.box));
  const list = $("drill-table");
  list.replaceChildren();
  for (const o of r.options) {
    const cell = o.key === r.best ? "the best" : o.behind_pp === null ? "behind the best: not measured"
      : `behind the best ${sign(o.behind_pp)} pp [${sign(o.ci95_pp[0])}, ${sign(o.ci95_pp[1])}]`;
    list.append(el("li", {}, `${o.label}: win ${o.win_pct.toFixed(1)}%, ${cell}`
      + (o.key === r.played ? " (played)" : "") + (r.right_keys.includes(o.key) ? " — counts as right" : "")));
  }
}

// ------------------------------------------------------------------ files
function readFile(input, then) {
  const file = input.files[0];
  if (!file) return;
  file.text().then((text) => then(file.name, text));
  input.value = "";
}

async function importText(name, text) {
  const r = await api("/api/import", {name, text, rules: S.rules});
  if (!r.ok) { $("status").className = "error"; $("status").textContent = r.error; return; }
  S.pos = r.position;
  changed();
}

async function openId() {
  const r = await api("/api/position-id", {id: $("posid").value.trim()});
  if (!r.ok) { $("status").className = "error"; $("status").textContent = r.error; return; }
  S.pos = r.position;
  if (r.rules) { S.rules = r.rules; $("rules-name").textContent = r.rules.name; }
  changed();
}

async function exportToml() {
  const r = await api("/api/export", {position: S.pos, rules: S.rules, fill_draw_pile: $("auto-draw").checked});
  if (!r.ok) { $("status").className = "error"; $("status").textContent = r.error; return; }
  const a = el("a", {href: URL.createObjectURL(new Blob([r.toml], {type: "application/toml"})), download: r.filename});
  document.body.append(a); a.click(); a.remove();
}

// ------------------------------------------------------------------ start
async function main() {
  const st = await api("/api/start");
  S.facts = st.facts;
  $("k").value = st.defaults.k; $("cap").value = st.defaults.cap; $("seed").value = st.defaults.seed;
  $("horizon").value = st.defaults.horizon;
  if (st.opened.kind !== "none") $("opened").textContent = `${st.opened.kind}: ${st.opened.name}`;
  S.pos = st.opened.position || st.position;
  if (st.opened.rules) { S.rules = st.opened.rules; $("rules-name").textContent = st.opened.rules.name; }
  palette();
  for (const id of ["players", "me", "starter", "round", "turn", "finisher", "removed", "draw", "kind", "source",
                    "twin", "discarder"]) {
    $(id).addEventListener("change", () => changed(true));
  }
  $("auto-draw").addEventListener("change", () => changed(true));
  $("hand").addEventListener("click", () => { if (S.brush !== "?") { S.pos.decision.card = S.brush; changed(); } });
  $("analyse").addEventListener("click", analyse);
  $("stop").addEventListener("click", stopAnalysis);
  $("import-btn").addEventListener("click", () => $("import-file").click());
  $("import-file").addEventListener("change", () => readFile($("import-file"), importText));
  $("export-btn").addEventListener("click", exportToml);
  $("posid").addEventListener("keydown", (e) => { if (e.key === "Enter") openId(); });
  $("rules-btn").addEventListener("click", () => $("rules-file").click());
  $("rules-file").addEventListener("change", () => readFile($("rules-file"), (name, text) => {
    S.rules = {name, text}; $("rules-name").textContent = name; changed();
  }));
  $("rules-clear").addEventListener("click", () => { S.rules = null; $("rules-name").textContent = "as started"; changed(); });
  if (st.drill) {
    $("drill").hidden = false;
    $("drill-next").addEventListener("click", drillNext);
  }
  if (st.opened.moves && st.opened.moves.length) showGame(st.opened); else changed();
}

main();
