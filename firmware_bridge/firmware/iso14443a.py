# ISO/IEC 14443-3 type A's card selection, for the NTAG213 and MIFARE Ultralight stickers of home
# tables: REQA/WUPA, the bit-oriented anticollision of cascade levels 1 and 2 (a 7-byte UID),
# SELECT, HLTA. Pure: it asks a radio (mfrc522.Mfrc522, or a test's fake) to transceive frames;
# it knows nothing of pins or registers.
#
# A zone's cards are read one at a time: a request wakes the cards in the field, the anticollision
# singles one out bit by bit (at a collision the reader takes the 1 branch and goes on), SELECT
# activates it, HLTA puts it to sleep, and the next request wakes only those still unread. The
# first request of a field is WUPA (it wakes a card left halted too); the next ones are REQA (a
# halted card does not answer it, so each card is read once a cycle).
#
# UIDs are held at their own length, most significant byte first as tablectl writes them: a
# double-size UID is 7 bytes, its manufacturer's byte first (04 for NXP): CL1 carries the cascade
# tag 88 and the UID's bytes 0..2, CL2 its bytes 3..6 (ISO/IEC 14443-3, 6.5.4).

REQA = 0x26
WUPA = 0x52
HLTA = (0x50, 0x00)
SEL = (0x93, 0x95, 0x97)    # cascade levels 1, 2, 3
NVB_SELECT = 0x70           # seven bytes follow: SEL, NVB, four UID bytes, BCC (then CRC_A)
CASCADE_TAG = 0x88
SAK_CASCADE = 0x04          # the UID is not complete: the next cascade level follows

# -- what a transceive gave (the radio's answer's kind)
NONE = 0        # no answer within the timeout
OK = 1          # an answer, every bit clean
COLLISION = 2   # an answer with a collision: at the bit position given
ERROR = 3       # an answer that failed its parity, CRC or framing


class CardError(Exception):
    # a card's frame that cannot be right (a BCC or CRC_A that fails): the card is read again
    pass


def crc_a(data):
    # CRC_A (ISO/IEC 14443-3, annex B): the CCITT polynomial reflected, initial value 0x6363, no
    # final XOR, sent least significant byte first
    #   >>> crc_a(bytes([0x50, 0x00]))  ->  (0x57, 0xCD)
    crc = 0x6363
    for b in data:
        b ^= crc & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return crc & 0xFF, (crc >> 8) & 0xFF


def with_crc(data):
    lo, hi = crc_a(data)
    return bytes(data) + bytes([lo, hi])


def crc_ok(frame):
    if len(frame) < 3:
        return False
    lo, hi = crc_a(frame[:-2])
    return frame[-2] == lo and frame[-1] == hi


def bcc(four):
    return four[0] ^ four[1] ^ four[2] ^ four[3]


def hex_uid(uid):
    # a UID as held (most significant byte first) -> its hex digits, 14 for a 7-byte UID
    out = ""
    for b in uid:
        out += "%02X" % b
    return out


def anticollision(radio, level):
    # Cascade level ``level`` (0, 1, 2): the four UID bytes of one card in the field (its CLn,
    # the cascade tag first if the UID goes on), singled out bit by bit. None when no card
    # answers; CardError for an answer that cannot be right.
    sel = SEL[level]
    known = bytearray(5)  # CLn's four bytes and its BCC, as far as they are known
    bits = 0              # how many of CLn's 32 bits are known
    for _ in range(33):   # (each pass learns at least one bit: at most 32 collisions)
        nbytes = bits // 8
        last = bits % 8
        nvb = ((2 + nbytes) << 4) | last
        frame = bytes([sel, nvb]) + bytes(known[:nbytes + (1 if last else 0)])
        kind, data, coll = radio.transceive(frame, last, last)
        if kind == NONE:
            return None
        if kind == ERROR:
            raise CardError("anticollision")
        # the answer's bits follow the known ones: its first byte shares the partial byte
        if last:
            known[nbytes] = (known[nbytes] & ((1 << last) - 1)) | (data[0] & (0xFF << last) & 0xFF)
            data = data[1:]
            start = nbytes + 1
        else:
            start = nbytes
        for i in range(len(data)):
            if start + i < 5:
                known[start + i] = data[i]
        if kind == OK:
            if bcc(known) != known[4]:
                raise CardError("bcc")
            return bytes(known[:4])
        # a collision at bit position coll (1..32 of CLn): the bits before it are every card's;
        # take the 1 branch there and ask again, so only the cards with a 1 answer
        if coll <= bits or coll > 32:
            raise CardError("collision position")
        bits = coll
        byte = (coll - 1) // 8
        bit = (coll - 1) % 8
        known[byte] = (known[byte] & ((1 << bit) - 1)) | (1 << bit)
    raise CardError("anticollision did not end")


def select(radio, level, cln):
    # SELECT at ``level`` the card whose CLn is ``cln``: its SAK, or CardError
    frame = with_crc(bytes([SEL[level], NVB_SELECT]) + cln + bytes([bcc(cln)]))
    kind, data, _ = radio.transceive(frame, 0, 0)
    if kind != OK or len(data) != 3 or not crc_ok(data):
        raise CardError("select")
    return data[0]


def read_card(radio, request):
    # One card of the field: the request (REQA or WUPA), the cascade, HLTA. Its UID (4, 7 or 10
    # bytes, most significant first), or None when no card answers the request.
    kind, data, _ = radio.transceive(bytes([request]), 7, 0)  # a short frame: seven bits
    if kind == NONE:
        return None
    # (several cards answer ATQA at once: their bits may collide, and it says only that a card
    # is there)
    uid = b""
    for level in range(3):
        cln = anticollision(radio, level)
        if cln is None:
            # a card answered the request and is silent now: at the field's edge, or taken
            # away; read again (the next request tells which)
            raise CardError("silent")
        sak = select(radio, level, cln)
        if sak & SAK_CASCADE:
            if cln[0] != CASCADE_TAG:
                raise CardError("cascade tag")
            uid += cln[1:]
        else:
            uid += cln
            radio.transceive(with_crc(bytes(HLTA)), 0, 0)  # no answer: the card is halted
            return uid
    raise CardError("cascade")


def inventory(radio, max_cards, max_errors):
    # ([uid, ...], complete): every card of the field, each read once and halted. A card whose
    # frame failed (a CRC, a BCC, a collision the chip did not place) is not halted, so the
    # next REQA wakes it again: read again, up to max_errors times a cycle. complete is False
    # when max_cards or max_errors ran out with cards still answering.
    found = []
    errors = 0
    request = WUPA
    while True:
        if len(found) >= max_cards:
            # one more request: a card still answering makes the zone incomplete
            kind, _, _ = radio.transceive(bytes([REQA]), 7, 0)
            return found, kind == NONE
        try:
            uid = read_card(radio, request)
        except CardError:
            errors += 1
            if errors > max_errors:
                return found, False
            # a card left ready or active by the failed frame answers no request (ISO/IEC
            # 14443-3's state machine: it drops to idle on the next frame, silent): the field off
            # and on again puts every card back to idle, the halted ones too (read again, once)
            radio.recover()
            request = REQA
            continue
        if uid is None:
            return found, True
        if uid not in found:
            found.append(uid)
        request = REQA
