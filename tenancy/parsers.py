"""The JSON parser every API uses: DRF's, plus a clear 400 for input it cannot parse safely.

Python's json module recurses per nesting level, so a body of a few thousand `[` raises
RecursionError, which DRF's JSONParser does not catch (a 500). Such a body is malformed input.
"""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None
