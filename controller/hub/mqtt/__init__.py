"""Plumbing both hub programs use: the MQTT session port and its aiomqtt adapter, the reconnect
loop, link timing, input refusals and change signals."""
