// gnoming-sim board: the live analysis (a server-sent event stream of analyse's table, batch by batch) and
// the option tried at a decision. Loaded after board.js (its state S and helpers).
"use strict";

// ------------------------------------------------------------------ the analysis
function stopAnalysis() {
  if (S.source) { S.source.close(); S.source = null; }
  if (S.job) { api(`/api/analysis/${encodeURIComponent(S.job)}`, undefined, "DELETE"); S.job = null; }
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
  // EventSource sends no headers of its own: the token goes in the query
  const src = new EventSource(`/api/analysis/${encodeURIComponent(r.job)}/events?token=${encodeURIComponent(TOKEN)}`);
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
