"""The room link (issue 13, docs/room.md): the table as a client of the card room's MQTT broker.

- :mod:`.topics`: which topic each effect goes to, and what it carries (never a UID);
- :mod:`.outbox`: the journal's outbox tables, per-topic sequence numbers, the hands' hash chain;
- :mod:`.link`: the paho-mqtt client that publishes the outbox in order and records the acks;
- :mod:`.bounds`: what a table takes as a request (the control socket, its ``cmd``), and its bounds,
  which the floor checks its commands with before it sends them.
"""
