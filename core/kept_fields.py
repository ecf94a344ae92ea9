"""A speed shortcut that leans on DRF internals, kept in this one module.

A DRF serializer deep-copies its declared fields for every instance (`Serializer.fields`
-> `get_fields()` -> `copy.deepcopy(_declared_fields)`), which was most of a small
request serializer's cost. KeptFieldsSerializer makes them once per thread and lends
them to each new instance by re-pointing `BindingDict.serializer` and every field's
`parent`. core/tests/test_framework_internals.py fails when the DRF code this relies on
changes (and checks that a kept serializer validates exactly as a plain one).
"""

import threading

from django.utils.functional import cached_property
from rest_framework import serializers


class KeptFieldsSerializer(serializers.Serializer):
    """A request serializer whose fields are made once per thread and lent to each new
    instance, instead of deep-copied for every request (most of a small serializer's
    cost). For bodies and queries validated once and dropped: a newer instance of the
    same class in the same thread takes the fields over."""

    _kept = threading.local()

    @cached_property
    def fields(self):
        kept = self._kept.__dict__.setdefault("by_class", {})
        fields = kept.get(type(self))
        if fields is None:
            fields = kept[type(self)] = super().fields
        else:
            fields.serializer = self
            for field in fields.values():
                field.parent = self
        return fields
