"""The MQTT contract, the durable outbox, the publisher, hub commands and the venue recorder.

What the daemon uses: `wiring.build_hub_link(config, control)` gives a `link.HubLink`; run
`await link.run()` as a task; at hand start publish `events.HandStarted` with the commitment of
`result.WallReveal.seal(wall)`; at hand end `link.record_result(HandResult(...))` (durable on
return); `link.publish_event(...)` and `link.update_status(TableStatus(...))` as play goes on.
The session layer implements `dispatcher.TableControl` for hub commands.
"""
