# The bridge protocol's frames, the board's side: lines of ASCII, each with its sequence number
# and its CRC (docs/protocols/bridge.md). Pure: no pin, no port. MicroPython and CPython alike.
#
#   >>> encode("HB", 0x19, ("12", "7"))
#   b'HB 0019 12 7 *B290\r\n'
#   >>> parse(b"RUN 0004 *4FF7")
#   ('RUN', 4, [])

VERSION = "1.0"
MAX_LINE = 2048


def _table():
    # CRC16-CCITT, reflected (0x8408), as Klipper and the FEIG reader compute it
    t = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        t.append(crc)
    return t


_TABLE = _table()


def crc16(data, crc=0xFFFF):
    # every byte of the line before its '*'
    t = _TABLE
    for b in data:
        crc = (crc >> 8) ^ t[(crc ^ b) & 0xFF]
    return crc


class FrameError(Exception):
    # a line that is not a frame: its reason is a NAK's REASON ("crc", "syntax")
    def __init__(self, reason):
        Exception.__init__(self, reason)
        self.reason = reason


def encode(kind, seq, fields=()):
    # the whole line, CR LF included, as bytes
    body = kind + " " + ("%04X" % (seq & 0xFFFF))
    for f in fields:
        body += " " + f
    body = (body + " ").encode()
    return body + ("*%04X\r\n" % crc16(body)).encode()


def _hex_digits(data, n):
    # n upper-case hex digits (bytes), else None
    if len(data) != n:
        return None
    value = 0
    for b in data:
        if 0x30 <= b <= 0x39:
            value = value * 16 + b - 0x30
        elif 0x41 <= b <= 0x46:
            value = value * 16 + b - 0x37
        else:
            return None
    return value


def parse(line):
    # one line without its LF (a CR before it dropped): (KIND, SEQ, [FIELD...]), or FrameError
    if len(line) > MAX_LINE:
        raise FrameError("syntax")
    if line[-1:] == b"\r":
        line = line[:-1]
    star = line.rfind(b" *")
    if star < 0:
        raise FrameError("syntax")
    given = _hex_digits(line[star + 2:], 4)
    if given is None or crc16(line[:star + 1]) != given:
        raise FrameError("crc")
    for b in line[:star]:
        if b < 0x20 or b > 0x7E or b == 0x2A:
            raise FrameError("syntax")
    parts = line[:star].decode().split(" ")
    if len(parts) < 2 or "" in parts:
        raise FrameError("syntax")
    kind = parts[0]
    seq = _hex_digits(parts[1].encode(), 4)
    if not 2 <= len(kind) <= 5 or not kind.isalpha() or kind.upper() != kind or seq is None:
        raise FrameError("syntax")
    return kind, seq, parts[2:]


class Lines:
    # bytes in, whole lines out (without LF); a line that grows past MAX_LINE is dropped up to
    # its LF, and counted
    def __init__(self):
        self.buf = b""
        self.dropping = False
        self.dropped = 0

    def feed(self, data):
        out = []
        self.buf += data
        while True:
            i = self.buf.find(b"\n")
            if i < 0:
                if len(self.buf) > MAX_LINE:
                    self.buf = b""
                    if not self.dropping:
                        self.dropped += 1
                    self.dropping = True
                return out
            line = self.buf[:i]
            self.buf = self.buf[i + 1:]
            if self.dropping or len(line) > MAX_LINE:
                if not self.dropping:
                    self.dropped += 1
                self.dropping = False
                continue
            out.append(line)
