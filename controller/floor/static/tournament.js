// The tournaments' page (the floor role's; docs/floor.md, "Running a tournament"): each
// tournament's clock and its actions, hand-for-hand's board (each table done, dealing or offline,
// with the time it has taken; one press releases every table), the bubble and the hand that holds
// the room, the player clock called on a seat, the tables' balance (BREAK-004). Read every second
// from /api/tournaments; every action a POST with the session's CSRF token, audit-logged by the
// service. Text is set with textContent only.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const boxes = new Map();  // tournament -> its elements

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function clock(seconds) {
    const s = Math.max(0, Math.round(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const rest = String(s % 60).padStart(2, "0");
    return h ? h + ":" + String(m).padStart(2, "0") + ":" + rest : m + ":" + rest;
  }
  function step(l) {
    if (!l) return "";
    if (l.kind === "break") return "break (level " + l.n + " next)";
    return "level " + l.n + ": " + l.small_blind + "/" + l.big_blind + (l.ante ? " ante " + l.ante : "")
      + (l.game ? " · " + l.game : "");
  }

  async function act(name, body, button) {
    if (button) button.disabled = true;
    const said = document.getElementById("said");
    try {
      const r = await fetch("/api/tournament", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(Object.assign({ tournament: name }, body)),
      });
      const out = await r.json();
      said.textContent = r.ok ? "done: " + out.done : "refused: " + (out.error || r.status);
      said.className = "cmd-status " + (r.ok ? "ok" : "refused");
      if (r.ok) show(out.tournament);
    } catch (e) {
      said.textContent = "no answer from the floor service";
      said.className = "cmd-status refused";
    } finally {
      if (button) button.disabled = false;
    }
  }

  function button(name, label, body, cls) {
    const b = el("button", cls || "", label);
    b.type = "button";
    b.dataset.action = body.action + (body.on === true ? "-on" : body.on === false ? "-off" : "")
      + (body.seconds ? (body.seconds > 0 ? "+" : "") + body.seconds : "");
    b.addEventListener("click", () => act(name, body, b));
    return b;
  }

  // The skeleton of one tournament, built once: the text in it is set at each reading (the
  // player clock's choices are not reset under the floor's fingers).
  function skeleton(t) {
    const name = t.tournament;
    const sec = el("section", "tourney");
    sec.dataset.tournament = name;
    const head = el("div", "tourney-head");
    head.append(el("h2", "", t.title));
    const link = el("a", "nav", "clock screen");
    link.href = "/clock/" + encodeURIComponent(name);
    link.target = "_blank";
    head.append(link);
    sec.append(head);

    const clockLine = el("p", "clock-line");
    const controls = el("div", "controls");
    controls.append(button(name, "Start", { action: "start" }), button(name, "Pause", { action: "pause" }),
                    button(name, "Resume", { action: "resume" }), button(name, "Back a level", { action: "back" }),
                    button(name, "Skip level", { action: "skip" }), button(name, "−1 min", { action: "add", seconds: -60 }),
                    button(name, "+1 min", { action: "add", seconds: 60 }));
    sec.append(el("h3", "", "Clock"), clockLine, controls);

    const h4hLine = el("p", "h4h-line");
    const h4hControls = el("div", "controls");
    h4hControls.append(button(name, "Hand-for-hand on", { action: "h4h", on: true }),
                       button(name, "Hand-for-hand off", { action: "h4h", on: false }),
                       button(name, "Release every table", { action: "release" }, "release"));
    const board = el("table", "h4h-board");
    board.append(el("thead"), el("tbody"));
    board.tHead.append(el("tr"));
    for (const h of ["table", "hand", "time", "players", "level", "notes"]) board.tHead.rows[0].append(el("th", "", h));
    sec.append(el("h3", "", "Hand-for-hand"), h4hLine, h4hControls, board);

    const bubbleLine = el("p", "bubble-line");
    const bubbleControls = el("div", "controls");
    bubbleControls.append(button(name, "Bubble on", { action: "bubble", on: true }),
                          button(name, "Bubble off", { action: "bubble", on: false }),
                          button(name, "Clear the hold", { action: "bubble_clear" }));
    sec.append(el("h3", "", "The bubble"), bubbleLine, bubbleControls);

    const form = el("form", "cmd-form player-clock");
    const tableLabel = el("label", "", "Table ");
    const tablePick = el("select", "clock-table");
    tableLabel.append(tablePick);
    const seatLabel = el("label", "", "Seat ");
    const seatPick = el("select", "clock-seat");
    for (let s = 1; s <= 10; s++) { const o = el("option", "", s); o.value = String(s); seatPick.append(o); }
    seatLabel.append(seatPick);
    const call = el("button", "", "Call the clock");
    call.type = "submit";
    call.dataset.action = "clock";
    form.append(tableLabel, seatLabel, call);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const [room, table] = tablePick.value.split("\u0001");
      act(name, { action: "clock", room: room, table: table, seat: Number(seatPick.value) }, call);
    });
    sec.append(el("h3", "", "Player clock"), form);

    const balance = el("div", "balance");
    sec.append(el("h3", "", "Table balance"), balance);
    document.getElementById("tournaments").append(sec);
    return { sec, clockLine, h4hLine, board, bubbleLine, tablePick, balance };
  }

  function show(t) {
    let b = boxes.get(t.tournament);
    if (!b) { b = skeleton(t); boxes.set(t.tournament, b); }
    const c = t.clock;
    b.clockLine.textContent = (c.started ? step(c.level) + " · " + clock(c.time_left) + " left" + (c.running ? "" : " (paused)")
      : "not started: " + step(c.level))
      + (c.next ? " · next " + step(c.next) : " · the last level")
      + (c.to_break !== null ? " · break in " + clock(c.to_break) : "");
    b.sec.classList.toggle("h4h-on", t.h4h.on);
    const rows = t.tables;
    const count = (s) => rows.filter((r) => r.status === s).length;
    b.h4hLine.textContent = t.h4h.on
      ? "ON · round " + (t.h4h.round + 1) + ": " + count("done") + " done, " + count("dealing") + " dealing, "
        + count("offline") + " offline (holding)"
      : "off";
    const body = b.board.tBodies[0];
    body.replaceChildren(...rows.map((r) => {
      const tr = el("tr", r.status || "");
      tr.dataset.table = r.room + "/" + r.table;
      const word = r.status === "done" ? "done, holding" : r.status === "offline" ? "OFFLINE, holding"
        : r.status === "dealing" ? "dealing" : r.online ? (r.holding ? "holding (" + r.holding + ")" : "dealing") : "OFFLINE";
      const notes = [];
      if (r.dealt_early.length) notes.push("card dealt before the release (hand " + r.dealt_early.join(", ") + ")");
      if (r.holding === "bubble") notes.push("holds for the bubble");
      if (r.clock) notes.push("clock: seat " + r.clock.seat + " (call " + r.clock.n + ")");
      tr.append(el("td", "where", r.table + " · " + r.room), el("td", "status", word),
                el("td", "took", r.took === null || r.took === undefined ? "" : clock(r.took)),
                el("td", "players", r.players), el("td", "level", r.level === null || r.level === undefined ? "" : r.level),
                el("td", "notes" + (r.dealt_early.length ? " early" : ""), notes.join(" · ")));
      return tr;
    }));
    const holds = t.bubble.holds;
    b.bubbleLine.textContent = (t.bubble.mode ? "ON" : "off")
      + (holds.length ? " · " + holds.map((h) => h.table + " hand " + h.hand).join(", ") + " holds the room" : "");
    b.bubbleLine.classList.toggle("holding", holds.length > 0);
    const want = rows.map((r) => [r.room + "\u0001" + r.table, r.table + " · " + r.room]);
    const pick = b.tablePick;
    if (pick.options.length !== want.length || want.some(([v], i) => pick.options[i].value !== v)) {
      const was = pick.value;
      pick.replaceChildren(...want.map(([v, label]) => { const o = el("option", "", label); o.value = v; return o; }));
      if (want.some(([v]) => v === was)) pick.value = was;
    }
    const bal = t.balance;
    const lines = [bal.players + " players at " + bal.running + " tables (sizes within " + bal.within + ")"];
    if (bal.breaks_next) lines.push((bal.break_now ? "BREAK NOW: " : "breaks next: ") + bal.breaks_next);
    for (const m of bal.moves) lines.push("move " + m.players + " from " + m.from + " to " + m.to);
    if (!bal.moves.length && !bal.break_now) lines.push("balanced");
    b.balance.replaceChildren(...lines.map((l, i) => el("p", i === 0 ? "" : "balance-line", l)));
  }

  async function read() {
    try {
      const r = await fetch("/api/tournaments", { credentials: "same-origin", cache: "no-store" });
      if (r.status === 401) { location.href = "/login"; return; }
      const out = await r.json();
      if (!out.tournaments.length && !boxes.size) {
        document.getElementById("tournaments").replaceChildren(
          el("p", "", "No tournament in the floor's configuration ([floor.tournaments.NAME], docs/floor.md)."));
      }
      out.tournaments.forEach(show);
    } catch (e) { /* the service away: read again */ }
  }
  read();
  setInterval(read, 1000);
})();
