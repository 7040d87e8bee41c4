"""Plumbing both hub programs use: the MQTT session port and its aiomqtt adapter, the reconnect
loop, link timing, and the durable SQLite opener."""
