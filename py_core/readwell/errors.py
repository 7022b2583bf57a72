"""The one documented error type: bad input or bad usage. Everything else is a bug."""


class InputError(ValueError):
    """Unreadable input (missing file, failed fetch, undecodable source) or invalid options."""
