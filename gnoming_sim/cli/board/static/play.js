// gnoming-sim board: a game played by clicking (the /api/play routes). The server keeps the table and sends
// only what this seat sees; every click is checked by the engine there. Loaded after board.js and game.js.
"use strict";

const P = {game: null, view: null, seen: 0, picked: null, pending: null, busy: false, strategies: null, gen: 0};

async function playPost(route, body) {
  const v = P.view;
  const r = await api(`/api/play/${route}`, {game: P.game, moves: v ? v.moves : 0, seen: P.seen, ...(body || {})});
  if (r.ok && r.view) { P.view = r.view; P.game = r.game; }
  if (r.ok && r.log) { P.seen = r.seen; appendLog(r.log); }
  return r;
}

function appendLog(lines) {
  if (!lines.length) return;
  const log = $("play-log");
  log.textContent += (log.textContent ? "\n" : "") + lines.join("\n");
  log.scrollTop = log.scrollHeight;
}

function say(text, error) { $("play-ask").textContent = text; $("play-ask").className = error ? "error" : ""; }

function seatsSetup() {
  const n = parseInt($("play-players").value, 10);
  const seat = $("play-seat").value;
  options($("play-seat"), Array.from({length: n}, (_, i) => i));
  $("play-seat").value = seat && parseInt(seat, 10) < n ? seat : "0";
}

async function newGame() {
  const opp = $("play-opponents").value.split(",").map((x) => x.trim()).filter((x) => x);
  const body = {players: parseInt($("play-players").value, 10), seat: parseInt($("play-seat").value, 10),
                opponents: opp.length === 1 ? opp[0] : opp, seed: parseInt($("play-seed").value || "0", 10),
                rules: S.rules, strategies: P.strategies};
  P.view = null; P.seen = 0; P.gen++; $("play-log").textContent = "";
  say("dealing…");
  const r = await api("/api/play/new", body);
  started(r);
}

function started(r) {
  if (!r.ok) { say(r.error, true); return; }
  P.game = r.game; P.view = r.view; P.seen = r.seen; P.picked = null;
  $("play-log").textContent = ""; appendLog(r.log);
  $("play-hints").hidden = true;
  drawTable();
  goOn();
}

function pauseMs() { return Math.max(0, parseInt($("play-pause").value || "0", 10)); }

async function goOn() {
  // the other seats play with a pause between their turns, until it is this seat's decision or a round's end
  // (a game started or resumed meanwhile ends this loop: its own goes on)
  const gen = ++P.gen;
  while (P.view && P.view.state === "others") {
    drawTable();
    await new Promise((ok) => setTimeout(ok, pauseMs()));
    if (gen !== P.gen) return;
    const r = await playPost("others");
    if (!r.ok) { say(r.error, true); return; }
  }
  drawTable();
}

function legalSet() {
  const d = P.view && P.view.decision;
  return new Set(d ? d.legal : []);
}

function drawTable() {
  const v = P.view;
  const box = $("play-table");
  box.replaceChildren();
  if (!v) return;
  const d = v.decision;
  const legal = legalSet();
  v.layouts.forEach((row, s) => {
    const seat = el("div", {class: "seat" + (s === v.seat ? " me" : ""), "data-seat": s});
    const head = `seat ${s} ${v.seats[s]}${s === v.finisher ? " (finished)" : ""} · ${v.scores[s]}`;
    seat.append(el("div", {class: "seat-head"}, head));
    const grid = el("div", {class: "grid"});
    row.forEach((card, q) => {
      let cls = "slot" + (card === "?" ? " down" : "");
      const mine = s === v.seat && d && d.kind !== "draw" && d.kind !== "discard";
      if (mine && legal.has(q)) cls += " legal";
      if (mine && P.picked === q) cls += " picked";
      const b = el("button", {type: "button", class: cls, "data-seat": s, "data-slot": q}, card === "?" ? "" : card);
      b.setAttribute("aria-label", `seat ${s} slot ${q}: ${card === "?" ? "face down" : card}`);
      b.addEventListener("click", () => clickSlot(s, q));
      grid.append(b);
    });
    seat.append(grid);
    box.append(seat);
  });
  const piles = el("div", {class: "pile-box"});
  const draw = el("button", {type: "button", class: "card" + (d && d.kind === "draw" && legal.has(0) ? " legal" : ""),
                             id: "play-draw"}, `${v.draw_pile}`);
  draw.title = "the draw pile (its size)";
  draw.addEventListener("click", () => clickSource(0));
  piles.append(el("span", {}, "draw pile"), draw);
  v.piles.forEach((pile, k) => {
    const top = pile.length ? pile[pile.length - 1] : "·";
    const on = d && ((d.kind === "draw" && legal.has(k + 1)) || (d.kind === "discard" && legal.has(k)));
    const b = el("button", {type: "button", class: "card" + (on ? " legal" : ""), id: `play-pile${k}`}, top);
    b.title = `discard pile ${k} (${pile.length} cards)`;
    b.addEventListener("click", () => clickPile(k));
    piles.append(el("span", {}, `pile ${k}`), b);
  });
  if (d && d.card) piles.append(el("span", {}, "in hand"), el("button", {type: "button", class: "card", id: "play-hand"}, d.card));
  box.append(piles);
  // what is asked, and the buttons of the decision's non-positional answers
  const state = v.state;
  if (state === "you") say(d.ask);
  else if (state === "others") say("the other seats are playing…");
  else if (state === "round_over") say(`Round ${v.round} is over: ${v.round_scores[v.round - 1].join(", ")}.`);
  else say(`The game is over: ${v.totals.join(", ")}; ${v.winners.map((s) => `seat ${s} (${v.seats[s]})`).join(" and ")} wins.`);
  $("play-nokeep").hidden = !(d && d.kind === "place" && legal.has(9));
  $("play-stop").hidden = !(d && d.kind === "bounce");
  $("play-decline").hidden = !(d && d.kind === "hazard_flip");
  $("play-next").hidden = state !== "round_over";
  $("play-review").hidden = state !== "game_over";
  $("play-hint").disabled = !(d && ["draw", "place", "hazard_flip"].includes(d.kind));
  $("play-save").disabled = false;
  $("play").setAttribute("data-state", state);
  $("play").setAttribute("data-moves", String(v.moves));
}

async function act(action, confirm) {
  if (P.busy) return;
  P.busy = true;
  $("play-warn").hidden = true;
  const body = {action};
  if ($("tutor").checked && !confirm) body.tutor = parseFloat($("tutor-pp").value || "0");
  if (confirm) body.confirm = true;
  const r = await playPost("act", body);
  P.busy = false;
  if (!r.ok) { say(r.error, true); return; }
  if (r.warn) {   // the tutor: nothing was played; take it back, or play it anyway
    P.pending = action;
    $("play-warn-text").textContent = r.warn.text;
    $("play-warn").hidden = false;
    return;
  }
  P.picked = null;
  $("play-hints").hidden = true;
  drawTable();
  goOn();
}

function clickSlot(s, q) {
  const v = P.view, d = v && v.decision;
  if (!d) { say(v && v.state === "others" ? "wait: another seat is playing" : "no decision of yours now", true); return; }
  if (s !== v.seat) { say(`that is seat ${s}'s layout: play on your own (seat ${v.seat})`, true); return; }
  if (d.kind === "init_flip") {
    if (P.picked === null) { P.picked = q; drawTable(); return; }
    const a = P.picked;
    P.picked = null;
    act(a * 9 + q);
    return;
  }
  if (d.kind === "draw" || d.kind === "discard") { say(d.ask, true); return; }
  act(q);
}

function clickSource(src) {
  const d = P.view && P.view.decision;
  if (!d || d.kind !== "draw") { say(d ? d.ask : "no decision of yours now", true); return; }
  act(src);
}

function clickPile(k) {
  const d = P.view && P.view.decision;
  if (d && d.kind === "discard") { act(k); return; }
  clickSource(k + 1);
}

async function hint() {
  const r = await playPost("hint");
  if (!r.ok) { say(r.error, true); return; }
  const z = r.zero;
  $("play-hint-caption").textContent = `0-ply (value network, no rollouts; ${z.n} deals) · best: `
    + z.options.find((o) => o.best).option;
  const tbody = $("play-hint-table").querySelector("tbody");
  tbody.replaceChildren();
  for (const o of [...z.options].sort((a, b) => a.rank - b.rank)) {
    const tr = el("tr", {class: o.best ? "best" : "", "data-key": o.key});
    tr.append(el("td", {}, o.option), el("td", {}, fmt(o.mean, 1)), el("td", {}, o.best ? "best" : behind(o)));
    tbody.append(tr);
  }
  $("play-card").textContent = r.card ? r.card.line : "card: no cell of the card for this decision";
  $("play-hints").hidden = false;
}

function download(text, name, type) {
  const a = el("a", {href: URL.createObjectURL(new Blob([text], {type})), download: name});
  document.body.append(a); a.click(); a.remove();
}

async function save() {
  const r = await playPost("save");
  if (!r.ok) { say(r.error, true); return; }
  download(r.saved, r.saved_name, "application/json");
  if (r.record && P.view.state === "game_over") download(r.record, r.record_name, "application/toml");
}

async function review() {
  say("reviewing the game: every decision of yours graded as `review` grades it…");
  $("play-review").disabled = true;
  const r = await playPost("review");
  $("play-review").disabled = false;
  if (!r.ok) { say(r.error, true); return; }
  say(`reviewed${r.drills ? "; " + r.drills : ""}`);
  showGame(r.opened);
  $("game").scrollIntoView({block: "start"});
}

function playMain() {
  const f = S.facts;
  options($("play-players"), Array.from({length: f.players[1] - f.players[0] + 1}, (_, i) => f.players[0] + i));
  $("play-players").value = "4";
  seatsSetup();
  $("play-seed").value = String(Math.floor(Math.random() * 1e9));
  $("play-players").addEventListener("change", seatsSetup);
  $("play-new").addEventListener("click", newGame);
  $("play-nokeep").addEventListener("click", () => act(9));
  $("play-stop").addEventListener("click", () => act(9));
  $("play-decline").addEventListener("click", () => act(9));
  $("play-next").addEventListener("click", async () => { const r = await playPost("next-round"); if (!r.ok) say(r.error, true); drawTable(); goOn(); });
  $("play-hint").addEventListener("click", hint);
  $("play-save").addEventListener("click", save);
  $("play-review").addEventListener("click", review);
  $("play-takeback").addEventListener("click", () => { $("play-warn").hidden = true; P.pending = null; say("taken back: " + P.view.decision.ask); });
  $("play-anyway").addEventListener("click", () => { const a = P.pending; P.pending = null; act(a, true); });
  $("play-strategies-btn").addEventListener("click", () => $("play-strategies-file").click());
  $("play-strategies-file").addEventListener("change", () => readFile($("play-strategies-file"), (name, text) => {
    P.strategies = {name, text}; $("play-strategies-btn").textContent = name;
  }));
  $("play-resume-btn").addEventListener("click", () => $("play-resume-file").click());
  $("play-resume-file").addEventListener("change", () => readFile($("play-resume-file"), async (name, text) => {
    P.view = null; P.seen = 0;
    started(await api("/api/play/resume", {text, name}));
  }));
}

// board.js's main() fills S.facts first
(function waitFacts() { if (S.facts) playMain(); else setTimeout(waitFacts, 50); })();
