# ISO 15693's anticollision over 16 slots, with mask splitting and Stay Quiet: every tag of a
# stack found, not only the first. Pure: it asks a radio (pn5180.Pn5180, or a test's fake) for
# rounds and quiets; it knows nothing of pins or registers.
#
# A round asks every tag whose UID's low mask_len bits equal the mask to answer in the slot that
# the UID's next four bits name. A slot with one clean answer gives a tag; a slot with a
# collision, or with an answer that failed its CRC (a collision the chip did not see, or a weak
# tag), is read again in a round of its own with the mask four bits longer: only the tags of
# that slot answer then, spread over sixteen slots by their next four bits. Every tag read is
# told to Stay Quiet after its round, so it answers no later round until the field goes off:
# the deeper rounds hear only the tags still unread. Once no slot is left to read again, a zone
# that found tags reads one confirming round at mask 0 (config CONFIRM_ROUND): a tag that a
# stronger one hid in a slot that looked clean answers then, every other being quiet.

SILENT = 0
ONE = 1
COLLISION = 2
ERROR = 3
UID_BITS = 64


def hex_uid(uid):
    # a UID as sent (least significant byte first) -> 16 hex digits, most significant first
    out = ""
    for i in range(len(uid) - 1, -1, -1):
        out += "%02X" % uid[i]
    return out


def inventory(radio, max_rounds, confirm):
    # ([uid bytes, least significant first], complete): complete is False when max_rounds ran
    # out with slots still to read
    found = []
    seen = {}
    todo = [(0, 0)]
    rounds = 0
    confirmed = not confirm
    while True:
        if not todo:
            if confirmed or not found:
                return found, True
            confirmed = True
            todo.append((0, 0))
        if rounds >= max_rounds:
            return found, False
        mask_len, mask = todo.pop()
        rounds += 1
        new = []
        for slot, kind, uid in radio.round(mask_len, mask):
            if kind == ONE:
                key = bytes(uid)
                if key not in seen:
                    seen[key] = True
                    found.append(key)
                    new.append(key)
            elif mask_len + 4 <= UID_BITS - 4:
                # (at 60 bits, two tags of one slot would share a UID: nothing left to split)
                todo.append((mask_len + 4, mask | (slot << mask_len)))
        for key in new:
            radio.stay_quiet(key)
        if new and confirmed and confirm:
            confirmed = False  # a confirming round found more: read until one finds nothing
