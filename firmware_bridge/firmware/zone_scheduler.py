# The zone scheduler: the board's side of the protocol (docs/protocols/bridge.md). Cycle after
# cycle (running) or one cycle per CYCLE request (stopped), each zone in turn, its field alone
# on; a full snapshot of every zone per cycle; errors by code, the chips reset after a chip that
# stopped answering, the other zones read in the same cycle; a heartbeat every second; the
# host's commands between cycles. Pure: the zones, the output, the clock and the reset are
# handed to it (main.py builds them on the Pico; the tests on a simulated board).

import bridge_frames
import iso15693
import pn5180


class Scheduler:
    def __init__(self, zones, out, clock, boot, cfg, reset_chips):
        # zones: the zone drivers, zone 1 first (pn5180.Pn5180); out(bytes): the USB port;
        # clock: ticks_ms / ticks_diff (MicroPython's time); boot: 32 bits drawn at power-up
        self.zones = zones
        self.out = out
        self.clock = clock
        self.boot = boot
        self.cfg = cfg
        self.reset_chips = reset_chips
        self.seq = 0
        self.running = True
        self.cycles = 0
        self.lines = bridge_frames.Lines()
        self.wanted = 0  # cycles asked for by CYCLE while stopped
        self.started = clock.ticks_ms()
        self.last_hb = self.started

    # -- frames --------------------------------------------------------------------------------
    def send(self, kind, fields=()):
        self.out(bridge_frames.encode(kind, self.seq, fields))
        self.seq = (self.seq + 1) & 0xFFFF

    def hello(self, hseq):
        self.send("HELLO", (hseq, bridge_frames.VERSION, self.cfg.IDENT, "%08X" % self.boot,
                            str(len(self.zones))))
        for i in range(len(self.zones)):
            z = self.zones[i]
            self.send("ZONE", (str(i + 1), z.chip, z.air, str(z.capacity), z.signal))

    def start(self):
        # at power-up: the chips reset (they may hold anything), then the unasked HELLO, the
        # board's frame 0000
        self.reset(said=False)
        self.hello("-")

    def reset(self, said=True):
        # the shared reset: every chip is initialised again before it is next read
        self.reset_chips()
        for z in self.zones:
            z.ready = False
        if said:
            self.send("ERR", ("0", pn5180.E_RESET[0], pn5180.E_RESET[1]))

    # -- the host's commands --------------------------------------------------------------------
    def feed(self, data):
        # bytes from the host; every whole line is acted on now (between cycles)
        if not data:
            return
        for line in self.lines.feed(data):
            self.command(line)

    def command(self, line):
        if not line.strip(b" \r"):
            return
        try:
            kind, seq, fields = bridge_frames.parse(line)
        except bridge_frames.FrameError as exc:
            self.send("NAK", ("-", exc.reason))
            return
        hseq = "%04X" % seq
        if kind == "HELLO":
            self.hello(hseq)
        elif kind == "STOP":
            self.running = False
            self.wanted = 0
            self.send("OK", (hseq, kind))
        elif kind == "RUN":
            self.running = True
            self.send("OK", (hseq, kind))
        elif kind == "CYCLE":
            if self.running:
                self.send("NAK", (hseq, "running"))
            else:
                self.wanted += 1
                self.send("OK", (hseq, kind))
        else:
            self.send("NAK", (hseq, "unknown"))

    # -- the loop's step -------------------------------------------------------------------------
    def step(self):
        # one turn of main.py's loop: a heartbeat if due, then a cycle if one is to be read
        self.heartbeat()
        if self.running or self.wanted:
            if self.wanted:
                self.wanted -= 1
            self.cycle()
            self.heartbeat()

    def heartbeat(self):
        now = self.clock.ticks_ms()
        if self.clock.ticks_diff(now, self.last_hb) >= self.cfg.HEARTBEAT_MS:
            self.last_hb = now
            up = self.clock.ticks_diff(now, self.started) // 1000
            self.send("HB", (str(up), str(self.cycles)))

    def cycle(self):
        # one full snapshot: CYCLE, each zone's TAGS (its ERR before it), END
        self.cycles += 1
        n = str(self.cycles)
        began = self.clock.ticks_ms()
        self.send("CYCLE", (n, str(len(self.zones))))
        for i in range(len(self.zones)):
            self.read_zone(i + 1, self.zones[i])
        self.send("END", (n, str(self.clock.ticks_diff(self.clock.ticks_ms(), began))))

    def read_zone(self, number, zone):
        try:
            uids, complete = zone.read_zone(iso15693.inventory)
        except pn5180.ChipError as exc:
            self.send("ERR", (str(number), exc.code, exc.name))
            self.send("TAGS", (str(number), exc.code, "0"))
            if exc.reset:
                self.reset()  # every chip shares the reset: the next zones start afresh
            return
        # (a UID's digits are its air interface's: an MFRC522 zone's are its own, 14 for 7 bytes)
        hexify = getattr(zone, "hex_uid", iso15693.hex_uid)
        tags = [hexify(u) for u in uids]
        if complete:
            state = "OK"
        else:
            state = pn5180.E_INCOMPLETE[0]
            self.send("ERR", (str(number), state, pn5180.E_INCOMPLETE[1]))
        self.send("TAGS", [str(number), state, str(len(tags))] + tags)
