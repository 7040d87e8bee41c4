"""The MQTT contract the table daemon and the venue recorder share: payload types, topics,
signatures, the wall commitment and the JSON Schemas generated from them."""
