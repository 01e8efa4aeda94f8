"""Restructurings between two Lux forms that a source format does not tell apart.

A Lux -> Y converter reports Degraded when it writes a Lux value in another form that comes back
to Lux as the other form: a ``tool_result`` item written as a block of a user message
(Anthropic), a ``tool_use`` block written as an item (Responses). Against Lux that is true. But
composed X -> Lux -> Y, when X writes both Lux forms the same way (a Chat tool message is what
both a tool_result item and a block become), Y read back as X gives back what X said: the
restructuring is Exact (docs/semantics.md, "Exact"), and ``lucent._convert._compose`` leaves it
out. A converter marks such a report with :func:`restructured`, only where the form it writes
comes back in place (a tool result block first in its message, a tool call last).

Forms (a Lux distinction, by name):

* ``tool_result_place``: a tool result as a conversation item or as a block of a message;
* ``tool_call_place``: a tool call as a conversation item or as a block of a message;
* ``holder_role``: the role of a message that held only tool calls and results (written as
  the calls and results alone);
* ``system_place``: the system text as Lux ``instructions`` or as one leading system message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lucent._conversion import Cx

__all__ = ["FORM_OF", "forms_alike", "restructured"]

def forms_alike(source: str) -> frozenset[str]:
    """The forms a document of format ``source`` writes the same way (its registry entry's
    ``forms_alike``: Chat tool messages for both tool result forms, tool_calls of an assistant
    message for both tool call forms, a leading system message for both system forms; Anthropic
    blocks; Responses items (its ``instructions`` and system messages differ); Gemini parts, and
    ``systemInstruction`` for both system forms)."""
    from lucent.formats import FORMATS

    found = FORMATS.get(source)
    return found.forms_alike if found is not None else frozenset()


FORM_OF: dict[str, str] = {}
"""A restructuring's detail -> its form (filled by :func:`restructured`)."""


def restructured(cx: Cx, path: str, form: str, detail: str) -> None:
    """Report a Degraded restructuring between the two Lux forms ``form`` names, which comes
    back in place when the source format does not tell them apart."""
    FORM_OF.setdefault(detail, form)
    cx.report(path, "Degraded", detail)
