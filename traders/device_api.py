"""The device API (traders.md §20): a trader's phone forwards its bank notifications
and says it is alive. Authenticated by `X-Device-Token`."""

import math
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import HasPrincipal, KeptFieldsSerializer, ok
from core.fields import StrictCharField, TrimmedTextField
from core.formats import iso_utc
from core.money import money_str
from core.schema import NOT_BLANK_PATTERN
from core.throttling import ApiKeyRateThrottle

from .device_auth import DeviceTokenAuthentication
from .devices import device_seen
from .models import BankNotification, Direction
from .notifications import notification_receive

MAX_TEXT = 4000
STATUSES = ["matched", "unmatched", "ambiguous", "ignored", "duplicate"]


class DeviceAPIView(APIView):
    authentication_classes = [DeviceTokenAuthentication]
    permission_classes = [HasPrincipal]
    throttle_classes = [ApiKeyRateThrottle]

    @property
    def device(self):
        return self.request.user.device


# An integer id (Android numbers its notifications) is kept as its decimal text.
ID_RANGE = (-(2**63), 2**63 - 1)


@extend_schema_field(
    {
        "anyOf": [
            {"type": "string", "minLength": 1, "maxLength": 128, "pattern": NOT_BLANK_PATTERN},
            {"type": "integer", "minimum": ID_RANGE[0], "maximum": ID_RANGE[1]},
        ],
        "description": "The device's own id of the notification (unique per device): text "
        "(trimmed; blank is 400) or a 64-bit integer, kept as its decimal text.",
    }
)
class NotificationIdField(TrimmedTextField):
    def __init__(self, **kwargs):
        super().__init__(max_length=128, **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, float | Decimal) and math.isfinite(data) and data == int(data):
            data = int(data)  # 12.0 is the integer 12, as JSON Schema reads it
        if isinstance(data, int) and not isinstance(data, bool):
            if not ID_RANGE[0] <= data <= ID_RANGE[1]:
                raise serializers.ValidationError("An integer id must fit in 64 bits")
            data = str(data)
        if not isinstance(data, str):
            raise serializers.ValidationError("Expected text or an integer")
        return super().to_internal_value(data)


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": NOT_BLANK_PATTERN}
)
class NotificationTextField(StrictCharField):
    """The notification's text, kept as the phone shows it (not trimmed); blank is 400."""

    def __init__(self, **kwargs):
        super().__init__(max_length=MAX_TEXT, trim_whitespace=False, **kwargs)


class NotificationIn(KeptFieldsSerializer):
    """Each text a JSON string (a number is 400, as the schema says); the id text or
    an integer."""

    id = NotificationIdField()
    source = TrimmedTextField(
        strict=True, max_length=255, help_text="The sending app's package, or the SMS sender"
    )
    received_at = serializers.DateTimeField(
        help_text="When the phone received it (ISO 8601). A time more than "
        "DEVICE_CLOCK_SKEW_SECONDS ahead (a phone's wrong clock) is taken as the time "
        "the service received it."
    )
    title = StrictCharField(
        max_length=255, allow_blank=True, allow_null=True, required=False, default=""
    )
    text = NotificationTextField()

    def validate_text(self, value):
        if not value.strip():
            raise serializers.ValidationError("The notification's text is empty")
        return value

    def validate_received_at(self, value):
        """A phone's clock a little fast is believed; one further ahead is wrong, and the
        notification is kept (and matched) all the same, received now: refusing it would
        lose the payment it reports."""
        now = timezone.now()
        if value > now + timedelta(seconds=settings.DEVICE_CLOCK_SKEW_SECONDS):
            return now
        return value


Parsed = inline_serializer(
    "NotificationParsed",
    {
        "amount": serializers.CharField(allow_null=True, help_text="Money, two decimals"),
        "direction": serializers.ChoiceField(choices=Direction.choices, allow_null=True),
        "bank": serializers.CharField(allow_null=True, help_text="The bank's nspk_code"),
    },
)
NotificationEnvelope = inline_serializer(
    "DeviceNotificationResponse",
    {
        "success": serializers.BooleanField(),
        "message": serializers.CharField(),
        "notification": inline_serializer(
            "DeviceNotification",
            {
                "id": serializers.CharField(help_text="The device's id of the notification"),
                "status": serializers.ChoiceField(choices=[(s, s) for s in STATUSES]),
                "parsed": Parsed,
                "order_id": serializers.CharField(allow_null=True),
            },
        ),
    },
)
HeartbeatEnvelope = inline_serializer(
    "DeviceHeartbeatResponse",
    {
        "success": serializers.BooleanField(),
        "message": serializers.CharField(),
        "device": inline_serializer(
            "DeviceState",
            {
                "id": serializers.CharField(),
                "name": serializers.CharField(),
                "last_seen_at": serializers.DateTimeField(),
            },
        ),
    },
)


def render_notification(notification: BankNotification, *, status: str, order_id) -> dict:
    return {
        "id": notification.external_id,
        "status": status,
        "parsed": {
            "amount": None if notification.amount is None else money_str(notification.amount),
            "direction": notification.direction,
            "bank": notification.bank,
        },
        "order_id": None if order_id is None else str(order_id),
    }


class NotificationView(DeviceAPIView):
    @extend_schema(
        operation_id="device_notification_send",
        request=NotificationIn,
        responses=NotificationEnvelope,
        description="Forward one bank notification (push or SMS). The service reads the "
        "amount, direction and bank, and completes the one Pending Buy on the device's "
        "requisites with exactly that amount (`matched`); `unmatched` when none has it, "
        "`ambiguous` when more than one has it, `ignored` when it is no incoming payment, "
        "`duplicate` when this device sent the same `id` before (the first answer's "
        "order, nothing done again). Every notification is kept.",
    )
    def post(self, request):
        body = NotificationIn(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        device = device_seen(device=self.device)
        received = notification_receive(
            device=device,
            external_id=data["id"],
            source=data["source"],
            title=data.get("title") or "",
            text=data["text"],
            received_at=data["received_at"],
        )
        status = "duplicate" if received.duplicate else received.notification.status
        shown = render_notification(
            received.notification, status=status, order_id=received.order_id
        )
        return Response(ok(notification=shown))


class HeartbeatView(DeviceAPIView):
    @extend_schema(
        operation_id="device_heartbeat",
        request=None,
        responses=HeartbeatEnvelope,
        description="The device is alive. A device silent for longer than "
        "DEVICE_OFFLINE_AFTER_SECONDS (default 300) is shown offline.",
    )
    def post(self, request):
        device = device_seen(device=self.device, always=True)
        return Response(
            ok(
                device={
                    "id": str(device.pk),
                    "name": device.name,
                    "last_seen_at": iso_utc(device.last_seen_at),
                }
            )
        )


class DeviceTokenScheme(OpenApiAuthenticationExtension):
    target_class = "traders.device_auth.DeviceTokenAuthentication"
    name = "DeviceToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-Device-Token",
            "description": "A trader's device token (`dev_…`), shown once when the device is added",
        }
