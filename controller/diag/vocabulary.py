"""The names the diag command line and the control socket use for the table's parts: light,
so the command line builds its help without loading the table."""

INPUTS = ("dice_button", "declare_e", "declare_s", "declare_w", "declare_n", "estop")
"""The panel's inputs."""
LEDS = ("led_e", "led_s", "led_w", "led_n", "status_red", "status_green", "status_blue")
"""The panel's LEDs."""
COMPONENTS = (
    "shuffler",
    "stacker",
    "lifts",
    "dice",
    "wall_reader",
    "antennas",
    "lid",
    "estop",
    "buttons",
    "leds",
)
"""What `selftest COMPONENT` may name (the values of controller.diag.selftest.Component)."""
