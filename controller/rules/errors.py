"""The one error type of the rules engine: bad input, said in plain words."""


class RulesError(ValueError):
    """Input the rules engine cannot work with: bad notation, an impossible hand, bad data."""


class NotationError(RulesError):
    """A tile string that does not parse; `position` is the 1-based character where it fails."""

    def __init__(self, message: str, text: str, position: int) -> None:
        self.text = text
        self.position = position
        super().__init__(message)
