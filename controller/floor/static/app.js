// The floor's page: one WebSocket brings the room (tiles, calls, alerts, the dealer's incidents)
// as this user's role may see it; every change is a POST with the session's CSRF token. Text is
// set with textContent only (a table's message never becomes markup).
//
// The board, at a glance (docs/floor.md, "The board"): the floor calls oldest first, each with
// its wait; the open alerts by severity; the tiles sorted by urgency (calls, then the worst
// open alert, then offline, devices down, quiet), each coloured by it; the dealer's incidents in
// their own lane below. A section filter narrows all of it to one pit.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const role = document.querySelector('meta[name="role"]').content;
  const NO_SECTION = "\u0001none";  // the filter's value for the tables in no section
  const MAX_CLOSED = 100;  // acknowledged alerts (and answered calls) kept on the page
  const MAX_INCIDENTS = 100;
  const tiles = new Map();  // "room/table" -> the tile as last told
  const tileEls = new Map();
  const alerts = new Map();  // alertKey -> the alert as last told (calls among them)
  const alertEls = new Map();
  const incidents = new Map();
  const incidentEls = new Map();
  let sections = [];
  let filter = localStorage.getItem("floor.section") || "";
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
  function waited(seconds) {
    const s = Math.max(0, Math.round(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function isCall(a) { return a.code === "floor.call"; }
  // The rule's meaning, then the message (the floor's role): either may be missing (no rule, or
  // one the catalogue does not know), and then the other stands alone, with no stray ": ".
  function said(a) { return [a.meaning, a.message].filter(Boolean).join(": "); }
  // How urgent an alert is: the service says (floor/rules.py's SEVERITY), the page only sorts.
  function severity(a) { return a.severity || 1; }
  function tableOf(x) { return tiles.get(key(x.room, x.table)); }
  function offline(x) { const t = tableOf(x); return !!t && t.online === false; }
  function sectionOf(x) { const t = tableOf(x); return t && t.section ? t.section : null; }
  function shown(x) {
    if (!filter) return true;
    const s = sectionOf(x);
    return filter === NO_SECTION ? s === null : s === filter;
  }
  // "t7 · seat 4 · hand 12": where it happened, as a floor person walks to it
  function where(x) {
    return x.table + (x.seat ? " · seat " + x.seat : "") + (x.hand !== null && x.hand !== undefined ? " · hand " + x.hand : "");
  }

  // -- what changed, rendered together: a burst of frames (the service sends at most one
  // batch every 250 ms, an alert within 50 ms) costs one pass over the board
  const dirtyTiles = new Set();
  const dirtyAlerts = new Map();  // id -> whether it is new (it flashes, once)
  const dirtyIncidents = new Map();
  let renderDue = false;
  function later() {
    if (renderDue) return;
    renderDue = true;
    setTimeout(render, 0);
  }

  // -- tiles ---------------------------------------------------------------------------------
  function devicesDown(t) {
    const d = t.devices || {};
    return Object.keys(d).filter((k) => !d[k]);
  }
  // The tile's place on the board: calls first, then the worst open alert, then offline, then a
  // device down, then the quiet tables by name.
  // When the table's oldest open call was made (Infinity: none): the longest wait leads.
  const oldestCall = new Map();
  function callSince(t) { return oldestCall.get(key(t.room, t.table)) ?? Infinity; }
  function urgency(t) {
    if (t.open_calls) return 0;
    if (t.severity >= 3) return 1;
    if (t.online === false) return 2;
    if (t.severity === 2 || devicesDown(t).length) return 3;
    if (t.open_alerts) return 4;
    return 5;
  }
  // names with their numbers as numbers: t1, t2 ... t10, not t1, t10, t11 ... t2
  const byName = new Intl.Collator(undefined, { numeric: true }).compare;
  function tileOrder(a, b) {
    return (urgency(a) - urgency(b)) || (callSince(a) - callSince(b)) || ((b.severity || 0) - (a.severity || 0))
      || ((b.open_alerts || 0) - (a.open_alerts || 0)) || byName(key(a.room, a.table), key(b.room, b.table));
  }

  function seatsElement(t) {
    const taken = new Set((t.seats || []).map(Number));
    const most = Math.max(9, ...taken, Number(t.button) || 0);
    const ol = el("ol", "seats");
    ol.setAttribute("aria-label", "seats");
    for (let s = 1; s <= most; s++) {
      const li = el("li", (taken.has(s) ? "in" : "out") + (t.button === s ? " button" : ""), s);
      li.title = "seat " + s + (taken.has(s) ? "" : " (empty)") + (t.button === s ? ", the button" : "");
      ol.append(li);
    }
    return ol;
  }

  function tileElement(t) {
    const d = el("div", "tile u" + urgency(t));
    d.dataset.table = key(t.room, t.table);
    const down = devicesDown(t);
    if (t.unsigned) d.classList.add("unsigned");  // (the service never shows it online: no key for it)
    if (t.online === false) d.classList.add("offline");
    else if (down.length) d.classList.add("device-down");
    if (t.open_calls) d.classList.add("calling");
    if (t.severity) d.classList.add("sev-" + t.severity);
    const head = el("div", "tile-head");
    head.append(el("h3", "", t.table + (t.room ? " · " + t.room : "")));
    if (t.open_alerts) {
      const b = el("span", "badge", t.open_alerts);
      b.title = t.open_alerts + " open alert(s)";
      head.append(b);
    }
    if (t.open_calls) {
      const b = el("span", "badge call-badge", t.open_calls);
      b.title = t.open_calls + " open floor call(s)";
      head.append(b);
    }
    d.append(head);
    if (t.unsigned) d.append(el("p", "state-line", "UNSIGNED: the floor has no key for this table"));
    else if (t.online === false) d.append(el("p", "state-line", "OFFLINE"));
    d.append(seatsElement(t));
    // the figures in one line; below it only what is wrong or worth a word (a device down, a
    // broken chain, refused messages, a journal started over, the next dealer)
    const facts = [t.game, t.hand !== undefined && t.hand !== null ? "hand " + t.hand : null,
                   t.stub_count !== undefined && t.stub_count !== null ? "stub " + t.stub_count : null,
                   t.deck_in_play ? "deck " + t.deck_in_play : null].filter(Boolean);
    d.append(el("p", "facts", facts.join(" · ")));
    const dl = el("dl");
    const row = (k, v) => { if (v !== undefined && v !== null) { dl.append(el("dt", "", k), el("dd", "", v)); } };
    row("dealer", t.dealer);
    row("relief", t.dealer_next);
    if (down.length) row("devices", down.map((k) => k + " DOWN").join(", "));
    if (t.chain_breaks) row("chain", "BROKEN (" + t.chain_breaks + ")");
    if (t.suspects) row("refused", t.suspects + " message(s) the table had no right to send");
    if (t.started_over) row("journal", "started over" + (t.started_over > 1 ? " (" + t.started_over + " times)" : ""));
    // gaps the table could not fill: how many messages, and why ("12 messages lost: an earlier journal")
    if (Array.isArray(t.lost) && t.lost.length) row("lost", t.lost.map((l) => l.note).join("; "));
    if (t.retired && t.retired.by) row("retired", "by " + t.retired.by + " at " + when(t.retired.at));
    d.append(dl);
    if (role === "floor") {
      if (t.retired) {
        const b = el("button", "restore", "Back on the board");
        b.addEventListener("click", () => retire(t, false, b));
        d.append(b);
      } else {
        const b = el("button", "manage", "Manage");
        b.addEventListener("click", () => manage(t));
        d.append(b);
      }
    }
    return d;
  }

  function renderTiles() {
    for (const k of dirtyTiles) {
      const t = tiles.get(k);
      const d = tileElement(t);
      const old = tileEls.get(k);
      tileEls.set(k, d);
      if (old) old.replaceWith(d);
    }
    oldestCall.clear();
    for (const a of alerts.values()) {
      if (isCall(a) && !a.acked_by) {
        const k = key(a.room, a.table);
        oldestCall.set(k, Math.min(oldestCall.get(k) ?? Infinity, a.ts));
      }
    }
    const board = document.getElementById("tiles");
    const gone = document.getElementById("retired");
    const all = [...tiles.values()].sort(tileOrder);
    let i = 0;
    let j = 0;
    let quiet = 0;
    for (const t of all) {
      const d = tileEls.get(key(t.room, t.table));
      if (d.hidden !== !shown(t)) d.hidden = !shown(t);
      const box = t.retired ? gone : board;
      const at = t.retired ? j++ : i++;
      if (box.children[at] !== d) box.insertBefore(d, box.children[at] || null);
      if (t.retired && !d.hidden) quiet++;
    }
    const strip = document.getElementById("retired-section");
    if (strip.hidden !== (quiet === 0)) strip.hidden = quiet === 0;
    setText("retired-count", String(quiet));
  }
  // (what is already so is not set again: the page is drawn again only where something changed)
  function setText(id, text) {
    const e = document.getElementById(id);
    if (e.textContent !== text) e.textContent = text;
  }

  // -- flashing: a new alert flashes three times (a new incident twice), lit and unlit every half
  // second, every flashing item on one beat: a busy room's flashing costs the page two redraws a
  // second, where a CSS animation would have it drawn again at every frame
  const flashing = new Map();  // element -> {left: half-beats, since: when it was lit}
  let flashBeat = null;
  function flash(e, times) {
    e.classList.add("lit");
    flashing.set(e, { left: times * 2 - 1, since: Date.now() });
    if (flashBeat !== null) return;
    flashBeat = setInterval(() => {
      const now = Date.now();
      for (const [x, f] of flashing) {
        if (f.left <= 0 || !x.isConnected) {  // (done, or replaced by a newer rendering of its alert)
          x.classList.remove("lit");
          flashing.delete(x);
        } else if (now - f.since >= 250) {  // (lit just before the beat: lit until the next one)
          x.classList.toggle("lit");
          f.left--;
        }
      }
      if (!flashing.size) { clearInterval(flashBeat); flashBeat = null; }
    }, 500);
  }

  // -- calls and alerts ------------------------------------------------------------------------
  // An acknowledgement in flight: the alert's id -> the command's state, as the service says it
  // (sent, queued: table offline, failed with its reason and a Retry, refused).
  const acking = new Map();
  const ackOf = new Map();  // command id -> the alert's id
  // Every command state the service told of, by id: an answer can come over the WebSocket before
  // the POST that sent the command has returned its id (a busy machine), and is then taken up.
  const replies = new Map();
  function ackState(li, a) {
    const c = acking.get(alertKey(a));
    if (!c || a.acked_by) return false;
    li.append(el("span", "cmd-status " + c.status, c.status === "sent" ? "sent, waiting for the table" : (c.reason || c.status)));
    if (c.status === "failed" || c.status === "refused" || c.status === "queued") {
      const b = el("button", "retry", "Retry");
      b.addEventListener("click", () => retry(c.id, b));
      li.append(b);
    }
    return true;
  }
  function closedBy(a) {
    if (a.acked_how === "dismissed") return "dismissed by " + a.acked_by + " (table offline)";
    return (isCall(a) ? "answered by " : "acknowledged by ") + a.acked_by;
  }
  // The buttons of an open alert or call: Acknowledge (Answer), and Dismiss while its table is
  // offline (it cannot answer: the floor closes it here, audit-logged).
  function actions(li, a, label) {
    if (ackState(li, a) || role !== "floor") return;
    const b = el("button", "ack", label);
    b.addEventListener("click", () => acknowledge(a, b));
    li.append(b);
    if (offline(a)) {
      const d = el("button", "dismiss", "Dismiss");
      d.title = "the table is offline and cannot answer: close it at the floor";
      d.addEventListener("click", () => dismiss(a, d));
      li.append(d);
    }
  }

  // A floor call (the dealer's floor pad): the table and how long it has waited, until answered.
  // A table offline stops the clock: its call is marked, and can be dismissed.
  function callElement(a, fresh) {
    const li = el("li", "alert call" + (a.acked_by ? " acked" : "") + (fresh ? " flash" : ""));
    if (fresh) flash(li, 3);
    li.dataset.alert = alertKey(a);
    li.append(el("span", "where", a.table + " calls the floor"));
    if (a.acked_by) {
      li.append(el("span", "acked-by", closedBy(a) + " after " + waited(a.acked_at - a.ts)));
    } else if (offline(a)) {
      li.classList.add("offline");
      const t = tableOf(a);
      const stopped = t && t.updated ? t.updated : Date.now() / 1000;
      li.append(el("span", "waited", "table offline · waited " + waited(stopped - a.ts)));
    } else {
      const w = el("span", "waiting", "waiting " + waited(Date.now() / 1000 - a.ts));
      w.dataset.since = String(a.ts);
      li.append(w);
    }
    li.append(el("span", "detail", [where(a).slice(a.table.length + 3) || null, sectionOf(a), when(a.ts)]
      .filter(Boolean).join(" · ")));
    if (!a.acked_by) actions(li, a, "Answer");
    return li;
  }
  setInterval(() => {
    document.querySelectorAll("#calls .waiting").forEach((w) => {
      w.textContent = "waiting " + waited(Date.now() / 1000 - Number(w.dataset.since));
    });
  }, 1000);

  function alertElement(a, fresh) {
    if (isCall(a)) return callElement(a, fresh);
    const li = el("li", "alert sev-" + severity(a) + (a.acked_by ? " acked" : "") + (fresh ? " flash" : ""));
    if (fresh) flash(li, 3);
    li.dataset.alert = alertKey(a);
    li.append(el("span", "where", where(a) + " · " + (a.rule || a.code)));
    li.append(el("span", "time", when(a.ts)));
    if (a.card) li.append(el("span", "card", a.card));
    li.append(el("span", "meaning", said(a)));
    li.append(el("span", "code", a.code + (a.dealer ? " · dealer " + a.dealer : "") + (sectionOf(a) ? " · " + sectionOf(a) : "")));
    if (a.acked_by) {
      li.append(el("span", "acked-by", closedBy(a) + " at " + when(a.acked_at)));
    } else {
      if (offline(a)) {
        li.classList.add("offline");
        li.append(el("span", "offline-mark", "table offline"));
      }
      actions(li, a, "Acknowledge");
    }
    return li;
  }

  // Calls: the open ones oldest first (the longest wait on top), then the answered ones, newest
  // first. Alerts: the open ones by severity, newest first within it, then the closed ones.
  function callOrder(a, b) {
    if (!a.acked_by !== !b.acked_by) return a.acked_by ? 1 : -1;
    return a.acked_by ? (b.ts - a.ts) || (b.seq - a.seq) : (a.ts - b.ts) || (a.seq - b.seq);
  }
  function alertOrder(a, b) {
    if (!a.acked_by !== !b.acked_by) return a.acked_by ? 1 : -1;
    return (a.acked_by ? 0 : severity(b) - severity(a)) || (b.ts - a.ts) || (b.seq - a.seq);
  }

  function place(box, items, order, els) {
    items.sort(order);
    let i = 0;
    for (const x of items) {
      const e = els.get(x.__key);
      e.hidden = !shown(x);
      if (box.children[i] !== e) box.insertBefore(e, box.children[i] || null);
      i++;
    }
  }

  function renderAlerts() {
    for (const [k, fresh] of dirtyAlerts) {
      const a = alerts.get(k);
      if (!a) continue;
      const li = alertElement(a, fresh);
      const old = alertEls.get(k);
      alertEls.set(k, li);
      if (old) old.replaceWith(li);
    }
    // (the closed ones beyond MAX_CLOSED leave the page; an open one never does)
    const closed = [...alerts.values()].filter((a) => a.acked_by).sort((a, b) => b.ts - a.ts);
    for (const a of closed.slice(MAX_CLOSED)) {
      alertEls.get(a.__key).remove();
      alertEls.delete(a.__key);
      alerts.delete(a.__key);
    }
    const all = [...alerts.values()];
    place(document.getElementById("calls"), all.filter(isCall), callOrder, alertEls);
    place(document.getElementById("alerts"), all.filter((a) => !isCall(a)), alertOrder, alertEls);
  }

  // -- the dealer's incidents: misdeals, procedures, devices (the floor's lane; a technician
  // sees the devices' own)
  function incidentElement(i, fresh) {
    const li = el("li", "incident" + (fresh ? " flash" : ""));
    if (fresh) flash(li, 2);
    li.dataset.incident = alertKey(i);
    li.append(el("span", "where", where(i) + " · " + (i.rule || i.code)));
    li.append(el("span", "time", when(i.ts)));
    li.append(el("span", "meaning", said(i)));
    li.append(el("span", "code", i.code + (i.dealer ? " · dealer " + i.dealer : "") + (sectionOf(i) ? " · " + sectionOf(i) : "")));
    return li;
  }
  function renderIncidents() {
    for (const [k, fresh] of dirtyIncidents) {
      const i = incidents.get(k);
      const li = incidentElement(i, fresh);
      const old = incidentEls.get(k);
      incidentEls.set(k, li);
      if (old) old.replaceWith(li);
    }
    const all = [...incidents.values()].sort((a, b) => (b.ts - a.ts) || (b.seq - a.seq));
    for (const i of all.slice(MAX_INCIDENTS)) {
      incidentEls.get(i.__key).remove();
      incidentEls.delete(i.__key);
      incidents.delete(i.__key);
    }
    place(document.getElementById("incidents"), all.slice(0, MAX_INCIDENTS), () => 0, incidentEls);
  }

  // (a viewer receives no call and no alert: "0 calls" would be untrue, so its line has no such count)
  const seesAlerts = role !== "viewer";
  function renderSummary() {
    const open = [...alerts.values()].filter((a) => !a.acked_by && shown(a));
    const calls = open.filter(isCall).length;
    const ts = [...tiles.values()].filter((t) => !t.retired && shown(t));
    // [how many, one, more than one, its class, whether a number above 0 is hot]
    const parts = [...(seesAlerts ? [[calls, "call", "calls", "n-calls", true],
                                     [open.length - calls, "open alert", "open alerts", "n-alerts", true]] : []),
                   [ts.filter((t) => t.online === false).length, "table offline", "tables offline", "n-offline", true],
                   [ts.length, "table", "tables", "n-tables", false]];
    const box = document.getElementById("summary");
    const said = parts.map(([n]) => n).join(" ");
    if (box.dataset.said !== said) {
      box.dataset.said = said;
      box.replaceChildren(...parts.map(([n, one, many, cls, hot]) =>
        el("span", cls + (n && hot ? " hot" : ""), n + " " + (n === 1 ? one : many))));
    }
    setText("calls-count", calls ? "(" + calls + ")" : "");
    setText("incidents-count", "(" + [...incidents.values()].filter(shown).length + ")");
  }

  function renderSections() {
    const pick = document.getElementById("section-filter");
    const none = [...tiles.values()].some((t) => !t.section);
    const want = [["", "All sections"], ...sections.map((s) => [s, s]), ...(none && sections.length ? [[NO_SECTION, "No section"]] : [])];
    if (pick.options.length !== want.length || want.some(([v], i) => pick.options[i].value !== v)) {
      pick.replaceChildren(...want.map(([v, label]) => { const o = el("option", "", label); o.value = v; return o; }));
    }
    if (!want.some(([v]) => v === filter)) filter = "";
    pick.value = filter;
    pick.hidden = sections.length === 0;
  }

  let everything = false;
  function render() {
    renderDue = false;
    if (everything) {  // (the filter or a table's state changed: every item's visibility and marks)
      for (const k of alerts.keys()) if (!dirtyAlerts.has(k)) dirtyAlerts.set(k, false);
      for (const k of incidents.keys()) if (!dirtyIncidents.has(k)) dirtyIncidents.set(k, false);
      everything = false;
    }
    renderSections();
    renderTiles();
    renderAlerts();
    renderIncidents();
    renderSummary();
    dirtyTiles.clear();
    dirtyAlerts.clear();
    dirtyIncidents.clear();
  }

  // A table's state again with nothing on its tile changed (a busy table repeats its state: only
  // when the service received it differs): its tile is not drawn again.
  function sameTile(a, b) {
    const shownOf = (t) => JSON.stringify(Object.assign({}, t, { updated: null }));
    return a.online !== false && b.online !== false && shownOf(a) === shownOf(b);
  }
  // The tile as told; false: nothing on the page changes with it.
  function takeTile(t) {
    const k = key(t.room, t.table);
    const before = tiles.get(k);
    tiles.set(k, t);
    if (before && sameTile(before, t)) return false;
    dirtyTiles.add(k);
    // a table gone offline or back, or moved to another section: its calls' and alerts' marks
    if (!before || before.online !== t.online || before.section !== t.section) {
      for (const [ak, a] of alerts) if (key(a.room, a.table) === k && !dirtyAlerts.has(ak)) dirtyAlerts.set(ak, false);
    }
    return true;
  }
  function takeAlert(a, fresh) {
    a.__key = alertKey(a);
    alerts.set(a.__key, a);
    dirtyAlerts.set(a.__key, fresh || dirtyAlerts.get(a.__key) || false);
  }
  function takeIncident(i, fresh) {
    i.__key = alertKey(i);
    incidents.set(i.__key, i);
    dirtyIncidents.set(i.__key, fresh);
  }

  // -- changes -------------------------------------------------------------------------------
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
  function redraw(id) {
    if (alerts.has(id)) { dirtyAlerts.set(id, dirtyAlerts.get(id) || false); later(); }
  }

  // A command's state as the POST that sent it answers: "sent", or "queued" at once to a table
  // the service knows is offline (the broker keeps it for the table).
  function sentState(out) { return { id: out.id, status: out.status || "sent", reason: out.reason }; }

  async function acknowledge(a, button) {
    button.disabled = true;
    button.textContent = "sending";
    const [ok, out] = await post("/api/ack", { room: a.room, table: a.table, seq: a.seq, epoch: a.epoch || "0" });
    if (!ok) { button.textContent = "refused: " + (out.error || ""); return; }
    if (out.here) return;  // (an earlier journal's alert, acknowledged at the floor: its update comes)
    const id = alertKey(a);
    acking.set(id, sentState(out));
    ackOf.set(out.id, id);
    redraw(id);
    if (replies.has(out.id)) answered(replies.get(out.id));
  }

  async function dismiss(a, button) {
    button.disabled = true;
    const [ok, out] = await post("/api/dismiss", { room: a.room, table: a.table, seq: a.seq, epoch: a.epoch || "0" });
    if (!ok) button.textContent = "refused: " + (out.error || "");
    // (done: the alert comes back closed, "dismissed by ...", on every page)
  }

  async function retire(t, off, button) {
    if (button) button.disabled = true;
    const [ok, out] = await post("/api/retire", { room: t.room, table: t.table, retired: off });
    const status = document.getElementById("cmd-status");
    if (!ok) {
      if (button) button.textContent = "refused: " + (out.error || "");
      else status.textContent = "refused: " + (out.error || "");
      return;
    }
    if (off) document.getElementById("manage").close();
  }

  async function retry(cmdId, button) {
    button.disabled = true;
    const [ok, out] = await post("/api/retry", { id: cmdId });
    if (!ok) { button.textContent = "refused: " + (out.error || ""); return; }
    const alertId = ackOf.get(cmdId);
    if (alertId) {
      acking.set(alertId, sentState(out));
      ackOf.set(out.id, alertId);
      redraw(alertId);
    } else if (cmdId === waiting) {
      waiting = out.id;
      const status = document.getElementById("cmd-status");
      status.textContent = "sent again, waiting for the table's answer";
      status.className = "cmd-status sent";
      if (out.status === "queued") answered(sentState(out));
    }
    if (replies.has(out.id)) answered(replies.get(out.id));
  }

  // Seat changes, the deck-pair exchange, the dealer, retiring the table: from the Manage dialog.
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
    if (out.status === "queued") answered(sentState(out));
    if (replies.has(out.id)) answered(replies.get(out.id));
  }
  function answered(c) {
    const alertId = ackOf.get(c.id);
    if (alertId) {  // an acknowledgement's state; once confirmed, the alert itself says who
      acking.set(alertId, c);
      redraw(alertId);
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
  if (role === "floor") {
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
    document.getElementById("approve-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      send({ cmd: "approve" });  // FLOW-007: the satellite the table waits to start may start
    });
    document.getElementById("retire-send").addEventListener("click", () => retire(managed, true, null));
    document.getElementById("manage-close").addEventListener("click", () => document.getElementById("manage").close());
  }

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
      // (the service sends what changed together as one batch: one render for all of it)
      if (m.type === "batch") m.items.forEach(take);
      else take(m);
    };
    function take(m) {
      if (m.type === "snapshot") {
        tiles.clear(); tileEls.clear(); alerts.clear(); alertEls.clear(); incidents.clear(); incidentEls.clear();
        for (const id of ["tiles", "retired", "alerts", "calls", "incidents"]) document.getElementById(id).replaceChildren();
        sections = m.sections || [];
        m.tiles.forEach((t) => takeTile(t));
        m.alerts.forEach((a) => takeAlert(a, false));
        (m.incidents || []).forEach((i) => takeIncident(i, false));
        render();
      } else if (m.type === "tile") {
        if (takeTile(m.tile)) later();
      } else if (m.type === "reply") {
        replies.set(m.command.id, m.command);
        answered(m.command);
      } else if (m.type === "alert") {
        const fresh = !alerts.has(alertKey(m.alert));
        takeAlert(m.alert, fresh);
        later();
        if (fresh) beep();
      } else if (m.type === "incident") {
        takeIncident(m.incident, !incidents.has(alertKey(m.incident)));
        later();
      }
    }
  }

  document.getElementById("section-filter").addEventListener("change", (ev) => {
    filter = ev.target.value;
    localStorage.setItem("floor.section", filter);
    for (const k of tiles.keys()) dirtyTiles.add(k);
    everything = true;
    later();
  });
  const lane = document.getElementById("incidents-section");
  if (localStorage.getItem("floor.incidents") === "closed") lane.open = false;
  lane.addEventListener("toggle", () => localStorage.setItem("floor.incidents", lane.open ? "open" : "closed"));
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
  if (role !== "floor") document.getElementById("nav-tournament").remove();
  connect();
})();
