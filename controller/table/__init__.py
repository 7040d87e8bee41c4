"""The hand cycle state machine, the referee and the session; hardware only through ports."""
