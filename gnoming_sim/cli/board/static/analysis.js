// gnoming-sim board: the 0-ply first look (the value network's table, milliseconds), the live analysis (a
// server-sent event stream of analyse's table, batch by batch) and the option tried at a decision. Loaded
// after board.js (its state S and helpers).
"use strict";

function fmt(x, d) { return x === null || x === undefined ? "–" : x.toFixed(d === undefined ? 2 : d); }
function sign(x) { return x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + x.toFixed(2); }
function behind(o) { return `${sign(o.diff)} [${sign(o.diff_ci95[0])}, ${sign(o.diff_ci95[1])}]`; }

// ------------------------------------------------------------------ the first look (0-ply)
// Shown the moment a position is set and again as an analysis starts, until the rollouts' first table
// replaces it. Never awaited by the rollouts: a failure is one line, or nothing.
let looking = 0;

function hideFirstLook() {
  $("first-look").hidden = true; $("zero-note").hidden = true; $("zero-card").hidden = true;
}

async function firstLook() {
  const ticket = ++looking;
  let r;
  try {
    r = await api("/api/zero-ply", {position: S.pos, rules: S.rules, fill_draw_pile: $("auto-draw").checked,
                                    seed: parseInt($("seed").value || "0", 10)});
  } catch (e) {
    r = {ok: false, error: "the board did not answer"};
  }
  if (ticket !== looking || S.last) return;   // a later position, or the rollouts' table, answers instead
  if (!r || !r.ok) {
    hideFirstLook();
    $("zero-note").textContent = `no 0-ply first look: ${(r && r.error) || "no answer"}`;
    $("zero-note").hidden = false;
    return;
  }
  const best = r.options.find((o) => o.best);
  $("zero-caption").textContent = `0-ply (value network, no rollouts; ${r.n} deals): first look`
    + (best ? ` · best: ${best.option}` : "");
  const tbody = $("zero-table").querySelector("tbody");
  tbody.replaceChildren();
  for (const o of [...r.options].sort((a, b) => a.rank - b.rank)) {
    const tr = el("tr", {class: o.best ? "best" : "", "data-key": o.key});
    tr.append(el("td", {}, o.option), el("td", {}, fmt(o.mean, 1)), el("td", {}, o.best ? "best" : behind(o)));
    tbody.append(tr);
  }
  $("zero-note").hidden = true;
  $("first-look").hidden = false;
  // the printed card's answer beside the evaluator's (as analyse shows it), or nothing where it has no cell
  $("zero-card").textContent = r.card ? r.card.line : "";
  $("zero-card").hidden = !r.card;
}

// ------------------------------------------------------------------ the analysis
function stopAnalysis() {
  const running = !!(S.source || S.job);
  if (S.source) { S.source.close(); S.source = null; }
  if (S.job) { api(`/api/analysis/${encodeURIComponent(S.job)}`, undefined, "DELETE"); S.job = null; }
  $("stop").disabled = true;
  if (running) stoppedHeadline(S.last ? S.last.n : 0);
}

function stoppedHeadline(n) {
  // the headline of an analysis ended before its verdict: what it had, and that it no longer runs
  const u = S.last, v = $("verdict");
  if (u && u.stopped) return;   // it had its verdict already
  v.className = "";
  v.textContent = u ? `n = ${u.n} per option · best so far: ${u.best_label} · stopped after ${n} rollouts per option`
    : "stopped before the first rollouts";
  v.setAttribute("data-stopped", "stopped");
}

function clearAnalysis() {
  // a new position or a new analysis: nothing of the last one's stays on show (nor a first look on its way)
  looking++;
  S.tried = null; S.last = null;
  $("why").textContent = ""; $("tried").textContent = "";
  $("table").querySelector("tbody").replaceChildren();
  $("rollouts").hidden = true;
  const v = $("verdict");
  v.className = ""; v.textContent = "";
  for (const a of ["data-n", "data-best", "data-updates", "data-stopped", "data-done"]) v.removeAttribute(a);
}

async function analyse() {
  stopAnalysis();
  clearAnalysis();
  const body = {position: S.pos, rules: S.rules, fill_draw_pile: $("auto-draw").checked,
                horizon: $("horizon").value, k: parseFloat($("k").value), cap: parseInt($("cap").value, 10),
                seed: parseInt($("seed").value || "0", 10)};
  $("verdict").textContent = "starting…";
  firstLook();   // milliseconds, asked first: its table shows while the first batch runs
  const r = await api("/api/analysis", body);
  if (!r.ok) { $("verdict").className = "error"; $("verdict").textContent = r.error; return; }
  S.job = r.job;
  $("stop").disabled = false;
  // EventSource sends no headers of its own: the token goes in the query
  const src = new EventSource(`/api/analysis/${encodeURIComponent(r.job)}/events?token=${encodeURIComponent(TOKEN)}`);
  S.source = src;
  src.addEventListener("update", (e) => showUpdate(JSON.parse(e.data)));
  src.addEventListener("why", (e) => { $("why").textContent = JSON.parse(e.data).text; });
  src.addEventListener("error", (e) => {
    if (e.data) { $("verdict").className = "error"; $("verdict").textContent = JSON.parse(e.data).error; }
    src.close(); if (S.source === src) { S.source = null; S.job = null; $("stop").disabled = true; }
  });
  src.addEventListener("done", (e) => {
    const d = JSON.parse(e.data);
    src.close();
    if (S.source !== src) return;
    S.source = null; S.job = null;   // ended by itself: nothing left to stop
    $("stop").disabled = true;
    if (d.stopped === "cancelled") stoppedHeadline(d.n);
    $("verdict").setAttribute("data-done", d.stopped);
  });
}

function showUpdate(u) {
  S.last = u;
  hideFirstLook();   // the rollouts' table replaces the first look
  $("rollouts").hidden = false;
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
              el("td", {}, o.best ? "best" : behind(o)),
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
