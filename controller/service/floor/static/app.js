// The floor's page: one WebSocket brings the room (tiles, alerts) as this user's role may see it;
// the only change it makes is Acknowledge, a POST with the session's CSRF token. Text is set with
// textContent only (a table's message never becomes markup).
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const role = document.querySelector('meta[name="role"]').content;
  const alerts = new Map();
  let muted = false;
  let audio = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function key(room, table) { return room + "/" + table; }
  // An alert is named by its table, its seq and its table's journal (epoch): a journal that
  // starts over numbers its messages from 1 again, and both journals' alerts stay.
  function alertKey(a) {
    return key(a.room, a.table) + "#" + a.seq + (a.epoch && a.epoch !== "0" ? "@" + a.epoch : "");
  }
  function when(ts) { return ts ? new Date(ts * 1000).toLocaleTimeString() : ""; }

  // Each tile and each alert is one element, replaced alone when it changes: a room of a
  // hundred tables re-renders one tile per message, not the whole room.
  const MAX_ALERTS = 200;
  const tileEls = new Map();
  const alertEls = new Map();

  function tileElement(t) {
    const d = el("div", "tile");
    d.dataset.table = key(t.room, t.table);
    const devices = t.devices || {};
    const down = Object.keys(devices).filter((k) => !devices[k]);
    if (!t.online) d.classList.add("offline");
    else if (down.length) d.classList.add("device-down");
    d.append(el("h3", "", t.table + (t.room ? " · " + t.room : "")));
    if (t.open_alerts) d.append(el("span", "badge", t.open_alerts));
    const dl = el("dl");
    const row = (k, v) => { if (v !== undefined && v !== null) { dl.append(el("dt", "", k), el("dd", "", v)); } };
    row("status", t.online ? "online" : "OFFLINE");
    row("game", t.game);
    row("hand", t.hand);
    row("stub", t.stub_count);
    row("deck", t.deck_in_play);
    row("dealer", t.dealer);
    row("relief", t.dealer_next);
    if (t.devices) row("devices", Object.keys(devices).map((k) => k + (devices[k] ? " ok" : " DOWN")).join(", "));
    if (t.chain_breaks) row("chain", "BROKEN (" + t.chain_breaks + ")");
    if (t.suspects) row("refused", t.suspects + " message(s) the table had no right to send");
    if (t.started_over) row("journal", "started over" + (t.started_over > 1 ? " (" + t.started_over + " times)" : ""));
    d.append(dl);
    if (role === "floor") {
      const b = el("button", "manage", "Seats / decks");
      b.addEventListener("click", () => manage(t));
      d.append(b);
    }
    return d;
  }

  function putTile(t) {
    const box = document.getElementById("tiles");
    const k = key(t.room, t.table);
    const d = tileElement(t);
    const old = tileEls.get(k);
    tileEls.set(k, d);
    if (old) { old.replaceWith(d); return; }
    const after = [...tileEls.keys()].filter((o) => o > k && o !== k).sort()[0];
    box.insertBefore(d, after ? tileEls.get(after) : null);
  }

  function waited(seconds) {
    const s = Math.max(0, Math.round(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  // A floor call (the dealer's floor pad): the table and how long it has waited, until answered.
  function callElement(a, fresh) {
    const li = el("li", "alert call" + (a.acked_by ? " acked" : "") + (fresh ? " flash" : ""));
    li.dataset.alert = alertKey(a);
    li.append(el("span", "where", a.table + " calls the floor"));
    if (a.acked_by) {
      li.append(el("span", "acked-by", "answered by " + a.acked_by + " after " + waited(a.acked_at - a.ts)));
    } else {
      const w = el("span", "waiting", "waiting " + waited(Date.now() / 1000 - a.ts));
      w.dataset.since = String(a.ts);
      li.append(w);
      if (ackState(li, a)) {
        // (an answer in flight)
      } else if (role === "floor") {
        const b = el("button", "ack", "Answer");
        b.addEventListener("click", () => acknowledge(a, b));
        li.append(b);
      }
    }
    return li;
  }
  setInterval(() => {
    document.querySelectorAll("#calls .waiting").forEach((w) => {
      w.textContent = "waiting " + waited(Date.now() / 1000 - Number(w.dataset.since));
    });
  }, 1000);

  // An acknowledgement in flight: the alert's id -> the command's state, as the service says it
  // (sent, queued: table offline, failed with its reason and a Retry, refused).
  const acking = new Map();
  const ackOf = new Map();  // command id -> the alert's id
  // Every command state the service told of, by id: an answer can come over the WebSocket before
  // the POST that sent the command has returned its id (a busy machine), and is then taken up.
  const replies = new Map();
  function ackState(li, a) {
    const id = alertKey(a);
    const c = acking.get(id);
    if (!c || a.acked_by) return false;
    const s = el("span", "cmd-status " + c.status, c.status === "sent" ? "sent, waiting for the table"
      : (c.reason || c.status));
    li.append(s);
    if (c.status === "failed" || c.status === "refused" || c.status === "queued") {
      const b = el("button", "retry", "Retry");
      b.addEventListener("click", () => retry(c.id, b));
      li.append(b);
    }
    return true;
  }

  function alertElement(a, fresh) {
    if (a.code === "floor.call") return callElement(a, fresh);
    const li = el("li", "alert" + (a.acked_by ? " acked" : "") + (fresh ? " flash" : ""));
    li.dataset.alert = alertKey(a);
    li.append(el("span", "where", a.table + (a.seat ? " seat " + a.seat : "") + " · " + (a.rule || a.code)));
    li.append(el("span", "time", when(a.ts)));
    if (a.card) li.append(el("span", "card", a.card));
    li.append(el("span", "meaning", (a.meaning || "") + (a.message ? ": " + a.message : "")));
    li.append(el("span", "code", a.code + (a.dealer ? " · dealer " + a.dealer : "")));
    if (a.acked_by) {
      li.append(el("span", "acked-by", "acknowledged by " + a.acked_by + " at " + when(a.acked_at)));
    } else if (ackState(li, a)) {
      // (an acknowledgement in flight: its state instead of the button)
    } else if (role === "floor") {
      const b = el("button", "ack", "Acknowledge");
      b.addEventListener("click", () => acknowledge(a, b));
      li.append(b);
    }
    return li;
  }

  function newer(a, b) { return (a.ts - b.ts) || (a.seq - b.seq); }

  function putAlert(a, fresh) {
    const box = document.getElementById(a.code === "floor.call" ? "calls" : "alerts");
    const id = alertKey(a);
    alerts.set(id, a);
    const li = alertElement(a, fresh);
    const old = alertEls.get(id);
    alertEls.set(id, li);
    if (old) { old.replaceWith(li); return; }
    let before = null;  // newest first: before the first item older than this one
    for (const item of box.children) {
      const other = alerts.get(item.dataset.alert);
      if (other && newer(a, other) > 0) { before = item; break; }
    }
    box.insertBefore(li, before);
    while (box.children.length > MAX_ALERTS) {
      const last = box.lastElementChild;
      alertEls.delete(last.dataset.alert);
      alerts.delete(last.dataset.alert);
      last.remove();
    }
  }

  async function post(url, body) {
    const r = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
    });
    let out = {};
    try { out = await r.json(); } catch (e) { out = { error: "no answer from the floor service" }; }
    return [r.ok, out];
  }

  async function acknowledge(a, button) {
    button.disabled = true;
    button.textContent = "sending";
    const [ok, out] = await post("/api/ack", { room: a.room, table: a.table, seq: a.seq, epoch: a.epoch || "0" });
    if (!ok) { button.textContent = "refused: " + (out.error || ""); return; }
    if (out.here) return;  // (an earlier journal's alert, acknowledged at the floor: its update comes)
    const id = alertKey(a);
    acking.set(id, { id: out.id, status: "sent" });
    ackOf.set(out.id, id);
    const shown = alerts.get(id);
    if (shown) putAlert(shown, false);
    if (replies.has(out.id)) answered(replies.get(out.id));
  }

  async function retry(cmdId, button) {
    button.disabled = true;
    const [ok, out] = await post("/api/retry", { id: cmdId });
    if (!ok) { button.textContent = "refused: " + (out.error || ""); return; }
    const alertId = ackOf.get(cmdId);
    if (alertId) {
      acking.set(alertId, { id: out.id, status: "sent" });
      ackOf.set(out.id, alertId);
      const shown = alerts.get(alertId);
      if (shown) putAlert(shown, false);
    } else if (cmdId === waiting) {
      waiting = out.id;
      const status = document.getElementById("cmd-status");
      status.textContent = "sent again, waiting for the table's answer";
      status.className = "cmd-status sent";
    }
    if (replies.has(out.id)) answered(replies.get(out.id));
  }

  // Seat changes and the deck-pair exchange: sent over the table's cmd, confirmed by its reply.
  let managed = null;
  let waiting = null;
  function manage(t) {
    managed = t;
    document.getElementById("manage-title").textContent = "Table " + t.table;
    document.getElementById("cmd-status").textContent = "";
    document.getElementById("manage").showModal();
  }
  async function send(body) {
    const status = document.getElementById("cmd-status");
    status.textContent = "sending";
    document.querySelectorAll("#manage .retry").forEach((b) => b.remove());
    const [ok, out] = await post("/api/cmd", Object.assign({ room: managed.room, table: managed.table }, body));
    if (!ok) { status.textContent = "refused: " + out.error; return; }
    waiting = out.id;
    status.textContent = "sent, waiting for the table's answer";
    status.className = "cmd-status sent";
    if (replies.has(out.id)) answered(replies.get(out.id));
  }
  function answered(c) {
    const alertId = ackOf.get(c.id);
    if (alertId) {  // an acknowledgement's state; once confirmed, the alert itself says who
      acking.set(alertId, c);
      const shown = alerts.get(alertId);
      if (shown) putAlert(shown, false);
      return;
    }
    if (c.id !== waiting) return;
    const status = document.getElementById("cmd-status");
    status.textContent = c.status === "confirmed" ? "confirmed by the table" : (c.reason || c.status);
    status.className = "cmd-status " + (c.status === "confirmed" ? "ok" : c.status);
    document.querySelectorAll("#manage .retry").forEach((b) => b.remove());
    if (c.status === "failed" || c.status === "refused" || c.status === "queued") {
      const b = el("button", "retry", "Retry");
      b.addEventListener("click", () => retry(c.id, b));
      status.after(b);
    }
  }
  document.getElementById("dealer-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    send({ cmd: "dealer", name: String(f.get("name")), at_relief: f.get("at_relief") !== null });
  });
  document.getElementById("setup-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const body = { cmd: "setup", seats: String(f.get("seats")).split(/[ ,]+/).filter(Boolean).map(Number) };
    if (f.get("button")) body.button = Number(f.get("button"));
    send(body);
  });
  document.getElementById("decks-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const deck = (n) => ({ id: String(f.get("id" + n)), back: String(f.get("back" + n)),
                           manifest: String(f.get("manifest" + n)) });
    send({ cmd: "decks", in_play: String(f.get("in_play")), decks: [deck(1), deck(2)] });
  });
  document.getElementById("manage-close").addEventListener("click", () => document.getElementById("manage").close());

  function beep() {
    if (muted) return;
    try {
      audio = audio || new AudioContext();
      const o = audio.createOscillator();
      o.frequency.value = 880;
      o.connect(audio.destination);
      o.start();
      o.stop(audio.currentTime + 0.2);
    } catch (e) { /* no sound on this device */ }
  }

  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    const link = document.getElementById("link");
    ws.onopen = () => { link.textContent = "live"; link.className = "link up"; };
    ws.onclose = () => {
      link.textContent = "reconnecting"; link.className = "link down";
      setTimeout(connect, 2000);
    };
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === "snapshot") {
        alerts.clear(); tileEls.clear(); alertEls.clear();
        document.getElementById("tiles").replaceChildren();
        document.getElementById("alerts").replaceChildren();
        document.getElementById("calls").replaceChildren();
        m.tiles.forEach((t) => putTile(t));
        m.alerts.forEach((a) => putAlert(a, false));
      } else if (m.type === "tile") {
        putTile(m.tile);
      } else if (m.type === "reply") {
        replies.set(m.command.id, m.command);
        answered(m.command);
      } else if (m.type === "alert") {
        const fresh = !alerts.has(alertKey(m.alert));
        putAlert(m.alert, fresh);
        if (fresh) beep();
      }
    };
  }

  document.getElementById("mute").addEventListener("click", (ev) => {
    muted = !muted;
    ev.target.textContent = muted ? "Sound off" : "Sound on";
    ev.target.setAttribute("aria-pressed", String(muted));
  });
  document.getElementById("logout").addEventListener("click", async () => {
    await fetch("/logout", { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": csrf } });
    location.href = "/login";
  });
  if (role === "viewer") document.getElementById("alerts-section").hidden = true;
  if (role !== "floor") document.getElementById("nav-hands").remove();
  connect();
})();
