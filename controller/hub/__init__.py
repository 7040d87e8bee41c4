"""The venue hub link: what the table daemon and the venue hub share, and the table's end.

- `contract/`: the MQTT contract both programs share (envelopes, events, results, commands,
  topics, signing, the wall commitment, the JSON Schemas).
- `mqtt/`: plumbing both use (the MQTT session port and aiomqtt adapter, reconnect, timing,
  input refusals, change signals).
- `table_side/`: the daemon's end. `wiring.build_hub_link(config, control)` gives a
  `hub_link.HubLink`; open its outbox (`link.outbox.open`, on the disk thread), then run
  `await link.run()` as a task; `table_report.HubSink` is the table's
  results sink on top of it and `runner_control.RunnerControl` carries out hub commands.

The venue's end (recorder, store, dashboard, tournaments) is its own program, `controller.venue`.
"""
