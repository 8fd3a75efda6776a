// gnoming-sim board: the page's state and the position editor (analysis.js and game.js follow it).
// Plain JavaScript, no build step, nothing fetched from elsewhere.
// The position is kept as the TOML-shaped dict the loader reads (players, me, layouts, piles, decision...);
// every edit sends it to /api/validate, which answers with the loader's own sentence or the position's options.
"use strict";

const $ = (id) => document.getElementById(id);
const S = {
  facts: null, pos: null, brush: "?", rules: null, valid: false, options: [],
  job: null, source: null, last: null, moves: [], current: -1, kind: "none", tried: null,
  card: null, drilled: [],
};

// the launch's secret, in the address the command opened: every API request sends it (the board answers no
// other page)
const TOKEN = new URLSearchParams(location.search).get("token") || "";

async function api(path, body, method) {
  const headers = {"X-Board-Token": TOKEN};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {method: method || (body === undefined ? "GET" : "POST"), headers,
                                 body: body === undefined ? undefined : JSON.stringify(body)});
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
  clearAnalysis();   // the last position's tables and verdict go with it
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
    firstLook();   // the value network's table, at once
  } else {
    S.options = [];
    $("posid").value = "";
    st.className = "error";
    st.textContent = r.error;
    hideFirstLook();   // no table of a position the loader refuses
  }
  $("analyse").disabled = !S.valid;
}
