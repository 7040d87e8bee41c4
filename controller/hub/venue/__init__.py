"""The venue recorder program: it verifies, stores and acks results, watches for gaps, audits
walls, and exports standings."""
