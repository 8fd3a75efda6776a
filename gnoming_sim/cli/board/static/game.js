// gnoming-sim board: a record or review stepped through (arrow keys, n for the next error, the win-chance
// graph), the drill view, the files, and the start. Loaded last.
"use strict";

// ------------------------------------------------------------------ a game: record or review
function isError(m) { return m.mark === "inaccuracy" || m.mark === "mistake" || m.mark === "blunder"; }

function showGame(opened) {
  S.moves = opened.moves; S.kind = opened.kind;
  if (!S.moves.length) return;
  $("game").hidden = false;
  $("game-name").textContent = `${opened.kind} ${opened.name}, seat ${opened.seat}`;
  const sm = opened.summary;
  if (sm && sm.verdict) {
    const m = sm.marks || {};
    $("game-summary").textContent = `${sm.verdict}: error rate ${Number(sm.error_rate_pp).toFixed(2)} pp of win chance `
      + `per decision over ${sm.graded} graded; marks ?! ${m.inaccuracy || 0}, ? ${m.mistake || 0}, ?? ${m.blunder || 0}`;
  }
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
  if (st.ok === false) { $("status").className = "error"; $("status").textContent = st.error; return; }
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
