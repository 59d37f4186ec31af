// The public clock screen: the tournament's clock read every second from /api/clock/NAME (public:
// no card, no alert, no seat), counted down between reads. Text is set with textContent only.
"use strict";
(function () {
  const name = document.querySelector('meta[name="tournament"]').content;
  let got = null;  // the last answer, and when it came (the page's own monotonic clock)
  let at = 0;

  function clock(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const rest = String(s % 60).padStart(2, "0");
    return h ? h + ":" + String(m).padStart(2, "0") + ":" + rest : m + ":" + rest;
  }
  function chips(n) { return Number(n).toLocaleString("en-US"); }
  function blinds(l) {
    if (!l) return "";
    if (l.kind === "break") return "Break";
    return chips(l.small_blind) + " / " + chips(l.big_blind) + (l.ante ? " · ante " + chips(l.ante) : "");
  }
  const GAMES = { holdem: "Hold'em", omaha: "Omaha", omaha8: "Omaha hi-lo", stud: "Stud", stud8: "Stud hi-lo",
                  razz: "Razz", draw27_single: "2-7 single draw", draw27_triple: "2-7 triple draw",
                  draw_a5_triple: "A-5 triple draw", badugi: "Badugi", badeucy: "Badeucy", badacey: "Badacey",
                  draw5: "Five-card draw", chinese: "Chinese poker" };
  function set(id, text) {
    const e = document.getElementById(id);
    if (e.textContent !== text) e.textContent = text;
  }

  function render() {
    if (!got) return;
    const c = got.clock;
    const l = c.level;
    const gone = c.running ? (performance.now() - at) / 1000 : 0;
    const box = document.querySelector(".clock");
    box.classList.toggle("on-break", l.kind === "break");
    box.classList.toggle("paused", c.started && !c.running);
    set("level", l.kind === "break" ? "Break" : "Level " + l.n + (l.game ? " · " + (GAMES[l.game] || l.game) : ""));
    set("time", clock(c.time_left - gone));
    set("blinds", l.kind === "break" ? "Level " + l.n + " next" : blinds(l));
    const state = !c.started ? "Not started" : !c.running ? "Paused" : got.h4h ? "Hand for hand" : "";
    const st = document.getElementById("state");
    set("state", state);
    st.hidden = state === "";
    set("next", c.next ? (c.next.kind === "break" ? "Break" : blinds(c.next)) : "Last level");
    set("break", c.to_break === null ? "—" : clock(c.to_break - gone));
    set("players", String(got.players));
    set("tables", String(got.tables));
  }

  async function read() {
    try {
      const r = await fetch("/api/clock/" + encodeURIComponent(name), { credentials: "omit", cache: "no-store" });
      if (r.ok) {
        got = await r.json();
        at = performance.now();
        render();
      }
    } catch (e) { /* the service away: the last reading goes on counting */ }
  }
  read();
  setInterval(read, 1000);
  setInterval(render, 200);
})();
