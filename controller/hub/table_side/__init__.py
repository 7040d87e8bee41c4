"""The table daemon's side of the hub: the hub link, its durable outbox and writer thread, the
command dispatcher, and the wiring from the table's config."""
