"""The venue hub link, in four layers named for the program each belongs to.

- `contract/`: the MQTT contract both programs share (envelopes, events, results, commands,
  topics, signing, the wall commitment, the JSON Schemas).
- `mqtt/`: plumbing both use (the MQTT session port and aiomqtt adapter, reconnect, timing,
  input refusals, change signals, the durable SQLite opener).
- `table_side/`: the daemon's end. `wiring.build_hub_link(config, control)` gives a
  `hub_link.HubLink`; run `await link.run()` as a task; `table_report.HubSink` is the table's
  results sink on top of it and `runner_control.RunnerControl` carries out hub commands.
- `venue/`: the recorder program (`program.open_recorder`), its store, gap watch, export, keys
  and the request/reply command client.
"""
