"""The Pi <-> table MCU wire: pure codec, the reliable link, and the simulated table."""
