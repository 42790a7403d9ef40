"""The type of data that stays untyped JSON: params.yaml's values (checked by params.Params, then read as a dict) and
the stages' JSON reports read back or being built."""

from typing import Any

JSON = dict[str, Any]
