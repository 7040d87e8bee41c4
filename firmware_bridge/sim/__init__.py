"""The simulated table: physical model, software MCU on a pty, fault injection."""
