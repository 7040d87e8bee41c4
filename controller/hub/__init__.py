"""The MQTT contract, the durable outbox, the publisher, hub commands and the venue recorder."""
