// The hands page (the floor's role only): search the room's hand records, open one.
// Text is set with textContent only.
"use strict";
(function () {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function when(ts) { return ts ? new Date(ts * 1000).toLocaleString() : ""; }

  // The search as last submitted (Previous / Next page through it, whatever is typed since), the
  // page shown (its offset and size, as the server answered) and the request last sent: an answer
  // to an older one, come late, is dropped.
  let query = new URLSearchParams();
  let page = { offset: 0, limit: 50, total: 0 };
  let asked = 0;

  function search(ev) {
    if (ev) ev.preventDefault();
    query = new URLSearchParams();
    new FormData(document.getElementById("search")).forEach((v, k) => { if (v) query.set(k, String(v)); });
    return show(0);
  }

  async function show(offset) {
    const params = new URLSearchParams(query);
    if (offset > 0) params.set("offset", String(offset));
    const mine = ++asked;
    const r = await fetch("/api/hands?" + params.toString(), { credentials: "same-origin" });
    const body = await r.json();
    if (mine !== asked) return;
    document.getElementById("error").textContent = r.ok ? "" : body.error;
    const hands = r.ok ? body.hands : [];
    page = r.ok ? { offset: body.offset, limit: body.limit, total: body.total } : { offset: 0, limit: 50, total: 0 };
    document.getElementById("hands-count").textContent = !r.ok ? ""
      : (page.total === 1 ? "1 hand" : page.total + " hands")
        + (hands.length && hands.length < page.total
          ? " (" + (page.offset + 1) + "–" + (page.offset + hands.length) + " shown)" : "");
    document.getElementById("hands-prev").disabled = !r.ok || page.offset <= 0;
    document.getElementById("hands-next").disabled = !r.ok || page.offset + hands.length >= page.total;
    const tbody = document.querySelector("#results tbody");
    tbody.replaceChildren();
    hands.forEach((h) => {
      const tr = el("tr", "hand-row");
      tr.dataset.hand = h.room + "/" + h.table + "#" + h.seq + (h.epoch && h.epoch !== "0" ? "@" + h.epoch : "");
      tr.append(el("td", "", h.table), el("td", "", h.hand), el("td", "", when(h.ts)), el("td", "", h.game),
                el("td", "", h.stub_count), el("td", "", h.dealer), el("td", "", h.alerts.join(", ")));
      tr.addEventListener("click", () => open(h));
      tbody.append(tr);
    });
  }

  async function open(h) {
    const q = new URLSearchParams({ room: h.room, table: h.table, seq: String(h.seq), epoch: h.epoch || "0" });
    const r = await fetch("/api/hand?" + q.toString(), { credentials: "same-origin" });
    const body = await r.json();
    const box = document.getElementById("hand");
    box.replaceChildren();
    box.hidden = false;
    if (!r.ok) { box.append(el("p", "error", body.error)); return; }
    const rec = body.record || {};
    box.append(el("h2", "", body.table + " hand " + body.hand + " · " + (rec.game || "")));
    const dl = el("dl", "facts");
    const row = (k, v) => { if (v !== undefined && v !== null && v !== "") dl.append(el("dt", "", k), el("dd", "", v)); };
    row("finished", when(body.ts));
    row("seats", (rec.seats || []).join(", "));
    row("button", rec.button);
    row("dealer", body.dealer);
    row("down", rec.down);
    row("stub count", rec.stub_count);
    row("deck", rec.deck);
    row("hand chain", body.chain_problems.length ? "BROKEN: " + body.chain_problems.join("; ") : "intact");
    box.append(dl);
    const zones = el("table", "zones");
    Object.keys(rec.zones || {}).sort().forEach((z) => {
      const tr = el("tr", "zone");
      tr.dataset.zone = z;
      tr.append(el("th", "", z), el("td", "", (rec.zones[z] || []).join(" ")));
      zones.append(tr);
    });
    box.append(zones);
    if (rec.showdown) box.append(showdown(rec.showdown));
    const alerts = el("ol", "hand-alerts");
    // each alert and prompt with when it came in the hand (seconds after its first card)
    const at = (x) => (typeof x.ts === "number" && typeof rec.started === "number")
      ? "+" + (x.ts - rec.started).toFixed(1) + " s" : null;
    (rec.alerts || []).forEach((a) => {
      alerts.append(el("li", "", [at(a), a.rule, a.code, a.seat ? "seat " + a.seat : null, a.message]
        .filter(Boolean).join(" · ")));
    });
    (rec.prompts || []).forEach((p) => {
      alerts.append(el("li", "prompt", [at(p), p.rule, p.code, p.message].filter(Boolean).join(" · ")));
    });
    box.append(alerts);
  }

  // The showdown as the table read it (docs/deal-script.md, "The showdown"): each seat's hand in
  // the dealer's words, and what it won.
  function showdown(sd) {
    const t = el("table", "showdown");
    const cap = el("caption", "", "showdown");
    t.append(cap);
    const split = Array.isArray(sd.low);
    const lows = sd.low_hands || {};
    (sd.seats || []).forEach((seat) => {
      const s = String(seat);
      const won = [];
      if ((sd.high || []).includes(seat)) won.push(split ? "wins high" : "wins");
      if (split && sd.low.includes(seat)) won.push("wins low");
      const dead = (sd.dead || {})[s];
      const words = dead !== undefined ? "dead hand (" + dead + " cards)"
        : [sd.hands[s], lows[s] && lows[s] + " low"].filter(Boolean).join(" / ") || "not read";
      const tr = el("tr", "showdown-seat");
      tr.dataset.seat = s;
      tr.append(el("th", "", "seat " + s), el("td", "", words), el("td", "", won.join(", ")));
      t.append(tr);
    });
    // a board run more than once (BOARD-011): each run's board and its winners (the rows above: the first run's)
    (sd.runs || []).forEach((run, i) => {
      const hands = run.hands || {};
      const won = (run.high || []).map((w) => "seat " + w + " (" + (hands[String(w)] || "?") + ")");
      if (Array.isArray(run.low) && run.low.length) won.push("low: seat " + run.low.join(", "));
      const tr = el("tr", "showdown-run");
      tr.append(el("th", "", "run " + (i + 1)), el("td", "", (run.board || []).join(" ")),
                el("td", "", "wins: " + won.join(", ")));
      t.append(tr);
    });
    return t;
  }

  document.getElementById("search").addEventListener("submit", search);
  document.getElementById("hands-prev").addEventListener("click", () => show(Math.max(0, page.offset - page.limit)));
  document.getElementById("hands-next").addEventListener("click", () => show(page.offset + page.limit));
  search();
})();
