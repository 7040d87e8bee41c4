"""The only code that touches GPIO and serial devices: the control panel and the MCU adapter."""
