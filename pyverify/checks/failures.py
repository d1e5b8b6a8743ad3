"""A failure of the user's code while a check runs (a plugin function, a bound callable): an ``error``
verdict of that claim, never a crash of pyverify."""

from __future__ import annotations

import functools
from typing import Any, Callable


class PluginFailure(Exception):
    """A plugin function raised while a check ran: an ``error`` verdict of the claim, never a crash.
    Deliberately not a RuntimeError: the falsifier tolerates RuntimeErrors of single instances."""


def guarded(name: str, plugin: Any, fn: Callable) -> Callable:
    """The implementation, its exceptions turned into PluginFailure — except vmap's own refusal, which
    the engine answers by evaluating instance by instance. ``plugin`` is the words naming the code's
    origin, or a loaded plugin whose name is read when a call fails (a module declares ``PYVERIFY_PLUGIN``
    anywhere in its body, after its registrations too)."""

    def origin() -> str:
        return plugin if isinstance(plugin, str) else f"plugin {plugin.name}"

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RuntimeError as exc:
            if "vmap" in str(exc) or "Batching rule" in str(exc):
                raise
            raise PluginFailure(f"plugin function {name} ({origin()}) failed: {type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - whatever the user's code raises is that claim's error
            raise PluginFailure(f"plugin function {name} ({origin()}) failed: {type(exc).__name__}: {exc}") from exc

    return call
